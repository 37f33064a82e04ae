/**
 * trsm defaults for any architecture: a leaf of up to 32, 64 vectors per block, splits at
 * multiples of 16. The leaf size was measured on an H100 (2026-11-26, left/lower/N/non-unit, B
 * n x n, ~0.5 GB per call, median of 5): forcing leaves of 16 / 32 / 64 gave, in ms,
 *   float64 n = 64: 2.35 / 1.90 / 3.18, 128: 3.63 / 3.09 / 4.01, 256: 3.17 / 2.93 / 4.11, 512: 3.87 / 3.71 / 4.59;
 *   float32 n = 64: 1.44 / 1.02 / 1.35, 128: 1.89 / 1.45 / 1.68, 256: 2.20 / 1.81 / 2.02, 512: 2.77 / 2.34 / 2.51.
 * 32 wins everywhere: the leaf solves on CUDA cores with two shared loads per FMA (64-leaves
 * alone took 3.1 ms of the 4.6 at n = 512), while leaves of 16 add a level of thin GEMM updates.
 */
import type { TrsmTuning } from './trsm-types.js';

export const defaultTrsmTuning: TrsmTuning = {
  leafMax: { float64: 32, float32: 32 },
  vectorsMax: 64,
  blockThreads: 256,
  sharedTarget: 48 * 1024,
  splitAlign: 16,
  // Inverted diagonal blocks: chosen by launch counts, not swept (re-measure with
  // scripts/probe/potrf-blocked.mjs and `myriad bench trsm` at t = 256 ... 2048, one matrix and
  // batches; inside the recursive potrf they measured 2.649 / 6.367 / 14.235 ms at n = 1024 / 2048 /
  // 4096 against 2.419 / 6.233 / 15.538 without, H100, 2026-11-26). From 512 the recursion's
  // substitution leaves (64 launches of a thread per vector at t = 2048, 3 TFLOP/s on an H100) cost
  // more than one batched trtri of 256-blocks (a chain of ~35 small launches, once per call) and
  // a GEMM with k = 256 per block; 1 GiB bounds the workspace of large batches.
  invertFrom: { float64: 512, float32: 512 },
  invertBlock: 256,
  invertMaxBytes: 1 << 30,
  // The chained substitution (side left, few columns), H100, one float64 matrix, ms, lower N / T
  // (scripts/probe/trsm-few.mjs, 2026-11-26; inverted blocks, recursion, cuBLAS trsmBatched of one):
  //   m = 1024, n = 1: 0.27 / 0.17 (1.78 / 1.24, 3.49 / 3.50, 0.70 / 0.68); n = 64: 0.21 / 0.21 (0.96 / 1.02, 1.22 / 1.28, 0.53)
  //   m = 4096, n = 1: 0.32 / 0.32 (1.60 / 1.63, 15.9, 2.7); n = 16: 0.74 / 0.76 (1.62 / 1.65); n = 64: 0.97 / 1.00 (1.65 / 1.72)
  //   m = 16384, n = 1: 1.17 / 1.18 (4.41 / 4.55, 63.5, 11.9); n = 16: 2.85 / 2.91 (4.51 / 4.70); n = 64: 7.23 / 7.36 (4.62 / 4.94)
  // so up to 2^18 elements of B (16384 x 16, 4096 x 64). From m = 512: a guess (not measured below 1024
  // here; sm_90's table has bands measured in batches).
  chain: { float64: [{ maxRhs: 64, from: 512 }], float32: [{ maxRhs: 64, from: 512 }] },
  chainMaxElements: 1 << 18,
  // H200 (132 SMs), 2026-12-01, `COUNT=2048 MYRIAD_QUICK_FIRST=0 node scripts/probe/trsm-chain-batched.mjs
  // 128,256,512 1,4,16`, ms, the slower of N and T, chain / recursion: float64 256 1-16 columns
  // 0.77-1.68 / 0.46-0.69, 512 2.52-6.06 / 1.19-1.84; float32 512 16 2.60 / 1.40 (1 column: 1.19 / 1.35).
  // At the sweep's counts (8 or fewer matrices an SM, sm_90's bands) the chain was ahead, and the
  // solves with one column, potrs and getrs float64 at 128-256 x 4096 (31 an SM), behind the substitution.
  // One bound for both precisions gives something up: float32 with one column was still ahead on the
  // chain at 2,048 (128-512: 0.15-1.19 against 0.24-1.35 ms), where cuBLAS, faster than both from
  // 192, takes it (the H200's vendor table); a bound per band would need those counts measured.
  chainMaxPerSm: 8,
};

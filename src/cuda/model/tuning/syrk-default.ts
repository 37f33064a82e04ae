/**
 * syrk and lauum defaults for any architecture (syrk's triangleFrom and tile bands measured, the rest not yet swept). syrk: diagonal blocks of up to 64
 * in the leaf (a 64 x 64 tile: 16 x 16 threads of 4 x 4 accumulators), op(A) staged 32 columns at
 * a time (64 x 32 float64 = 16 KiB), splits at multiples of 16. lauum: triangles of up to 64 in
 * the register leaf, its triangle packed in shared memory (t (t + 1) / 2 elements: 64 float64 = 16 KiB),
 * 4 x 4 accumulators a thread to 16 (float32 32) and 8 x 8 above, pipelined there. Measured on an
 * H200 (2026-11-30, `MYRIAD_QUICK_FIRST=0 [DTYPE=float32] node scripts/probe/lauum-leaf.mjs`, lower,
 * the bench's counts, entries of order 1 / n), ms, two runs on two cards (the same forms' times
 * differed by 5% at the median, up to 17% in float64 and 46% in float32, 8 x 8 at 32-48; the
 * second's below): the shared-memory leaf (leaves to 32), the register leaf
 * with a square triangle, plain / pipelined, and packed, plain / pipelined, against cuBLAS's full
 * product L^T L:
 *   float64 16 0.777, 0.385 (reg 4) / 0.411, 0.340 / 0.436; 32 0.663, 0.373 / 0.382 (reg 8), 0.399
 *           / 0.362 (reg 8); 48 0.810, 0.482 (reg 8) / 0.368, 0.705 / 0.392; 64 0.931, 0.441 / 0.482,
 *           0.467 / 0.393; 128 0.770, 0.539 / 0.525, 0.562 / 0.478; 256 0.889, 0.782 / 0.759, 0.794 /
 *           0.737; cuBLAS 0.982, 0.381, 0.373, 0.308, 0.403, 0.646;
 *   float32 32 1.076, 0.580 / 0.630 (reg 8), 0.517 / 0.625; 48 1.083, 0.717 (reg 4) / 0.587, 0.726
 *           / 0.593; 64 1.153, 0.650 / 0.602, 0.691 / 0.565; 128 1.005, 0.769 / 0.717, 0.769 / 0.703;
 *           cuBLAS 0.545, 0.819, 0.605, 0.866.
 * The pipelined form's cp.async copies keep loads in flight while the products run, and the packed
 * triangle doubles the matrices an SM holds: both pay where a matrix's products take long (64), not at
 * 16 (float64) or 32 (float32), where the plain packed form is the fastest.
 */
import type { LauumTuning, SyrkTuning } from './syrk-types.js';

export const defaultSyrkTuning: SyrkTuning = {
  leafMax: { float64: 64, float32: 64 },
  chunk: { float64: 32, float32: 32 },
  blockThreads: 256,
  splitAlign: 16,
  // Measured on an H100 (2026-11-26): one matrix, float64, k = n: the recursion took 4.39 ms at
  // n = 2048 and 1.14 ms at 1024, one GEMM over the triangle 0.33 and 0.09 ms. Batches of 64 MiB
  // (lower, N, k = n, beta 0), recursion / triangle ms: float64 n = 32 0.71 / 0.58, 48 1.00 / 0.71,
  // 64 0.63 / 0.44, 96 1.18 / 0.69, 128 0.86 / 0.59, 192 1.46 / 0.52, 256 1.07 / 0.64; float32
  // 32 0.72 / 0.59, 64 0.74 / 0.64, 128 0.99 / 0.90, 256 1.40 / 1.27. Below 32 the leaf is one launch.
  triangleFrom: { float64: 32, float32: 32 },
  // The tile design (generate-tiles.ts: C's triangle in one launch of register tiles, every load of
  // a k-step issued before use). Its shapes, from byte and register counts (nvcc 13.0, sm_90, no
  // spills): n <= 16 one 16 x 16 tile of 8 x 8 threads (2 x 2 accumulators; 48-56 registers, 4
  // blocks of 4 matrices an SM); above, 32 x 32 tiles of 8 x 8 threads (4 x 4 accumulators, 4
  // matrices a block): float64 k-steps of 16 (118-127 registers capped at 128: two blocks an SM;
  // steps of 32 took 162-164 and one block), float32 steps of 32 (73-80 registers, three blocks).
  // Taken up to 32: on an H200 (2026-11-30, `MYRIAD_QUICK_FIRST=0 node scripts/probe/syrk-small.mjs`,
  // the bench's counts, lower, N, k = n) tiles / the leaf and triangle GEMM ms: float64 16 0.429 /
  // 1.014, 24 0.548 / 0.847, 32 0.343 / 0.395, 48 0.632 / 0.486, 64 0.474 / 0.352; float32 16 0.527
  // / 1.490, 24 0.737 / 1.208, 32 0.454 / 0.513.
  // float32 from 33 by bands, the same card and probe (2026-11-30, every shape forced: `... syrk-small.mjs
  // 36,40,...,128 float32 4200 32x4k32,32x4k16b2,64x8k16` and more), best tile shape / the triangle GEMM
  // ms: 36 1.400 (32x4 k16 b2) / 1.460, 40 1.142 / 1.278, 44 0.958 / 1.083, 48 0.813 / 0.802 (off);
  // 52 0.865 (32x4 k32) / 1.068, 56 0.731 / 0.890, 60 0.664 / 0.816, 64 0.587 / 0.637; 72 1.156 (k16 b2)
  // / 1.952, 80 0.939 / 1.553; 88 0.950 (k32) / 1.571, 96 0.767 / 1.250; 104 1.179 (64x8 k16) / 1.162,
  // 112 1.006 / 1.075, 120 0.997 / 1.001, 128 0.883 / 0.890 (not taken). float64's tiles (CUDA cores) lost
  // to the triangle GEMM (tensor cores) at every order from 40 to 128 with every shape tried (1.2-1.8x its time).
  tilesUpTo: { float64: 32, float32: 96 },
  tiles: {
    float64: [{ upTo: 16, tile: 16, reg: 2, chunk: 16, minBlocks: 0 }, { upTo: 128, tile: 32, reg: 4, chunk: 16, minBlocks: 2 }],
    float32: [
      { upTo: 16, tile: 16, reg: 2, chunk: 16, minBlocks: 0 }, { upTo: 32, tile: 32, reg: 4, chunk: 32, minBlocks: 0 },
      { upTo: 44, tile: 32, reg: 4, chunk: 16, minBlocks: 2 }, { upTo: 48, off: true },
      { upTo: 64, tile: 32, reg: 4, chunk: 32, minBlocks: 0 }, { upTo: 80, tile: 32, reg: 4, chunk: 16, minBlocks: 2 },
      { upTo: 96, tile: 32, reg: 4, chunk: 32, minBlocks: 0 },
    ],
  },
};

export const defaultLauumTuning: LauumTuning = {
  leafMax: { float64: 64, float32: 64 },
  blockThreads: 256,
  sharedTarget: 48 * 1024,
  splitAlign: 16,
  registerLeaf: {
    float64: [{ upTo: 16, reg: 4, packed: true }, { upTo: 64, reg: 8, pipelined: true, packed: true }],
    float32: [{ upTo: 32, reg: 4, packed: true }, { upTo: 64, reg: 8, pipelined: true, packed: true }],
  },
};

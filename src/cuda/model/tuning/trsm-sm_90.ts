/**
 * trsm's sm_90 overrides: trmm side left as one launch of the gemm family's product with a
 * triangular op(A) (kernels/trsm/plan.ts trmmProductTakes), float64 on the tensor cores, float32 on
 * the CUDA cores. Measured on an NVIDIA H200, 2026-11-30, `MYRIAD_QUICK_FIRST=0 [DTYPE=float32]
 * [TRANS=T] node scripts/probe/trmm-product.mjs` (left, lower, non-unit, B square, the bench's
 * counts: 2^26 elements of B, median of 7 after 2 warm-ups), ms; the default route of the time is
 * the recursion with its leaves. float64 (the mma kernel):
 *   op(A) = A:   order 32 0.460 (32 x 32 x 16 tiles) against 0.686; 48 0.585 (32 x 64) / 1.357; 64 0.419
 *                (32 x 64) / 1.104; 96 0.528 (32 x 64; 32 x 32 0.517) / 1.370; 128 0.507 (64 x 64 x 16 w2x2
 *                s4) / 1.392; 192 0.621 / 1.744; 256 0.743 / 1.952; 384 1.035 / 2.480; 512 1.317 / 2.603;
 *   op(A) = A^T: 64 0.421 (32 x 64) / 1.083; 128 0.531 (64 x 64 x 16 w2x2 s4) / 1.501; 256 0.714 / 2.360;
 *                512 1.160 / 3.409.
 * At 128-512 with op(A) = A, the gemm plan's shape (64 x 64 x 16 w4x2 s3 to 160, 64 x 64 x 8 s4
 * above) was 0-6% faster than 64 x 64 x 16 w2x2 s4 and 13-47% slower with A^T (128 0.781 against
 * 0.531, 512 1.315 against 1.160): one shape serves both.
 * cuBLAS's dense product of the same operands took 0.432-1.323 ms. The threshold of panels was not
 * swept: the probe's counts (1,024-65,536 panels of 64) took it everywhere.
 * float32 (the tiled kernel, tm x tn accumulators a thread), best tiles against the recursion:
 *   op(A) = A:   32 0.574-0.614 (32 x 32 x 16 t4x4) / 0.898-1.060; 48 0.765 (48 x 48 x 16 t4x4; 32 x 32
 *                0.906) / 1.533; 64 0.616 (32 x 32) / 1.450; 96 0.753 (32 x 32) / 2.696; 128 0.862 (32 x
 *                64; 32 x 32 0.875) / 2.117; 192 1.135 (64 x 64 x 16 t8x8) / 3.617; 256 1.406 / 2.738;
 *                384 1.926 / 4.113; 512 2.402 / 3.748;
 *   op(A) = A^T: 32 0.589 (32 x 32) / 0.963; 48 0.744 (32 x 64; 32 x 32 0.766) / 1.516; 64 0.652 (64 x
 *                64 t8x8; 32 x 32 0.677) / 1.423; 96 0.798 (32 x 32) / 2.205; 128 0.823 (64 x 128 x 8
 *                t8x8) / 2.166; 192 1.082 (64 x 64 t8x8; 64 x 128 1.328) / 3.235; 256 1.287 (64 x 128;
 *                64 x 64 1.347) / 2.770; 512 2.214 (128 x 128 x 8, which spills in some variants; 64 x
 *                64 2.352) / 3.888.
 * cuBLAS's sgemmStridedBatched of the same operands: 0.592-2.855 ms.
 */
import type { MmaBand, TiledBand } from './gemm-types.js';
import type { TrsmTuning } from './trsm-types.js';

// A second sweep (the same card, 2026-11-30, `SHAPES=32x32x16w2x2s3,32x64x16w2x2s3,64x64x16w2x2s4,32x32x8w2x2s4,
// 32x64x8w2x2s4,64x64x8w2x2s4,32x32x8w2x2s6,16x16x8w1x1s4,32x32x16w2x2s4,64x64x8w2x2s6 [TRANS=T] node
// scripts/probe/trmm-product.mjs 32,48,64,96,128,192,256`), best shape / the bands above, ms:
//   op(A) = A:   32 0.500 (32 x 32 x 16 s4) / 0.539; 48 0.495 (16 x 16 x 8, one warp, s4) / 0.642; 64 0.436
//                (32 x 64 x 16 s3, the band) / 0.453; 96 0.503 (32 x 32 x 16 s4) / 0.584; 128 0.520 (32 x 64 x 16
//                s3) / 0.584; 192 0.632 (64 x 64 x 8 s6; 64 x 64 x 16 s4 0.661) / 0.673; 256 0.789 / 0.795;
//   op(A) = A^T: 32 0.494 (32 x 32 x 16 s4) / 0.573; 48 0.508 (16 x 16 x 8 s4) / 0.713; 64 0.465 (32 x 32 x 16
//                s4) / 0.501; 96 0.532 (32 x 32 x 16 s4) / 0.705; 128 0.551 (64 x 64 x 16 w2x2 s4) / 0.564;
//                192 0.644 / 0.662; 256 0.739 / 0.753.
// The table takes 16 x 16 x 8 at 33-48 (smaller tiles waste less of such a triangle: three 16 x 16 tile rows
// against two of 32, the second half empty), and 32 x 32 x 16 s3 at 65-96, where 32 x 64 took 0.584 and 0.705
// and 32 x 32 x 16 s3 0.526 and 0.539 (N, T); with A, 32 x 64 x 16 at 97-128. 32 x 32 x 16 in four stages
// spills with pointer operands (80 registers, 12 bytes): three stages stay.
const TRMM_TILES_N: readonly MmaBand[] = [
  { maxDim: 32, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: 48, config: { bm: 16, bn: 16, bk: 8, wm: 1, wn: 1, stages: 4 } },
  { maxDim: 64, config: { bm: 32, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: 96, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: 128, config: { bm: 32, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 4 } },
];
const TRMM_TILES_T: readonly MmaBand[] = [
  { maxDim: 32, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: 48, config: { bm: 16, bn: 16, bk: 8, wm: 1, wn: 1, stages: 4 } },
  { maxDim: 64, config: { bm: 32, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: 96, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 4 } },
];

const TRMM_TILED_N: readonly TiledBand[] = [
  { maxDim: 32, config: { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 } },
  { maxDim: 48, config: { bm: 48, bn: 48, bk: 16, tm: 4, tn: 4 } },
  { maxDim: 128, config: { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 } },
  { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, tm: 8, tn: 8 } },
];
const TRMM_TILED_T: readonly TiledBand[] = [
  { maxDim: 96, config: { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 } },
  { maxDim: 128, config: { bm: 64, bn: 128, bk: 8, tm: 8, tn: 8 } },
  { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, tm: 8, tn: 8 } },
];

// The chained substitution in batches (H200, 2026-12-01, `MYRIAD_QUICK_FIRST=0 node
// scripts/probe/trsm-chain-batched.mjs 64,96,128,192,256,384 1,2,4,8,16,32,64`: left, lower, N and T,
// the vendor sweep's counts; ms, the slower of N and T, chain / the default route, the recursion):
//   float64: 128 x 512 1-8 columns 0.091-0.107 / 0.124-0.153, 16 0.170 / 0.158; 192 x 227 1-16 0.076-0.145 /
//            0.192-0.271, 32 0.251 / 0.251; 256 x 128 32 0.268 / 0.313, 64 0.452 / 0.322; 384 x 56 64 0.441 /
//            0.462; 96 x 910 1 0.132 / 0.243 but 4-64 0.149-0.765 / 0.137-0.251.
//   float32: 96 x 1820 1-4 0.121-0.135 / 0.149-0.166, 8 0.155 / 0.145; 128 x 1024 1-16 0.084-0.156 /
//            0.147-0.202, 32 0.265 / 0.225; 192 x 455 32 0.237 / 0.307, 64 0.441 / 0.458; 384 x 113 64
//            0.388 / 0.558; 64 x 4096 1 0.119 / 0.128, 2-64 slower.
// A band starts where the chain was ahead at its widest B and at the orders above. float32 16 columns
// from 192: at 128 x 1024 the vendor sweep's own route took 0.149 ms (its timing of the same recursion).
// float64 64 columns keeps 512: at 384 the chain was 5% ahead, within the probe's spread. Those counts
// are at most 8 matrices an SM but float32 96's (1,820, 13.8 an SM); batches above 8 an SM take the
// recursion whatever the band (chainMaxPerSm, trsm-default.ts), float32 96 x 1,820 among them.
const TRSM_CHAIN: TrsmTuning['chain'] = {
  float64: [{ maxRhs: 8, from: 128 }, { maxRhs: 16, from: 192 }, { maxRhs: 32, from: 256 }, { maxRhs: 64, from: 512 }],
  float32: [{ maxRhs: 4, from: 96 }, { maxRhs: 8, from: 128 }, { maxRhs: 16, from: 192 }, { maxRhs: 32, from: 192 }, { maxRhs: 64, from: 384 }],
};

export const sm90TrsmTuning: Partial<TrsmTuning> = {
  chain: TRSM_CHAIN,
  trmmProduct: {
    double: { from: 32, panels: 1024, tiles: { N: TRMM_TILES_N, T: TRMM_TILES_T } },
    single: { from: 32, panels: 1024, tiles: { N: TRMM_TILED_N, T: TRMM_TILED_T } },
  },
};

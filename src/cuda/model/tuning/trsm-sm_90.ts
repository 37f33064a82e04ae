/**
 * trsm's sm_90 overrides: trmm side left in float64 on the tensor cores (kernels/trsm/plan.ts
 * trmmMmaTakes). Measured on an NVIDIA H200, 2026-11-30, `MYRIAD_QUICK_FIRST=0 [TRANS=T] node
 * scripts/probe/trmm-mma.mjs` (left, lower, non-unit, B square, the bench's counts: 2^26 elements of
 * B, median of 7 after 2 warm-ups), ms; the default route of the time is the recursion with its leaves:
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
 */
import type { MmaBand } from './gemm-types.js';
import type { TrsmTuning } from './trsm-types.js';

const TRMM_TILES: readonly MmaBand[] = [
  { maxDim: 32, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: 96, config: { bm: 32, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 } },
  { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 4 } },
];

export const sm90TrsmTuning: Partial<TrsmTuning> = {
  trmmMma: { from: 32, panels: 1024, tiles: { N: TRMM_TILES, T: TRMM_TILES } },
};

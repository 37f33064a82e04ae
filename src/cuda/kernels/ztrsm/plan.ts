/**
 * Which complex trsm kernel serves one launch group, and its grid. One design (generate-small.ts,
 * a warp slot per matrix for triangles of order <= 32); larger triangles by the recursion of
 * ztrsmSteps, whose leaves are that kernel and whose updates are the complex GEMM. Variable
 * batches are the router's (shape groups as list batches: ownComplex). No tuning table:
 * the warps per block are the real small designs' (common/warp-slots.ts smallWarps), the vectors
 * per pass the complex solves' (four, as complex-lu and zpotrf), not swept for this kernel.
 */
import type { ComplexScalar } from '../../../core/op-specs.js';
import { recursionSteps } from '../trsm/index.js';
import {
  planTriangleWarp, TRIANGLE_WARP_MAX, triangleRunsForward, triangleShape, triangleSteps, type TriangleBlockRequest, type TriangleStep, type TriangleWarpProblem,
} from '../common/triangle-warp.js';
import type { ZtrsmSmallParams } from './params.js';

/** The largest triangle the kernels take. */
export const ZTRSM_MAX_N = TRIANGLE_WARP_MAX;

/** Most right-hand-side vectors per pass: each is two registers (complex64) or four (complex128) beside the row of T (N pairs). */
export const ZTRSM_RHS_MAX = 4;

/** Whether the kernels take a triangle of order n. */
export const ztrsmServes = (n: number): boolean => n >= 0 && n <= ZTRSM_MAX_N;

export type ZtrsmProblem = TriangleWarpProblem;

/** Vectors per pass min(vectors, ZTRSM_RHS_MAX), at least 1. */
export const planZtrsm = (p: ZtrsmProblem): ZtrsmSmallParams => planTriangleWarp(p, ZTRSM_RHS_MAX);

/** Where the recursion splits a triangle: at multiples of 32 (the leaf kernel's largest order) near the half. */
const ZTRSM_SPLIT_ALIGN = 32;

/** A complex trsm on strided or list batches (sub-blocks of them: common/sub-blocks.ts). */
export type BlockTrsmRequest<S> = TriangleBlockRequest<S>;

const ONE: ComplexScalar = [1, 0];
const ZERO: ComplexScalar = [0, 0];
const MINUS_ONE: ComplexScalar = [-1, 0];

/**
 * The recursion of the real trsm (trsm/plan.ts recursionSteps: split the triangle near the half at
 * a multiple of ZTRSM_SPLIT_ALIGN, solve the block that depends on no other, take its solution off
 * the rest of B with one GEMM, solve the rest) as requests on sub-blocks of every matrix
 * (common/triangle-warp.ts triangleSteps).
 *
 * alpha is applied once: the first leaf scales its block as it loads it, and each update scales its
 * target by beta = alpha the first time the target is touched (B2 := alpha B2 - op(A)21 X1), after
 * which the target's own leaves run with alpha 1. alpha = 0: every leaf writes zeros into its block
 * of B (A and B not read, as BLAS) and no update runs.
 */
export function ztrsmSteps<S>(r: BlockTrsmRequest<S>): TriangleStep<S>[] {
  const zero = r.alpha[0] === 0 && r.alpha[1] === 0;
  const { order } = triangleShape(r.side, r.b.rows, r.b.cols);
  return triangleSteps(r, recursionSteps(order, ZTRSM_MAX_N, ZTRSM_SPLIT_ALIGN, triangleRunsForward(r), 'trsm'), {
    leaf: (scaled) => (zero ? ZERO : scaled ? r.alpha : ONE),
    update: (scaled) => ({ alpha: MINUS_ONE, beta: scaled ? r.alpha : ONE }),
  });
}

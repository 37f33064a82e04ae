/**
 * Which complex trmm kernel serves one launch group, and the recursion beyond it. One design
 * (generate-small.ts, a warp slot per matrix for triangles of order <= 32); larger triangles by the
 * recursion of ztrmmSteps, whose leaves are that kernel and whose updates are the complex GEMM, in
 * place on B. Variable batches are the router's (shape groups).
 * No tuning table: the warps per block are the real small designs' (common/warp-slots.ts smallWarps),
 * the vectors per pass the complex trsm's (four), not swept for this kernel.
 */
import type { ComplexScalar } from '../../../core/op-specs.js';
import {
  planTriangleWarp, TRIANGLE_WARP_MAX, triangleRunsForward, triangleShape, triangleSteps, type TriangleBlockRequest, type TriangleStep, type TriangleWarpProblem,
} from '../common/triangle-warp.js';
import { recursionSteps } from '../trsm/index.js';
import type { ZtrmmSmallParams } from './params.js';

/** The largest triangle the kernel takes. */
export const ZTRMM_MAX_N = TRIANGLE_WARP_MAX;

/** Most vectors per pass: each is two pairs (x and its product) beside the row of T (N pairs). */
export const ZTRMM_RHS_MAX = 4;

/** Where the recursion splits a triangle: at multiples of 32 (the leaf kernel's largest order) near the half. */
const ZTRMM_SPLIT_ALIGN = 32;

export type ZtrmmProblem = TriangleWarpProblem;

/** Warps as the real small kernels; vectors per pass min(vectors, ZTRMM_RHS_MAX), at least 1. */
export const planZtrmm = (p: ZtrmmProblem): ZtrmmSmallParams => planTriangleWarp(p, ZTRMM_RHS_MAX);

/** A complex trmm on strided or list batches (sub-blocks of them: common/sub-blocks.ts). */
export type BlockTrmmRequest<S> = TriangleBlockRequest<S>;

const ONE: ComplexScalar = [1, 0];

/**
 * The recursion of the real trmm (trsm/plan.ts recursionSteps with op 'trmm': split the triangle near
 * the half at a multiple of ZTRMM_SPLIT_ALIGN) as requests on sub-blocks of every matrix. With B's
 * blocks B1 (the one that depends on no other: op(A) lower for 'left', upper for 'right') and B2, and
 * the products in place: B2 := alpha op(A)22 B2 (the leaf or recursion of the second block), then
 * B2 += alpha op(A)21 B1 (one GEMM with beta 1, reading B1 as it still is), then B1 := alpha op(A)11 B1
 * ('right': B2 := alpha B2 op(A)22 + alpha B1 op(A)12, then B1 := alpha B1 op(A)11). So no workspace:
 * every block of B is read by the updates before its own leaf overwrites it. alpha scales every leaf
 * and every update once. alpha = 0: every leaf writes zeros into its block (A and B not read, as BLAS)
 * and no update runs (common/triangle-warp.ts triangleSteps).
 */
export function ztrmmSteps<S>(r: BlockTrmmRequest<S>): TriangleStep<S>[] {
  const { order } = triangleShape(r.side, r.b.rows, r.b.cols);
  return triangleSteps(r, recursionSteps(order, ZTRMM_MAX_N, ZTRMM_SPLIT_ALIGN, triangleRunsForward(r), 'trmm'), {
    leaf: () => r.alpha,
    update: () => ({ alpha: r.alpha, beta: ONE }),
  });
}

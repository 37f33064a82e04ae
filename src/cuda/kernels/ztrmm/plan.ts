/**
 * Which complex trmm kernel serves one launch group, and the recursion beyond it. One design
 * (generate-small.ts, a warp slot per matrix for triangles of order <= 32); larger triangles by the
 * recursion of ztrmmSteps, whose leaves are that kernel and whose updates are the complex GEMM, in
 * place on B. Variable batches are not taken by the launcher (the router runs them by shape groups).
 * No tuning table: the warps per block are the real small designs' (common/warp-slots.ts smallWarps),
 * the vectors per pass the complex trsm's (four), not swept for this kernel.
 */
import type { Batch } from '../../../core/batch.js';
import type { ComplexGemmRequest, ComplexScalar, ComplexTrsmRequest } from '../../../core/op-specs.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import { planTriangleWarp, triangleRunsForward, type TriangleWarpProblem } from '../common/triangle-warp.js';
import { SMALL_MAX_N } from '../common/warp-slots.js';
import { recursionSteps } from '../trsm/index.js';
import type { ZtrmmSmallParams } from './params.js';

/** The largest triangle the kernel takes. */
export const ZTRMM_MAX_N = SMALL_MAX_N;

/** Most vectors per pass: each is two pairs (x and its product) beside the row of T (N pairs). */
export const ZTRMM_RHS_MAX = 4;

/** Where the recursion splits a triangle: at multiples of 32 (the leaf kernel's largest order) near the half. */
export const ZTRMM_SPLIT_ALIGN = 32;

/** Whether the kernel takes a triangle of order n. */
export const ztrmmServes = (n: number): boolean => n >= 0 && n <= ZTRMM_MAX_N;

/** Whether complexTrmmCuda takes a request: strided or list batches (one shape for all), any order (above ZTRMM_MAX_N by ztrmmSteps). */
export function ztrmmCovers(r: { a: Batch<unknown>; b: Batch<unknown> }): boolean {
  return r.a.kind !== 'variable' && r.b.kind !== 'variable';
}

export type ZtrmmProblem = TriangleWarpProblem;

/** Warps as the real small kernels; vectors per pass min(vectors, ZTRMM_RHS_MAX), at least 1. */
export const planZtrmm = (p: ZtrmmProblem): ZtrmmSmallParams => planTriangleWarp(p, ZTRMM_RHS_MAX);

/** A complex trmm on strided or list batches (sub-blocks of them: common/sub-blocks.ts). */
export type BlockTrmmRequest<S> = Omit<ComplexTrsmRequest<S>, 'a' | 'b'> & { readonly a: BlockBatch<S>; readonly b: BlockBatch<S> };

/** One launch of the recursion, in order: a leaf multiply (triangle of order <= ZTRMM_MAX_N) or a GEMM update. */
export type ZtrmmStep<S> =
  | { readonly kind: 'leaf'; readonly request: BlockTrmmRequest<S> }
  | { readonly kind: 'update'; readonly request: ComplexGemmRequest<S> };

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
 * and no update runs. Pure and over any storage, so the CPU reference can run the same requests (tests).
 */
export function ztrmmSteps<S>(r: BlockTrmmRequest<S>): ZtrmmStep<S>[] {
  const left = r.side === 'left';
  const m = r.b.rows;
  const n = r.b.cols;
  const zero = r.alpha[0] === 0 && r.alpha[1] === 0;
  const plain = r.transA === 'N';
  const steps: ZtrmmStep<S>[] = [];
  for (const s of recursionSteps(left ? m : n, ZTRMM_MAX_N, ZTRMM_SPLIT_ALIGN, triangleRunsForward(r), 'trmm')) {
    if (s.kind === 'leaf') {
      const { off, size } = s.span;
      steps.push({ kind: 'leaf', request: {
        ...r, a: block(r.a, off, off, size, size), b: left ? block(r.b, off, 0, size, n) : block(r.b, 0, off, m, size),
      } });
      continue;
    }
    if (zero) continue;
    const { target: t, source: src } = s;
    // op(A)(T, S) (left) or op(A)(S, T) (right): the stored block, read through transA.
    if (left) {
      const a = plain ? block(r.a, t.off, src.off, t.size, src.size) : block(r.a, src.off, t.off, src.size, t.size);
      steps.push({ kind: 'update', request: {
        transA: r.transA, transB: 'N', alpha: r.alpha, a, b: block(r.b, src.off, 0, src.size, n), beta: ONE, c: block(r.b, t.off, 0, t.size, n),
      } });
    } else {
      const a = plain ? block(r.a, src.off, t.off, src.size, t.size) : block(r.a, t.off, src.off, t.size, src.size);
      steps.push({ kind: 'update', request: {
        transA: 'N', transB: r.transA, alpha: r.alpha, a: block(r.b, 0, src.off, m, src.size), b: a, beta: ONE, c: block(r.b, 0, t.off, m, t.size),
      } });
    }
  }
  return steps;
}

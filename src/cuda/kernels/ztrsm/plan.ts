/**
 * Which complex trsm kernel serves one launch group, and its grid. One design (generate-small.ts,
 * a warp slot per matrix for triangles of order <= 32); larger triangles by the recursion of
 * ztrsmSteps, whose leaves are that kernel and whose updates are the complex GEMM. Variable
 * batches are not taken here (the router runs them by shape groups as list batches: ownComplex). No tuning table:
 * the warps per block are the real small designs' (common/warp-slots.ts smallWarps), the vectors
 * per pass the complex solves' (four, as complex-lu and zpotrf), not swept for this kernel.
 */
import type { Batch } from '../../../core/batch.js';
import type { Side } from '../../../core/enums.js';
import type { ComplexGemmRequest, ComplexScalar, ComplexTrsmRequest } from '../../../core/op-specs.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import { recursionSteps } from '../trsm/index.js';
import { planTriangleWarp, triangleRunsForward, type TriangleWarpProblem } from '../common/triangle-warp.js';
import { SMALL_MAX_N } from '../common/warp-slots.js';
import type { ZtrsmSmallParams } from './params.js';

/** The largest triangle the kernels take. */
export const ZTRSM_MAX_N = SMALL_MAX_N;

/** Most right-hand-side vectors per pass: each is two registers (complex64) or four (complex128) beside the row of T (N pairs). */
export const ZTRSM_RHS_MAX = 4;

/** Whether the kernels take a triangle of order n. */
export const ztrsmServes = (n: number): boolean => n >= 0 && n <= ZTRSM_MAX_N;

/**
 * Whether complexTrsmCuda takes a request: strided or list batches (one shape for all), any order
 * of the triangle (above ZTRSM_MAX_N by the recursion, ztrsmSteps).
 */
export function ztrsmCovers(r: { side: Side; a: Batch<unknown>; b: Batch<unknown> }): boolean {
  return r.a.kind !== 'variable' && r.b.kind !== 'variable';
}

export type ZtrsmProblem = TriangleWarpProblem;

/** Vectors per pass min(vectors, ZTRSM_RHS_MAX), at least 1. */
export const planZtrsm = (p: ZtrsmProblem): ZtrsmSmallParams => planTriangleWarp(p, ZTRSM_RHS_MAX);

/** Where the recursion splits a triangle: at multiples of 32 (the leaf kernel's largest order) near the half. */
export const ZTRSM_SPLIT_ALIGN = 32;

/** A complex trsm on strided or list batches (sub-blocks of them: common/sub-blocks.ts). */
export type BlockTrsmRequest<S> = Omit<ComplexTrsmRequest<S>, 'a' | 'b'> & { readonly a: BlockBatch<S>; readonly b: BlockBatch<S> };

/** One launch of the recursion, in order: a leaf solve (triangle of order <= ZTRSM_MAX_N) or a GEMM update. */
export type ZtrsmStep<S> =
  | { readonly kind: 'leaf'; readonly request: BlockTrsmRequest<S> }
  | { readonly kind: 'update'; readonly request: ComplexGemmRequest<S> };

const ONE: ComplexScalar = [1, 0];
const MINUS_ONE: ComplexScalar = [-1, 0];

/**
 * The recursion of the real trsm (trsm/plan.ts recursionSteps: split the triangle near the half at
 * a multiple of ZTRSM_SPLIT_ALIGN, solve the block that depends on no other, take its solution off
 * the rest of B with one GEMM, solve the rest) as requests on sub-blocks of every matrix. Pure and
 * over any storage, so the CPU reference can run the same requests (tests).
 *
 * alpha is applied once: the first leaf scales its block as it loads it, and each update scales its
 * target by beta = alpha the first time the target is touched (B2 := alpha B2 - op(A)21 X1), after
 * which the target's own leaves run with alpha 1. alpha = 0: every leaf writes zeros into its block
 * of B (A and B not read, as BLAS) and no update runs (0 times an Inf in A would spread NaN).
 */
export function ztrsmSteps<S>(r: BlockTrsmRequest<S>): ZtrsmStep<S>[] {
  const left = r.side === 'left';
  const m = r.b.rows;
  const n = r.b.cols;
  const zero = r.alpha[0] === 0 && r.alpha[1] === 0;
  const plain = r.transA === 'N';
  const steps: ZtrsmStep<S>[] = [];
  for (const s of recursionSteps(left ? m : n, ZTRSM_MAX_N, ZTRSM_SPLIT_ALIGN, triangleRunsForward(r), 'trsm')) {
    if (s.kind === 'leaf') {
      const { off, size } = s.span;
      steps.push({ kind: 'leaf', request: {
        ...r, alpha: zero ? [0, 0] : s.scaled ? r.alpha : ONE, a: block(r.a, off, off, size, size),
        b: left ? block(r.b, off, 0, size, n) : block(r.b, 0, off, m, size),
      } });
      continue;
    }
    if (zero) continue;
    const { target: t, source: src } = s;
    const beta = s.scaled ? r.alpha : ONE;
    // op(A)(T, S) (left) or op(A)(S, T) (right): the stored block, read through transA.
    if (left) {
      const a = plain ? block(r.a, t.off, src.off, t.size, src.size) : block(r.a, src.off, t.off, src.size, t.size);
      steps.push({ kind: 'update', request: {
        transA: r.transA, transB: 'N', alpha: MINUS_ONE, a, b: block(r.b, src.off, 0, src.size, n), beta, c: block(r.b, t.off, 0, t.size, n),
      } });
    } else {
      const a = plain ? block(r.a, src.off, t.off, src.size, t.size) : block(r.a, t.off, src.off, t.size, src.size);
      steps.push({ kind: 'update', request: {
        transA: 'N', transB: r.transA, alpha: MINUS_ONE, a: block(r.b, 0, src.off, m, src.size), b: a, beta, c: block(r.b, 0, t.off, m, t.size),
      } });
    }
  }
  return steps;
}

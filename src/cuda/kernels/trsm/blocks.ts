/**
 * The recursion's GEMM updates as batched requests on sub-blocks (pure: any storage, so the CPU
 * can run the same requests in tests). A block of every matrix is the same batch with its offset
 * moved by r0 + c0 * ld and its rows and cols cut.
 */
import type { GemmRequest, TrsmRequest } from '../../../core/ops.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import type { TriangularOp, TrsmStep } from './params.js';

export { block, type BlockBatch };

/**
 * The GEMM of an update step (B is m x n): left: B(T, :) := beta B(T, :) + g op(A)(T, S) B(S, :);
 * right: B(:, T) := beta B(:, T) + g B(:, S) op(A)(S, T); op(A)(T, S) is the block A(T, S) (transA N)
 * or A(S, T)^T (transA T). trsm: g = -1, beta = alpha where the step scales, else 1; trmm: g = alpha, beta = 1.
 */
export function updateRequest<S>(
  op: TriangularOp, r: Pick<TrsmRequest, 'side' | 'transA' | 'alpha'>, a: BlockBatch<S>, b: BlockBatch<S>, m: number, n: number,
  step: Extract<TrsmStep, { kind: 'update' }>,
): GemmRequest<S> {
  const { target: t, source: s } = step;
  const alpha = op === 'trsm' ? -1 : r.alpha;
  const beta = op === 'trsm' && step.scaled ? r.alpha : 1;
  const plain = r.transA === 'N';
  if (r.side === 'left') {
    const opA = plain ? block(a, t.off, s.off, t.size, s.size) : block(a, s.off, t.off, s.size, t.size);
    return { transA: r.transA, transB: 'N', alpha, a: opA, b: block(b, s.off, 0, s.size, n), beta, c: block(b, t.off, 0, t.size, n) };
  }
  const opA = plain ? block(a, s.off, t.off, s.size, t.size) : block(a, t.off, s.off, t.size, s.size);
  return { transA: 'N', transB: r.transA, alpha, a: block(b, 0, s.off, m, s.size), b: opA, beta, c: block(b, 0, t.off, m, t.size) };
}

/** Where a leaf on the diagonal block [off, off + size) finds its A and B (offset deltas). */
export function leafOffsets(left: boolean, off: number, lda: number, ldb: number): { readonly a: number; readonly b: number } {
  return { a: off + off * lda, b: left ? off : off * ldb };
}

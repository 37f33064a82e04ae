/**
 * The recursion's off-diagonal blocks as batched GEMM requests on sub-blocks (pure: any storage,
 * so the CPU can run the same requests in tests), and where a leaf launch finds its first block.
 */
import type { GemmRequest, SyrkRequest } from '../../../core/ops.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import type { SyrkStep } from './params.js';

/**
 * C(rows, cols) := alpha op(A)(rows, :) op(A)(cols, :)^T + beta C(rows, cols): trans N, A(rows, :)
 * times A(cols, :)^T; trans T, A(:, rows)^T times A(:, cols). op(A) is n x k.
 */
export function offdiagRequest<S>(
  r: Pick<SyrkRequest, 'trans' | 'alpha' | 'beta'>, a: BlockBatch<S>, c: BlockBatch<S>, k: number,
  step: Extract<SyrkStep, { kind: 'offdiag' }>,
): GemmRequest<S> {
  const { rows, cols } = step;
  const plain = r.trans === 'N';
  const opBlock = (s: { off: number; size: number }): BlockBatch<S> => (plain ? block(a, s.off, 0, s.size, k) : block(a, 0, s.off, k, s.size));
  return {
    transA: plain ? 'N' : 'T', transB: plain ? 'T' : 'N', alpha: r.alpha, a: opBlock(rows), b: opBlock(cols),
    beta: r.beta, c: block(c, rows.off, cols.off, rows.size, cols.size),
  };
}

/** Where a leaf launch's first diagonal block [off, ...) finds its A and C (offset deltas). */
export function leafOffsets(trans: 'N' | 'T', off: number, lda: number, ldc: number): { readonly a: number; readonly c: number } {
  return { a: trans === 'N' ? off : off * lda, c: off + off * ldc };
}

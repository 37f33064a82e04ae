/**
 * The recursion's GEMM updates as batched requests on sub-blocks (pure: any storage, so the CPU
 * can run the same requests in tests). A block of every matrix is the same batch with its offset
 * moved by r0 + c0 * ld and its rows and cols cut.
 */
import { strided, type StridedBatch } from '../../../core/batch.js';
import type { Storage } from '../../../core/storage.js';
import type { GemmRequest, Op, TrsmRequest } from '../../../core/ops.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import type { TriangularOp, TrsmInverted, TrsmStep } from './params.js';

/**
 * The GEMM of an update step (B is m x n): left: B(T, :) := beta B(T, :) + g op(A)(T, S) B(S, :);
 * right: B(:, T) := beta B(:, T) + g B(:, S) op(A)(S, T); op(A)(T, S) is the block A(T, S) (transA N)
 * or A(S, T)^T (transA T). trsm: g = -1, beta = alpha where the step scales, else 1; trmm: g = alpha, beta = 1.
 */
export function updateRequest<S>(
  op: TriangularOp, r: Pick<TrsmRequest, 'side' | 'transA' | 'alpha'>, a: BlockBatch<S>, b: BlockBatch<S>, m: number, n: number,
  step: Extract<TrsmStep, { kind: 'update' }>,
): GemmRequest<S> {
  return updateOf(op, r, (r0, c0, rows, cols) => block(a, r0, c0, rows, cols), (r0, c0, rows, cols) => block(b, r0, c0, rows, cols), m, n, step);
}

/** The operands and coefficients of updateRequest's GEMM on any form of operand: `cutA` and `cutB` give the rows x cols block at (r0, c0). */
export function updateOf<X>(
  op: TriangularOp, r: Pick<TrsmRequest, 'side' | 'transA' | 'alpha'>,
  cutA: (r0: number, c0: number, rows: number, cols: number) => X, cutB: (r0: number, c0: number, rows: number, cols: number) => X,
  m: number, n: number, step: Extract<TrsmStep, { kind: 'update' }>,
): { readonly transA: Op; readonly transB: Op; readonly alpha: number; readonly beta: number; readonly a: X; readonly b: X; readonly c: X } {
  const { target: t, source: s } = step;
  const alpha = op === 'trsm' ? -1 : r.alpha;
  const beta = op === 'trsm' && step.scaled ? r.alpha : 1;
  const plain = r.transA === 'N';
  if (r.side === 'left') {
    const opA = plain ? cutA(t.off, s.off, t.size, s.size) : cutA(s.off, t.off, s.size, t.size);
    return { transA: r.transA, transB: 'N', alpha, a: opA, b: cutB(s.off, 0, s.size, n), beta, c: cutB(t.off, 0, t.size, n) };
  }
  const opA = plain ? cutA(s.off, t.off, s.size, t.size) : cutA(t.off, s.off, t.size, s.size);
  return { transA: 'N', transB: r.transA, alpha, a: cutB(0, s.off, m, s.size), b: opA, beta, c: cutB(0, t.off, m, t.size) };
}

/** Where a leaf on the diagonal block [off, off + size) finds its A and B (offset deltas). */
export function leafOffsets(left: boolean, off: number, lda: number, ldb: number): { readonly a: number; readonly b: number } {
  return { a: off + off * lda, b: left ? off : off * ldb };
}

/**
 * A leaf of the inverted path (launch.ts invertedSolve): B's block over the leaf's span, the compact
 * copy of it in `x` (what the copy kernel writes), and the GEMM that writes the solution over the
 * block: left B_j := alpha op(inv A_jj) X, right B_j := alpha X op(inv A_jj), the inverse being the
 * leading size x size part of slot j of `inverses` (count x slots blocks of nb x nb, ld nb).
 */
export function invertedLeaf<S extends Storage>(
  r: Pick<TrsmRequest, 'side' | 'transA' | 'alpha'>, b: StridedBatch<S>, inverses: S, x: S, inv: TrsmInverted,
  step: Extract<TrsmStep, { kind: 'leaf' }>, m: number, n: number,
): { readonly block: StridedBatch<S>; readonly copy: StridedBatch<S>; readonly gemm: GemmRequest<S> } {
  const { off, size } = step.span;
  const left = r.side === 'left';
  const rows = left ? size : m;
  const cols = left ? n : size;
  const bj = block(b, left ? off : 0, left ? 0 : off, rows, cols) as StridedBatch<S>;
  const copy = strided(x, { rows, cols, ld: Math.max(1, rows), stride: rows * cols, count: b.count }, 'x');
  const { nb, slots } = inv;
  const invj = strided(inverses, { rows: size, cols: size, ld: nb, stride: slots * nb * nb, offset: (off / nb) * nb * nb, count: b.count }, 'inverses');
  const alpha = step.scaled ? r.alpha : 1;
  const gemm: GemmRequest<S> = left
    ? { transA: r.transA, transB: 'N', alpha, a: invj, b: copy, beta: 0, c: bj }
    : { transA: 'N', transB: r.transA, alpha, a: copy, b: invj, beta: 0, c: bj };
  return { block: bj, copy, gemm };
}

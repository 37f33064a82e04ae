/**
 * What ztrsm and ztrmm share: the batch loop, and op(A) as the triangular matrix the vectors of B
 * meet. side 'left' works on the columns of B with T = op(A); side 'right' on the rows of B, since
 * x op(A) = b is op(A)^T x^T = b^T: T = op(A)^T (lower exactly where op(A) is upper). Element
 * (i, k) of T is at A[2 (aOff + i rs + k cs)], conjugated where `conj` (op 'C').
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { ComplexTrsmRequest } from '../../core/op-specs.js';
import { scaleElements } from './scalar.js';

/** The triangular matrix T one vector of B meets. */
export interface TriangularView {
  /** Order of T (the vectors' length). */
  readonly n: number;
  readonly lower: boolean;
  readonly unit: boolean;
  readonly conj: boolean;
  /** Row and column steps of T in A's elements. */
  readonly rs: number;
  readonly cs: number;
}

/** T for one matrix: B is m x n, A's leading dimension lda. */
export function triangularView(r: ComplexTrsmRequest<unknown>, m: number, n: number, lda: number): TriangularView {
  const transposed = r.transA !== 'N';
  // op(A)(i, k) = A(i, k) or A(k, i).
  const [rs, cs] = transposed ? [lda, 1] : [1, lda];
  const opLower = (r.uplo === 'lower') !== transposed;
  const unit = r.diag === 'unit';
  const conj = r.transA === 'C';
  if (r.side === 'left') return { n: m, lower: opLower, unit, conj, rs, cs };
  return { n, lower: !opLower, unit, conj, rs: cs, cs: rs };
}

/** One vector kernel: x (t.n elements, x_k at X[2 (xOff + k step)]) against T. */
export type VectorKernel = (t: TriangularView, A: FloatArray, aOff: number, X: FloatArray, xOff: number, step: number) => void;

/**
 * Runs `kernel` over every vector of B of every matrix, with B scaled by alpha before (trsm) or
 * after (trmm) it. alpha = 0 sets B to zero without reading A or B, as BLAS.
 */
export function eachVector(r: ComplexTrsmRequest<FloatArray>, kernel: VectorKernel, alphaFirst: boolean): void {
  const count = batchCount(r.b);
  const [ar, ai] = r.alpha;
  const zero = ar === 0 && ai === 0;
  const left = r.side === 'left';
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const b = matrixAt(r.b, p);
    if (b.rows === 0 || b.cols === 0) continue;
    const t = triangularView(r, b.rows, b.cols, a.ld);
    // Columns of B (left) start ldb apart with elements 1 apart; rows (right) the other way round.
    const [vectors, vStep, eStep] = left ? [b.cols, b.ld, 1] : [b.rows, 1, b.ld];
    for (let v = 0; v < vectors; v++) {
      const xOff = b.offset + v * vStep;
      if (zero || alphaFirst) scaleElements(b.data, xOff, t.n, eStep, ar, ai);
      if (zero) continue;
      kernel(t, a.data, a.offset, b.data, xOff, eStep);
      if (!alphaFirst) scaleElements(b.data, xOff, t.n, eStep, ar, ai);
    }
  }
}

/**
 * General matrix multiply on the CPU, following reference BLAS dgemm loop for loop:
 * C := alpha op(A) op(B) + beta C, column-major, C m x n, op(A) m x k, op(B) k x n.
 */
import { batchCount, matrixAt } from '../core/batch.js';
import type { FloatArray } from '../core/dtype.js';
import type { GemmRequest, Op } from '../core/ops.js';
import { scaleColumn } from './columns.js';

/** Runs `gemm1` on every matrix of the batch (strided, list or variable). */
export function cpuGemm(r: GemmRequest<FloatArray>): void {
  const count = batchCount(r.c);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const b = matrixAt(r.b, p);
    const c = matrixAt(r.c, p);
    const k = r.transA === 'N' ? a.cols : a.rows;
    gemm1(r.transA, r.transB, c.rows, c.cols, k, r.alpha,
      a.data, a.offset, a.ld, b.data, b.offset, b.ld, r.beta, c.data, c.offset, c.ld);
  }
}

/**
 * One gemm, with element (i, j) of X at `X[xOff + i + j * ldx]`.
 * beta = 0 never reads C; alpha = 0 (or k = 0) never reads A or B.
 */
export function gemm1(
  transA: Op, transB: Op, m: number, n: number, k: number, alpha: number,
  A: FloatArray, aOff: number, lda: number,
  B: FloatArray, bOff: number, ldb: number,
  beta: number, C: FloatArray, cOff: number, ldc: number,
): void {
  if (m === 0 || n === 0 || ((alpha === 0 || k === 0) && beta === 1)) return;
  if (alpha === 0) {
    for (let j = 0; j < n; j++) scaleColumn(C, cOff + j * ldc, m, beta);
    return;
  }
  // op(B)(l, j) = B[bOff + l * bRow + j * bCol]: the transpose only swaps the two steps.
  const bRow = transB === 'N' ? 1 : ldb;
  const bCol = transB === 'N' ? ldb : 1;
  if (transA === 'N') {
    // C(:, j) += (alpha op(B)(l, j)) A(:, l): axpy on contiguous columns (j, l, i order).
    for (let j = 0; j < n; j++) {
      const cj = cOff + j * ldc;
      scaleColumn(C, cj, m, beta);
      for (let l = 0; l < k; l++) {
        const t = alpha * B[bOff + l * bRow + j * bCol];
        const al = aOff + l * lda;
        for (let i = 0; i < m; i++) C[cj + i] += t * A[al + i];
      }
    }
    return;
  }
  // op(A) = A^T: C(i, j) is the dot product of the contiguous column A(:, i) with op(B)(:, j).
  for (let j = 0; j < n; j++) {
    const cj = cOff + j * ldc;
    const bj = bOff + j * bCol;
    for (let i = 0; i < m; i++) {
      const ai = aOff + i * lda;
      let t = 0;
      for (let l = 0; l < k; l++) t += A[ai + l] * B[bj + l * bRow];
      C[cj + i] = beta === 0 ? alpha * t : alpha * t + beta * C[cj + i];
    }
  }
}

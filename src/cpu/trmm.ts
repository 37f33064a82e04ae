/**
 * Triangular matrix multiply on the CPU, following reference BLAS dtrmm loop for loop:
 * side 'left': B := alpha op(A) B (A m x m); 'right': B := alpha B op(A) (A n x n); B m x n.
 * Only the `uplo` triangle of A is read, and its diagonal only when diag is 'nonunit'.
 */
import type { FloatArray } from '../core/dtype.js';
import type { Diag, Side, Uplo } from '../core/enums.js';
import type { Op, TrmmRequest } from '../core/ops.js';
import { axpyColumn, multiplyColumn, scaleColumn } from './columns.js';
import { eachTriangular } from './triangular.js';

/** Runs `trmm1` on every matrix of the batch. */
export function cpuTrmm(r: TrmmRequest<FloatArray>): void {
  eachTriangular(r, trmm1);
}

/** One trmm, with element (i, j) of X at `X[xOff + i + j * ldx]`. alpha = 0 zeroes B without reading it. */
export function trmm1(
  side: Side, uplo: Uplo, transA: Op, diag: Diag, m: number, n: number, alpha: number,
  A: FloatArray, aOff: number, lda: number,
  B: FloatArray, bOff: number, ldb: number,
): void {
  if (m === 0 || n === 0) return;
  if (alpha === 0) {
    for (let j = 0; j < n; j++) scaleColumn(B, bOff + j * ldb, m, 0);
    return;
  }
  const nonunit = diag === 'nonunit';
  const upper = uplo === 'upper';
  if (side === 'left') {
    for (let j = 0; j < n; j++) {
      const bj = bOff + j * ldb;
      if (transA === 'N') {
        // In place, each b_k is spread over the rows it reaches (A(:, k)) before it is
        // overwritten: ascending k for upper A (rows above k), descending for lower.
        for (let s = 0; s < m; s++) {
          const k = upper ? s : m - 1 - s;
          const bkj = B[bj + k];
          if (bkj === 0) continue;
          const t = alpha * bkj;
          const ak = aOff + k * lda;
          if (upper) {
            axpyColumn(k, t, A, ak, B, bj);
            B[bj + k] = nonunit ? t * A[ak + k] : t;
          } else {
            B[bj + k] = nonunit ? t * A[ak + k] : t;
            axpyColumn(m - k - 1, t, A, ak + k + 1, B, bj + k + 1);
          }
        }
      } else {
        // (A^T b)_i = A(:, i) . b over the triangle: descending i for upper A, ascending for lower.
        for (let s = 0; s < m; s++) {
          const i = upper ? m - 1 - s : s;
          const ai = aOff + i * lda;
          let t = B[bj + i];
          if (nonunit) t *= A[ai + i];
          if (upper) for (let k = 0; k < i; k++) t += A[ai + k] * B[bj + k];
          else for (let k = i + 1; k < m; k++) t += A[ai + k] * B[bj + k];
          B[bj + i] = alpha * t;
        }
      }
    }
    return;
  }
  if (transA === 'N') {
    // (B A)(:, j) = sum_k B(:, k) A(k, j): visit j so that the columns k it needs are still unchanged.
    for (let s = 0; s < n; s++) {
      const j = upper ? n - 1 - s : s;
      const bj = bOff + j * ldb;
      const aj = aOff + j * lda;
      multiplyColumn(B, bj, m, nonunit ? alpha * A[aj + j] : alpha);
      const kLo = upper ? 0 : j + 1;
      const kHi = upper ? j : n;
      for (let k = kLo; k < kHi; k++) {
        const akj = A[aj + k];
        if (akj !== 0) axpyColumn(m, alpha * akj, B, bOff + k * ldb, B, bj);
      }
    }
    return;
  }
  // (B A^T)(:, j) = sum_k B(:, k) A(j, k): column k feeds the columns j it reaches, then is scaled.
  for (let s = 0; s < n; s++) {
    const k = upper ? s : n - 1 - s;
    const bk = bOff + k * ldb;
    const ak = aOff + k * lda;
    const jLo = upper ? 0 : k + 1;
    const jHi = upper ? k : n;
    for (let j = jLo; j < jHi; j++) {
      const ajk = A[ak + j];
      if (ajk !== 0) axpyColumn(m, alpha * ajk, B, bk, B, bOff + j * ldb);
    }
    const t = nonunit ? alpha * A[ak + k] : alpha;
    if (t !== 1) multiplyColumn(B, bk, m, t);
  }
}

/**
 * Triangular solve with many right-hand sides on the CPU, following reference BLAS dtrsm loop
 * for loop: side 'left': B := alpha op(A)^-1 B (A m x m); 'right': B := alpha B op(A)^-1
 * (A n x n); B m x n. Only the `uplo` triangle of A is read, and its diagonal only when diag is
 * 'nonunit'. A zero in A's diagonal gives Inf/NaN, as in BLAS (no check: that is LAPACK's job).
 */
import type { FloatArray } from '../core/dtype.js';
import type { Diag, Side, Uplo } from '../core/enums.js';
import type { Op, TrsmRequest } from '../core/ops.js';
import { axpyColumn, multiplyColumn, scaleColumn } from './columns.js';
import { eachTriangular } from './triangular.js';

/** Runs `trsm1` on every matrix of the batch. */
export function cpuTrsm(r: TrsmRequest<FloatArray>): void {
  eachTriangular(r, trsm1);
}

/** One trsm, with element (i, j) of X at `X[xOff + i + j * ldx]`. alpha = 0 zeroes B without reading it. */
export function trsm1(
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
        // Column-oriented substitution: once x_k is known, subtract x_k A(:, k) from the rest.
        scaleColumn(B, bj, m, alpha);
        for (let s = 0; s < m; s++) {
          const k = upper ? m - 1 - s : s;
          let xk = B[bj + k];
          if (xk === 0) continue;
          const ak = aOff + k * lda;
          if (nonunit) B[bj + k] = xk /= A[ak + k];
          if (upper) axpyColumn(k, -xk, A, ak, B, bj);
          else axpyColumn(m - k - 1, -xk, A, ak + k + 1, B, bj + k + 1);
        }
      } else {
        // Row-oriented substitution on A^T: x_i = (alpha b_i - A(:, i) . x) / A(i, i), a dot
        // product over the contiguous column i of A.
        for (let s = 0; s < m; s++) {
          const i = upper ? s : m - 1 - s;
          const ai = aOff + i * lda;
          let t = alpha * B[bj + i];
          if (upper) for (let k = 0; k < i; k++) t -= A[ai + k] * B[bj + k];
          else for (let k = i + 1; k < m; k++) t -= A[ai + k] * B[bj + k];
          if (nonunit) t /= A[ai + i];
          B[bj + i] = t;
        }
      }
    }
    return;
  }
  // side 'right': X op(A) = alpha B, solved one column of X at a time.
  if (transA === 'N') {
    // Column j of X needs the columns k < j (upper) or k > j (lower) of X, already solved.
    for (let s = 0; s < n; s++) {
      const j = upper ? s : n - 1 - s;
      const bj = bOff + j * ldb;
      const aj = aOff + j * lda;
      scaleColumn(B, bj, m, alpha);
      const kLo = upper ? 0 : j + 1;
      const kHi = upper ? j : n;
      for (let k = kLo; k < kHi; k++) {
        const akj = A[aj + k];
        if (akj !== 0) axpyColumn(m, -akj, B, bOff + k * ldb, B, bj);
      }
      if (nonunit) multiplyColumn(B, bj, m, 1 / A[aj + j]);
    }
    return;
  }
  // X A^T = alpha B: column k of X is final once the columns it feeds have been updated.
  for (let s = 0; s < n; s++) {
    const k = upper ? n - 1 - s : s;
    const bk = bOff + k * ldb;
    const ak = aOff + k * lda;
    if (nonunit) multiplyColumn(B, bk, m, 1 / A[ak + k]);
    const jLo = upper ? 0 : k + 1;
    const jHi = upper ? k : n;
    for (let j = jLo; j < jHi; j++) {
      const ajk = A[ak + j];
      if (ajk !== 0) axpyColumn(m, -ajk, B, bk, B, bOff + j * ldb);
    }
    scaleColumn(B, bk, m, alpha);
  }
}

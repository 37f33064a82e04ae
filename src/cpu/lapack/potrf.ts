/**
 * Cholesky factorisation, the CPU reference: LAPACK's dpotf2 (unblocked, left-looking).
 *
 * uplo 'lower': A = L L^T, L written over the lower triangle; 'upper': A = U^T U, U over the upper
 * triangle. The other triangle is never read or written.
 *
 * On failure at step k (1-based) the matrix is left as dpotf2 leaves it: columns (lower) or rows
 * (upper) 1..k-1 hold the factor, A(k,k) holds the non-positive (or NaN) value
 * A(k,k) - sum_j L(k,j)^2, and everything after it is untouched. (LAPACK >= 3.6 calls the recursive
 * dpotrf2 for small n, which leaves a different partial state; the info value is the same.)
 *
 * The pivot test is `!(ajj > 0)`, so a NaN anywhere in the referenced triangle is reported as
 * "not positive definite" at the first diagonal it reaches (dpotf2 tests DISNAN as well).
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { PotrfRequest } from '../../core/ops.js';

export function cpuPotrf(r: PotrfRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    r.info[i] = potrfMatrix(m.data, m.offset, m.ld, m.rows, upper);
  }
}

/** Factors one n x n matrix in place; returns LAPACK's info (0, or k for the failing minor). */
export function potrfMatrix(a: FloatArray, off: number, ld: number, n: number, upper: boolean): number {
  return upper ? potrfUpper(a, off, ld, n) : potrfLower(a, off, ld, n);
}

/**
 * Lower: for each column j, A(j,j) -= ||L(j,0:j)||^2, then the column below the diagonal is
 * updated with the columns to its left (a gemv done column by column, so every inner loop runs
 * down a contiguous column) and scaled by 1 / L(j,j).
 */
function potrfLower(a: FloatArray, off: number, ld: number, n: number): number {
  for (let j = 0; j < n; j++) {
    const cj = off + j * ld;
    let dot = 0;
    for (let k = 0; k < j; k++) {
      const v = a[off + k * ld + j]!;
      dot += v * v;
    }
    const ajj = a[cj + j]! - dot;
    if (!(ajj > 0)) {
      a[cj + j] = ajj;
      return j + 1;
    }
    a[cj + j] = Math.sqrt(ajj);
    for (let k = 0; k < j; k++) {
      const ck = off + k * ld;
      const t = a[ck + j]!;
      for (let i = j + 1; i < n; i++) a[cj + i] -= t * a[ck + i]!;
    }
    // Scale by the reciprocal of the stored diagonal (dscal by 1/ajj, as dpotf2), so a float32
    // factor is consistent with its own rounded diagonal.
    const rcp = 1 / a[cj + j]!;
    for (let i = j + 1; i < n; i++) a[cj + i] *= rcp;
  }
  return 0;
}

/**
 * Upper: the transpose of the lower case. U(0:j, j) is contiguous, so both the diagonal update and
 * the row update (a transposed gemv: one dot per column to the right) read contiguous columns.
 */
function potrfUpper(a: FloatArray, off: number, ld: number, n: number): number {
  for (let j = 0; j < n; j++) {
    const cj = off + j * ld;
    let dot = 0;
    for (let k = 0; k < j; k++) {
      const v = a[cj + k]!;
      dot += v * v;
    }
    const ajj = a[cj + j]! - dot;
    if (!(ajj > 0)) {
      a[cj + j] = ajj;
      return j + 1;
    }
    a[cj + j] = Math.sqrt(ajj);
    const rcp = 1 / a[cj + j]!;
    for (let c = j + 1; c < n; c++) {
      const cc = off + c * ld;
      let s = 0;
      for (let k = 0; k < j; k++) s += a[cc + k]! * a[cj + k]!;
      a[cc + j] = (a[cc + j]! - s) * rcp;
    }
  }
  return 0;
}

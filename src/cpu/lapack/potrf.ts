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
import { Workspace, load, store, triangleRegion } from './workspace.js';

const workspace = new Workspace();

export function cpuPotrf(r: PotrfRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const region = triangleRegion(upper);
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    const w = workspace.get(m.rows * m.rows);
    load(m, region, w);
    r.info[i] = potrfMatrix(w, 0, Math.max(1, m.rows), m.rows, upper);
    store(w, region, m);
  }
}

/** Factors one n x n matrix in place; returns LAPACK's info (0, or k for the failing minor). */
export function potrfMatrix(a: Float64Array, off: number, ld: number, n: number, upper: boolean): number {
  return upper ? potrfUpper(a, off, ld, n) : potrfLower(a, off, ld, n);
}

/**
 * Lower: for each column j, A(j,j) -= ||L(j,0:j)||^2, then the column below the diagonal is
 * updated with the columns to its left (a gemv done column by column, so every inner loop runs
 * down a contiguous column) and scaled by 1 / L(j,j).
 */
function potrfLower(a: Float64Array, off: number, ld: number, n: number): number {
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
    // Four columns per pass: one load and store of A(i,j) per four multiply-adds.
    let k = 0;
    for (; k + 3 < j; k += 4) {
      const c0 = off + k * ld;
      const c1 = c0 + ld;
      const c2 = c1 + ld;
      const c3 = c2 + ld;
      const t0 = a[c0 + j]!;
      const t1 = a[c1 + j]!;
      const t2 = a[c2 + j]!;
      const t3 = a[c3 + j]!;
      for (let i = j + 1; i < n; i++) a[cj + i] -= t0 * a[c0 + i]! + t1 * a[c1 + i]! + t2 * a[c2 + i]! + t3 * a[c3 + i]!;
    }
    for (; k < j; k++) {
      const ck = off + k * ld;
      const t = a[ck + j]!;
      for (let i = j + 1; i < n; i++) a[cj + i] -= t * a[ck + i]!;
    }
    const rcp = 1 / a[cj + j]!; // dscal by 1 / L(j,j), as dpotf2
    for (let i = j + 1; i < n; i++) a[cj + i] *= rcp;
  }
  return 0;
}

/**
 * Upper: the transpose of the lower case. U(0:j, j) is contiguous, so both the diagonal update and
 * the row update (a transposed gemv: one dot per column to the right) read contiguous columns.
 */
function potrfUpper(a: Float64Array, off: number, ld: number, n: number): number {
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
    // Two columns per pass share the loads of U(0:j, j).
    let c = j + 1;
    for (; c + 1 < n; c += 2) {
      const c0 = off + c * ld;
      const c1 = c0 + ld;
      let s0 = 0;
      let s1 = 0;
      for (let k = 0; k < j; k++) {
        const u = a[cj + k]!;
        s0 += a[c0 + k]! * u;
        s1 += a[c1 + k]! * u;
      }
      a[c0 + j] = (a[c0 + j]! - s0) * rcp;
      a[c1 + j] = (a[c1 + j]! - s1) * rcp;
    }
    if (c < n) {
      const cc = off + c * ld;
      let s = 0;
      for (let k = 0; k < j; k++) s += a[cc + k]! * a[cj + k]!;
      a[cc + j] = (a[cc + j]! - s) * rcp;
    }
  }
  return 0;
}

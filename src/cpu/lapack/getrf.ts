/**
 * LU factorisation with partial pivoting, the CPU reference: LAPACK's dgetf2 (unblocked,
 * right-looking), for any m x n.
 *
 * P A = L U with L unit lower trapezoidal (m x min(m,n), below the diagonal) and U upper
 * trapezoidal (min(m,n) x n). Pivots are 0-based (see src/core/ops.ts): at step j, row j was
 * swapped with row ipiv[j] >= j, across all n columns.
 *
 * info = k (1-based) for the first exactly-zero pivot U(k,k); as in LAPACK the factorisation goes
 * on (that column is neither swapped nor scaled), so P A = L U still holds for a singular A.
 * The pivot is the first entry of largest magnitude (idamax: a later entry wins only if strictly
 * larger, so a NaN never displaces a number and a leading NaN is never displaced).
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GetrfRequest } from '../../core/ops.js';

/** Smallest positive normal number (LAPACK's dlamch('S')): below it dgetf2 divides instead of scaling by the reciprocal. */
const SAFE_MIN_F64 = 2.2250738585072014e-308;
const SAFE_MIN_F32 = 1.1754943508222875e-38;

export function cpuGetrf(r: GetrfRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    r.info[i] = getrfMatrix(m.data, m.offset, m.ld, m.rows, m.cols, r.ipiv, i * r.pivotStride);
  }
}

/** Factors one m x n matrix in place, pivots to ipiv[pivOff .. pivOff + min(m,n)); returns info. */
export function getrfMatrix(
  a: FloatArray, off: number, ld: number, m: number, n: number, ipiv: Int32Array, pivOff: number,
): number {
  const safeMin = a instanceof Float32Array ? SAFE_MIN_F32 : SAFE_MIN_F64;
  const steps = Math.min(m, n);
  let info = 0;
  for (let j = 0; j < steps; j++) {
    const cj = off + j * ld;
    let p = j;
    let pmax = Math.abs(a[cj + j]!);
    for (let i = j + 1; i < m; i++) {
      const v = Math.abs(a[cj + i]!);
      if (v > pmax) {
        pmax = v;
        p = i;
      }
    }
    ipiv[pivOff + j] = p;
    if (a[cj + p] !== 0) {
      if (p !== j) {
        for (let c = 0; c < n; c++) {
          const base = off + c * ld;
          const t = a[base + j]!;
          a[base + j] = a[base + p]!;
          a[base + p] = t;
        }
      }
      const pivot = a[cj + j]!;
      if (Math.abs(pivot) >= safeMin) {
        const rcp = 1 / pivot;
        for (let i = j + 1; i < m; i++) a[cj + i] *= rcp;
      } else {
        for (let i = j + 1; i < m; i++) a[cj + i] /= pivot;
      }
    } else if (info === 0) {
      info = j + 1;
    }
    // Rank-1 update of the trailing block, one contiguous column at a time (dger).
    for (let c = j + 1; c < n; c++) {
      const cc = off + c * ld;
      const t = a[cc + j]!;
      for (let i = j + 1; i < m; i++) a[cc + i] -= a[cj + i]! * t;
    }
  }
  return info;
}

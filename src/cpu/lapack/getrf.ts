/**
 * LU factorisation with partial pivoting, the CPU reference: LAPACK's dgetf2 (unblocked,
 * right-looking), for any m x n.
 *
 * P A = L U with L unit lower trapezoidal (m x min(m,n), below the diagonal) and U upper
 * trapezoidal (min(m,n) x n). Pivots are 0-based (see src/core/ops.ts): at step j, row j was
 * swapped with row ipiv[j] >= j, across all n columns.
 *
 * info = k (1-based) for the first zero pivot U(k,k); as in LAPACK the factorisation goes on
 * (that column is neither swapped nor scaled, and ipiv[k-1] = k-1), so P A = L U still holds for a
 * singular A. A pivot is zero when it stores as zero: float64 exactly 0; float32, factored in
 * float64, |p| <= 2^-150 (dtype-table.ts zeroMax), which rounds to U(k,k) = 0 on store, so that
 * info is what sgetf2 would report and gesv never divides by a stored zero with info = 0. The
 * whole column is then within 2^-150 (the pivot is its largest entry): float32 LAPACK would see it
 * all zero and not interchange; it stores as zeros, so the stored P A = L U is off by the update
 * with those entries, at most 2^-150 |U(k,c)| an element.
 * The pivot is the first entry of largest magnitude (idamax: a later entry wins only if strictly
 * larger, so a NaN never displaces a number and a leading NaN is never displaced); a NaN pivot is
 * not zero.
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { GetrfRequest } from '../../core/ops.js';
import { WHOLE, Workspace, load, store } from './workspace.js';

const workspace = new Workspace();

/** Smallest positive normal number (LAPACK's dlamch('S')): below it dgetf2 divides instead of scaling by the reciprocal. */
const SAFE_MIN = 2.2250738585072014e-308;

export function cpuGetrf(r: GetrfRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    const w = workspace.get(m.rows * m.cols);
    load(m, WHOLE, w);
    r.info[i] = getrfMatrix(w, 0, Math.max(1, m.rows), m.rows, m.cols, r.ipiv, i * r.pivotStride, dtypeInfo(dtypeOfArray(m.data, 'a.data')).zeroMax);
    store(w, WHOLE, m);
  }
}

/**
 * Factors one m x n matrix in place, pivots to ipiv[pivOff .. pivOff + min(m,n)); returns info.
 * A pivot of magnitude <= zeroMax counts as zero (the data's DTypeInfo.zeroMax: 0, exactly zero,
 * for float64).
 */
export function getrfMatrix(
  a: Float64Array, off: number, ld: number, m: number, n: number, ipiv: Int32Array, pivOff: number, zeroMax = 0,
): number {
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
    // not `> zeroMax`: a NaN pivot is not zero
    const nonzero = !(Math.abs(a[cj + p]!) <= zeroMax);
    // a zero pivot takes no interchange (with zeroMax > 0 the largest tiny entry may lie below j)
    ipiv[pivOff + j] = nonzero ? p : j;
    if (nonzero) {
      if (p !== j) {
        for (let c = 0; c < n; c++) {
          const base = off + c * ld;
          const t = a[base + j]!;
          a[base + j] = a[base + p]!;
          a[base + p] = t;
        }
      }
      const pivot = a[cj + j]!;
      if (Math.abs(pivot) >= SAFE_MIN) {
        const rcp = 1 / pivot;
        for (let i = j + 1; i < m; i++) a[cj + i] *= rcp;
      } else {
        for (let i = j + 1; i < m; i++) a[cj + i] /= pivot;
      }
    } else if (info === 0) {
      info = j + 1;
    }
    // Rank-1 update of the trailing block (dger), down contiguous columns, four columns per pass
    // so that each L(i,j) is loaded once for four updates.
    let c = j + 1;
    for (; c + 3 < n; c += 4) {
      const c0 = off + c * ld;
      const c1 = c0 + ld;
      const c2 = c1 + ld;
      const c3 = c2 + ld;
      const t0 = a[c0 + j]!;
      const t1 = a[c1 + j]!;
      const t2 = a[c2 + j]!;
      const t3 = a[c3 + j]!;
      for (let i = j + 1; i < m; i++) {
        const l = a[cj + i]!;
        a[c0 + i] -= l * t0;
        a[c1 + i] -= l * t1;
        a[c2 + i] -= l * t2;
        a[c3 + i] -= l * t3;
      }
    }
    for (; c < n; c++) {
      const cc = off + c * ld;
      const t = a[cc + j]!;
      for (let i = j + 1; i < m; i++) a[cc + i] -= a[cj + i]! * t;
    }
  }
  return info;
}

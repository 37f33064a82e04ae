/**
 * LU factorisation with partial pivoting on complex batches, the reference (LAPACK's zgetf2,
 * unblocked, right-looking), any m x n: P A = L U, L unit lower trapezoidal, U upper trapezoidal,
 * pivots 0-based as the real getrf's (row j swapped with row ipiv[j] >= j).
 *
 * The pivot is the first entry of largest |re| + |im| (izamax's dcabs1: a later entry wins only if
 * strictly larger, so a NaN never displaces a number). info = k for the first zero pivot U(k, k);
 * the factorisation goes on, as LAPACK's (that column neither interchanged, ipiv[k-1] = k-1, nor
 * scaled). A pivot is zero when it stores as zero: complex128 both parts exactly 0; complex64,
 * factored in float64, both parts within 2^-150 (dtype-table.ts zeroMax), which round to 0 on
 * store (a pivot with one part beyond it is not zero; nor is one with a NaN part).
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { GetrfRequest } from '../../core/op-specs.js';
import { abs1, divideInto } from './scalar.js';
import { WHOLE, Workspace, zload, zstore } from './workspace.js';

const workspace = new Workspace();
/** The reciprocal of a pivot, (re, im). */
const rcp = new Float64Array(2);

/** Smallest positive normal number (dlamch('S')): below it zgetf2 divides instead of scaling by the reciprocal. */
const SAFE_MIN = 2.2250738585072014e-308;

export function cpuGetrfComplex(r: GetrfRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let p = 0; p < count; p++) {
    const m = matrixAt(r.a, p);
    const w = workspace.get(2 * m.rows * m.cols);
    zload(m, WHOLE, w);
    r.info[p] = getrfMatrixComplex(w, m.rows, m.cols, r.ipiv, p * r.pivotStride, dtypeInfo(dtypeOfArray(m.data, 'a.data')).zeroMax);
    zstore(w, WHOLE, m);
  }
}

/**
 * Factors one m x n matrix in place on a workspace (ld = m, interleaved); pivots to ipiv[pivOff ...];
 * returns info. A pivot with both parts of magnitude <= zeroMax counts as zero (the parts'
 * DTypeInfo.zeroMax: 0, exactly zero, for complex128).
 */
export function getrfMatrixComplex(a: Float64Array, m: number, n: number, ipiv: Int32Array, pivOff: number, zeroMax = 0): number {
  const ld = Math.max(1, m);
  const at = (i: number, j: number): number => 2 * (i + j * ld);
  let info = 0;
  for (let j = 0; j < Math.min(m, n); j++) {
    let p = j;
    let pmax = abs1(a[at(j, j)]!, a[at(j, j) + 1]!);
    for (let i = j + 1; i < m; i++) {
      const v = abs1(a[at(i, j)]!, a[at(i, j) + 1]!);
      if (v > pmax) {
        pmax = v;
        p = i;
      }
    }
    // not `> zeroMax`: a NaN part makes the pivot nonzero
    const nonzero = !(Math.abs(a[at(p, j)]!) <= zeroMax && Math.abs(a[at(p, j) + 1]!) <= zeroMax);
    // a zero pivot takes no interchange (with zeroMax > 0 the largest tiny entry may lie below j)
    ipiv[pivOff + j] = nonzero ? p : j;
    if (nonzero) {
      if (p !== j) {
        for (let c = 0; c < n; c++) {
          const x = at(j, c);
          const y = at(p, c);
          [a[x], a[x + 1], a[y], a[y + 1]] = [a[y]!, a[y + 1]!, a[x]!, a[x + 1]!];
        }
      }
      const pr = a[at(j, j)]!;
      const pi = a[at(j, j) + 1]!;
      if (Math.hypot(pr, pi) >= SAFE_MIN) {
        divideInto(rcp, 0, 1, 0, pr, pi);
        const [rr, ri] = [rcp[0]!, rcp[1]!];
        for (let i = j + 1; i < m; i++) {
          const x = at(i, j);
          const xr = a[x]!;
          const xi = a[x + 1]!;
          a[x] = xr * rr - xi * ri;
          a[x + 1] = xr * ri + xi * rr;
        }
      } else {
        for (let i = j + 1; i < m; i++) divideInto(a, at(i, j), a[at(i, j)]!, a[at(i, j) + 1]!, pr, pi);
      }
    } else if (info === 0) {
      info = j + 1;
    }
    // Rank-1 update of the trailing block: A(i, c) -= L(i, j) U(j, c).
    for (let c = j + 1; c < n; c++) {
      const u = at(j, c);
      const ur = a[u]!;
      const ui = a[u + 1]!;
      for (let i = j + 1; i < m; i++) {
        const l = at(i, j);
        const x = at(i, c);
        a[x] -= a[l]! * ur - a[l + 1]! * ui;
        a[x + 1] -= a[l]! * ui + a[l + 1]! * ur;
      }
    }
  }
  return info;
}

/**
 * Least squares and minimum norm solutions on complex batches, the reference (LAPACK's zgels,
 * trans 'N'), on the Householder QR of zqr.ts:
 * - m >= n: A = Q R, X = R^-1 (Q^H B)(0:n).
 * - m < n: the QR of A^H stands in for zgelqf's L Q of A (A^H = Q R gives A = R^H Q^H, zgelqf's
 *   factors exactly: A's storage receives R^H on and below the diagonal and the conjugated
 *   reflectors to its right), X = Q [R^-H B(0:m); 0].
 * info = j + 1 where R(j, j) is exactly zero (A not of full rank; X not computed, B left as LAPACK
 * leaves it, unspecified). An all-zero A gives X = 0 and info 0 (zgels's rule).
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GelsRequest } from '../../core/op-specs.js';
import { divideInto } from './scalar.js';
import { WHOLE, Workspace, zload, zstore } from './workspace.js';
import { zgeqr2, zunm2r } from './zqr.js';
import { gelsScale, unscaleSolution } from '../lapack/qr.js';

const work = new Workspace();
const bwork = new Workspace();
const twork = new Workspace();

export function cpuGelsComplex(r: GelsRequest<FloatArray, Int32Array>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const bm = matrixAt(r.b, i);
    // No right-hand sides: dgels returns before it factors (A untouched, info 0).
    if (bm.cols === 0) { r.info[i] = 0; continue; }
    const { rows: m, cols: n } = am;
    const tall = m >= n;
    // The factored matrix F: A (m x n) or A^H (n x m), ld = its rows.
    const rows = tall ? m : n;
    const k = tall ? n : m;
    const a = work.get(2 * rows * k);
    for (let j = 0; j < n; j++) for (let q = 0; q < m; q++) {
      const s = 2 * (am.offset + q + j * am.ld);
      const f = 2 * (tall ? q + j * m : j + q * n);
      a[f] = am.data[s]!;
      a[f + 1] = tall ? am.data[s + 1]! : -am.data[s + 1]!;
    }
    const nrhs = bm.cols;
    const b = bwork.get(2 * rows * nrhs);
    zload(bm, WHOLE, b);
    let zero = true;
    for (let q = 0; q < 2 * rows * k && zero; q++) zero = a[q] === 0;
    if (zero) {
      b.fill(0, 0, 2 * rows * nrhs);
      zstore(b, WHOLE, bm);
      r.info[i] = 0;
      continue;
    }
    // As the real gels (lapack/qr.ts): A and B scaled into the normal range first, X and R back after.
    const sa = gelsScale(a, 2 * rows * k), sb = gelsScale(b, 2 * rows * nrhs);
    const tau = twork.get(2 * k);
    zgeqr2(a, tau, rows, k);
    for (let j = 0; j < n; j++) for (let q = 0; q < m; q++) {
      const d = 2 * (am.offset + q + j * am.ld);
      const f = 2 * (tall ? q + j * m : j + q * n);
      // R (on and above F's diagonal) of A itself; the reflectors below do not depend on the scale.
      const unscale = sa !== 1 && (tall ? q <= j : j <= q) ? sa : 1;
      am.data[d] = a[f]! / unscale;
      am.data[d + 1] = (tall ? a[f + 1]! : -a[f + 1]!) / unscale;
    }
    let info = 0;
    for (let j = 0; j < k && info === 0; j++) if (a[2 * (j + j * rows)] === 0 && a[2 * (j + j * rows) + 1] === 0) info = j + 1;
    r.info[i] = info;
    if (info !== 0) continue;
    if (tall) zunm2r('left', 'C', a, rows, tau, k, b, rows, nrhs);
    const at = (p: number, q: number): number => 2 * (p + q * rows);
    for (let c = 0; c < nrhs; c++) {
      const o = 2 * c * rows;
      if (tall) {
        // R x = (Q^H b)(0:n), back substitution.
        for (let j = n - 1; j >= 0; j--) {
          let sr = b[o + 2 * j]!;
          let si = b[o + 2 * j + 1]!;
          for (let p = j + 1; p < n; p++) {
            const rr = a[at(j, p)]!, ri = a[at(j, p) + 1]!, xr = b[o + 2 * p]!, xi = b[o + 2 * p + 1]!;
            sr -= rr * xr - ri * xi;
            si -= rr * xi + ri * xr;
          }
          divideInto(b, o + 2 * j, sr, si, a[at(j, j)]!, a[at(j, j) + 1]!);
        }
      } else {
        // R^H y = b(0:m), forward substitution (R^H(j, p) = conj(R(p, j))); then x = Q [y; 0].
        for (let j = 0; j < m; j++) {
          let sr = b[o + 2 * j]!;
          let si = b[o + 2 * j + 1]!;
          for (let p = 0; p < j; p++) {
            const rr = a[at(p, j)]!, ri = -a[at(p, j) + 1]!, xr = b[o + 2 * p]!, xi = b[o + 2 * p + 1]!;
            sr -= rr * xr - ri * xi;
            si -= rr * xi + ri * xr;
          }
          divideInto(b, o + 2 * j, sr, si, a[at(j, j)]!, -a[at(j, j) + 1]!);
        }
        b.fill(0, o + 2 * m, o + 2 * n);
      }
    }
    if (!tall) zunm2r('left', 'N', a, rows, tau, k, b, rows, nrhs);
    if (sa !== 1 || sb !== 1) unscaleSolution(b, rows, nrhs, n, 2, sa, sb);
    zstore(b, WHOLE, bm);
  }
}

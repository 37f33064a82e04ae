/**
 * The check of a complex LU (getrf's result) that needs no second implementation: the normalised
 * residual ||P A - L U||_F / (n eps ||A||_F) of each matrix, from the pristine A, the factors (L
 * unit lower, U upper, over A) and the row swaps. LAPACK's tests call a factorisation wrong above
 * 30 of their (1-norm) ratio; LU_RESIDUAL_LIMIT leaves room above that.
 */
import type { FloatArray } from '../core/dtype.js';

/** Above this normalised residual (or NaN) a factorisation is wrong. */
export const LU_RESIDUAL_LIMIT = 100;

/**
 * ||P A - L U||_F / (n eps ||A||_F) of one complex n x n matrix: `a` its pristine pairs and `lu` the
 * factors (interleaved (re, im), column-major, ld n), `ipiv` LAPACK's swaps (row j with row
 * ipiv[j] - base, in order), `base` 0 for this library's pivots, 1 for LAPACK's and the vendor's.
 * A pivot outside the matrix gives Infinity; NaN in the factors gives NaN.
 */
export function complexLuResidual(a: FloatArray, lu: FloatArray, ipiv: Int32Array, n: number, base: 0 | 1, eps: number): number {
  if (a.length < 2 * n * n || lu.length < 2 * n * n || ipiv.length < n) throw new RangeError(`complexLuResidual: arrays shorter than one ${n} x ${n} matrix`);
  const pa = Float64Array.from(a.subarray(0, 2 * n * n));
  for (let j = 0; j < n; j++) {
    const p = ipiv[j]! - base;
    if (!(p >= 0 && p < n)) return Infinity;
    if (p === j) continue;
    for (let c = 0; c < n; c++) {
      const [x, y] = [2 * (j + c * n), 2 * (p + c * n)];
      const [re, im] = [pa[x]!, pa[x + 1]!];
      pa[x] = pa[y]!;
      pa[x + 1] = pa[y + 1]!;
      pa[y] = re;
      pa[y + 1] = im;
    }
  }
  let diff = 0, norm = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      // (L U)(i, j) = sum over k <= min(i, j) of L(i, k) U(k, j), L(i, i) = 1.
      let re = 0, im = 0;
      const last = Math.min(i, j);
      for (let k = 0; k <= last; k++) {
        const u = 2 * (k + j * n);
        const [ur, ui] = [lu[u]!, lu[u + 1]!];
        if (k === i) { re += ur; im += ui; continue; }
        const l = 2 * (i + k * n);
        const [lr, li] = [lu[l]!, lu[l + 1]!];
        re += lr * ur - li * ui;
        im += lr * ui + li * ur;
      }
      const x = 2 * (i + j * n);
      diff += (pa[x]! - re) ** 2 + (pa[x + 1]! - im) ** 2;
      norm += pa[x]! ** 2 + pa[x + 1]! ** 2;
    }
  }
  return Math.sqrt(diff) / (n * eps * Math.max(Math.sqrt(norm), Number.MIN_VALUE));
}

/** Matrices of a batch of `count` the check reads: evenly spread from the first to the last, at most `max` (64) and about 2e7 flops of products in all. */
export function checkSample(n: number, count: number, max = 64): number[] {
  const k = Math.max(1, Math.min(count, max, Math.floor(2e7 / (n * n * n))));
  if (k === 1) return [0];
  return Array.from({ length: k }, (_, j) => Math.floor((j * (count - 1)) / (k - 1)));
}

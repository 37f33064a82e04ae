/**
 * Symmetric rank-k update on the CPU, following reference BLAS dsyrk:
 * trans 'N': C := alpha A A^T + beta C (A n x k); 'T': C := alpha A^T A + beta C (A k x n).
 * Only the `uplo` triangle of C (diagonal included) is read or written.
 */
import { batchCount, matrixAt } from '../core/batch.js';
import type { FloatArray } from '../core/dtype.js';
import type { Uplo } from '../core/enums.js';
import type { Op, SyrkRequest } from '../core/ops.js';
import { scaleColumn } from './columns.js';

/** Runs `syrk1` on every matrix of the batch. */
export function cpuSyrk(r: SyrkRequest<FloatArray>): void {
  const count = batchCount(r.c);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const c = matrixAt(r.c, p);
    const k = r.trans === 'N' ? a.cols : a.rows;
    syrk1(r.uplo, r.trans, c.rows, k, r.alpha, a.data, a.offset, a.ld, r.beta, c.data, c.offset, c.ld);
  }
}

/** One syrk, C n x n. beta = 0 never reads C; alpha = 0 (or k = 0) never reads A. */
export function syrk1(
  uplo: Uplo, trans: Op, n: number, k: number, alpha: number,
  A: FloatArray, aOff: number, lda: number,
  beta: number, C: FloatArray, cOff: number, ldc: number,
): void {
  if (n === 0 || ((alpha === 0 || k === 0) && beta === 1)) return;
  const upper = uplo === 'upper';
  // Column j of the triangle is rows lo..hi-1: 0..j (upper) or j..n-1 (lower).
  if (alpha === 0) {
    for (let j = 0; j < n; j++) {
      const lo = upper ? 0 : j;
      const hi = upper ? j + 1 : n;
      scaleColumn(C, cOff + lo + j * ldc, hi - lo, beta);
    }
    return;
  }
  if (trans === 'N') {
    // C(lo:hi, j) += (alpha A(j, l)) A(lo:hi, l).
    for (let j = 0; j < n; j++) {
      const lo = upper ? 0 : j;
      const hi = upper ? j + 1 : n;
      const cj = cOff + j * ldc;
      scaleColumn(C, cj + lo, hi - lo, beta);
      for (let l = 0; l < k; l++) {
        const ajl = A[aOff + j + l * lda];
        if (ajl === 0) continue; // as dsyrk: skips the column, so 0 * NaN in A does not propagate
        const t = alpha * ajl;
        const al = aOff + l * lda;
        for (let i = lo; i < hi; i++) C[cj + i] += t * A[al + i];
      }
    }
    return;
  }
  // C(i, j) = alpha A(:, i) . A(:, j) + beta C(i, j), dot products of contiguous columns.
  for (let j = 0; j < n; j++) {
    const lo = upper ? 0 : j;
    const hi = upper ? j + 1 : n;
    const cj = cOff + j * ldc;
    const aj = aOff + j * lda;
    for (let i = lo; i < hi; i++) {
      const ai = aOff + i * lda;
      let t = 0;
      for (let l = 0; l < k; l++) t += A[ai + l] * A[aj + l];
      C[cj + i] = beta === 0 ? alpha * t : alpha * t + beta * C[cj + i];
    }
  }
}

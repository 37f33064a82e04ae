/**
 * Column operations shared by the CPU BLAS-3 kernels (the level-1 loops inside reference BLAS
 * dgemm/dsyrk/dtrsm/dtrmm, written once). Every column is `len` contiguous elements from `off`.
 */
import type { FloatArray } from '../core/dtype.js';

/**
 * X := s X, except that s = 0 writes zeros without reading X (BLAS: beta = 0 never reads C, so a
 * NaN already there does not survive) and s = 1 touches nothing.
 */
export function scaleColumn(X: FloatArray, off: number, len: number, s: number): void {
  if (s === 1) return;
  const end = off + len;
  if (s === 0) {
    X.fill(0, off, end);
    return;
  }
  for (let i = off; i < end; i++) X[i] *= s;
}

/** Y := Y + s X over one column. */
export function axpyColumn(len: number, s: number, X: FloatArray, xOff: number, Y: FloatArray, yOff: number): void {
  for (let i = 0; i < len; i++) Y[yOff + i] += s * X[xOff + i];
}

/** X := s X, always read (NaN and Inf in X survive any s, as in BLAS's unconditional scalings). */
export function multiplyColumn(X: FloatArray, off: number, len: number, s: number): void {
  const end = off + len;
  for (let i = off; i < end; i++) X[i] *= s;
}

/**
 * Complex scalar arithmetic of the complex reference, on (re, im) pairs held in float arrays
 * (interleaved: element e at X[2 e], X[2 e + 1]). The inner loops spell products out inline;
 * what needs care (division, magnitudes) lives here once.
 */
import type { FloatArray } from '../../core/dtype.js';

/**
 * out[o], out[o + 1] := (ar + i ai) / (br + i bi) by Smith's algorithm (no overflow of br^2 + bi^2).
 * A zero or NaN divisor gives Inf or NaN, as Fortran's complex division does.
 */
export function divideInto(out: FloatArray, o: number, ar: number, ai: number, br: number, bi: number): void {
  if (Math.abs(br) >= Math.abs(bi)) {
    const r = bi / br;
    const d = br + bi * r;
    out[o] = (ar + ai * r) / d;
    out[o + 1] = (ai - ar * r) / d;
  } else {
    const r = br / bi;
    const d = bi + br * r;
    out[o] = (ar * r + ai) / d;
    out[o + 1] = (ai * r - ar) / d;
  }
}

/** |re| + |im|: LAPACK's dcabs1, the magnitude izamax compares (zgetf2's pivot choice). */
export const abs1 = (re: number, im: number): number => Math.abs(re) + Math.abs(im);

/**
 * Scales `len` elements of X, element k at 2 (e + k step), by (sr + i si): s = 0 writes zeros
 * without reading X (BLAS: beta = 0 never reads C), s = 1 touches nothing.
 */
export function scaleElements(X: FloatArray, e: number, len: number, step: number, sr: number, si: number): void {
  if (sr === 1 && si === 0) return;
  if (sr === 0 && si === 0) {
    for (let k = 0; k < len; k++) X.fill(0, 2 * (e + k * step), 2 * (e + k * step) + 2);
    return;
  }
  for (let k = 0; k < len; k++) {
    const x = 2 * (e + k * step);
    const re = X[x]!;
    const im = X[x + 1]!;
    X[x] = sr * re - si * im;
    X[x + 1] = sr * im + si * re;
  }
}

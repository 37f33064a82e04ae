/**
 * Triangular multiply on complex batches, the reference (BLAS ztrmm): side 'left':
 * B := alpha op(A) B; 'right': B := alpha B op(A); op(A) = A, A^T or A^H. Only the `uplo`
 * triangle of A is read, its diagonal only when diag is 'nonunit'.
 */
import type { FloatArray } from '../../core/dtype.js';
import type { ComplexTrsmRequest } from '../../core/op-specs.js';
import { eachVector, type TriangularView } from './ztriangular.js';

export function cpuTrmmComplex(r: ComplexTrsmRequest<FloatArray>): void {
  eachVector(r, multiplyVector, false);
}

/**
 * x := T x in place: element i needs x_k for k on its side of the diagonal only, so a lower T is
 * applied from the last element up, an upper one from the first down.
 */
export function multiplyVector(t: TriangularView, A: FloatArray, aOff: number, X: FloatArray, xOff: number, step: number): void {
  const { n, lower, unit, rs, cs } = t;
  const sign = t.conj ? -1 : 1;
  for (let s = 0; s < n; s++) {
    const i = lower ? n - 1 - s : s;
    const [k0, k1] = lower ? [0, i] : [i + 1, n];
    const xi = 2 * (xOff + i * step);
    let re = X[xi]!;
    let im = X[xi + 1]!;
    if (!unit) {
      const d = 2 * (aOff + i * (rs + cs));
      const dr = A[d]!;
      const di = sign * A[d + 1]!;
      [re, im] = [dr * re - di * im, dr * im + di * re];
    }
    for (let k = k0; k < k1; k++) {
      const e = 2 * (aOff + i * rs + k * cs);
      const tr = A[e]!;
      const ti = sign * A[e + 1]!;
      const x = 2 * (xOff + k * step);
      const xr = X[x]!;
      const xim = X[x + 1]!;
      re += tr * xr - ti * xim;
      im += tr * xim + ti * xr;
    }
    X[xi] = re;
    X[xi + 1] = im;
  }
}

/**
 * Triangular solve with many right-hand sides on complex batches, the reference (BLAS ztrsm):
 * side 'left': B := alpha op(A)^-1 B; 'right': B := alpha B op(A)^-1; op(A) = A, A^T or A^H.
 * Only the `uplo` triangle of A is read, its diagonal only when diag is 'nonunit'. A zero on A's
 * diagonal gives Inf/NaN, as in BLAS (no check: that is LAPACK's job).
 */
import type { FloatArray } from '../../core/dtype.js';
import type { ComplexTrsmRequest } from '../../core/op-specs.js';
import { divideInto } from './scalar.js';
import { eachVector, type TriangularView } from './ztriangular.js';

export function cpuTrsmComplex(r: ComplexTrsmRequest<FloatArray>): void {
  eachVector(r, solveVector, true);
}

/** x := T^-1 x by substitution (forward for lower T, backward for upper), one dot product per element. */
export function solveVector(t: TriangularView, A: FloatArray, aOff: number, X: FloatArray, xOff: number, step: number): void {
  const { n, lower, unit, rs, cs } = t;
  const sign = t.conj ? -1 : 1;
  for (let s = 0; s < n; s++) {
    const i = lower ? s : n - 1 - s;
    const [k0, k1] = lower ? [0, i] : [i + 1, n];
    const xi = 2 * (xOff + i * step);
    let re = X[xi]!;
    let im = X[xi + 1]!;
    for (let k = k0; k < k1; k++) {
      const e = 2 * (aOff + i * rs + k * cs);
      const tr = A[e]!;
      const ti = sign * A[e + 1]!;
      const x = 2 * (xOff + k * step);
      const xr = X[x]!;
      const xim = X[x + 1]!;
      re -= tr * xr - ti * xim;
      im -= tr * xim + ti * xr;
    }
    if (unit) {
      X[xi] = re;
      X[xi + 1] = im;
    } else {
      const d = 2 * (aOff + i * (rs + cs));
      divideInto(X, xi, re, im, A[d]!, sign * A[d + 1]!);
    }
  }
}

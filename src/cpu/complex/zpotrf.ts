/**
 * Cholesky factorisation of Hermitian positive definite matrices, the complex reference (LAPACK's
 * zpotf2, unblocked): uplo 'lower': A = L L^H, L over the lower triangle; 'upper': A = U^H U, U over
 * the upper triangle. The other triangle is never read or written.
 *
 * As zpotf2, only the real parts of A's diagonal are read (a Hermitian matrix has a real
 * diagonal; whatever imaginary parts are stored there are ignored), and the factor's diagonal is
 * written real (imaginary parts zero). The pivot test is `!(ajj > 0)`, so NaN in the referenced
 * triangle is "not positive definite" at the first diagonal it reaches; on failure at step k the
 * matrix is left as zpotf2 leaves it (A(k, k) holds the real non-positive or NaN ajj).
 */
import type { FloatArray } from '../../core/dtype.js';
import type { PotrfRequest } from '../../core/op-specs.js';
import { Workspace, eachMatrix, triangleRegion } from './workspace.js';

const workspace = new Workspace();

export function cpuPotrfComplex(r: PotrfRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  eachMatrix(r.a, triangleRegion(upper), workspace, r.info, (w, n) => potrfMatrixComplex(w, n, upper));
}

/**
 * Factors one n x n matrix in place on a workspace (ld = n, interleaved); returns LAPACK's info.
 * Element (i, j) of the factor's triangle is read as F(i, j) = A(i, j) (lower) or A(j, i) (upper),
 * so the two cases are one loop: L = F, or U = F^H.
 */
export function potrfMatrixComplex(a: Float64Array, n: number, upper: boolean): number {
  // F(i, j) at a[2 (i rs + j cs)]; upper reads F = U^H, conjugating the stored entries.
  const [rs, cs] = upper ? [n, 1] : [1, n];
  const sign = upper ? -1 : 1;
  for (let j = 0; j < n; j++) {
    const d = 2 * j * (n + 1);
    let dot = 0;
    for (let k = 0; k < j; k++) {
      const e = 2 * (j * rs + k * cs);
      dot += a[e]! * a[e]! + a[e + 1]! * a[e + 1]!;
    }
    const ajj = a[d]! - dot;
    a[d + 1] = 0;
    if (!(ajj > 0)) {
      a[d] = ajj;
      return j + 1;
    }
    const ljj = Math.sqrt(ajj);
    a[d] = ljj;
    // F(i, j) := (F(i, j) - sum_k F(i, k) conj(F(j, k))) / ljj for i > j.
    for (let i = j + 1; i < n; i++) {
      const e = 2 * (i * rs + j * cs);
      let re = a[e]!;
      let im = sign * a[e + 1]!;
      for (let k = 0; k < j; k++) {
        const x = 2 * (i * rs + k * cs);
        const y = 2 * (j * rs + k * cs);
        const xr = a[x]!;
        const xi = sign * a[x + 1]!;
        const yr = a[y]!;
        const yi = -sign * a[y + 1]!;
        re -= xr * yr - xi * yi;
        im -= xr * yi + xi * yr;
      }
      a[e] = re / ljj;
      a[e + 1] = (sign * im) / ljj;
    }
  }
  return 0;
}

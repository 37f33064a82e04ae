/**
 * Eigenvalues (and, where a Z is given, eigenvectors) of a real symmetric tridiagonal matrix by the
 * implicit QL algorithm with Wilkinson shifts (EISPACK's tql1 / tql2 as JAMA writes them), float64,
 * one matrix: d[0..n) the diagonal, e[0..n-1) the subdiagonal (e[i] = T(i+1, i); e[n-1] is used
 * as scratch and left 0). The eigenvalues come back ascending in d (selection sort with strict
 * comparison, ties by index: the order of src/cpu/lapack/jacobi.ts's sortWithColumns); each
 * rotation is applied to the columns of Z (n x n, column-major, ld = n) as it is made, so that
 * Z_out = Z_in * (the accumulated orthogonal transformation), its columns sorted with d.
 *
 * A subdiagonal element is negligible where |e[m]| <= eps * max_{k <= l}(|d[k]| + |e[k]|) (tql2's
 * normwise test: the backward error stays of order eps ||T||). Reused by any tridiagonal
 * eigenproblem of the fast backend (heev's kernels/zhetrd-lower.ts is its first user).
 */

const EPS = 2 ** -52;
/** Iterations allowed per eigenvalue before the matrix counts as not converged (EISPACK's 30). */
export const QL_MAX_ITERATIONS = 30;

/** sqrt(a^2 + b^2): the plain form where its square neither over- nor underflows, Math.hypot elsewhere. */
function hypot(a: number, b: number): number {
  const s = a * a + b * b;
  return s > 1e-290 && s < 1e290 ? Math.sqrt(s) : Math.hypot(a, b);
}

/**
 * The implicit QL iteration on (d, e); z (length n * n) or null for values only. Returns false
 * where an eigenvalue took more than QL_MAX_ITERATIONS iterations (d, e and z are then partial).
 */
export function tridiagonalQl(d: Float64Array, e: Float64Array, n: number, z: Float64Array | null): boolean {
  if (n === 0) return true;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  for (let l = 0; l < n; l++) {
    const dl = Math.abs(d[l]!) + Math.abs(e[l]!);
    if (dl > tst1) tst1 = dl;
    let m = l;
    while (m < n - 1 && Math.abs(e[m]!) > EPS * tst1) m++;
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > QL_MAX_ITERATIONS) return false;
        // the shift: the eigenvalue of the leading 2 x 2 block nearer d[l]
        let g = d[l]!;
        const el = e[l]!;
        let p = (d[l + 1]! - g) / (2 * el);
        let r = hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = el / (p + r);
        d[l + 1] = el * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i] = d[i]! - h;
        f += h;
        // the implicit QL sweep from m - 1 up to l
        p = d[m]!;
        let c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
        const el1 = e[l + 1]!;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          const ei = e[i]!;
          g = c * ei;
          h = c * p;
          r = hypot(p, ei);
          e[i + 1] = s * r;
          s = ei / r;
          c = p / r;
          const di = d[i]!;
          p = c * di - s * g;
          d[i + 1] = h + s * (c * g + s * di);
          if (z !== null) {
            const zi = i * n, zj = zi + n;
            for (let k = 0; k < n; k++) {
              const t = z[zj + k]!;
              const u = z[zi + k]!;
              z[zj + k] = s * u + c * t;
              z[zi + k] = c * u - s * t;
            }
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > EPS * tst1);
    }
    d[l] = d[l]! + f;
    e[l] = 0;
  }
  sortAscending(d, n, z);
  return true;
}

/** d ascending by selection sort (strict <: ties keep their order of index), z's columns with it. */
function sortAscending(d: Float64Array, n: number, z: Float64Array | null): void {
  for (let j = 0; j < n - 1; j++) {
    let best = j;
    for (let k = j + 1; k < n; k++) if (d[k]! < d[best]!) best = k;
    if (best === j) continue;
    const t = d[j]!;
    d[j] = d[best]!;
    d[best] = t;
    if (z !== null) {
      for (let r = 0; r < n; r++) {
        const y = z[j * n + r]!;
        z[j * n + r] = z[best * n + r]!;
        z[best * n + r] = y;
      }
    }
  }
}

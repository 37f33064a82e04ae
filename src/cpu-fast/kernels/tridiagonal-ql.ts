/**
 * Eigenvalues (and, where a Z is given, eigenvectors) of a real symmetric tridiagonal matrix by the
 * implicit QL algorithm with Wilkinson shifts (EISPACK's tql1 / tql2 as JAMA writes them), float64,
 * one matrix: d[0..n) the diagonal, e[0..n-1) the subdiagonal (e[i] = T(i+1, i); e[n-1] is used
 * as scratch and left 0).
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
 * The implicit QL iteration on (d, e), the eigenvalues left unsorted in d (sortAscending orders
 * them). With vectors, each sweep's rotations i = m - 1 down to l are written to cs ((c_i, s_i) at
 * cs[2 i], cs[2 i + 1]; 2n floats) and handed to `rotate(l, m)`, which applies them to the columns
 * i and i + 1 of Z in that order (LAPACK's dlasr: kernels/zheev-wasm.ts's rotate), so that
 * Z_out = Z_in * (the accumulated orthogonal transformation). Returns false where an eigenvalue
 * took more than QL_MAX_ITERATIONS iterations (d and e are then partial).
 */
export function tridiagonalQl(d: Float64Array, e: Float64Array, n: number, cs: Float64Array, rotate: ((l: number, m: number) => void) | null): boolean {
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
          const inv = 1 / r;
          s = ei * inv;
          c = p * inv;
          const di = d[i]!;
          p = c * di - s * g;
          d[i + 1] = h + s * (c * g + s * di);
          cs[2 * i] = c;
          cs[2 * i + 1] = s;
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
        if (rotate !== null) rotate(l, m);
      } while (Math.abs(e[l]!) > EPS * tst1);
    }
    d[l] = d[l]! + f;
    e[l] = 0;
  }
  return true;
}

/**
 * d ascending by selection sort (strict <: ties keep their order of index, as src/cpu/lapack/
 * jacobi.ts's sortWithColumns), `order` (where given) the permutation: order[j] is the index
 * before sorting of the value now at j (the column of Z that belongs to d[j]).
 */
export function sortAscending(d: Float64Array, n: number, order: Int32Array | null): void {
  if (order !== null) for (let j = 0; j < n; j++) order[j] = j;
  for (let j = 0; j < n - 1; j++) {
    let best = j;
    for (let k = j + 1; k < n; k++) if (d[k]! < d[best]!) best = k;
    if (best === j) continue;
    const t = d[j]!;
    d[j] = d[best]!;
    d[best] = t;
    if (order !== null) {
      const o = order[j]!;
      order[j] = order[best]!;
      order[best] = o;
    }
  }
}

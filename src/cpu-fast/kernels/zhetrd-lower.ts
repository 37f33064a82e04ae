/**
 * LAPACK's zhetd2 'L', float64, one matrix, as the fast backend's complex heev uses it
 * (ops/zheev.ts; the back-transformation V = Q Z is kernels/zheev-wasm.ts's `back`): A (n x n Hermitian, interleaved complex,
 * column-major, ld = n, only its lower triangle read and written, the diagonal real) becomes
 * Q T Q^H with T real symmetric tridiagonal and Q = H(0) H(1) ... H(n-2), H(i) = I - tau_i v_i v_i^H,
 * v_i zero above row i + 1, 1 at row i + 1, the rest stored in A's column i below the subdiagonal.
 *
 * Step i is zlarfg on alpha = A(i+1, i), x = A(i+2:n, i): beta = -sign(Re alpha) ||(alpha, x)||,
 * tau = ((beta - Re alpha) / beta, -Im alpha / beta), x := x / (alpha - beta), e[i] = beta (real);
 * tau = 0 where x is zero and alpha real (e[i] = Re alpha). Then, on the trailing block A22,
 * w = tau A22 v, w -= (tau / 2)(w^H v) v, A22 -= v w^H + w v^H (zhemv, zdotc, zaxpy, zher2 on the
 * lower triangle). The norm is the square root of the plain sum of squares: where that sum
 * falls below SSQ_MIN (and is not zero) the reduction reports failure and the caller hands the
 * matrix to the reference (the caller has scaled A so that its largest entry is near 1: the sum
 * cannot overflow, and only strongly graded matrices come near the bound).
 *
 * Flops (real): 16/3 n^3 (zhemv and zher2 on the lower triangle, 8 m^2 each at trailing order m).
 */

/** The smallest non-zero sum of squares a reflector may have (below it the matrix goes back). */
export const SSQ_MIN = 1e-280;

/**
 * Reduces a (lower triangle) to tridiagonal form: d[0..n) the diagonal, e[0..n-1) the
 * subdiagonal, tau[0..2(n-1)) the reflectors' scalars (interleaved), the vectors in a with
 * a(i+1, i) = 1. w: scratch of 2n floats. Returns false where a reflector's sum of squares was
 * below SSQ_MIN.
 */
export function zhetd2Lower(a: Float64Array, n: number, d: Float64Array, e: Float64Array, tau: Float64Array, w: Float64Array): boolean {
  const ld = 2 * n;
  for (let i = 0; i < n - 1; i++) {
    const col = i * ld;
    const r0 = 2 * (i + 1); // float offset of row i + 1 in a column
    d[i] = a[col + 2 * i]!;
    const ar = a[col + r0]!, ai = a[col + r0 + 1]!;
    let x2 = 0;
    for (let k = col + r0 + 2; k < col + ld; k += 2) x2 += a[k]! * a[k]! + a[k + 1]! * a[k + 1]!;
    if (x2 === 0 && ai === 0) {
      e[i] = ar;
      tau[2 * i] = 0;
      tau[2 * i + 1] = 0;
      a[col + r0] = 1;
      a[col + r0 + 1] = 0;
      continue;
    }
    const ssq = ar * ar + ai * ai + x2;
    if (ssq < SSQ_MIN) return false;
    const norm = Math.sqrt(ssq);
    const beta = ar >= 0 ? -norm : norm;
    const tr = (beta - ar) / beta, ti = -ai / beta;
    tau[2 * i] = tr;
    tau[2 * i + 1] = ti;
    e[i] = beta;
    // x := x / (alpha - beta)
    const dr = ar - beta;
    const den = dr * dr + ai * ai;
    const sr = dr / den, si = -ai / den;
    for (let k = col + r0 + 2; k < col + ld; k += 2) {
      const xr = a[k]!, xi = a[k + 1]!;
      a[k] = xr * sr - xi * si;
      a[k + 1] = xr * si + xi * sr;
    }
    a[col + r0] = 1;
    a[col + r0 + 1] = 0;
    hermitianRank2(a, n, i + 1, col + r0, tr, ti, w);
  }
  d[n - 1] = a[(n - 1) * ld + 2 * (n - 1)]!;
  return true;
}

/**
 * The trailing block from row and column j0 (lower triangle): w = tau A22 v, w -= (tau / 2)(w^H v) v,
 * A22 -= v w^H + w v^H, v at float offset vo of a (rows j0 .. n-1). w: scratch of 2n floats
 * (indexed by row).
 */
function hermitianRank2(a: Float64Array, n: number, j0: number, vo: number, tr: number, ti: number, w: Float64Array): void {
  const ld = 2 * n;
  // vo addresses row j0; the float offset of row k of v is vo + 2 (k - j0)
  const vb = vo - 2 * j0;
  for (let k = 2 * j0; k < ld; k++) w[k] = 0;
  // y = A22 v on the lower triangle: each column j gives y(k) += a_kj v_j (k > j) and y(j) += sum conj(a_kj) v_k
  for (let j = j0; j < n; j++) {
    const cj = j * ld;
    const vjr = a[vb + 2 * j]!, vji = a[vb + 2 * j + 1]!;
    const ajj = a[cj + 2 * j]!;
    let sr = ajj * vjr, si = ajj * vji;
    for (let k = 2 * (j + 1); k < ld; k += 2) {
      const xr = a[cj + k]!, xi = a[cj + k + 1]!;
      const vr = a[vb + k]!, vi = a[vb + k + 1]!;
      w[k] = w[k]! + (xr * vjr - xi * vji);
      w[k + 1] = w[k + 1]! + (xr * vji + xi * vjr);
      sr += xr * vr + xi * vi;
      si += xr * vi - xi * vr;
    }
    w[2 * j] = w[2 * j]! + sr;
    w[2 * j + 1] = w[2 * j + 1]! + si;
  }
  // w = tau y; then alpha = -(tau / 2)(w^H v), w += alpha v
  let dotr = 0, doti = 0;
  for (let k = 2 * j0; k < ld; k += 2) {
    const yr = w[k]!, yi = w[k + 1]!;
    const wr = tr * yr - ti * yi, wi = tr * yi + ti * yr;
    w[k] = wr;
    w[k + 1] = wi;
    const vr = a[vb + k]!, vi = a[vb + k + 1]!;
    dotr += wr * vr + wi * vi;
    doti += wr * vi - wi * vr;
  }
  const alr = -0.5 * (tr * dotr - ti * doti), ali = -0.5 * (tr * doti + ti * dotr);
  for (let k = 2 * j0; k < ld; k += 2) {
    const vr = a[vb + k]!, vi = a[vb + k + 1]!;
    w[k] = w[k]! + (alr * vr - ali * vi);
    w[k + 1] = w[k + 1]! + (alr * vi + ali * vr);
  }
  // A22 -= v w^H + w v^H, lower triangle; the diagonal kept real
  for (let j = j0; j < n; j++) {
    const cj = j * ld;
    const vjr = a[vb + 2 * j]!, vji = a[vb + 2 * j + 1]!;
    const wjr = w[2 * j]!, wji = w[2 * j + 1]!;
    a[cj + 2 * j] = a[cj + 2 * j]! - 2 * (vjr * wjr + vji * wji);
    a[cj + 2 * j + 1] = 0;
    for (let k = 2 * (j + 1); k < ld; k += 2) {
      const vr = a[vb + k]!, vi = a[vb + k + 1]!;
      const wr = w[k]!, wi = w[k + 1]!;
      // v_k conj(w_j) + w_k conj(v_j)
      a[cj + k] = a[cj + k]! - (vr * wjr + vi * wji + wr * vjr + wi * vji);
      a[cj + k + 1] = a[cj + k + 1]! - (vi * wjr - vr * wji + wi * vjr - wr * vji);
    }
  }
}

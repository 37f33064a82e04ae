/**
 * What the split design's three kernels share (generate-syev.ts's 'record' and 'finish' stages,
 * generate-apply.ts): the layout of a matrix's workspace slice and the CUDA text that names its parts.
 *
 * One slice per matrix, float64 elements, from the workspace (common/block-launch.ts chunks):
 *   Z      n * n   the working matrix (Q after dorgtr, the eigenvectors after the rotations), ld n
 *   d, e   n + n   the tridiagonal where the chain stopped (or ended)
 *   hdr    8       16 ints: [0] rotations recorded, [1] chain finished, [2] failed (NaN/Inf),
 *                  [3] the power-of-two scale, [4 ... 9] the chain's QlState (l1, l, lend, jtot,
 *                  inBlock, noconv)
 *   rc, rs cap each the rotations' cosines and sines, in the order made
 *   ri     cap / 2  (cap ints) the first of the two columns each rotates
 */

export interface SliceLayout {
  readonly d: number;
  readonly e: number;
  readonly hdr: number;
  readonly rc: number;
  readonly rs: number;
  readonly ri: number;
  /** float64 elements per matrix. */
  readonly slice: number;
}

export function splitSlice(n: number, cap: number): SliceLayout {
  const d = n * n, e = d + n, hdr = e + n, rc = hdr + 8, rs = rc + cap, ri = rs + cap;
  return { d, e, hdr, rc, rs, ri, slice: ri + Math.ceil(cap / 2) };
}

/** CUDA text: the slice's parts after Z (a `real*` named `Z`), as the layout above. */
export function slicePointers(n: number, cap: number): string {
  const l = splitSlice(n, cap);
  return `  // This matrix's slice after Z (snippets.ts): the state the three kernels pass on, the rotations.
  real* sd = Z + ${l.d};
  real* se = Z + ${l.e};
  int* hdr = (int*)(Z + ${l.hdr});
  real* grc = Z + ${l.rc};
  real* grs = Z + ${l.rs};
  int* gri = (int*)(Z + ${l.ri});
`;
}

/**
 * The inverse-iteration design's slice (generate-stein.ts): the split layout without rotations (Z:
 * dsytd2's reflectors below the subdiagonal, d, e, hdr), then
 *   tau      n       the reflectors' scalars
 *   lam      n       the eigenvalues (the values kernel's, in the blocks' order)
 *   Wb       n * STEIN_NB   the blocked reduction's W of the current panel (ld n)
 *   V        n * n   the eigenvectors, ld n: the tridiagonal's (Y, column k vector k) from the vectors
 *                    kernel, Q Y after ormqr (in place)
 *   Wt       n * n   the vectors kernel's iterates: thread k's at k + i n (a warp's accesses coalesced)
 *   fa ... fd        the factorizations' U diagonal, first superdiagonal, multipliers, second
 *                    superdiagonal, thread k's column k (stride n)
 *   piv      n * n ints (half as many float64 slots): the factorizations' interchanges
 */
export interface SteinLayout extends SliceLayout {
  readonly tau: number;
  readonly lam: number;
  readonly wb: number;
  readonly v: number;
  readonly wt: number;
  readonly fa: number;
  readonly fb: number;
  readonly fc: number;
  readonly fd: number;
  readonly piv: number;
}

/** Columns of a panel of the blocked tridiagonalization (generate-panel.ts). */
export const STEIN_NB = 32;

export function steinSlice(n: number): SteinLayout {
  const base = splitSlice(n, 0);
  const nn = n * n;
  const tau = base.slice, lam = tau + n, wb = lam + n, v = wb + n * STEIN_NB, wt = v + nn, fa = wt + nn, fb = fa + nn, fc = fb + nn, fd = fc + nn, piv = fd + nn;
  return { ...base, tau, lam, wb, v, wt, fa, fb, fc, fd, piv, slice: piv + Math.ceil(nn / 2) };
}

/**
 * CUDA text: the k-th smallest (0-based) eigenvalue of the unreduced block T(b1:bn) by bisection on
 * [lo, hi] (dstebz / dlaebz's Sturm counts: d the diagonal, e2 the squared off-diagonal, pivmin the
 * pivot guard), to adjacent doubles or a width of 2^-60 tnorm (eigenvalues near zero): ~55 ... 62
 * counts. Invariant: at most k eigenvalues <= lo, more than k <= hi. Needs `real`, `absReal`.
 */
export const BISECT_EIGENVALUE = `static __device__ __forceinline__ real bisectEigenvalue(const real* __restrict__ d, const real* __restrict__ e2, int b1, int bn, int k,
    real lo, real hi, real pivmin, real tnorm) {
  for (int it = 0; it < 200; ++it) {
    const real mid = real(0.5) * (lo + hi);
    if (!(hi - lo > real(8.673617379884035e-19) * tnorm) || mid <= lo || mid >= hi) break;
    real q = d[b1] - mid;
    if (absReal(q) < pivmin) q = -pivmin;
    int cnt = q <= real(0) ? 1 : 0;
    for (int i = b1 + 1; i <= bn; ++i) {
      q = (d[i] - mid) - e2[i - 1] / q;
      if (absReal(q) < pivmin) q = -pivmin;
      cnt += q <= real(0) ? 1 : 0;
    }
    if (cnt > k) hi = mid; else lo = mid;
  }
  return real(0.5) * (lo + hi);
}`;

/**
 * CUDA text: the two column steps dsytd2 and dlatrd share (generate-syev.ts, generate-panel.ts), on
 * the working matrix Z (ld LDZ) by the whole block (T threads; needs `blockSum`):
 * `columnReflector`, dlarfg on Z(i+1:N, i): tau returned, beta through `beta`, v's tail scaled in place
 * in Z(i+2:N, i) and copied to vv (every thread computes tau and beta from the same block sum, so the
 * same bits; vv[i + 1], the unit element, is the caller's); `rowDotV`, row r of Z times vv over the
 * columns k0 ... N-1 (four partial sums against the FMA latency).
 */
export const COLUMN_STEPS = `static __device__ __forceinline__ real columnReflector(real* __restrict__ Z, real* __restrict__ vv, real* red, int i, real& beta) {
  const int tid = threadIdx.x;
  const real alpha = Z[i + 1 + i * LDZ];
  real part = real(0);
  for (int r = i + 2 + tid; r < N; r += T) { const real x = Z[r + i * LDZ]; part = fmaReal(x, x, part); }
  const real xx = blockSum(part, red);
  real tau = real(0);
  beta = alpha;
  if (xx > real(0)) {
    beta = -copysign(sqrtReal(fmaReal(alpha, alpha, xx)), alpha);
    tau = (beta - alpha) / beta;
    const real scal = real(1) / (alpha - beta);
    for (int r = i + 2 + tid; r < N; r += T) { const real v = Z[r + i * LDZ] * scal; Z[r + i * LDZ] = v; vv[r] = v; }
  } else {
    for (int r = i + 2 + tid; r < N; r += T) vv[r] = Z[r + i * LDZ];
  }
  return tau;
}
static __device__ __forceinline__ real rowDotV(const real* __restrict__ Z, const real* __restrict__ vv, int r, int k0) {
  real a0 = real(0), a1 = real(0), a2 = real(0), a3 = real(0);
  int k = k0;
  for (; k + 3 < N; k += 4) {
    a0 = fmaReal(Z[r + k * LDZ], vv[k], a0);
    a1 = fmaReal(Z[r + (k + 1) * LDZ], vv[k + 1], a1);
    a2 = fmaReal(Z[r + (k + 2) * LDZ], vv[k + 2], a2);
    a3 = fmaReal(Z[r + (k + 3) * LDZ], vv[k + 3], a3);
  }
  for (; k < N; ++k) a0 = fmaReal(Z[r + k * LDZ], vv[k], a0);
  return (a0 + a1) + (a2 + a3);
}`;

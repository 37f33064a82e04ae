/**
 * The complex heev's first kernel: the Hermitian A to a real symmetric tridiagonal T = Q^H A Q as
 * LAPACK's zhetd2 'L' does, one thread block per matrix, float64 arithmetic for both dtypes.
 *
 * 1. Load: the `uplo` triangle mirrored conjugated into the complex slice's C (pairs, ld N), the
 *    diagonal's imaginary parts never read (zhetrd's rule: the diagonal is real). NaN or Inf in the
 *    referenced part fails the matrix (info n + 2 and NaN outputs at the store, nothing computed).
 *    Where the largest part lies outside [2^-RANGE, 2^RANGE], C is scaled by a power of two (exact);
 *    the store scales the eigenvalues back.
 * 2. For column i = 0 ... N-2, zlarfg on C(i+1:N, i): alpha = C(i+1, i), xx = ||C(i+2:N, i)||^2 (a
 *    block sum: every thread computes tau and beta alike); where xx > 0 or Im alpha != 0, beta =
 *    -sign(Re alpha) |(alpha, x)| (real), tau = ((beta - Re alpha) / beta, -Im alpha / beta), the tail
 *    scaled by 1 / (alpha - beta); else H = I (tau 0). So e_i = beta is real and so is T. The last
 *    column (no tail) still gets a reflector where C(N-1, N-2) is not real. Then w = tau A22 v (a
 *    thread per row, columns walked: coalesced), alpha2 = -tau (w^H v) / 2, w += alpha2 v, A22 -= v
 *    w^H + w v^H over the whole A22 (both triangles, the diagonal kept real), zhetd2's update.
 * 3. Handover: d, e into the real slice where the tridiag family's kernels read them (d_{n-1} also in
 *    Z's last element), the failure and the scale in hdr; the reflectors' tails stay in C below the
 *    subdiagonal, their taus in the complex slice, for the store's V = Q Z.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { complexLetter } from '../common/complex.js';
import type { ZheevReduceParams } from './params.js';
import { slicePointers, ZHEEV_RANGE, zheevPrelude } from './snippets.js';

const reduceEntry = (p: ZheevReduceParams): string =>
  `zheev_tridiag_reduce_${complexLetter(p.dtype)}_${kindTag(p.kind)}_n${p.n}_${p.uplo === 'lower' ? 'l' : 'u'}_t${p.threads}`;

export function zheevReduceSource(p: ZheevReduceParams): KernelSource {
  const { dtype, n, uplo, kind, threads } = p;
  const entry = reduceEntry(p);
  const referenced = uplo === 'lower' ? 'i > j' : 'i < j';
  const source = `${zheevPrelude(dtype, n, threads)}
constexpr int RANGE = ${ZHEEV_RANGE};
constexpr real MAXR = 1.7976931348623157e308;
${blockReduceSource('sum')}
${blockReduceSource('max')}
// Element (i, j) of C.
static __device__ __forceinline__ long long at(int i, int j) { return i + (long long)j * N; }

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(
    ${operandParameters('A', kind, false, 'io2')},
    real* __restrict__ work, real* __restrict__ cwork, long long first, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(n)}  __shared__ real d[N], e[N], vr[N], vi[N], wr[N], wi[N], red[32];
  const io2* g = ${matrixPointer('A', kind, 'mat')};

  // 1. The ${uplo} triangle mirrored conjugated into C, the diagonal real; NaN or Inf fails the matrix.
  int bad = 0;
  real amax = real(0);
  for (int idx = tid; idx < N * N; idx += T) {
    const int i = idx % N, j = idx / N;
    real xr, xi;
    if (i == j) { xr = (real)g[i + (long long)i * ldA].x; xi = real(0); }
    else if (${referenced}) { const io2 t = g[i + (long long)j * ldA]; xr = (real)t.x; xi = (real)t.y; }
    else { const io2 t = g[j + (long long)i * ldA]; xr = (real)t.x; xi = -(real)t.y; }
    if (!(absReal(xr) <= MAXR) || !(absReal(xi) <= MAXR)) bad = 1;
    else amax = fmax(amax, fmax(absReal(xr), absReal(xi)));
    C[2 * idx] = xr; C[2 * idx + 1] = xi;
  }
  const bool failed = __syncthreads_or(bad) != 0;
  amax = blockMax(amax, red);
  int sc = 0;   // C holds A 2^-sc
  if (!failed && amax > real(0)) {
    const int lg = ilogb(amax);
    if (lg > RANGE || lg < -RANGE) sc = lg;
  }
  if (sc != 0)
    for (int idx = tid; idx < 2 * N * N; idx += T) C[idx] = ldexp(C[idx], -sc);
  __syncthreads();

  if (!failed) {
    // 2. zhetd2 'L': reflector i annihilates C(i+2:N, i) and makes C(i+1, i) real.
    for (int i = 0; i < N - 1; ++i) {
      const real2 alpha = loadPair(C, at(i + 1, i));
      real part = real(0);
      for (int r = i + 2 + tid; r < N; r += T) { const real2 x = loadPair(C, at(r, i)); part = fmaReal(x.x, x.x, fmaReal(x.y, x.y, part)); }
      const real xx = blockSum(part, red);
      real beta = alpha.x, taur = real(0), taui = real(0);
      if (xx > real(0) || alpha.y != real(0)) {
        beta = -copysign(sqrtReal(fmaReal(alpha.x, alpha.x, fmaReal(alpha.y, alpha.y, xx))), alpha.x);
        taur = (beta - alpha.x) / beta;
        taui = -alpha.y / beta;
        // 1 / (alpha - beta), scaled by its larger part first (zladiv's care; |alpha - beta| >= |beta|).
        const real pr = alpha.x - beta, pi = alpha.y;
        const real m = fmax(absReal(pr), absReal(pi)), qr = pr / m, qi = pi / m, den = (qr * qr + qi * qi) * m;
        const real sr = qr / den, si = -qi / den;
        for (int r = i + 2 + tid; r < N; r += T) {
          const real2 x = loadPair(C, at(r, i));
          const real2 y = makeReal2(fmaReal(x.x, sr, -(x.y * si)), fmaReal(x.x, si, x.y * sr));
          storePair(C, at(r, i), y);
          vr[r] = y.x; vi[r] = y.y;
        }
      } else {
        for (int r = i + 2 + tid; r < N; r += T) { const real2 x = loadPair(C, at(r, i)); vr[r] = x.x; vi[r] = x.y; }
      }
      if (tid == 0) { vr[i + 1] = real(1); vi[i + 1] = real(0); d[i] = C[2 * at(i, i)]; e[i] = beta; ctau[2 * i] = taur; ctau[2 * i + 1] = taui; }
      if (taur == real(0) && taui == real(0)) continue;   // H = I (uniform over the block)
      __syncthreads();   // v complete
      // w = tau A22 v (rows i+1 ... N-1), and this thread's part of w^H v.
      real hr = real(0), hi = real(0);
      for (int r = i + 1 + tid; r < N; r += T) {
        real sr = real(0), si = real(0);
        for (int k = i + 1; k < N; ++k) {
          const real2 c = loadPair(C, at(r, k));
          const real xr = vr[k], xi = vi[k];
          sr = fmaReal(c.x, xr, fmaReal(-c.y, xi, sr));
          si = fmaReal(c.x, xi, fmaReal(c.y, xr, si));
        }
        const real w0 = fmaReal(taur, sr, -(taui * si)), w1 = fmaReal(taur, si, taui * sr);
        wr[r] = w0; wi[r] = w1;
        // conj(w_r) v_r
        hr = fmaReal(w0, vr[r], fmaReal(w1, vi[r], hr));
        hi = fmaReal(w0, vi[r], fmaReal(-w1, vr[r], hi));
      }
      hr = blockSum(hr, red);   // its barriers also publish wr, wi
      hi = blockSum(hi, red);
      // alpha2 = -tau (w^H v) / 2; w += alpha2 v; A22 -= v w^H + w v^H (the diagonal kept real).
      const real a2r = real(-0.5) * fmaReal(taur, hr, -(taui * hi)), a2i = real(-0.5) * fmaReal(taur, hi, taui * hr);
      for (int r = i + 1 + tid; r < N; r += T) {
        const real v0 = vr[r], v1 = vi[r];
        const real w0 = wr[r] + fmaReal(a2r, v0, -(a2i * v1)), w1 = wi[r] + fmaReal(a2r, v1, a2i * v0);
        for (int k = i + 1; k < N; ++k) {
          const real u0 = vr[k], u1 = vi[k];
          const real x0 = wr[k] + fmaReal(a2r, u0, -(a2i * u1)), x1 = wi[k] + fmaReal(a2r, u1, a2i * u0);
          // v_r conj(w_k) + w_r conj(u_k)
          const real tr = fmaReal(v0, x0, fmaReal(v1, x1, fmaReal(w0, u0, w1 * u1)));
          const real ti = fmaReal(v1, x0, fmaReal(-v0, x1, fmaReal(w1, u0, -(w0 * u1))));
          const long long ck = at(r, k);
          C[2 * ck] -= tr;
          C[2 * ck + 1] = k == r ? real(0) : C[2 * ck + 1] - ti;
        }
      }
      __syncthreads();
    }
    if (tid == 0) { d[N - 1] = C[2 * at(N - 1, N - 1)]; e[N - 1] = real(0); }
    __syncthreads();
  }
  // 3. The tridiagonal where the tridiag family's kernels read it; the state for the store.
  if (!failed) for (int i = tid; i < N; i += T) { sd[i] = d[i]; se[i] = e[i]; }
  if (tid == 0) {
    hdr[0] = 0; hdr[1] = 1; hdr[2] = failed ? 1 : 0; hdr[3] = sc; hdr[9] = 0;
    if (!failed) Z[(long long)(N - 1) * (N + 1)] = d[N - 1];
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * The complex gesvd's first kernel: G (A for m >= n, else A^H; M x K) to a REAL upper bidiagonal
 * B = Q_B^H G P_B as LAPACK's zgebd2 (m >= n), one thread block per matrix, float64 arithmetic for
 * both dtypes, G as pairs in the complex slice (snippets.ts).
 *
 * 1. Load G; NaN or Inf in either part fails the matrix (info K + 2 and NaN outputs at the store,
 *    nothing computed). Where the largest part lies outside [2^-RANGE, 2^RANGE], G is scaled by a
 *    power of two (exact); the store scales the singular values back.
 * 2. For i = 0 ... K-1: H_i by zlarfg on G(i:M, i): alpha = G(i, i), xx = ||G(i+1:M, i)||^2; where
 *    xx > 0 or Im alpha != 0, beta = -sign(Re alpha) |(alpha, x)| (real: d_i), tau = ((beta - Re alpha)
 *    / beta, -Im alpha / beta), the tail scaled by 1 / (alpha - beta); else H_i = I (tau 0, d_i =
 *    alpha, real). So H_i^H G(i:M, i) = (d_i, 0, ..., 0) with d_i real, even where the column is one
 *    element (the last of a square G). H_i^H applied to G(i:M, i+1:K) a warp per column (the column's
 *    v^H w over the lanes, then w -= conj(tau) (v^H w) v; v read from the column it was scaled in).
 *    For i < K-1, G_i by zlarfg on conj(G(i, i+1:K)) (H^H y = beta e_1 gives x H = beta e_1^T for the
 *    row x = y^H): e_i = beta real, u_i = (1, the scaled tail), stored as column i of PM; G_i applied
 *    from the right to G(i+1:M, i+1:K) a thread per row (s = tau (w u), then w -= s u^H). The row's
 *    last reflector (one element, i = K-2) is not the identity where that element is not real.
 * 3. Handover as the real design: entries of B of magnitude at most eps max |B_ij| set to zero; the
 *    Golub-Kahan tridiagonal (zero diagonal, off-diagonal d_0, e_0, d_1, ..., d_{K-1}) where the tridiag
 *    family's kernels read it; the failure and the scale in hdr.
 */
import type { KernelSource } from '../../runtime/types.js';
import { BIDIAG_RANGE } from '../bidiag/index.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { complexLetter } from '../common/complex.js';
import type { ZbidiagReduceParams } from './params.js';
import { slicePointers, zbidiagPrelude } from './snippets.js';

export const zreduceEntry = (p: ZbidiagReduceParams): string =>
  `zgesvd_bidiag_reduce_${complexLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}_t${p.threads}`;

/**
 * CUDA text: zlarfg's scalars for alpha and xx = ||x||^2: false (H = I, beta = Re alpha: alpha is
 * real) where xx is 0 and alpha real; else beta (real), tau and scal = 1 / (alpha - beta), scaled by
 * its larger part first (zladiv's care; |alpha - beta| >= |beta|).
 */
const ZLARFG = `static __device__ __forceinline__ bool zlarfg(real2 alpha, real xx, real& beta, real2& tau, real2& scal) {
  if (!(xx > real(0)) && alpha.y == real(0)) { beta = alpha.x; tau = makeReal2(real(0), real(0)); scal = makeReal2(real(1), real(0)); return false; }
  beta = -copysign(sqrtReal(fmaReal(alpha.x, alpha.x, fmaReal(alpha.y, alpha.y, xx))), alpha.x);
  tau = makeReal2((beta - alpha.x) / beta, -alpha.y / beta);
  const real pr = alpha.x - beta, pi = alpha.y;
  const real m = fmax(absReal(pr), absReal(pi)), qr = pr / m, qi = pi / m, den = (qr * qr + qi * qi) * m;
  scal = makeReal2(qr / den, -qi / den);
  return true;
}`;

export function zbidiagReduceSource(p: ZbidiagReduceParams): KernelSource {
  const { dtype, m, n, kind, threads } = p;
  const rows = Math.max(m, n), k = Math.min(m, n), tall = m >= n;
  const entry = zreduceEntry(p);
  const source = `${zbidiagPrelude(dtype, rows, k, threads)}
constexpr int RANGE = ${BIDIAG_RANGE};
constexpr int WARPS = T / 32;
constexpr real MAXR = 1.7976931348623157e308;
constexpr real EPS = 1.1102230246251565e-16;
${blockReduceSource('sum')}
${blockReduceSource('max')}
// Element (i, j) of G (pairs, ld M).
static __device__ __forceinline__ long long at(int i, int j) { return i + (long long)j * M; }
static __device__ __forceinline__ real warpSum(real v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}
${ZLARFG}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(
    ${operandParameters('A', kind, false, 'io2')},
    real* __restrict__ work, real* __restrict__ bwork, real* __restrict__ cwork, long long first, int count) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(rows, k)}  __shared__ real ur[K], ui[K], dd[K], ee[K], red[32];
  const io2* g = ${matrixPointer('A', kind, 'mat')};

  // 1. G = ${tall ? 'A' : 'A^H'}; NaN or Inf fails the matrix.
  int bad = 0;
  real amax = real(0);
  for (long long idx = tid; idx < (long long)M * K; idx += T) {
    const int i = (int)(idx % M), j = (int)(idx / M);
    const io2 t = g[${tall ? 'i + (long long)j * ldA' : 'j + (long long)i * ldA'}];
    const real xr = (real)t.x, xi = ${tall ? '' : '-'}(real)t.y;
    if (!(absReal(xr) <= MAXR) || !(absReal(xi) <= MAXR)) bad = 1;
    else amax = fmax(amax, fmax(absReal(xr), absReal(xi)));
    W[2 * idx] = xr; W[2 * idx + 1] = xi;
  }
  const bool failed = __syncthreads_or(bad) != 0;
  amax = blockMax(amax, red);
  int sc = 0;   // W holds G 2^-sc
  if (!failed && amax > real(0)) {
    const int lg = ilogb(amax);
    if (lg > RANGE || lg < -RANGE) sc = lg;
  }
  if (sc != 0)
    for (long long idx = tid; idx < 2LL * M * K; idx += T) W[idx] = ldexp(W[idx], -sc);
  __syncthreads();

  if (!failed) {
    for (int i = 0; i < K; ++i) {
      // 2a. H_i: zlarfg on W(i:M, i).
      {
        const real2 alpha = loadPair(W, at(i, i));
        real part = real(0);
        for (int r = i + 1 + tid; r < M; r += T) { const real2 x = loadPair(W, at(r, i)); part = fmaReal(x.x, x.x, fmaReal(x.y, x.y, part)); }
        const real xx = blockSum(part, red);
        real beta;
        real2 tau, scal;
        const bool reflect = zlarfg(alpha, xx, beta, tau, scal);   // uniform over the block
        if (reflect)
          for (int r = i + 1 + tid; r < M; r += T) storePair(W, at(r, i), mulReal2(loadPair(W, at(r, i)), scal));
        if (tid == 0) { dd[i] = beta; tauq[2 * i] = tau.x; tauq[2 * i + 1] = tau.y; }
        __syncthreads();   // the tail scaled
        // W(i:M, i+1:K) -= conj(tau) v (v^H W(i:M, i+1:K)): a warp per column.
        if (reflect)
          for (int j = i + 1 + warp; j < K; j += WARPS) {
            real sr = real(0), si = real(0);
            for (int r = i + lane; r < M; r += 32) {
              const real2 v = r == i ? makeReal2(real(1), real(0)) : loadPair(W, at(r, i));
              const real2 w = loadPair(W, at(r, j));
              sr = fmaReal(v.x, w.x, fmaReal(v.y, w.y, sr));
              si = fmaReal(v.x, w.y, fmaReal(-v.y, w.x, si));
            }
            sr = warpSum(sr); si = warpSum(si);
            const real tr = fmaReal(tau.x, sr, tau.y * si), ti = fmaReal(tau.x, si, -(tau.y * sr));   // conj(tau) s
            for (int r = i + lane; r < M; r += 32) {
              const real2 v = r == i ? makeReal2(real(1), real(0)) : loadPair(W, at(r, i));
              const real2 w = loadPair(W, at(r, j));
              storePair(W, at(r, j), makeReal2(w.x - fmaReal(tr, v.x, -(ti * v.y)), w.y - fmaReal(tr, v.y, ti * v.x)));
            }
          }
        __syncthreads();
      }
      if (i == K - 1) break;
      // 2b. G_i: zlarfg on conj(W(i, i+1:K)).
      {
        const real2 a = loadPair(W, at(i, i + 1));
        const real2 alpha = makeReal2(a.x, -a.y);
        real part = real(0);
        for (int j = i + 2 + tid; j < K; j += T) { const real2 x = loadPair(W, at(i, j)); part = fmaReal(x.x, x.x, fmaReal(x.y, x.y, part)); }
        const real xx = blockSum(part, red);
        real beta;
        real2 tau, scal;
        const bool reflect = zlarfg(alpha, xx, beta, tau, scal);   // uniform over the block
        for (int j = i + 2 + tid; j < K; j += T) {
          const real2 x = loadPair(W, at(i, j));
          const real2 u = mulReal2(makeReal2(x.x, -x.y), scal);
          ur[j] = u.x; ui[j] = u.y;
          storePair(PM, j + (long long)i * K, u);
        }
        if (tid == 0) { ur[i + 1] = real(1); ui[i + 1] = real(0); ee[i] = beta; taup[2 * i] = tau.x; taup[2 * i + 1] = tau.y; }
        __syncthreads();   // u complete
        // W(i+1:M, i+1:K) -= tau (W(i+1:M, i+1:K) u) u^H: a thread per row.
        if (reflect)
          for (int r = i + 1 + tid; r < M; r += T) {
            real sr = real(0), si = real(0);
            for (int j = i + 1; j < K; ++j) {
              const real2 w = loadPair(W, at(r, j));
              sr = fmaReal(w.x, ur[j], fmaReal(-w.y, ui[j], sr));
              si = fmaReal(w.x, ui[j], fmaReal(w.y, ur[j], si));
            }
            const real s0 = fmaReal(tau.x, sr, -(tau.y * si)), s1 = fmaReal(tau.x, si, tau.y * sr);
            for (int j = i + 1; j < K; ++j) {
              // w -= s conj(u_j)
              const real2 w = loadPair(W, at(r, j));
              storePair(W, at(r, j), makeReal2(w.x - fmaReal(s0, ur[j], s1 * ui[j]), w.y - fmaReal(s1, ur[j], -(s0 * ui[j]))));
            }
          }
        __syncthreads();
      }
    }
    if (tid == 0) ee[K - 1] = real(0);
    __syncthreads();
    // 3. Negligible entries of B to zero, normwise.
    real bmax = real(0);
    for (int i = tid; i < K; i += T) bmax = fmax(bmax, fmax(absReal(dd[i]), absReal(ee[i])));
    bmax = blockMax(bmax, red);   // its barriers publish dd, ee
    const real thresh = EPS * bmax;
    for (int i = tid; i < K; i += T) {
      const real di = absReal(dd[i]) <= thresh ? real(0) : dd[i];
      const real ei = absReal(ee[i]) <= thresh ? real(0) : ee[i];
      sd[2 * i] = real(0); sd[2 * i + 1] = real(0);
      se[2 * i] = di; se[2 * i + 1] = ei;   // se[N2 - 1] = ee[K - 1] = 0: past the tridiagonal
    }
  }
  if (tid == 0) {
    hdr[0] = 0; hdr[1] = 1; hdr[2] = failed ? 1 : 0; hdr[3] = sc; hdr[9] = 0;
    if (!failed) Z[(long long)(N2 - 1) * (N2 + 1)] = real(0);
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

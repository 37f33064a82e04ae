/**
 * gesvd's first kernel: G (A for m >= n, else A^T; M x K) to an upper bidiagonal B = Q_B^T G P_B as
 * LAPACK's dgebd2 (m >= n), one thread block per matrix, float64 arithmetic for both dtypes, G in the
 * bidiag slice (snippets.ts).
 *
 * 1. Load G; NaN or Inf fails the matrix (info K + 2 and NaN outputs at the store, nothing computed).
 *    Where the largest magnitude lies outside [2^-RANGE, 2^RANGE], G is scaled by a power of two
 *    (exact); the store scales the singular values back.
 * 2. For i = 0 ... K-1: H_i by dlarfg on G(i:M, i) (d_i = beta, the tail scaled in place, tauq_i), applied
 *    to G(i:M, i+1:K) a warp per column (the column's dot with v over the lanes, then its update:
 *    coalesced); for i < K-1, G_i by dlarfg on G(i, i+1:K) (e_i, the tail right of the superdiagonal,
 *    taup_i), applied to G(i+1:M, i+1:K) a thread per row (its dot with u, then its update).
 * 3. Handover: entries of B of magnitude at most eps max |B_ij| set to zero (a normwise perturbation of
 *    B by eps ||B||: exact splits, and singular values exactly zero where B is numerically singular that
 *    way); the Golub-Kahan tridiagonal (zero diagonal, off-diagonal d_0, e_0, d_1, ..., d_{K-1}) where the
 *    tridiag family's kernels read it; G_i's tails copied as PM's columns for ormqr; the failure and
 *    the scale in hdr.
 *
 * With the blocked reduction (plan.ts) the kernel runs as two stages around the panels of
 * generate-panel.ts: 'load' (step 1 and hdr only) and 'tail' (step 2 from column `from`, d and e of
 * the columns before read from where the panels left them, se[2i] and se[2i+1], then step 3). Without
 * a stage the kernel is all three steps in one launch.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { precisionLetter } from '../common/precision.js';
import type { BidiagReduceParams } from './params.js';
import { BIDIAG_RANGE, bidiagPrelude, slicePointers } from './snippets.js';

const stageTag = (p: BidiagReduceParams): string =>
  p.stage === 'load' ? '_load' : p.stage === 'tail' ? `_from${p.from ?? 0}` : '';

export const reduceEntry = (p: BidiagReduceParams): string =>
  `gesvd_bidiag_reduce_${precisionLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}_t${p.threads}${stageTag(p)}`;

export function bidiagReduceSource(p: BidiagReduceParams): KernelSource {
  const { dtype, m, n, kind, threads } = p;
  const rows = Math.max(m, n), k = Math.min(m, n), tall = m >= n;
  const stage = p.stage ?? 'whole', from = stage === 'tail' ? p.from ?? 0 : 0;
  if (!Number.isInteger(from) || from < 0 || from >= k) throw new RangeError(`the reduce kernel's first column ${from} must lie in 0 ... ${k - 1}`);
  const entry = reduceEntry(p);
  const loadG = `  // 1. G = ${tall ? 'A' : 'A^T'}; NaN or Inf fails the matrix.
  int bad = 0;
  real amax = real(0);
  for (long long idx = tid; idx < (long long)M * K; idx += T) {
    const int i = (int)(idx % M), j = (int)(idx / M);
    const real x = (real)g[${tall ? 'i + (long long)j * ldA' : 'j + (long long)i * ldA'}];
    if (!(absReal(x) <= MAXR)) bad = 1;
    else amax = fmax(amax, absReal(x));
    W[idx] = x;
  }
  const bool failed = __syncthreads_or(bad) != 0;
  amax = blockMax(amax, red);
  int sc = 0;   // W holds G 2^-sc
  if (!failed && amax > real(0)) {
    const int lg = ilogb(amax);
    if (lg > RANGE || lg < -RANGE) sc = lg;
  }
  if (sc != 0)
    for (long long idx = tid; idx < (long long)M * K; idx += T) W[idx] = ldexp(W[idx], -sc);
  __syncthreads();

`;
  const reduce = `  if (!failed) {
    for (int i = ${from}; i < K; ++i) {
      // 2a. H_i: dlarfg on W(i:M, i).
      {
        const real alpha = W[at(i, i)];
        real part = real(0);
        for (int r = i + 1 + tid; r < M; r += T) { const real x = W[at(r, i)]; part = fmaReal(x, x, part); }
        const real xx = blockSum(part, red);
        real beta = alpha, tau = real(0);
        if (xx > real(0)) {
          beta = -copysign(sqrtReal(fmaReal(alpha, alpha, xx)), alpha);
          tau = (beta - alpha) / beta;
          const real scal = real(1) / (alpha - beta);
          for (int r = i + 1 + tid; r < M; r += T) { const real v = W[at(r, i)] * scal; W[at(r, i)] = v; vv[r] = v; }
        }
        if (tid == 0) { vv[i] = real(1); dd[i] = beta; tauq[i] = tau; }
        __syncthreads();   // vv complete
        // W(i:M, i+1:K) -= tau v (v^T W(i:M, i+1:K)): a warp per column.
        if (tau != real(0))
          for (int j = i + 1 + warp; j < K; j += WARPS) {
            real s = real(0);
            for (int r = i + lane; r < M; r += 32) s = fmaReal(vv[r], W[at(r, j)], s);
            s = tau * warpSum(s);
            for (int r = i + lane; r < M; r += 32) W[at(r, j)] = fmaReal(-s, vv[r], W[at(r, j)]);
          }
        __syncthreads();
      }
      if (i == K - 1) break;
      // 2b. G_i: dlarfg on W(i, i+1:K).
      {
        const real alpha = W[at(i, i + 1)];
        real part = real(0);
        for (int j = i + 2 + tid; j < K; j += T) { const real x = W[at(i, j)]; part = fmaReal(x, x, part); }
        const real xx = blockSum(part, red);
        real beta = alpha, tau = real(0);
        if (xx > real(0)) {
          beta = -copysign(sqrtReal(fmaReal(alpha, alpha, xx)), alpha);
          tau = (beta - alpha) / beta;
          const real scal = real(1) / (alpha - beta);
          for (int j = i + 2 + tid; j < K; j += T) { const real u = W[at(i, j)] * scal; W[at(i, j)] = u; uu[j] = u; }
        }
        if (tid == 0) { uu[i + 1] = real(1); ee[i] = beta; taup[i] = tau; }
        __syncthreads();   // uu complete
        // W(i+1:M, i+1:K) -= tau (W(i+1:M, i+1:K) u) u^T: a thread per row.
        if (tau != real(0))
          for (int r = i + 1 + tid; r < M; r += T) {
            real s = real(0);
            for (int j = i + 1; j < K; ++j) s = fmaReal(W[at(r, j)], uu[j], s);
            s *= tau;
            for (int j = i + 1; j < K; ++j) W[at(r, j)] = fmaReal(-s, uu[j], W[at(r, j)]);
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
    // G_i's tail (row i, columns i+2 ... K-1) as column i of PM.
    for (int idx = tid; idx < K * K; idx += T) {
      const int r = idx % K, i = idx / K;
      if (r >= i + 2) PM[idx] = W[at(i, r)];
    }
  }
`;
  const closing = stage === 'load' ? `  if (tid == 0) { hdr[0] = 0; hdr[1] = 1; hdr[2] = failed ? 1 : 0; hdr[3] = sc; hdr[9] = 0; }
` : stage === 'tail' ? `  if (tid == 0 && !failed) Z[(long long)(N2 - 1) * (N2 + 1)] = real(0);
` : `  if (tid == 0) {
    hdr[0] = 0; hdr[1] = 1; hdr[2] = failed ? 1 : 0; hdr[3] = sc; hdr[9] = 0;
    if (!failed) Z[(long long)(N2 - 1) * (N2 + 1)] = real(0);
  }
`;
  const opening = stage === 'tail' ? `  // 1. The load stage's verdict (hdr, its scale kept there); d and e of the panels' columns 0 ... ${from - 1}.
  const bool failed = hdr[2] != 0;
  for (int i = tid; i < ${from}; i += T) { dd[i] = se[2 * i]; ee[i] = se[2 * i + 1]; }
  __syncthreads();

` : loadG;
  const source = `${bidiagPrelude(dtype, rows, k, threads)}
constexpr int RANGE = ${BIDIAG_RANGE};
constexpr int WARPS = T / 32;
constexpr real MAXR = 1.7976931348623157e308;
constexpr real EPS = 1.1102230246251565e-16;
${blockReduceSource('sum')}
${blockReduceSource('max')}
// Element (i, j) of G (ld M).
static __device__ __forceinline__ long long at(int i, int j) { return i + (long long)j * M; }
static __device__ __forceinline__ real warpSum(real v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(
    ${operandParameters('A', kind, false, 'io')},
    real* __restrict__ work, real* __restrict__ bwork, long long first, int count) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(rows, k)}  __shared__ real vv[M], uu[K], dd[K], ee[K], red[32];
  const io* g = ${matrixPointer('A', kind, 'mat')};

${opening}${stage === 'load' ? '' : reduce}${closing}}
`;
  return { name: `${entry}.cu`, source, entry };
}

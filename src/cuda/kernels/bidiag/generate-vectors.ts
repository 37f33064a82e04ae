/**
 * gesvd's singular vectors of B from the Golub-Kahan eigenvectors (dbdsvdx's care), one thread block
 * per matrix, float64.
 *
 * The tridiag family's values kernel left lam[k] for the upper half of each unreduced block of the
 * Golub-Kahan tridiagonal (STEIN_SKIPPED elsewhere), its vectors kernel column k of V for the same
 * rows. A block of even order 2s is the tridiagonal of a nonsingular bidiagonal block: its upper half
 * holds its s singular values. A block of odd order 2s + 1 (a zero d_i splits B's) has one zero
 * eigenvalue more, skipped: the K - c singular values not computed (c the rows taken) are zero.
 *
 * 1. Order: the c computed values descending (ties by row), then K - c zeros, into sig.
 * 2. With vectors, column r of V_B and of U_B in turn (r = 0 ... K-1, descending sigma): the even and
 *    the odd elements of z = (v_0, u_0, v_1, u_1, ...) / sqrt(2), each part normalised on its own (an
 *    eigenvector for a tiny sigma may hold some of -sigma's, z' = (v, -u) / sqrt(2): both parts stay
 *    right up to scaling). Where sigma <= SMALL ||T|| (the +-sigma pair within the tridiag family's
 *    cluster tolerance of each other: some of -sigma's vector may be in z, and the Gram-Schmidt of a
 *    cluster never sees -sigma's vectors) or a part's norm is not 1 / sqrt(2) to within PARTTOL, the
 *    part is orthogonalised against the columns before it (classical Gram-Schmidt twice) and
 *    normalised again. A part that vanishes (norm below 1/2 after that: a zero singular value's pure v
 *    or pure u vector, or a column past c) is replaced by the unit vector e_i whose row of the columns
 *    before is smallest in norm, orthogonalised twice: an orthonormal completion, a singular vector of
 *    the zero singular values left.
 */
import type { KernelSource } from '../../runtime/types.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { STEIN_SKIPPED } from '../tridiag/index.js';
import type { BidiagVectorsParams } from './params.js';
import { bidiagPrelude, slicePointers } from './snippets.js';

export const vectorsEntry = (p: BidiagVectorsParams): string =>
  `gesvd_bidiag_vectors_${p.rows}x${p.k}_t${p.threads}_${p.left ? 'u' : 'n'}${p.right ? 'v' : 'n'}`;

/**
 * CUDA text: `fixPart`, the part x (shared, K elements, squared norm nrm2) made column r of Q (ld
 * `ldq`), orthogonalised against Q's columns 0 ... r-1 where `suspect`; `orthogonalise`, one classical
 * Gram-Schmidt pass (a warp per earlier column for the dots, a thread per row for the update).
 */
const PARTS = `static __device__ void orthogonalise(real* __restrict__ x, const real* __restrict__ Q, int ldq, int r, real* h) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (int c = warp; c < r; c += T / 32) {
    real s = real(0);
    for (int i = lane; i < K; i += 32) s = fmaReal(Q[i + (long long)c * ldq], x[i], s);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    if (lane == 0) h[c] = s;
  }
  __syncthreads();
  for (int i = tid; i < K; i += T) {
    real s = x[i];
    for (int c = 0; c < r; ++c) s = fmaReal(-h[c], Q[i + (long long)c * ldq], s);
    x[i] = s;
  }
  __syncthreads();
}
static __device__ real squaredNorm(const real* __restrict__ x, real* red) {
  real s = real(0);
  for (int i = threadIdx.x; i < K; i += T) s = fmaReal(x[i], x[i], s);
  return blockSum(s, red);
}
static __device__ void fixPart(real* __restrict__ x, real* __restrict__ Q, int ldq, int r, real nrm2, bool suspect, real* h, real* red, int* pick) {
  const int tid = threadIdx.x;
  real scale = nrm2 > real(0) ? real(1) / sqrtReal(nrm2) : real(0);
  if (suspect) {
    for (int i = tid; i < K; i += T) x[i] *= scale;
    __syncthreads();
    orthogonalise(x, Q, ldq, r, h);
    orthogonalise(x, Q, ldq, r, h);
    real nrm = sqrtReal(squaredNorm(x, red));
    if (!(nrm >= real(0.5))) {
      // Completion: e_i for the row i of Q(:, 0:r) smallest in norm (its distance to their span is largest).
      for (int i = tid; i < K; i += T) {
        real s = real(0);
        for (int c = 0; c < r; ++c) { const real q = Q[i + (long long)c * ldq]; s = fmaReal(q, q, s); }
        h[i] = s;
      }
      __syncthreads();
      if (tid == 0) { int best = 0; for (int i = 1; i < K; ++i) if (h[i] < h[best]) best = i; *pick = best; }
      __syncthreads();
      const int best = *pick;
      for (int i = tid; i < K; i += T) x[i] = i == best ? real(1) : real(0);
      __syncthreads();
      orthogonalise(x, Q, ldq, r, h);
      orthogonalise(x, Q, ldq, r, h);
      nrm = sqrtReal(squaredNorm(x, red));
    }
    scale = real(1) / nrm;
  }
  for (int i = tid; i < K; i += T) Q[i + (long long)r * ldq] = x[i] * scale;
  __syncthreads();
}`;

export function bidiagVectorsSource(p: BidiagVectorsParams): KernelSource {
  const { k, rows, threads, left, right } = p;
  const entry = vectorsEntry(p);
  const part = (name: 'x' | 'y', q: string, ld: string, nrm: string): string =>
    `      fixPart(${name}, ${q}, ${ld}, r, ${nrm}, suspect || !(absReal(real(2) * ${nrm} - real(1)) <= PARTTOL), h, red, &pick);\n`;
  const source = `${bidiagPrelude('float64', rows, k, threads)}
constexpr real SKIPPED = ${STEIN_SKIPPED};
constexpr real SMALL = 1e-3;   // the tridiag family's cluster tolerance, relative to ||T||_1
constexpr real PARTTOL = 1e-10;   // |2 ||part||^2 - 1| beyond this: the part is orthogonalised again
${blockReduceSource('sum')}
${blockReduceSource('max')}
${left || right ? PARTS : ''}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(real* __restrict__ work, real* __restrict__ bwork, long long first, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(rows, k)}  __shared__ real x[K], y[K], h[K], red[32];
  __shared__ int order[K];
  __shared__ int pick;
  if (hdr[2] != 0) return;   // NaN or Inf in A: the store writes NaN
  // 1. The computed values descending (ties by row): order[rank] = row.
  int mine = 0;
  for (int r = tid; r < N2; r += T) {
    const real lr = lam[r];
    if (lr == SKIPPED) continue;
    ++mine;
    int rank = 0;
    for (int j = 0; j < N2; ++j) {
      const real lj = lam[j];
      rank += (lj != SKIPPED && (lj > lr || (lj == lr && j < r))) ? 1 : 0;
    }
    order[rank] = r;
  }
  const int c = (int)blockSum((real)mine, red);   // its barriers publish order
  for (int r = tid; r < K; r += T) sig[r] = r < c ? fmax(lam[order[r]], real(0)) : real(0);
${left || right ? `  // ||T||_1 of the Golub-Kahan tridiagonal (zero diagonal).
  real tn = real(0);
  for (int i = tid; i < N2; i += T) tn = fmax(tn, (i > 0 ? absReal(se[i - 1]) : real(0)) + (i < N2 - 1 ? absReal(se[i]) : real(0)));
  tn = blockMax(tn, red);
${left && rows > k ? `  for (long long idx = tid; idx < (long long)(M - K) * K; idx += T) UB[K + (idx % (M - K)) + (idx / (M - K)) * M] = real(0);\n` : ''}  // 2. Column r of V_B and U_B from z's even and odd elements.
  for (int r = 0; r < K; ++r) {
    const int zr = r < c ? order[r] : -1;
    const real s = r < c ? fmax(lam[zr], real(0)) : real(0);
    for (int i = tid; i < K; i += T) {
      x[i] = zr >= 0 ? Y[2 * i + (long long)zr * N2] : real(0);
      y[i] = zr >= 0 ? Y[2 * i + 1 + (long long)zr * N2] : real(0);
    }
    const real nx = squaredNorm(x, red), ny = squaredNorm(y, red);   // their barriers publish x, y
    const bool suspect = zr < 0 || s <= SMALL * tn;
${right ? part('x', 'VB', 'K', 'nx') : ''}${left ? part('y', 'UB', 'M', 'ny') : ''}  }
` : ''}}
`;
  return { name: `${entry}.cu`, source, entry };
}

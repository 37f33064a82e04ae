/**
 * The blocked tridiagonalization of the inverse-iteration design (LAPACK's dsytrd 'L' with dlatrd):
 * one panel of `nb` columns per launch, one block per matrix, on the working matrix Z in the
 * matrix's slice (full and symmetric as of the panel's start); the trailing matrix's update
 * Z(p1:n, p1:n) -= V W^T + W V^T is left to two GEMMs over all the chunk's slices after the launch
 * (launch.ts), so a column's step reads the trailing matrix once (the symmetric matrix-vector
 * product) where the unblocked dsytd2 reads it twice and writes it once.
 *
 * Column i of the panel (p0 <= i < p1 = min(p0 + nb, n - 1), jl = i - p0):
 * 1. Z(i:n, i) -= V(i:n, p0:i) W(i, 0:jl)^T + W(i:n, 0:jl) V(i, p0:i)^T (the panel's earlier
 *    reflectors V, ones on their subdiagonal, and their W; a thread per row);
 * 2. the reflector of Z(i+1:n, i) (dlarfg as the unblocked kernel: every thread computes tau and
 *    beta from the same block sum); d_i = Z(i, i), e_i = beta, tau_i to the slice; Z(i+1, i) := 1
 *    (the reflector's unit element, so the GEMMs and the next columns read V straight from Z; ormqr
 *    never reads it);
 * 3. w = Z(i+1:n, i+1:n) v, the trailing matrix as of the panel's start (a thread per row);
 * 4. w -= V (W^T v) + W (V^T v) over the panel's earlier columns (the dot products a warp each);
 * 5. w := tau w, w += -tau/2 (w'v) v, into W's column jl (the slice's W, n x nb, ld n).
 * d_{n-1} is Z(n-1, n-1) after the last panel's update (the values and vectors kernels read it there).
 */
import type { KernelSource } from '../../runtime/types.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import type { TridiagPanelParams } from './params.js';
import { COLUMN_STEPS, slicePointers, steinSlice } from './snippets.js';

export const panelEntry = (p: TridiagPanelParams): string => `syev_latrd_n${p.n}_t${p.threads}_b${p.nb}`;

export function tridiagPanelSource(p: TridiagPanelParams): KernelSource {
  const { n, threads, nb } = p;
  const l = steinSlice(n);
  const entry = panelEntry(p);
  const source = `${precisionPrelude('float64')}
${mathHelpers('float64')}
constexpr int N = ${n};
constexpr int T = ${threads};
constexpr int NB = ${nb};
constexpr int LDZ = N;
constexpr long long SLICE = ${l.slice};   // float64 elements per matrix
${blockReduceSource('sum')}
${COLUMN_STEPS}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(real* __restrict__ work, long long first, int count, int p0) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (first + blockIdx.x >= count) return;
  real* Z = work + (long long)blockIdx.x * SLICE;
${slicePointers(n, 0)}  real* stau = Z + ${l.tau};
  real* Wb = Z + ${l.wb};   // W, ld N, NB columns
  __shared__ real vv[N], ww[N], red[32], tw[NB], tv[NB];
  if (hdr[2] != 0) return;   // NaN or Inf in A: nothing to reduce
  const int p1 = min(p0 + NB, N - 1);
  for (int i = p0; i < p1; ++i) {
    const int jl = i - p0;
    // 1. Column i brought up to date with the panel's earlier columns.
    for (int r = i + tid; r < N; r += T) {
      real acc = Z[r + i * LDZ];
      for (int jj = 0; jj < jl; ++jj) {
        const int c = p0 + jj;
        acc = fmaReal(-Z[r + c * LDZ], Wb[i + jj * LDZ], acc);
        acc = fmaReal(-Wb[r + jj * LDZ], Z[i + c * LDZ], acc);
      }
      Z[r + i * LDZ] = acc;
    }
    __syncthreads();
    // 2. The reflector of Z(i+1:N, i).
    real beta;
    const real tau = columnReflector(Z, vv, red, i, beta);
    if (tid == 0) { vv[i + 1] = real(1); sd[i] = Z[i + i * LDZ]; se[i] = beta; stau[i] = tau; Z[i + 1 + i * LDZ] = real(1); }
    __syncthreads();   // v complete (and Z(i+1, i))
    // 3. w = A22 v with the trailing matrix as of the panel's start (four partial sums).
    for (int r = i + 1 + tid; r < N; r += T) ww[r] = rowDotV(Z, vv, r, i + 1);
    // 4. The dot products with the panel's earlier columns: W^T v and V^T v (a warp each).
    for (int jj = warp; jj < jl; jj += T / 32) {
      const int c = p0 + jj;
      real sw = real(0), sv = real(0);
      for (int r = i + 1 + lane; r < N; r += 32) { sw = fmaReal(Wb[r + jj * LDZ], vv[r], sw); sv = fmaReal(Z[r + c * LDZ], vv[r], sv); }
      sw = groupSum(sw, 32);
      sv = groupSum(sv, 32);
      if (lane == 0) { tw[jj] = sw; tv[jj] = sv; }
    }
    __syncthreads();
    // 5. w -= V tw + W tv; w := tau w; then w += -tau/2 (w'v) v, into W's column jl.
    real wv = real(0);
    for (int r = i + 1 + tid; r < N; r += T) {
      real acc = ww[r];
      for (int jj = 0; jj < jl; ++jj) {
        acc = fmaReal(-Z[r + (p0 + jj) * LDZ], tw[jj], acc);
        acc = fmaReal(-Wb[r + jj * LDZ], tv[jj], acc);
      }
      acc *= tau;
      ww[r] = acc;
      wv = fmaReal(acc, vv[r], wv);
    }
    const real half = real(-0.5) * tau * blockSum(wv, red);   // its barriers also publish ww
    for (int r = i + 1 + tid; r < N; r += T) Wb[r + jl * LDZ] = fmaReal(half, vv[r], ww[r]);
    __syncthreads();
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * The blocked bidiagonalization (LAPACK's dgebrd with dlabrd panels, M >= K): one panel of `nb`
 * columns per launch, one block per matrix, on G in the bidiag slice's W (the load stage of
 * generate-reduce.ts loaded, checked and scaled it; the earlier panels and their GEMMs brought
 * W(p0:M, p0:K) up to date). The panel's left reflectors V (W's columns p0 ... p1-1 below the
 * diagonal), its right reflectors U (W's rows p0 ... p1-1 right of the superdiagonal, the unit
 * elements stored as ones) and dlabrd's X (M x nb, ld M, in the slice's UB) and Y (K x nb, ld K, in
 * VB: both free until the vectors kernel) leave the trailing update
 * W(p1:M, p1:K) -= V Y^T + X U to two GEMMs over all the chunk's slices after the launch (launch.ts),
 * so a column's step reads the trailing matrix twice (A^T v, A u) and writes none of it where dgebd2
 * reads it twice and writes it twice.
 *
 * Column i of the panel (p0 <= i < p1 = p0 + nb <= K - 1, jl = i - p0; V(r, jj) = W(r, p0 + jj),
 * U(jj, j) = W(p0 + jj, j)):
 * 1. W(i:M, i) -= V(i:M, :jl) Y(i, :jl)^T + X(i:M, :jl) U(:jl, i) (a thread per row);
 * 2. H_i by dlarfg on W(i:M, i) (common/householder-larfg.ts): d_i = beta into W(i, i) and the
 *    tridiag slice's se[2i] (where the tail stage reads it), tauq_i, v in shared memory;
 * 3. Y(i+1:K, jl) = tauq_i (W(i:M, i+1:K)^T v - Y(i+1:K, :jl) (V^T v) - U(:jl, i+1:K)^T (X^T v)), the
 *    trailing columns as of the panel's start (a warp per column: coalesced);
 * 4. W(i, i+1:K) -= Y(i+1:K, :jl+1) V(i, :jl+1)^T + U(:jl, i+1:K)^T X(i, :jl)^T (V(i, jl) = 1);
 * 5. G_i by dlarfg on W(i, i+1:K): e_i into se[2i+1], taup_i, u in shared memory, W(i, i+1) := 1;
 * 6. X(i+1:M, jl) = taup_i (W(i+1:M, i+1:K) u - V(i+1:M, :jl+1) (Y^T u) - X(i+1:M, :jl) (U u)), the
 *    trailing rows as of the panel's start (a thread per row: coalesced).
 * W's diagonal holds d and its superdiagonal ones after the panels: no later kernel reads them (the
 * tail stage takes d and e from se, ormqr never reads a reflector's unit element).
 */
import type { KernelSource } from '../../runtime/types.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { blockLarfgSource } from '../common/householder-larfg.js';
import type { BidiagPanelParams } from './params.js';
import { bidiagPrelude, slicePointers } from './snippets.js';

export const panelEntry = (p: BidiagPanelParams): string => `gesvd_bidiag_labrd_${p.rows}x${p.k}_t${p.threads}_b${p.nb}`;

export function bidiagPanelSource(p: BidiagPanelParams): KernelSource {
  const { rows, k, threads, nb } = p;
  if (!Number.isInteger(nb) || nb < 1 || nb >= k) throw new RangeError(`a panel's ${nb} columns must lie in 1 ... ${k - 1}`);
  const entry = panelEntry(p);
  // The prelude's io type is unused here (the panels work on the float64 slice only).
  const source = `${bidiagPrelude('float64', rows, k, threads)}
constexpr int NB = ${nb};
constexpr int WARPS = T / 32;
${blockReduceSource('sum')}
${blockLarfgSource()}
// Element (i, j) of G (ld M).
static __device__ __forceinline__ long long at(int i, int j) { return i + (long long)j * M; }
// Row r of W times u over the columns j0 ... K-1 (four partial sums against the FMA latency).
static __device__ __forceinline__ real rowDotU(const real* __restrict__ W, const real* __restrict__ u, int r, int j0) {
  real a0 = real(0), a1 = real(0), a2 = real(0), a3 = real(0);
  int j = j0;
  for (; j + 3 < K; j += 4) {
    a0 = fmaReal(W[at(r, j)], u[j], a0);
    a1 = fmaReal(W[at(r, j + 1)], u[j + 1], a1);
    a2 = fmaReal(W[at(r, j + 2)], u[j + 2], a2);
    a3 = fmaReal(W[at(r, j + 3)], u[j + 3], a3);
  }
  for (; j < K; ++j) a0 = fmaReal(W[at(r, j)], u[j], a0);
  return (a0 + a1) + (a2 + a3);
}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(real* __restrict__ work, real* __restrict__ bwork, long long first, int count, int p0) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (first + blockIdx.x >= count) return;
${slicePointers(rows, k)}  real* X = UB;   // dlabrd's X, ld M, NB columns
  real* Yp = VB;  // dlabrd's Y, ld K, NB columns
  __shared__ real vv[M], uu[K], red[32], ta[NB], tb[NB];
  if (hdr[2] != 0) return;   // NaN or Inf in A: nothing to reduce
  const int p1 = min(p0 + NB, K - 1);
  for (int i = p0; i < p1; ++i) {
    const int jl = i - p0;
    // 1. Column i brought up to date with the panel's earlier columns.
    for (int jj = tid; jj < jl; jj += T) { ta[jj] = Yp[i + jj * K]; tb[jj] = W[at(p0 + jj, i)]; }
    __syncthreads();
    for (int r = i + tid; r < M; r += T) {
      real acc = W[at(r, i)];
      for (int jj = 0; jj < jl; ++jj) {
        acc = fmaReal(-W[at(r, p0 + jj)], ta[jj], acc);
        acc = fmaReal(-X[r + jj * M], tb[jj], acc);
      }
      W[at(r, i)] = acc;
    }
    __syncthreads();
    // 2. H_i.
    real dq;
    const real tq = blockLarfg(W + at(i, i), 1, M - i, vv + i, red, dq);
    if (tid == 0) { vv[i] = real(1); W[at(i, i)] = dq; se[2 * i] = dq; tauq[i] = tq; }
    __syncthreads();   // v complete
    // 3. Y's column jl: the dots with the panel's earlier columns first (a warp each), then a warp per trailing column.
    for (int jj = warp; jj < jl; jj += WARPS) {
      real sv = real(0), sx = real(0);
      for (int r = i + lane; r < M; r += 32) { sv = fmaReal(W[at(r, p0 + jj)], vv[r], sv); sx = fmaReal(X[r + jj * M], vv[r], sx); }
      sv = groupSum(sv, 32);
      sx = groupSum(sx, 32);
      if (lane == 0) { ta[jj] = sv; tb[jj] = sx; }
    }
    __syncthreads();
    for (int j = i + 1 + warp; j < K; j += WARPS) {
      real s = real(0);
      for (int r = i + lane; r < M; r += 32) s = fmaReal(W[at(r, j)], vv[r], s);
      for (int jj = lane; jj < jl; jj += 32) s = fmaReal(-Yp[j + jj * K], ta[jj], fmaReal(-W[at(p0 + jj, j)], tb[jj], s));
      s = groupSum(s, 32);
      if (lane == 0) Yp[j + jl * K] = tq * s;
    }
    __syncthreads();   // Y's column jl in global memory, ta and tb free
    // 4. Row i brought up to date with the panel's columns to jl.
    for (int jj = tid; jj < jl; jj += T) { ta[jj] = W[at(i, p0 + jj)]; tb[jj] = X[i + jj * M]; }
    __syncthreads();
    for (int j = i + 1 + tid; j < K; j += T) {
      real acc = W[at(i, j)] - Yp[j + jl * K];
      for (int jj = 0; jj < jl; ++jj) {
        acc = fmaReal(-Yp[j + jj * K], ta[jj], acc);
        acc = fmaReal(-W[at(p0 + jj, j)], tb[jj], acc);
      }
      W[at(i, j)] = acc;
    }
    __syncthreads();
    // 5. G_i.
    real de;
    const real tp = blockLarfg(W + at(i, i + 1), M, K - i - 1, uu + i + 1, red, de);
    if (tid == 0) { uu[i + 1] = real(1); W[at(i, i + 1)] = real(1); se[2 * i + 1] = de; taup[i] = tp; }
    __syncthreads();   // u complete
    // 6. X's column jl: the dots Y^T u (to jl) and U u (before jl), a warp each, then a thread per row.
    for (int jj = warp; jj <= jl; jj += WARPS) {
      real sy = real(0), su = real(0);
      for (int j = i + 1 + lane; j < K; j += 32) {
        sy = fmaReal(Yp[j + jj * K], uu[j], sy);
        if (jj < jl) su = fmaReal(W[at(p0 + jj, j)], uu[j], su);
      }
      sy = groupSum(sy, 32);
      su = groupSum(su, 32);
      if (lane == 0) { ta[jj] = sy; tb[jj] = su; }
    }
    __syncthreads();
    for (int r = i + 1 + tid; r < M; r += T) {
      real acc = rowDotU(W, uu, r, i + 1);
      for (int jj = 0; jj <= jl; ++jj) acc = fmaReal(-W[at(r, p0 + jj)], ta[jj], acc);
      for (int jj = 0; jj < jl; ++jj) acc = fmaReal(-X[r + jj * M], tb[jj], acc);
      X[r + jl * M] = tp * acc;
    }
    __syncthreads();
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

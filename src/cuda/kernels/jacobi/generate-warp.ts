/**
 * Batched Jacobi for matrices up to 32 x 32: syev (two-sided) and gesvd (one-sided, Hestenes).
 *
 * Layout: `threads` lanes (a power of two) per matrix, `perBlock` matrices per block, several
 * matrices per warp where one cannot fill it; each matrix has its own slot of shared memory (A and
 * V, or G and V), so no workspace in global memory: A is read once, the outputs written once.
 * The only barrier is __syncwarp; the matrices of one warp sweep together until all of them have
 * converged (__all_sync), a converged matrix idling.
 *
 * Order: the round-robin (circle) tournament over n2 = n rounded up to even indices (a zero dummy
 * index for odd n, never rotated): n2 - 1 rounds per sweep, each of n2 / 2 disjoint pairs, so a
 * round's rotations commute and run at once: one lane per pair computes (c, s), then the lanes
 * apply all of them to columns (A J, V J), then (syev) to rows (J^T A), and the pair's lane writes
 * the 2 x 2 block's exact result (a_pp - t a_pq, a_qq + t a_pq, zeros).
 *
 * Convergence, sweep limit, info and NaN handling are the CPU reference's (cpu/lapack/jacobi.ts),
 * with eps of the dtype: a pair rotates while |a_pq| > sqrt(n) eps sqrt(|a_pp|) sqrt(|a_qq|)
 * (syev, no squares: no scaling needed) or |g_p . g_q| > sqrt(m) eps ||g_p|| ||g_q|| (gesvd, whose
 * squared norms are kept in range by scaling G by a power of two first); info n + 1 (k + 1) where
 * `maxSweeps` sweeps did not converge (gesvd: nor did the absolute test of common/gesvd-settle.ts
 * pass), n + 2 (k + 2) where A held NaN or Inf (outputs NaN).
 */
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { gesvdSettleCalls, gesvdSettleSource } from '../common/gesvd-settle.js';
import { elementBytes } from '../common/precision.js';
import { GROUP_MAX, WARP_SLOT } from '../common/jacobi-rotation.js';
import type { GesvdWarpParams, SyevWarpParams } from './params.js';
import {
  GESVD_TEST, PAIR_OF, SYEV_TEST, gesvdDims, gesvdLoad, gesvdOutputs, gesvdRange, gesvdScale, gesvdSortNormalise, gesvdTag, identityV,
  jacobiPrelude, pairRotation, syevDims, syevLoad, syevOutputs, syevSort, syevTag,
} from './snippets.js';

/** Shared bytes of one block (static shared memory: at most 48 KiB). */
export function syevWarpSharedBytes(p: Pick<SyevWarpParams, 'dtype' | 'n' | 'vectors' | 'perBlock'>): number {
  const n2 = p.n + (p.n & 1);
  const el = elementBytes(p.dtype);
  return p.perBlock * ((n2 * (n2 + 1) * (p.vectors ? 2 : 1) + n2) * el + n2 * 4);
}

export function gesvdWarpSharedBytes(p: Pick<GesvdWarpParams, 'dtype' | 'm' | 'n' | 'perBlock'>): number {
  const big = Math.max(p.m, p.n);
  const k = Math.min(p.m, p.n);
  const k2 = k + (k & 1);
  const el = elementBytes(p.dtype);
  return p.perBlock * ((big * k2 + k2 * (k2 + 1) + 2 * k2) * el + k2 * 4);
}



/**
 * One phase of a round: lane pairs (k, idx) over the round's HALF pairs and `len` indices, each
 * applying pair k's rotation (c, s) where it is not the identity; `rotations(pp, qq)` gives the
 * rot2 lines for index `index` of the pair's columns or rows pp, qq.
 */
function pairLoop(len: string, index: string, rotations: (p: string, q: string) => string[]): string {
  return `        for (int idx = tid; idx < HALF * ${len}; idx += T) {
          const int k = idx / ${len}, ${index} = idx % ${len};
          const real s = sn[k];
          if (s != real(0)) {
            const real c = cs[k];
            int pp, qq;
            pairOf(r, k, pp, qq);
${rotations('pp', 'qq').map((l) => `            ${l}`).join('\n')}
          }
        }`;
}

export function syevWarpSource(p: SyevWarpParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, threads, perBlock, maxSweeps } = p;
  const entry = `syev_warp_${syevTag(p)}_t${threads}x${perBlock}_s${maxSweeps}`;
  const V = (line: string): string => (vectors ? line : '');
  const source = `${jacobiPrelude(dtype)}
${syevDims(n)}
constexpr int LDS = N2 + 1;
constexpr int T = ${threads};
constexpr int MPB = ${perBlock};
constexpr int MAX_SWEEPS = ${maxSweeps};
${PAIR_OF}

extern "C" __global__ void __launch_bounds__(${threads * perBlock}) ${entry}(
    ${operandParameters('A', kind, true)},
    ${operandParameters('W', kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  __shared__ real sA[MPB * N2 * LDS];
${V('  __shared__ real sV[MPB * N2 * LDS];')}
  __shared__ real sC[MPB * HALF];
  __shared__ real sS[MPB * HALF];
  __shared__ int sP[MPB * N2];
${WARP_SLOT}
  real* a = sA + slot * (N2 * LDS);
${V('  real* v = sV + slot * (N2 * LDS);')}
  real* cs = sC + slot * HALF;
  real* sn = sS + slot * HALF;
  int* perm = sP + slot * N2;
  const real tol = sqrtReal(real(N)) * EPS;
  int bad = 0;
  if (active) {
    const real* g = ${matrixPointer('A', kind, 'mat')};
${syevLoad(4, uplo, vectors, 'LDS', 'LDS')}
  }
  const bool failed = (__ballot_sync(FULL, bad) & group) != 0u;
  bool done = !active || failed || N < 2;
  __syncwarp();
  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    if (__all_sync(FULL, done)) break;
    int rotated = 0;
    for (int r = 0; r < N2 - 1; ++r) {
      int p = 0, q = 0;
      bool rot = false;
      real app2 = real(0), aqq2 = real(0);
      if (!done && tid < HALF) {
        pairOf(r, tid, p, q);
        const real apq = a[p + q * LDS], app = a[p + p * LDS], aqq = a[q + q * LDS];
${pairRotation(8, SYEV_TEST, ['app2 = app - t * apq;', 'aqq2 = aqq + t * apq;', 'rot = true;'], ['cs[tid] = c;', 'sn[tid] = s;'])}
      }
      __syncwarp();
      if (!done) {
        // A := A J and V := V J: lane pairs (k, i) rotate row i of columns p_k, q_k.
${pairLoop('N2', 'i', (pp, qq) => [`rot2(a[i + ${pp} * LDS], a[i + ${qq} * LDS], c, s);`, ...(vectors ? [`rot2(v[i + ${pp} * LDS], v[i + ${qq} * LDS], c, s);`] : [])])}
      }
      __syncwarp();
      if (!done) {
        // A := J^T A: column j of rows p_k, q_k.
${pairLoop('N2', 'j', (pp, qq) => [`rot2(a[${pp} + j * LDS], a[${qq} + j * LDS], c, s);`])}
      }
      __syncwarp();
      if (rot) {
        a[p + p * LDS] = app2;
        a[q + q * LDS] = aqq2;
        a[p + q * LDS] = real(0);
        a[q + p * LDS] = real(0);
      }
      __syncwarp();
    }
    if ((__ballot_sync(FULL, rotated) & group) == 0u) done = true;
  }
${syevSort('active && !failed', 'LDS', '__syncwarp()')}
  __syncwarp();
  if (!active) return;
${syevOutputs(kind, vectors, 'LDS', 'LDS', true)}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function gesvdWarpSource(p: GesvdWarpParams): KernelSource {
  const { dtype, m, n, wantU, wantVt, kind, threads, perBlock, maxSweeps } = p;
  const tall = m >= n;
  const needV = tall ? wantVt : wantU;
  const entry = `gesvd_warp_${gesvdTag(p)}_t${threads}x${perBlock}_s${maxSweeps}`;
  const source = `${jacobiPrelude(dtype)}
${gesvdDims(m, n)}
constexpr int LDV = N2 + 1;
constexpr int T = ${threads};
constexpr int MPB = ${perBlock};
constexpr int MAX_SWEEPS = ${maxSweeps};
${gesvdRange(dtype)}
${PAIR_OF}
${gesvdSettleSource(false)}

extern "C" __global__ void __launch_bounds__(${threads * perBlock}) ${entry}(
    ${operandParameters('A', kind, false)},
    ${operandParameters('S', kind, true)},
    ${operandParameters('U', kind, true)},
    ${operandParameters('V', kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  __shared__ real sG[MPB * M * N2];
  __shared__ real sV[MPB * N2 * LDV];
  __shared__ real sC[MPB * N2];
  __shared__ real sS[MPB * N2];
  __shared__ int sP[MPB * N2];
${WARP_SLOT}
  real* g = sG + slot * (M * N2);
  real* v = sV + slot * (N2 * LDV);
  real* cs = sC + slot * N2;
  real* sn = sS + slot * N2;
  real* sig = cs;   // after the sweeps
  int* perm = sP + slot * N2;
  const real tol = sqrtReal(real(M)) * EPS;
  int bad = 0;
  real amax = real(0);
  if (active) {
    const real* ga = ${matrixPointer('A', kind, 'mat')};
${gesvdLoad(4, tall)}
${identityV(4)}
  }
  const bool failed = (__ballot_sync(FULL, bad) & group) != 0u;
${GROUP_MAX}
${gesvdScale(dtype, 'active && e != 0')}
  bool done = !active || failed || K < 2;
  __syncwarp();
  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    if (__all_sync(FULL, done)) break;
    int rotated = 0;
    for (int r = 0; r < N2 - 1; ++r) {
      if (!done && tid < HALF) {
        int p, q;
        pairOf(r, tid, p, q);
        real alpha = real(0), beta = real(0), gamma = real(0);
        for (int i = 0; i < M; ++i) {
          const real x = g[i + p * M], y = g[i + q * M];
          alpha = fmaReal(x, x, alpha);
          beta = fmaReal(y, y, beta);
          gamma = fmaReal(x, y, gamma);
        }
${pairRotation(8, GESVD_TEST, [], ['cs[tid] = c;', 'sn[tid] = s;'])}
      }
      __syncwarp();
      if (!done) {
${pairLoop('M', 'i', (pp, qq) => [`rot2(g[i + ${pp} * M], g[i + ${qq} * M], c, s);`])}
${needV ? pairLoop('N2', 'i', (pp, qq) => [`rot2(v[i + ${pp} * LDV], v[i + ${qq} * LDV], c, s);`]) : ''}
      }
      __syncwarp();
    }
    if ((__ballot_sync(FULL, rotated) & group) == 0u) done = true;
  }
  // Column norms, descending order by rank (ties by index), then U's columns normalised.
  if (active && !failed) {
    for (int j = tid; j < K; j += T) {
      real nrm = real(0);
      for (int i = 0; i < M; ++i) nrm = fmaReal(g[i + j * M], g[i + j * M], nrm);
      sig[j] = sqrtReal(nrm);
    }
  }
  __syncwarp();
${gesvdSortNormalise('active && !failed', '__syncwarp()')}
  __syncwarp();
${gesvdSettleCalls('active && !failed && tid == 0', tall ? wantU : wantVt, '__syncwarp()')}
  if (!active) return;
${gesvdOutputs(p, ' ')}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

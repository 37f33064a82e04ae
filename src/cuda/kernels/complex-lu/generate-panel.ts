/**
 * The blocked zgetrf's kernels (plan-blocked.ts's steps), over `real2` pairs:
 * - the panel: zgetf2 on the m x w panel A(off:, off:off+w) of every matrix, one block per matrix.
 *   The panel stays in global memory (any height: a row a thread at a time, the rows strided by
 *   the block); per column k:
 *   1. the pivot: each thread's best |re| + |im| at or below row k, then warp shuffles and one
 *      shared array (zgetf2's izamax, as the reference and the register designs: the first of the
 *      largest wins; a NaN at row k is never displaced, a NaN below never wins);
 *   2. its 0-based pivot written as a row of the matrix (off + the panel's row), an exactly zero
 *      pivot's info (off + k + 1, the first only: info is read at the start, zeroed by the driver,
 *      and the panels run in column order); rows k and piv swapped across the panel's columns
 *      (not where the pivot is zero, as zgetf2), the pivot row kept in shared memory;
 *   3. a thread per row below: its entry of column k scaled by the pivot's reciprocal (divided
 *      where |pivot| is below the safe minimum), then its entries right of k updated (rank 1).
 *   Three barriers a column; a matrix's block touches no other matrix, so a NaN stays in its own.
 * - the row interchanges of the other columns and of B (common/laswp.ts over pairs), and gesv's
 *   copy of B kept aside (common/matrix-copy.ts over pairs).
 */
import type { KernelSource } from '../../runtime/types.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexPrelude, complexScalarHelpers } from '../common/complex.js';
import { laswpKernelSource, laswpTag } from '../common/laswp.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import type { ComplexLaswpParams, ComplexPanelParams } from './params.js';

/** The element types and the complex helpers: what every kernel of the blocked LU starts with. */
function complexLines(p: { dtype: ComplexPanelParams['dtype'] }): string {
  return `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
${complexPrelude(p.dtype)}
${complexScalarHelpers(p.dtype)}`;
}

export function complexPanelSource(p: ComplexPanelParams): KernelSource {
  const entry = `getrf_${complexLetter(p.dtype)}_panel_nb${p.nb}_t${p.threads}_${kindTag(p.kind)}`;
  const source = `${complexLines(p)}
constexpr int NB = ${p.nb};
constexpr int T = ${p.threads};
constexpr int NW = T / 32;
constexpr real SAFE_MIN = ${dtypeInfo(p.dtype).cuda.safeMin};

// (key, pos) := the better of itself and (k2, p2): the larger key, of equal keys the smaller row.
static __device__ __forceinline__ void better(real& key, int& pos, real k2, int p2) {
  if (k2 > key || (k2 == key && p2 < pos)) { key = k2; pos = p2; }
}
static __device__ __forceinline__ void warpBest(real& key, int& pos) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) better(key, pos, __shfl_xor_sync(0xffffffffu, key, o), __shfl_xor_sync(0xffffffffu, pos, o));
}

// A points at the panel's first element A(off, off); m rows, w <= NB columns.
extern "C" __global__ void __launch_bounds__(T) ${entry}(
    ${operandParameters('A', p.kind, true, 'real2')},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count,
    int m, int w, int off) {
  __shared__ real redKey[2][NW];
  __shared__ int redPos[2][NW];
  __shared__ real2 sRow[NB];                         // the pivot row (row k after the swap)
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  real2* a = ${matrixPointer('A', p.kind, 'mid')};
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  int* pv = ipiv + id * (long long)pivotStride + off;
  int inf = info[id];
  for (int k = 0; k < w; ++k) {
    const int q = k & 1;
    real2* ck = a + (long long)k * ldA;
    real key = real(-2);
    int pos = 0x7fffffff;
    for (int r = k + tid; r < m; r += T) {
      const real x = abs1Real2(ck[r]);
      better(key, pos, x != x ? (r == k ? infReal() : real(-1)) : x, r);
    }
    warpBest(key, pos);
    if (lane == 0) { redKey[q][warp] = key; redPos[q][warp] = pos; }
    __syncthreads();
    key = lane < NW ? redKey[q][lane] : real(-2);
    pos = lane < NW ? redPos[q][lane] : 0x7fffffff;
    warpBest(key, pos);
    const int piv = pos;
    const real2 pivot = ck[piv];
    const bool zero = isZeroReal2(pivot);
    if (tid == 0) pv[k] = off + piv;
    if (zero && inf == 0) inf = off + k + 1;
    __syncthreads();                                 // every thread has read the pivot before rows k and piv move
    for (int c = tid; c < w; c += T) {
      real2* col = a + (long long)c * ldA;
      real2 u = col[k];
      if (!zero && piv != k) { u = col[piv]; col[piv] = col[k]; col[k] = u; }
      sRow[c] = u;
    }
    __syncthreads();
    const bool reciprocal = modulusReal2(pivot) >= SAFE_MIN;
    const real2 rcp = divReal2(makeReal2(1, 0), pivot);
    for (int r = k + 1 + tid; r < m; r += T) {
      real2 l = ck[r];
      if (!zero) l = reciprocal ? mulReal2(l, rcp) : divReal2(l, pivot);
      ck[r] = l;
      // Unrolled by 4: fully unrolled (w is NB at most), ptxas spilled complex128 at 256 threads (sm_90).
#pragma unroll 4
      for (int c = k + 1; c < w; ++c) {
        real2* e = a + r + (long long)c * ldA;
        *e = fmsReal2(l, sRow[c], *e);
      }
    }
    __syncthreads();                                 // column k + 1 is updated before its search
  }
  if (tid == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function complexLaswpSource(p: ComplexLaswpParams): KernelSource {
  const entry = `getrf_laswp_${complexLetter(p.dtype)}_${laswpTag(p.kind, p.reverse)}`;
  const prelude = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}`;
  return { name: `${entry}.cu`, source: laswpKernelSource({ entry, prelude, kind: p.kind, element: 'real2', reverse: p.reverse }), entry };
}

/**
 * The recursive LU's leaf (plan.ts getrfRecursionSteps): dgetf2 on a tall m x w panel (w <= NB) of
 * every matrix, one block per matrix, the panel in registers: thread t holds rows t, t + T,
 * t + 2T, ... (R of them, NB values each), so a column step touches no memory but two shared rows.
 * Per column k (batched-lu-cholesky-very-small.txt, the panel factorization; gpu-only-cholesky.txt
 * keeps the panel on the device the same way):
 * 1. pivot search: each thread's best |A(r, k)|, r >= k, then warp shuffles and one shared array;
 *    every warp reduces the warps' results itself, so one barrier serves (idamax: the first
 *    largest |value|; a NaN never displaces a number, a NaN at row k is never displaced);
 * 2. the owners of rows piv and k publish them in shared memory (one barrier), and swap them in
 *    registers (dgetf2 does not swap on a zero pivot; then piv = k anyway);
 * 3. scale the column below the pivot (by the reciprocal, or by division below the safe minimum),
 *    rank-1 update of the columns right of k.
 * Shared arrays are double-buffered by the parity of k, so two barriers per column suffice.
 * Pivots are written 0-based as absolute row numbers of the matrix (off + the panel's row); info,
 * zeroed by the driver, takes the first zero pivot of the matrix (panels run in column order).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import { pivotHelpers } from './generate-panel.js';
import { REGISTER_COLUMN_SHARED, registerColumnStep } from './column-step.js';
import type { GetrfTallParams } from './params.js';

export function getrfTallSource(p: GetrfTallParams): KernelSource {
  const { nb, threads, rowsPerThread } = p;
  const entry = `getrf_tall_${precisionLetter(p.dtype)}_nb${nb}_t${threads}_r${rowsPerThread}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}
${pivotHelpers(p.dtype)}
constexpr int NB = ${nb};
constexpr int T = ${threads};
constexpr int R = ${rowsPerThread};
constexpr int NW = T / 32;

// A points at the panel's first element A(off, off); m rows, w <= NB columns.
extern "C" __global__ void __launch_bounds__(T) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count,
    int m, int w, int off) {
${REGISTER_COLUMN_SHARED}  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  int* pv = ipiv + id * (long long)pivotStride + off;
  int inf = info[id];
  real v[R][NB];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int r = tid + i * T;
#pragma unroll
    for (int c = 0; c < NB; ++c) v[i][c] = r < m && c < w ? a[r + (long long)c * ldA] : real(0);
  }
#pragma unroll
  for (int k = 0; k < NB; ++k) {
    if (k >= w) break;
${registerColumnStep('k')}  }
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int r = tid + i * T;
#pragma unroll
    for (int c = 0; c < NB; ++c) if (r < m && c < w) a[r + (long long)c * ldA] = v[i][c];
  }
  if (tid == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

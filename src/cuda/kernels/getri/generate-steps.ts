/**
 * The two kernels getri runs around the launches it borrows (trtri, trsm), for
 * inv(A) = inv(U) inv(L) P from getrf's P A = L U:
 *
 * - prepare (before): W := L, the unit lower triangle below A's diagonal with ones on the
 *   diagonal and zeros above it, the dense matrix whose lower triangle trtri then inverts in place;
 *   and info = k + 1 for the first exactly zero U(k, k), 0 where there is none (dgetri's test,
 *   through dtrtri). A is only read.
 * - finish (after W := inv(U) inv(L) by trsm): where info is 0, A := W P, the column interchanges
 *   of the pivots applied last first (dgetri: for j = n - 2 down to 0, swap columns j and
 *   ipiv[j]), column c of A being column src[c] of W. Where info is not 0, A is not written, so a
 *   singular matrix keeps its factors whatever the solve with its singular U put in W.
 *
 * Both kernels: blockDim = (threads, matrices), one matrix per threadIdx.y, gridDim.y blocks of
 * `columns` columns per matrix (plan.ts). The prepare kernel's first column block also scans the
 * diagonal (before any kernel writes A: the finish kernel's blocks write the columns of others).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { GetriStepParams } from './params.js';

/** Threads per block at most (blockDim.x * blockDim.y). */
export const GETRI_THREADS = 256;
/** Matrices per block at most (small n: several in one block). */
export const GETRI_MATRICES_MAX = 8;

/** Dynamic shared bytes of a finish block: per matrix, its column map and its pivots (n ints each). */
export function getriFinishSharedBytes(n: number, matrices: number): number {
  return matrices * 2 * n * 4;
}

/**
 * The loop over the block's columns c0 <= c < c1 of an n x n matrix, (i, c) per element, column by
 * column; a thread steps blockDim.x elements by adding (its quotient and remainder by n), no division
 * per element.
 */
function columnsLoop(body: string): string {
  return `  const int c0 = blockIdx.y * columns;
  const int c1 = min(n, c0 + columns);
  if (n == 0) return;
  const int step = (int)blockDim.x;
  const int dc = step / n, di = step - dc * n;
  int c = c0 + (int)threadIdx.x / n;
  int i = (int)threadIdx.x - ((int)threadIdx.x / n) * n;
  while (c < c1) {
${body}
    i += di;
    c += dc;
    if (i >= n) { i -= n; ++c; }
  }`;
}

export function getriPrepareSource(p: GetriStepParams): KernelSource {
  const entry = `getri_prepare_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${GETRI_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, false)}, ${operandParameters('W', p.kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count, int n, int columns) {
  __shared__ int first[${GETRI_MATRICES_MAX}];
  const long long mid = (long long)blockIdx.x * blockDim.y + threadIdx.y;
  const bool live = mid < count;
  const real* a = live ? ${matrixPointer('A', p.kind, 'mid')} : nullptr;
  if (blockIdx.y == 0) {
    // info: the first exactly zero U(k, k), as dtrtri checks it (a NaN is not zero).
    if (threadIdx.x == 0) first[threadIdx.y] = n;
    __syncthreads();
    if (live)
      for (int k = threadIdx.x; k < n; k += blockDim.x)
        if (a[k + (long long)k * ldA] == real(0)) atomicMin(&first[threadIdx.y], k);
    __syncthreads();
    if (live && threadIdx.x == 0) info[index != nullptr ? index[mid] : mid] = first[threadIdx.y] < n ? first[threadIdx.y] + 1 : 0;
  }
  if (!live) return;
  real* w = ${matrixPointer('W', p.kind, 'mid')};
${columnsLoop('    w[i + (long long)c * ldW] = i > c ? a[i + (long long)c * ldA] : (i == c ? real(1) : real(0));')}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function getriFinishSource(p: GetriStepParams): KernelSource {
  const entry = `getri_finish_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${GETRI_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, true)}, ${operandParameters('W', p.kind, false)},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ info,
    const int* __restrict__ index, int count, int n, int columns) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  int* src = reinterpret_cast<int*>(smemBytes) + (long long)threadIdx.y * 2 * n;   // column c of A is column src[c] of W
  int* piv = src + n;
  const long long mid = (long long)blockIdx.x * blockDim.y + threadIdx.y;
  const long long id = mid < count ? (index != nullptr ? (long long)index[mid] : mid) : 0;
  const bool live = mid < count && info[id] == 0;
  if (live) {
    const int* pv = ipiv + id * (long long)pivotStride;
    for (int c = threadIdx.x; c < n; c += blockDim.x) {
      src[c] = c;
      if (c + 1 < n) piv[c] = pv[c];
    }
  }
  __syncthreads();
  if (live && threadIdx.x == 0)
    for (int j = n - 2; j >= 0; --j) {
      const int q = piv[j];
      const int t = src[j];
      src[j] = src[q];
      src[q] = t;
    }
  __syncthreads();
  if (!live) return;
  real* a = ${matrixPointer('A', p.kind, 'mid')};
  const real* w = ${matrixPointer('W', p.kind, 'mid')};
${columnsLoop('    a[i + (long long)c * ldA] = w[i + (long long)src[c] * ldW];')}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

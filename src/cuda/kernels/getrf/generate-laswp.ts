/**
 * The recursive LU's row interchanges (dlaswp, incx = 1) on a range of columns of every matrix:
 * rows k and ipiv[k] swapped for k = from ... to-1 in order. A thread per column, the columns of a
 * matrix spread over blocks (grid: matrices x column chunks), the pivots staged in shared memory by
 * chunks; a column's swaps are sequential (a later pivot may name a row an earlier one moved), the
 * columns independent. (The solve family's permute kernel gathers whole columns through shared
 * memory instead: right for getrs's full-height B, not for a range of interchanges of a tall A.)
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { GetrfLaswpParams } from './params.js';

export const LASWP_THREADS = 128;
/** Pivots staged in shared memory per chunk. */
export const LASWP_CHUNK = 512;

export function getrfLaswpSource(p: GetrfLaswpParams): KernelSource {
  const entry = `getrf_laswp_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

// A points at the first column of the range (row 0 of the matrix); ipiv holds absolute 0-based rows.
extern "C" __global__ void __launch_bounds__(${LASWP_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, true)},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ index, int count,
    int from, int to, int cols) {
  __shared__ int sPiv[${LASWP_CHUNK}];
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};
  const int* pv = ipiv + id * (long long)pivotStride;
  const int c = blockIdx.y * blockDim.x + threadIdx.x;
  real* col = a + (long long)c * ldA;
  for (int k0 = from; k0 < to; k0 += ${LASWP_CHUNK}) {
    const int k1 = min(to, k0 + ${LASWP_CHUNK});
    __syncthreads();                                 // the previous chunk's pivots are read
    for (int k = k0 + threadIdx.x; k < k1; k += blockDim.x) sPiv[k - k0] = pv[k];
    __syncthreads();
    if (c < cols) {
      for (int k = k0; k < k1; ++k) {
        const int r = sPiv[k - k0];
        if (r != k) { const real t = col[k]; col[k] = col[r]; col[r] = t; }
      }
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

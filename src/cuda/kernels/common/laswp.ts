/**
 * Row interchanges (LAPACK's laswp) on a range of columns of every matrix of a batch: rows k and
 * ipiv[k] swapped for k = from ... to-1 in order (incx = 1), or for k = to-1 ... from (incx = -1,
 * `reverse`: what getrs 'T' / 'C' applies to its solution). A thread per column, the columns of a
 * matrix spread over blocks (grid: matrices x column chunks), the pivots staged in shared memory
 * by chunks; a column's swaps are sequential (a later pivot may name a row an earlier one moved),
 * the columns independent. The element is the kernel's `real` (the real LU) or `real2` (a complex
 * pair: the complex LU), whose type the caller's prelude defines.
 */
import { kindTag, matrixPointer, operandParameters, type OperandKind } from './batch-pointer.js';

export const LASWP_THREADS = 128;
/** Pivots staged in shared memory per chunk. */
export const LASWP_CHUNK = 512;

export interface LaswpKernel {
  /** The kernel's name: the caller's family prefix and its element's letter. */
  readonly entry: string;
  /** The lines before the kernel (precisionPrelude, and complexPrelude for `real2`). */
  readonly prelude: string;
  readonly kind: OperandKind;
  readonly element: 'real' | 'real2';
  readonly reverse: boolean;
}

/** The chunks' loop and the swaps inside it, in the direction asked. */
function swapLoops(element: string, reverse: boolean): string {
  const swap = `        const int r = sPiv[k - k0];
        if (r != k) { const ${element} t = col[k]; col[k] = col[r]; col[r] = t; }`;
  if (!reverse) {
    return `  for (int k0 = from; k0 < to; k0 += ${LASWP_CHUNK}) {
    const int k1 = min(to, k0 + ${LASWP_CHUNK});
    __syncthreads();                                 // the previous chunk's pivots are read
    for (int k = k0 + threadIdx.x; k < k1; k += blockDim.x) sPiv[k - k0] = pv[k];
    __syncthreads();
    if (c < cols) {
      for (int k = k0; k < k1; ++k) {
${swap}
      }
    }
  }`;
  }
  return `  for (int k1 = to; k1 > from; k1 -= ${LASWP_CHUNK}) {   // the last chunk first
    const int k0 = max(from, k1 - ${LASWP_CHUNK});
    __syncthreads();                                 // the previous chunk's pivots are read
    for (int k = k0 + threadIdx.x; k < k1; k += blockDim.x) sPiv[k - k0] = pv[k];
    __syncthreads();
    if (c < cols) {
      for (int k = k1 - 1; k >= k0; --k) {
${swap}
      }
    }
  }`;
}

export function laswpKernelSource(p: LaswpKernel): string {
  return `${p.prelude}

// A points at the first column of the range (row 0 of the matrix); ipiv holds absolute 0-based rows.
extern "C" __global__ void __launch_bounds__(${LASWP_THREADS}) ${p.entry}(
    ${operandParameters('A', p.kind, true, p.element)},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ index, int count,
    int from, int to, int cols) {
  __shared__ int sPiv[${LASWP_CHUNK}];
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  ${p.element}* a = ${matrixPointer('A', p.kind, 'mid')};
  const int* pv = ipiv + id * (long long)pivotStride;
  const int c = blockIdx.y * blockDim.x + threadIdx.x;
  ${p.element}* col = a + (long long)c * ldA;
${swapLoops(p.element, p.reverse)}
}
`;
}

/** The kernel's name fragment of its form: the operand's, and 'r' where the swaps run backward. */
export const laswpTag = (kind: OperandKind, reverse: boolean): string => `${kindTag(kind)}${reverse ? '_r' : ''}`;

/**
 * posv / gesv on a route whose solves touch every matrix (a batched trsm): B of a matrix whose
 * factorisation failed (info != 0) must come back unchanged (LAPACK), so B is copied aside before
 * the solves (every matrix) and the failed matrices' B copied back after them (`failedOnly`). One
 * block per matrix; with `failedOnly`, blocks of matrices that succeeded return at once. The
 * element is the kernel's `real` or `real2` (a complex pair), whose type the caller's prelude defines.
 */
import { matrixPointer, operandParameters, type OperandKind } from './batch-pointer.js';

export const COPY_THREADS = 256;

export interface MatrixCopyKernel {
  readonly entry: string;
  /** The lines before the kernel (precisionPrelude, and complexPrelude for `real2`). */
  readonly prelude: string;
  readonly kind: OperandKind;
  readonly element: 'real' | 'real2';
  /** Only the matrices whose info is non-zero. */
  readonly failedOnly: boolean;
}

export function matrixCopySource(p: MatrixCopyKernel): string {
  const e = p.element;
  return `${p.prelude}

extern "C" __global__ void __launch_bounds__(${COPY_THREADS}) ${p.entry}(
    ${operandParameters('A', p.kind, false, e)},
    ${operandParameters('B', p.kind, true, e)},
    const int* __restrict__ info, const int* __restrict__ index, int count, int rows, int cols) {
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  ${p.failedOnly ? 'if (info[id] == 0) return;' : '(void)info; (void)id;'}
  const ${e}* a = ${matrixPointer('A', p.kind, 'mid')};
  ${e}* b = ${matrixPointer('B', p.kind, 'mid')};
  for (long long e = threadIdx.x; e < (long long)rows * cols; e += blockDim.x) {
    const long long i = e % rows, j = e / rows;
    b[i + j * ldB] = a[i + j * ldA];
  }
}
`;
}

/**
 * posv/gesv on the trsm route: B of a matrix whose factorisation failed (info != 0) must come back
 * unchanged (LAPACK), but the batched trsm solves every matrix. So B is copied aside before the
 * solves (every matrix) and the failed matrices' B copied back after them (`failedOnly`). One
 * block per matrix; with `failedOnly`, blocks of matrices that succeeded return at once.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { CopyParams } from './params.js';

export const COPY_THREADS = 256;

export function copySource(p: CopyParams): KernelSource {
  const entry = `copy_${p.failedOnly ? 'failed' : 'all'}_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${COPY_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('B', p.kind, true)},
    const int* __restrict__ info, const int* __restrict__ index, int count, int rows, int cols) {
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  ${p.failedOnly ? 'if (info[id] == 0) return;' : '(void)info; (void)id;'}
  const real* a = ${matrixPointer('A', p.kind, 'mid')};
  real* b = ${matrixPointer('B', p.kind, 'mid')};
  for (long long e = threadIdx.x; e < (long long)rows * cols; e += blockDim.x) {
    const long long i = e % rows, j = e / rows;
    b[i + j * ldB] = a[i + j * ldA];
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * The recursive Cholesky's info: a leaf factors a diagonal block whose first column is column
 * `offset` of the matrix and reports failures 1-based within the block, into a scratch array.
 * This kernel keeps each matrix's first failure: info[i] = offset + scratch[i] where info[i] is
 * still 0 (LAPACK's info: the order of the leading minor that is not positive definite).
 */
import type { KernelSource } from '../../runtime/types.js';

export function infoCombineSource(): KernelSource {
  const entry = 'potrf_info_combine';
  const source = `extern "C" __global__ void ${entry}(int* __restrict__ info, const int* __restrict__ scratch, int count, int offset) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count && info[i] == 0 && scratch[i] > 0) info[i] = offset + scratch[i];
}
`;
  return { name: `${entry}.cu`, source, entry };
}

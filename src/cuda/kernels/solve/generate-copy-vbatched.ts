/**
 * posv on a variable-size batch: B of a member whose factorisation failed (info != 0) must come
 * back unchanged (LAPACK), but the class kernels of trsm solve every member. So B is copied aside
 * (packed, ld = rows) before the solves and the failed members' B copied back after them, as
 * generate-copy.ts does per shape, here for every member in one launch: a block per member (a
 * grid-stride walk beyond the grid), the member's pointers (B, its copy) and ints (rows, cols,
 * ldB, batch index) read from the vbatched tables (common/vbatch.ts). `back` = 0: B into the copy,
 * every member; 1: the copy into B, only members whose info is non-zero.
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { DType } from '../../../core/dtype.js';

export const COPY_VBATCH_THREADS = 256;
/** Entries per member in the two tables. */
export const COPY_VBATCH_POINTERS = 2;
export const COPY_VBATCH_INTS = 4;

export function copyVbatchedSource(dtype: DType): KernelSource {
  const entry = `copy_vbatched_${precisionLetter(dtype)}`;
  const source = `${precisionPrelude(dtype)}

extern "C" __global__ void __launch_bounds__(${COPY_VBATCH_THREADS}) ${entry}(
    real* const* __restrict__ ptrs, const int* __restrict__ dims, const int* __restrict__ info, int count, int back) {
  for (long long q = blockIdx.x; q < count; q += gridDim.x) {
    const int* dm = dims + ${COPY_VBATCH_INTS} * q;
    if (back && info[dm[3]] == 0) continue;
    const int rows = dm[0], cols = dm[1];
    const long long ldB = dm[2], ldCopy = rows;
    real* b = ptrs[${COPY_VBATCH_POINTERS} * q];
    real* copy = ptrs[${COPY_VBATCH_POINTERS} * q + 1];
    for (long long e = threadIdx.x; e < (long long)rows * cols; e += blockDim.x) {
      const long long i = e % rows, j = e / rows;
      if (back) b[i + j * ldB] = copy[i + j * ldCopy];
      else copy[i + j * ldCopy] = b[i + j * ldB];
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

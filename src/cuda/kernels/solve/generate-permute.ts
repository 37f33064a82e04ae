/**
 * The row interchanges of getrs when its solves run on the trsm family (many right-hand sides):
 * B := P B before the forward solve (op N, LAPACK dlaswp with incx = 1) or B := P^T B after the
 * backward one (op T, incx = -1). One block per (matrix, chunk of columns); the permutation is
 * built once per block in shared memory from ipiv (0-based, applied in order, as dlaswp), then
 * each column is gathered through shared memory: reads and writes along the column (coalesced).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { PermuteParams } from './params.js';

export const PERMUTE_THREADS = 256;

/** Shared bytes of a permute block: the permutation and one column. */
export const permuteSharedBytes = (n: number, elementBytes: number): number => n * 4 + n * elementBytes + 16;

/**
 * CUDA statements (thread 0 of a block, then a barrier) that turn matrix `id`'s pivots into
 * `perm`: row i of P B is row perm[i] of B. Shared with the substitution kernel.
 */
export const PERMUTATION_FROM_PIVOTS = `if (threadIdx.x == 0) {                        // P as a permutation: row i of P B is B(perm[i])
    const int* pv = ipiv + id * (long long)pivotStride;
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int j = 0; j < n; ++j) { const int q = pv[j]; const int t = perm[j]; perm[j] = perm[q]; perm[q] = t; }
  }
  __syncthreads();`;

export function permuteSource(p: PermuteParams): KernelSource {
  const entry = `laswp_${precisionLetter(p.dtype)}_${p.inverse ? 'inv' : 'fwd'}_${kindTag(p.kind)}`;
  // Forward: new row i is old row perm[i]; inverse: old row i goes to perm[i].
  const move = p.inverse ? 'col[perm[i]] = bc[i];' : 'col[i] = bc[perm[i]];';
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${PERMUTE_THREADS}) ${entry}(
    ${operandParameters('B', p.kind, true)},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ index, int count, int n, int nrhs, int columnsPerBlock) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* col = reinterpret_cast<real*>(smemRaw);
  int* perm = reinterpret_cast<int*>(col + n);
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  ${PERMUTATION_FROM_PIVOTS}
  real* b = ${matrixPointer('B', p.kind, 'mid')};
  const int c1 = min(nrhs, (blockIdx.y + 1) * columnsPerBlock);
  for (int c = blockIdx.y * columnsPerBlock; c < c1; ++c) {
    real* bc = b + (long long)c * ldB;
    for (int i = threadIdx.x; i < n; i += blockDim.x) ${move}
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) bc[i] = col[i];
    __syncthreads();
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

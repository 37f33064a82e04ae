/**
 * getrs and gesv on a variable-size batch: the row interchanges of every member's B in one launch
 * (B := P B before the forward solve of op N, dlaswp with incx = 1; B := P^T B after the backward
 * solve of op T, incx = -1), reading each member's B and (n, nrhs, ldB, batch index) from the
 * vbatched tables (common/vbatch.ts), its pivots (0-based, getrf's) at ipiv[index * pivotStride].
 *
 * A block per member (a grid-stride walk beyond the grid) and chunk of its columns (grid.y chunks;
 * a member's nrhs split evenly among them). The block loads the member's pivots into shared
 * memory, thread 0 turns them into the permutation (applied in order, as dlaswp), then the block
 * gathers its columns through a shared buffer of `cap` elements, as many columns a pass as fit
 * (cap / n, at least one), so a small member keeps the block's threads busy. Every branch that
 * skips a member depends on the member and the block alone (barriers inside stay uniform).
 *
 * A pivot outside [j, n) (none of getrf's) is not applied: it cannot reach outside the member.
 * `info` (gesv): members whose info is non-zero are skipped (their B is restored after the solves,
 * and getrf's pivots are not read there); null (getrs): every member.
 * Table layout: member q's B at ptrs[q * pointerStride] (posv/gesv's copy table, B and its copy,
 * serves as it is), its ints at dims[4 q].
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import { COPY_VBATCH_INTS } from './generate-copy-vbatched.js';

export const PERMUTE_VBATCH_THREADS = 256;
/** Ints per member in the table it reads: the copy's (n, nrhs, ldB, batch index). */
const PERMUTE_VBATCH_INTS = COPY_VBATCH_INTS;
/** Most column chunks (grid.y) per member, as the per-size permutation splits B. */
export const PERMUTE_VBATCH_CHUNKS = 8;

export interface PermuteVbatchedParams {
  readonly dtype: DType;
  /** B := P^T B (after the solves of op T) instead of B := P B. */
  readonly inverse: boolean;
}

/** The column buffer's elements for members up to order nMax (at least a block's threads). */
export const permuteVbatchedCap = (nMax: number): number => Math.max(nMax, PERMUTE_VBATCH_THREADS);

/** Shared bytes of a block for members up to order nMax: the column buffer, the pivots and the permutation. */
export const permuteVbatchedSharedBytes = (nMax: number, elementBytes: number): number =>
  permuteVbatchedCap(nMax) * elementBytes + 2 * nMax * 4;

export function permuteVbatchedSource(p: PermuteVbatchedParams): KernelSource {
  const entry = `laswp_vbatched_${precisionLetter(p.dtype)}_${p.inverse ? 'inv' : 'fwd'}`;
  // Forward: new row i is old row perm[i]; inverse: old row i goes to perm[i].
  const gather = p.inverse ? 'buf[perm[i] + k * n] = bc[i];' : 'buf[i + k * n] = bc[perm[i]];';
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${PERMUTE_VBATCH_THREADS}) ${entry}(
    real* const* __restrict__ ptrs, int pointerStride, const int* __restrict__ dims,
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ info, int count, int nMax, int cap) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* buf = reinterpret_cast<real*>(smemRaw);
  int* piv = reinterpret_cast<int*>(buf + cap);
  int* perm = piv + nMax;
  for (long long q = blockIdx.x; q < count; q += gridDim.x) {
    const int* dm = dims + ${PERMUTE_VBATCH_INTS} * q;
    const int n = dm[0], nrhs = dm[1];
    const long long ldB = dm[2], id = dm[3];
    if (n <= 0 || nrhs <= 0) continue;
    if (info != nullptr && info[id] != 0) continue;
    const int per = (nrhs + gridDim.y - 1) / gridDim.y;
    const int c0 = blockIdx.y * per, c1 = min(nrhs, c0 + per);
    if (c0 >= c1) continue;
    const int* pv = ipiv + id * (long long)pivotStride;
    for (int i = threadIdx.x; i < n; i += blockDim.x) { piv[i] = pv[i]; perm[i] = i; }
    __syncthreads();
    if (threadIdx.x == 0) {                          // P as a permutation: row i of P B is B(perm[i])
      for (int j = 0; j < n; ++j) {
        const int r = piv[j];
        if (r > j && r < n) { const int t = perm[j]; perm[j] = perm[r]; perm[r] = t; }
      }
    }
    __syncthreads();
    real* b = ptrs[(long long)pointerStride * q];
    const int width = max(1, cap / n);
    for (int c = c0; c < c1; c += width) {
      const int w = min(width, c1 - c);
      for (int e = threadIdx.x; e < n * w; e += blockDim.x) {
        const int i = e % n, k = e / n;
        const real* bc = b + (long long)(c + k) * ldB;
        ${gather}
      }
      __syncthreads();
      for (int e = threadIdx.x; e < n * w; e += blockDim.x) {
        const int i = e % n, k = e / n;
        b[(long long)(c + k) * ldB + i] = buf[i + k * n];
      }
      __syncthreads();
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * The batched lauum's leaf: the triangle at the bottom of the paper's recursion
 * (batched-triangular-kblas, LAUUM: the diagonal blocks "computed directly" in shared memory),
 * t <= leafMax, in place.
 *
 * lower: A(i, j) := sum_{l >= i} L(l, i) L(l, j) for i >= j (the triangle of L^T L);
 * upper: A(i, j) := sum_{l >= j} U(i, l) U(j, l) for i <= j (the triangle of U U^T).
 * Both read only the triangle. One block holds G matrices (blockDim.y), V threads each
 * (blockDim.x). Per matrix, the triangle is loaded once into shared memory (column-major, ld
 * odd), along A's columns (coalesced); after one barrier every thread computes elements of the
 * result from the shared copy and writes them straight to A (the copy is the input, so the
 * writes cannot disturb it): element e of the t x t square is (e % t, e / t), so consecutive
 * threads read consecutive rows (conflict-free; the other factor is a broadcast) and write
 * consecutive rows (coalesced). The other triangle is neither read nor written.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { LauumLeafParams } from './params.js';

/** Most threads a leaf block launches (threads per matrix x matrices): the plan keeps within it. */
export const LAUUM_LEAF_MAX_THREADS = 256;

export function lauumLeafSource(p: LauumLeafParams): KernelSource {
  const lower = p.uplo === 'lower';
  const entry = `lauum_leaf_${precisionLetter(p.dtype)}_${lower ? 'L' : 'U'}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

constexpr bool LOWER = ${lower};

extern "C" __global__ void __launch_bounds__(${LAUUM_LEAF_MAX_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, true)}, int count, int t, int lds) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int V = blockDim.x, v = threadIdx.x, g = threadIdx.y;
  const int mat = blockIdx.x * blockDim.y + g;
  const bool valid = mat < count;
  real* s = reinterpret_cast<real*>(smemBytes) + (long long)g * t * lds;
  real* a = valid ? ${matrixPointer('A', p.kind, 'mat')} : nullptr;
  if (valid) {
    for (int e = v; e < t * t; e += V) {
      const int i = e % t, j = e / t;
      if (LOWER ? i >= j : i <= j) s[i + j * lds] = a[i + (long long)j * ldA];
    }
  }
  __syncthreads();
  if (!valid) return;
  for (int e = v; e < t * t; e += V) {
    const int i = e % t, j = e / t;
    if (LOWER ? i < j : i > j) continue;
    real s0 = real(0), s1 = real(0);
    int l = LOWER ? i : j;
    if (LOWER) {
      for (; l + 1 < t; l += 2) {
        s0 = fmaReal(s[l + i * lds], s[l + j * lds], s0);
        s1 = fmaReal(s[l + 1 + i * lds], s[l + 1 + j * lds], s1);
      }
      if (l < t) s0 = fmaReal(s[l + i * lds], s[l + j * lds], s0);
    } else {
      for (; l + 1 < t; l += 2) {
        s0 = fmaReal(s[i + l * lds], s[j + l * lds], s0);
        s1 = fmaReal(s[i + (l + 1) * lds], s[j + (l + 1) * lds], s1);
      }
      if (l < t) s0 = fmaReal(s[i + l * lds], s[j + l * lds], s0);
    }
    a[i + (long long)j * ldA] = s0 + s1;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * CUDA text of the Jacobi rotation that the real and the complex Jacobi families share
 * (kernels/jacobi/, kernels/zjacobi/): the constants of the convergence test and of the angle, the
 * tangent of the rotation angle (common/rotation.ts), the real plane rotation, and the
 * round-robin (circle) tournament that orders the pairs of a sweep in rounds of disjoint pairs.
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision, cudaLiteral, cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import { TANGENT } from './rotation.js';

/** Constants and helpers all Jacobi designs use (after precisionPrelude and mathHelpers). */
export function jacobiConstants(dtype: DType): string {
  const { cuda } = dtypeInfo(dtype);
  return `#define FULL 0xffffffffu
constexpr real EPS = ${cuda.eps};
constexpr real MAXR = ${cuda.max};
constexpr real BIGZ = ${cudaLiteral(dtype, byPrecision(dtype, { double: '1e150', single: '1e18' }))};
static __device__ __forceinline__ real rsqrtReal(real x) { return ${cudaMath(dtype, 'rsqrt')}(x); }
static __device__ __forceinline__ real nanReal() { return ${cuda.nan}; }
${TANGENT}
// [x y] := [c x - s y, s x + c y]
static __device__ __forceinline__ void rot2(real& x, real& y, real c, real s) {
  const real a = x, b = y;
  x = c * a - s * b;
  y = s * a + c * b;
}`;
}

/** Pair k of round r of the circle tournament over N2 indices, p < q (the warp and block designs). */
export const PAIR_OF = `static __device__ __forceinline__ void pairOf(int r, int k, int& p, int& q) {
  if (k == 0) { p = r; q = N2 - 1; }
  else { p = (r + k) % (N2 - 1); q = (r - k + N2 - 1) % (N2 - 1); }
  if (p > q) { const int t = p; p = q; q = t; }
}`;

/**
 * The opening of a warp design's thread (the real and complex warp Jacobi kernels): its matrix
 * (T lanes a matrix, MPB matrices a block), its lane in the matrix, whether the matrix exists, and
 * the lane mask of the matrix's group.
 */
export const WARP_SLOT = `  const int lane = threadIdx.x & 31;
  const int slot = threadIdx.x / T;
  const int tid = threadIdx.x % T;
  const long long mat = (long long)blockIdx.x * MPB + slot;
  const bool active = mat < count;
  const unsigned group = T == 32 ? FULL : (((1u << (T & 31)) - 1u) << (lane & ~(T - 1)));`;

/** `amax` := the largest `amax` of the matrix's T lanes (a butterfly inside the lane group). */
export const GROUP_MAX = `  for (int off = T / 2; off > 0; off >>= 1) {
    const real o = __shfl_xor_sync(FULL, amax, off);
    amax = amax > o ? amax : o;
  }`;

/**
 * The order starts as the identity, written by every thread before `barrier`: the outputs read
 * elements at indices taken from it, and where a matrix failed (its outputs NaN) the compiler may
 * still load that element before the select, so every index in it must lie inside the slot.
 */
export const identityOrder = (len: string, barrier: string): string => `  for (int j = tid; j < ${len}; j += T) perm[j] = j;
  ${barrier};`;

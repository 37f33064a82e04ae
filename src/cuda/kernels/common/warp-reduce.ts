/**
 * Reductions over a group of W consecutive lanes of a warp (W a power of two <= 32, groups aligned
 * to W) by an xor butterfly of __shfl_xor_sync: every lane of the group ends with the same value
 * (at each level lane i adds s_i + s_(i^off) and its partner s_(i^off) + s_i, which are equal; the
 * maximum agrees up to the sign of a zero), so
 * no broadcast is needed after. Every lane of the warp must call them (full mask), each group
 * reducing its own values: callers keep the calls out of divergent code.
 *
 * Needs `real` (common/precision.ts) before it.
 */

/** CUDA source of `groupSum<W>(x)` and `groupMaxNan<W>(x)` (a maximum through which NaN propagates, as JavaScript's Math.max). */
export function groupReduceSource(): string {
  return `// max(a, b) with NaN propagated from either argument (fmax would drop it).
static __device__ __forceinline__ real maxNan(real a, real b) { return (b > a || b != b) ? b : a; }
template <int W> static __device__ __forceinline__ real groupSum(real x) {
#pragma unroll
  for (int off = W / 2; off > 0; off >>= 1) x += __shfl_xor_sync(0xffffffffu, x, off);
  return x;
}
template <int W> static __device__ __forceinline__ real groupMaxNan(real x) {
#pragma unroll
  for (int off = W / 2; off > 0; off >>= 1) x = maxNan(x, __shfl_xor_sync(0xffffffffu, x, off));
  return x;
}`;
}

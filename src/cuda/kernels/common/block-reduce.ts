/**
 * Reductions of the one-block-per-matrix designs, as CUDA source: over a power-of-two group of
 * lanes of one warp (shuffles only), and over the whole block (shuffles, then one value per warp
 * through shared memory, read back by every thread in the same order so every thread gets the
 * same result bit for bit). Needs `real` (common/precision.ts) declared first.
 */

export type ReduceOp = 'sum' | 'max';

const combine = (op: ReduceOp, a: string, b: string): string => (op === 'sum' ? `${a} + ${b}` : `(${a} > ${b} ? ${a} : ${b})`);
const title = (op: ReduceOp): string => (op === 'sum' ? 'Sum' : 'Max');

/**
 * `group<Op>(v, lanes)`: the sum (max) of v over the aligned group of `lanes` lanes (a power of two
 * <= 32) holding this thread, returned to every lane of the group. Every lane of the warp must call
 * it (full-mask shuffles).
 */
export function groupReduceSource(op: ReduceOp): string {
  return `static __device__ __forceinline__ real group${title(op)}(real v, int lanes) {
  for (int off = lanes >> 1; off > 0; off >>= 1) {
    const real o = __shfl_xor_sync(0xffffffffu, v, off);
    v = ${combine(op, 'v', 'o')};
  }
  return v;
}`;
}

/**
 * `block<Op>(v, red)`: the sum (max) of v over all threads of the block (blockDim.x a multiple of
 * 32), returned to every thread; `red` is 32 reals of shared scratch. Holds two __syncthreads:
 * every thread of the block must call it, and `red` may be reused right after.
 */
export function blockReduceSource(op: ReduceOp): string {
  return `${groupReduceSource(op)}
static __device__ __forceinline__ real block${title(op)}(real v, real* red) {
  v = group${title(op)}(v, 32);
  __syncthreads();   // red is free (an earlier call's readers are done)
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  real r = red[0];
  for (int w = 1; w < (int)(blockDim.x >> 5); ++w) r = ${combine(op, 'r', 'red[w]')};
  return r;
}`;
}

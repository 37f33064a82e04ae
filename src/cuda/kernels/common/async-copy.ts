/**
 * Element copies from global to shared memory by cp.async (sm_80+): the copy lands in shared
 * memory without passing through registers, so a thread can issue many of them for a later task
 * while it computes on an earlier one. `commitAsync` closes a group of copies, `waitAsync<N>`
 * waits until at most N groups are still in flight (the caller's barrier then makes every
 * thread's copies visible to the block).
 *
 * Where the source is compiled for the host (the host emulation in test/helpers/cuda-host-shim.h,
 * no __CUDA_ARCH__), the copy is a plain assignment and the group calls do nothing: the kernel's
 * staging, stage indices and barriers run as written, only without the overlap.
 */
import type { DType } from '../../../core/dtype.js';
import { elementBytes } from './precision.js';

/**
 * `copyAsync(dst, src)`: one element of `real` (4 or 8 bytes; cp.async.ca, cached in L1 as well,
 * as the 16-byte-only .cg cannot take single elements), then `commitAsync()` and `waitAsync<N>()`.
 */
export function asyncCopyHelpers(dtype: DType): string {
  const bytes = elementBytes(dtype);
  return `// cp.async (sm_80+) of one element; a plain copy where compiled for the host.
static __device__ __forceinline__ void copyAsync(real* dst, const real* src) {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.ca.shared.global [%0], [%1], ${bytes};" :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src) : "memory");
#else
  *dst = *src;
#endif
}
static __device__ __forceinline__ void commitAsync() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int N> static __device__ __forceinline__ void waitAsync() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
#endif
}`;
}

/**
 * Flags in global memory between the blocks of one launch (a block waits for data another block
 * of the same grid writes): acquire / release at GPU scope, and a ticket counter so that a block
 * waits only on work handed to blocks that started before it (tickets are taken in the order
 * blocks start, so the waited-for block is running or done: no deadlock whatever order the
 * hardware schedules blocks in). The writer stores its data, __threadfence(), __syncthreads(),
 * then one thread releases the flag; the reader's one thread spins on acquireFlag, then
 * __syncthreads(), and the block reads the data through L2 (__ldcg: not a stale L1 line).
 * Used by the chained trsm (trsm/generate-chain.ts) and the large Cholesky's fused panel
 * (potrf/generate-fused-panel.ts).
 */
export const FLAG_HELPERS = `#ifndef MYRIAD_HOST_EMULATION   // a host harness brings its own (test/helpers/getrf-spread-host-harness.cpp)
static __device__ __forceinline__ int acquireFlag(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ void releaseFlag(int* p) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" :: "l"(p), "r"(1) : "memory");
}
#endif
// The block's ticket from *counter (one atomic by thread 0; every thread gets it).
static __device__ __forceinline__ int takeTicket(int* counter) {
  __shared__ int ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(counter, 1);
  __syncthreads();
  return ticket;
}`;

// The CUDA built-ins of kernels that use warp intrinsics, for running them on the CPU (getrf-, qr-
// and jacobi-host-harness.cpp): one std::thread per CUDA thread, one block at a time (launch_block).
// __syncthreads and __syncthreads_or are a std::barrier over the block; __syncwarp, __ballot_sync,
// __all_sync, __any_sync, __shfl_xor_sync and __shfl_sync a std::barrier per warp, the lanes exchanging through a slot array.
// A harness defines __shared__ (static arrays, or nothing over its own dynamic buffer), __align__
// where its kernels use it, and its `using std::` math, then includes the kernel.
// (cuda-host-shim.h is the simpler model of the kernels without warp intrinsics.)
#pragma once
#include <atomic>
#include <barrier>
#include <thread>
#include <vector>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <algorithm>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
constexpr int MAXW = 32;
std::unique_ptr<std::barrier<>> g_warp[MAXW];
std::unique_ptr<std::barrier<>> g_block;
double g_slot[MAXW][32];
int g_or[1024];
inline int warpOf() { return threadIdx.x / 32; }
inline void __syncwarp() { g_warp[warpOf()]->arrive_and_wait(); }
inline void __syncthreads() { g_block->arrive_and_wait(); }
inline int __syncthreads_or(int pred) {
  g_block->arrive_and_wait();
  g_or[threadIdx.x] = pred ? 1 : 0;
  g_block->arrive_and_wait();
  int any = 0;
  for (unsigned i = 0; i < blockDim.x; ++i) any |= g_or[i];
  g_block->arrive_and_wait();
  return any;
}
inline unsigned __ballot_sync(unsigned, int pred) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot[w][l] = pred ? 1 : 0;
  g_warp[w]->arrive_and_wait();
  unsigned bits = 0;
  for (int i = 0; i < 32; ++i) if (g_slot[w][i] != 0) bits |= 1u << i;
  g_warp[w]->arrive_and_wait();
  return bits;
}
// Threads run at once here: the atomics as the hardware's (std::atomic_ref on the word).
inline unsigned atomicOr(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_or(v); }
inline int __ffs(unsigned x) { return x == 0u ? 0 : __builtin_ctz(x) + 1; }
inline bool __all_sync(unsigned m, int pred) { return __ballot_sync(m, pred) == 0xffffffffu; }
inline bool __any_sync(unsigned m, int pred) { return (__ballot_sync(m, pred) & m) != 0u; }
template <typename R> R __shfl_xor_sync(unsigned, R v, int off) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot[w][l] = (double)v;
  g_warp[w]->arrive_and_wait();
  const R r = (R)g_slot[w][l ^ off];
  g_warp[w]->arrive_and_wait();
  return r;
}
template <typename R> R __shfl_sync(unsigned, R v, int src) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot[w][l] = (double)v;
  g_warp[w]->arrive_and_wait();
  const R r = (R)g_slot[w][src & 31];
  g_warp[w]->arrive_and_wait();
  return r;
}
inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline int __double2hiint(double x) { long long b; std::memcpy(&b, &x, 8); return (int)(b >> 32); }
inline double __hiloint2double(int hi, int lo) { return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo)); }
inline long long __double_as_longlong(double x) { long long v; std::memcpy(&v, &x, 8); return v; }
inline unsigned __float_as_uint(float x) { unsigned v; std::memcpy(&v, &x, 4); return v; }
// The whole-warp reductions (the LU's pivot keys): 32-bit integers, exact through the double slots.
template <typename T, typename F> T warp_reduce(T v, F pick) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot[w][l] = (double)v;
  g_warp[w]->arrive_and_wait();
  T r = (T)g_slot[w][0];
  for (int i = 1; i < 32; ++i) r = pick(r, (T)g_slot[w][i]);
  g_warp[w]->arrive_and_wait();
  return r;
}
template <typename T> T __reduce_max_sync(unsigned, T v) { return warp_reduce(v, [](T x, T y) { return x > y ? x : y; }); }
template <typename T> T __reduce_min_sync(unsigned, T v) { return warp_reduce(v, [](T x, T y) { return x < y ? x : y; }); }
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__

/**
 * Runs block (x, y) of bx threads (blockDim and gridDim set by the caller): fresh barriers, then
 * `body()` on a thread per CUDA thread with threadIdx and blockIdx set. A warp barrier waits for 32
 * lanes, less those that have returned: a partial last warp must not use the warp intrinsics (none
 * of the kernels' does).
 */
template <typename F> void launch_block(unsigned x, unsigned y, unsigned bx, const F& body) {
  for (unsigned w = 0; w < (bx + 31) / 32; ++w) g_warp[w] = std::make_unique<std::barrier<>>(32);
  g_block = std::make_unique<std::barrier<>>(bx);
  std::vector<std::thread> th;
  for (unsigned tx = 0; tx < bx; ++tx)
    th.emplace_back([&, tx] {
      threadIdx.x = tx; blockIdx.x = x; blockIdx.y = y;
      body();
      // An exited thread no longer takes part in its warp's or block's barriers (as on the GPU,
      // where a shuffle whose mask leaves out exited lanes goes on without them).
      g_warp[tx / 32]->arrive_and_drop();
      g_block->arrive_and_drop();
    });
  for (auto& h : th) h.join();
}

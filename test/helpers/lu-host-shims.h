// The LU family's host shims over cuda-host-warp.h (the shuffles from a barrier per warp): the
// launch-bounds and shared-memory spellings, and the warp step's pivot keys and whole-warp reductions
// (complex-lu/warp-step.ts). Included by zlu-host-harness.cpp and lu-solve-host-harness.cpp.
#pragma once
#include "cuda-host-warp.h"
using std::fma; using std::fabs; using std::hypot; using std::min; using std::max;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
inline long long __double_as_longlong(double x) { long long v; std::memcpy(&v, &x, 8); return v; }
inline unsigned __float_as_uint(float x) { unsigned v; std::memcpy(&v, &x, 4); return v; }
template <typename F> unsigned warp_reduce(unsigned v, F pick) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot[w][l] = (double)v;   // 32-bit integers: exact in a double
  g_warp[w]->arrive_and_wait();
  unsigned r = (unsigned)g_slot[w][0];
  for (int i = 1; i < 32; ++i) r = pick(r, (unsigned)g_slot[w][i]);
  g_warp[w]->arrive_and_wait();
  return r;
}
inline unsigned __reduce_max_sync(unsigned, unsigned v) { return warp_reduce(v, [](unsigned x, unsigned y) { return x > y ? x : y; }); }
inline unsigned __reduce_min_sync(unsigned, unsigned v) { return warp_reduce(v, [](unsigned x, unsigned y) { return x < y ? x : y; }); }
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };   // complex64's shared reads, two pairs a vector

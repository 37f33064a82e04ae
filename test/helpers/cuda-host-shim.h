// The CUDA built-ins a generated kernel uses, for running it on the CPU: one std::thread per CUDA
// thread (threadIdx and blockIdx thread-local), a std::barrier for __syncthreads, and
// run_grid, which runs a grid one block at a time over NaN-filled shared memory. Included by the
// host harnesses (cuda-host-harness*.cpp) before the kernel.
#pragma once
#include <barrier>
#include <thread>
#include <vector>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <functional>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<>* g_bar;
unsigned char* g_shared;
inline void __syncthreads() { g_bar->arrive_and_wait(); }
// A block-wide barrier: right only for kernels whose every warp runs every __syncwarp.
inline void __syncwarp(unsigned = 0xffffffffu) { g_bar->arrive_and_wait(); }
struct alignas(16) double2 { double x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
using std::min; using std::max;
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__
#define __align__(x)

/** Runs gx x gy blocks of bx x by x bz threads, `body` per thread (after threadIdx, blockIdx are set). */
inline void run_grid(unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned bz, long long shared, const std::function<void()>& body) {
  blockDim.x = bx; blockDim.y = by; blockDim.z = bz; gridDim.x = gx; gridDim.y = gy;
  std::vector<unsigned char> sh(shared + 64);
  for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    memset(sh.data(), 0xff, sh.size());   // NaN garbage
    g_shared = sh.data();
    std::barrier<> bar(bx * by * bz);
    g_bar = &bar;
    std::vector<std::thread> th;
    for (unsigned tz = 0; tz < bz; ++tz) for (unsigned ty = 0; ty < by; ++ty) for (unsigned tx = 0; tx < bx; ++tx)
      th.emplace_back([&, tx, ty, tz] { threadIdx.x = tx; threadIdx.y = ty; threadIdx.z = tz; blockIdx.x = x; blockIdx.y = y; body(); });
    for (auto& h : th) h.join();
  }
}

// The CUDA built-ins of a kernel with no barriers and no shared memory (the table kernels of
// device-sized variable batches), for running it on the CPU one thread after another: atomicAdd is
// then a plain increment. Included by the serial host harnesses (vdevice-*-host-harness.cpp) before
// the kernel. Light on purpose: no <vector> or <algorithm> (with them, each harness build took about
// 0.9 s of CPU against 0.2 s, and the fast suite builds eight): a zero-filled buffer, and min / max
// as the kernels call them (std::min / std::max's results).
#pragma once
#include <cstdio>
#include <cstdlib>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
dim3 threadIdx, blockIdx, blockDim, gridDim;
template <typename T> inline T min(T a, T b) { return b < a ? b : a; }
template <typename T> inline T max(T a, T b) { return a < b ? b : a; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(x)
#define __restrict__
inline int atomicAdd(int* p, int v) { int old = *p; *p += v; return old; }

/** `count` elements, each `fill` (zero by default); freed with it. */
template <typename T> struct Buf {
  T* p = nullptr;
  long long n = 0;
  Buf() = default;
  explicit Buf(long long count, T fill = T()) { resize(count, fill); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() { free(p); }
  void resize(long long count, T fill = T()) {
    free(p);
    n = count;
    p = static_cast<T*>(malloc(sizeof(T) * (count > 0 ? count : 1)));
    for (long long i = 0; i < n; ++i) p[i] = fill;
  }
  T* data() { return p; }
  T& operator[](long long i) { return p[i]; }
  T* begin() { return p; }
  T* end() { return p + n; }
};

/** Runs `f` once per thread of a one-dimensional grid of 256-thread blocks covering `count` threads. */
template <typename F> void eachThread(int count, F f) {
  blockDim.x = 256; gridDim.x = (count + 255) / 256;
  for (unsigned bx = 0; bx < gridDim.x; ++bx) for (unsigned tx = 0; tx < blockDim.x; ++tx) { blockIdx.x = bx; threadIdx.x = tx; f(); }
}

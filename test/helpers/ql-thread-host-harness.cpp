// Runs one generated per-thread QL syev kernel (kernel.cu, entry ENTRY; src/cuda/kernels/ql-thread/)
// on the CPU: the kernel uses no shared memory and no synchronisation, so the grid's threads run one
// after another in this one thread (-DSTAGED: a staged kernel, a thread per CUDA thread and a block barrier). rsqrt is 1 / sqrt (rsqrtf too unless RSQRTF_ULPS). Strided operands only.
// stdin: count gridX blockX n ldA strideA, then count * strideA elements of A (NaN padding allowed);
// stdout: info, then W (count * n), then A (count * strideA). Used by
// test/cuda/ql-thread-host-emulation.test.ts.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <math.h>
#include <vector>
#ifdef STAGED
// A kernel staged through shared memory (-DSTAGED): a std::thread per CUDA thread and a block barrier
// (cuda-host-warp.h), its extern __shared__ buffer one static array.
#include "cuda-host-warp.h"
#define __shared__
#define __align__(x) __attribute__((aligned(x)))
struct alignas(16) double2 { double x, y; };
struct alignas(16) float4 { float x, y, z, w; };
using std::min;
alignas(16) unsigned char smem[256 * 1024];
#else
struct dim3 { unsigned x = 1, y = 1, z = 1; };
dim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
#endif
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
// -DRSQRTF_ULPS=k: rsqrtf k ulps above 1 / sqrt (the GPU's documented bound is 2 ulps: the worst bias).
#ifndef RSQRTF_ULPS
#define RSQRTF_ULPS 0
#endif
inline float rsqrtf(float x) {
  float y = 1.0f / std::sqrt(x);
  for (int i = 0; i < RSQRTF_ULPS; ++i) y = std::nextafter(y, HUGE_VALF);
  return y;
}
#ifndef STAGED
inline double __longlong_as_double(long long b) { double d; std::memcpy(&d, &b, 8); return d; }
inline float __int_as_float(int b) { float f; std::memcpy(&f, &b, 4); return f; }
#endif
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, bx, n, ldA, strideA;
  if (scanf("%lld %lld %lld %lld %lld %lld", &count, &gx, &bx, &n, &ldA, &strideA) != 6) return 2;
  std::vector<io> A(count * strideA + 1), W(count * n + 1);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (io)v; }
  std::vector<int> info(count, -99);
  blockDim.x = bx; gridDim.x = gx;
#ifdef STAGED
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] { ENTRY(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, info.data(), nullptr, (int)count); });
#else
  for (unsigned x = 0; x < gx; ++x)
    for (unsigned t = 0; t < bx; ++t) {
      blockIdx.x = x; threadIdx.x = t;
      ENTRY(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, info.data(), nullptr, (int)count);
    }
#endif
  for (auto i : info) printf("%d\n", i);
  for (long long i = 0; i < count * n; ++i) printf("%.17g\n", (double)W[i]);
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  return 0;
}

// Runs one generated LU solve kernel for n <= 32 (kernel.cu, entry ENTRY: a fused gesv or a getrs
// kernel, real or, with -DCOMPLEX, complex) on the CPU: one std::thread per CUDA thread, one block
// at a time (cuda-host-warp.h: the shuffles from a barrier per warp); __shared__ arrays become
// statics. Both operands strided in one buffer. stdin: gx bx count nrhs pivotStride, then offset
// stride ld of A and of B, len and the buffer's len elements (a number each, or re im with
// -DCOMPLEX), then count * pivotStride pivots. stdout: the buffer (17 digits), the pivots, the infos.
// Used by test/cuda/lu-subnormal-host-emulation.test.ts.
#include "lu-host-shims.h"
#ifndef COMPLEX
// The real kernels' prelude names the vector types (the LU solves load no vectors).
struct alignas(16) double2 { double x, y; };
struct alignas(8) float2 { float x, y; };
#endif
// The real kernels' prelude names rsqrt; the LU solves do not call it.
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
#define __noinline__ __attribute__((noinline))
#include "kernel.cu"   // from -I<dir>
#undef __noinline__
#include <cstdlib>
#ifdef COMPLEX
using E = real2;
static bool readE(E& e) {
  char s[64], t[64];
  if (scanf("%63s %63s", s, t) != 2) return false;
  e.x = (real)strtod(s, nullptr); e.y = (real)strtod(t, nullptr);
  return true;
}
static void printE(const E& e) { printf("%.17g %.17g\n", (double)e.x, (double)e.y); }
#else
using E = real;
static bool readE(E& e) { char s[64]; if (scanf("%63s", s) != 1) return false; e = (real)strtod(s, nullptr); return true; }
static void printE(const E& e) { printf("%.17g\n", (double)e); }
#endif
int main() {
  long long gx, bx, count, nrhs, pivotStride, offA, strideA, ldA, offB, strideB, ldB, len;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &gx, &bx, &count, &nrhs, &pivotStride,
            &offA, &strideA, &ldA, &offB, &strideB, &ldB, &len) != 12) return 2;
  std::vector<E> buf(len + 1);
  for (long long i = 0; i < len; ++i) if (!readE(buf[i])) return 3;
  std::vector<int> piv(count * pivotStride + 1), info(count + 1, -7);
  for (long long i = 0; i < count * pivotStride; ++i) if (scanf("%d", &piv[i]) != 1) return 4;
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] {
      ENTRY(buf.data(), offA, strideA, (int)ldA, buf.data(), offB, strideB, (int)ldB, piv.data(), (int)pivotStride, info.data(), nullptr, (int)count, (int)nrhs);
    });
  for (long long i = 0; i < len; ++i) printE(buf[i]);
  for (long long i = 0; i < count * pivotStride; ++i) printf("%d\n", piv[i]);
  for (long long i = 0; i < count; ++i) printf("%d\n", info[i]);
  return 0;
}

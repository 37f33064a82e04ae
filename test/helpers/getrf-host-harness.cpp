// Runs one generated kernel of the recursive LU (kernel.cu, entry ENTRY): the tall panel kernel, or
// with -DLASWP the row interchanges, on the CPU: one std::thread per CUDA thread, one block at a
// time; __shared__ arrays become statics (one block lives at a time), __shfl_xor_sync is built from
// a std::barrier per warp (as jacobi-host-harness.cpp). Strided operands; REAL is double or float.
// stdin: count gx gy bx lenA lenPiv offA strideA ldA pivotStride, then
//   tall: m w off;  laswp: from to cols;
// then lenA elements of A, lenPiv pivots, count infos. stdout: A, the pivots, the infos.
// Used by test/cuda/getrf-host-emulation.test.ts.
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
inline void __syncthreads() { g_block->arrive_and_wait(); }
inline int warpOf() { return threadIdx.x / 32; }
template <typename R> R __shfl_xor_sync(unsigned, R v, int off) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot[w][l] = (double)v;
  g_warp[w]->arrive_and_wait();
  const R r = (R)g_slot[w][l ^ off];
  g_warp[w]->arrive_and_wait();
  return r;
}
inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
using std::fma; using std::fabs; using std::min; using std::max;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
#define __shared__ static
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, gy, bx, lenA, lenPiv, offA, strideA, ldA, pivotStride, x0, x1, x2;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &gx, &gy, &bx, &lenA, &lenPiv, &offA, &strideA, &ldA,
            &pivotStride, &x0, &x1, &x2) != 13) return 2;
  std::vector<real> A(lenA + 1);
  for (long long i = 0; i < lenA; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; A[i] = (real)strtod(s, nullptr); }
  std::vector<int> piv(lenPiv + 1), info(count + 1);
  for (long long i = 0; i < lenPiv; ++i) if (scanf("%d", &piv[i]) != 1) return 4;
  for (long long i = 0; i < count; ++i) if (scanf("%d", &info[i]) != 1) return 5;
  blockDim.x = bx; gridDim.x = gx; gridDim.y = gy;
  for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    for (unsigned w = 0; w < (bx + 31) / 32; ++w) g_warp[w] = std::make_unique<std::barrier<>>(32);
    g_block = std::make_unique<std::barrier<>>(bx);
    std::vector<std::thread> th;
    for (unsigned tx = 0; tx < bx; ++tx)
      th.emplace_back([&, tx] { threadIdx.x = tx; blockIdx.x = x; blockIdx.y = y;
#ifdef LASWP
        ENTRY(A.data(), offA, strideA, (int)ldA, piv.data(), (int)pivotStride, nullptr, (int)count, (int)x0, (int)x1, (int)x2);
#else
        ENTRY(A.data(), offA, strideA, (int)ldA, piv.data(), (int)pivotStride, info.data(), nullptr, (int)count, (int)x0, (int)x1, (int)x2);
#endif
      });
    for (auto& h : th) h.join();
  }
  for (long long i = 0; i < lenA; ++i) printf("%.17g\n", (double)A[i]);
  for (long long i = 0; i < lenPiv; ++i) printf("%d\n", piv[i]);
  for (long long i = 0; i < count; ++i) printf("%d\n", info[i]);
  return 0;
}

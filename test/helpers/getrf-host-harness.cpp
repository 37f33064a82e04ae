// Runs one generated kernel of the recursive LU (kernel.cu, entry ENTRY): the tall panel kernel, or
// with -DLASWP the row interchanges, or with -DSWAPS the blocked driver's swaps kernel, on the CPU: one std::thread per CUDA thread, one block at a
// time; __shared__ arrays become statics (one block lives at a time), __shfl_xor_sync is built from
// a std::barrier per warp (cuda-host-warp.h). Strided operands; REAL is double or float.
// stdin: count gx gy bx lenA lenPiv offA strideA ldA pivotStride, then
//   tall: m w off;  laswp: from to cols;  swaps: from to col0 cols tile (grid: matrices x tiles);
// then lenA elements of A, lenPiv pivots, count infos. stdout: A, the pivots, the infos.
// Used by test/cuda/getrf-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::fabs; using std::min; using std::max;
#define __shared__ static
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, gy, bx, lenA, lenPiv, offA, strideA, ldA, pivotStride, x0, x1, x2;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &gx, &gy, &bx, &lenA, &lenPiv, &offA, &strideA, &ldA,
            &pivotStride, &x0, &x1, &x2) != 13) return 2;
  long long x3 = 0, x4 = 0;
#ifdef SWAPS
  if (scanf("%lld %lld", &x3, &x4) != 2) return 2;
#endif
  std::vector<real> A(lenA + 1);
  for (long long i = 0; i < lenA; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; A[i] = (real)strtod(s, nullptr); }
  std::vector<int> piv(lenPiv + 1), info(count + 1);
  for (long long i = 0; i < lenPiv; ++i) if (scanf("%d", &piv[i]) != 1) return 4;
  for (long long i = 0; i < count; ++i) if (scanf("%d", &info[i]) != 1) return 5;
  blockDim.x = bx; gridDim.x = gx; gridDim.y = gy;
  for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x)
    launch_block(x, y, bx, [&] {
#if defined(SWAPS)
      ENTRY(A.data(), offA, strideA, (int)ldA, piv.data(), (int)pivotStride, nullptr, (int)count, (int)x0, (int)x1, (int)x2, (int)x3, (int)x4);
#elif defined(LASWP)
      ENTRY(A.data(), offA, strideA, (int)ldA, piv.data(), (int)pivotStride, nullptr, (int)count, (int)x0, (int)x1, (int)x2);
#else
      ENTRY(A.data(), offA, strideA, (int)ldA, piv.data(), (int)pivotStride, info.data(), nullptr, (int)count, (int)x0, (int)x1, (int)x2);
#endif
    });
  for (long long i = 0; i < lenA; ++i) printf("%.17g\n", (double)A[i]);
  for (long long i = 0; i < lenPiv; ++i) printf("%d\n", piv[i]);
  for (long long i = 0; i < count; ++i) printf("%d\n", info[i]);
  return 0;
}

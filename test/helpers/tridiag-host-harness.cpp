// Runs one generated tridiagonal-QL syev kernel (kernel.cu, entry ENTRY; generate-syev.ts) on the
// CPU: one std::thread per CUDA thread, one block at a time (cuda-host-warp.h: __syncthreads,
// __syncthreads_or and the shuffles of the block reductions); its extern __shared__ buffer is one
// static array, and it gets a workspace of WORK elements per block (the kernel's own constant) and
// first = 0. -DIO=float: the data's element type where the kernel computes in double.
// stdin: count threads n ldA strideA (then count * strideA elements of A); stdout: info, then W
// (count * n), then A (count * strideA). Used by test/cuda/tridiag-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp; using std::hypot; using std::copysign;
using std::fmin; using std::fmax;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }   // CUDA: 1 ulp
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__
#define __align__(x) __attribute__((aligned(x)))
#include "kernel.cu"   // from -I<dir>
#ifndef IO
#define IO real
#endif
alignas(16) unsigned char smem[256 * 1024];
int main() {
  long long count, bx, n, ldA, strideA;
  if (scanf("%lld %lld %lld %lld %lld", &count, &bx, &n, &ldA, &strideA) != 5) return 2;
  std::vector<IO> A(count * strideA + 1);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (IO)v; }
  std::vector<int> info(count, -99);
  std::vector<IO> W(count * n + 1);
  blockDim.x = bx; gridDim.x = count;
  std::vector<real> work(count * (long long)WORK + 1);
  for (unsigned x = 0; x < count; ++x) {
    memset(smem, 0xff, sizeof smem);   // NaN garbage
    launch_block(x, 0, bx, [&] {
      ENTRY(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, work.data(), 0LL, info.data(), nullptr, (int)count);
    });
  }
  for (auto i : info) printf("%d\n", i);
  for (long long i = 0; i < count * n; ++i) printf("%.17g\n", (double)W[i]);
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  return 0;
}

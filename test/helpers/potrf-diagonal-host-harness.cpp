// Runs the large Cholesky's fused diagonal kernel (kernel.cu, entry ENTRY; HNB and HTHREADS given
// with -D by the test (the kernel's own macros are undefined after its device functions)) on the CPU: one std::thread per CUDA thread, one block at a time, the
// kernel's __shared__ arrays static (shared by the block's threads), __syncthreads a std::barrier.
// stdin: count size ldA strideA column, then count * strideA elements of A;
// stdout: info (count), then A (count * strideA), then W (count * NB * NB).
// Used by test/cuda/potrf-diagonal-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::sqrt;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
struct alignas(16) double2 { double x, y; };
struct alignas(16) float4 { float x, y, z, w; };
inline double2 make_double2(double x, double y) { return { x, y }; }
inline float4 make_float4(float x, float y, float z, float w) { return { x, y, z, w }; }
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, size, ldA, strideA, column;
  if (scanf("%lld %lld %lld %lld %lld", &count, &size, &ldA, &strideA, &column) != 5) return 2;
  std::vector<real> A(count * strideA + 1), W(count * HNB * HNB, (real)NAN);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (real)v; }
  std::vector<int> info(count, 0);
  blockDim.x = HTHREADS; gridDim.x = count;
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, HTHREADS, [&] { ENTRY(A.data(), 0, strideA, (int)ldA, W.data(), info.data(), (int)count, (int)size, (int)column); });
  for (auto i : info) printf("%d\n", i);
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  for (auto w : W) printf("%.17g\n", (double)w);
  return 0;
}

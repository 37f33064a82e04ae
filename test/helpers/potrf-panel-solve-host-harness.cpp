// Runs the large Cholesky's panel-solve kernel (kernel.cu, entry ENTRY; HNB, HROWS and HTHREADS given
// with -D by the test (the kernel's own macros are undefined after its device functions)) on the CPU: one std::thread per CUDA thread, one block at a time, the dynamic
// shared memory a NaN-filled buffer (the test rewrites the extern declaration to use it).
// stdin: count m size ldA strideA, then count * strideA elements of A, then count * NB * NB of W;
// stdout: A (count * strideA). Used by test/cuda/potrf-diagonal-host-emulation.test.ts.
#include "cuda-host-warp.h"
struct alignas(16) double2 { double x, y; };
struct alignas(16) float4 { float x, y, z, w; };
template <class T> inline T __ldcg(const T* p) { return *p; }
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
alignas(16) unsigned char g_smem[256 * 1024];
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, m, size, ldA, strideA;
  if (scanf("%lld %lld %lld %lld %lld", &count, &m, &size, &ldA, &strideA) != 5) return 2;
  std::vector<real> A(count * strideA + 1), W(count * HNB * HNB);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (real)v; }
  for (auto& w : W) { double v; if (scanf("%lf", &v) != 1) return 3; w = (real)v; }
  const unsigned blocks = (unsigned)((m + HROWS - 1) / HROWS);
  blockDim.x = HTHREADS; gridDim.x = blocks; gridDim.y = count;
  for (unsigned y = 0; y < count; ++y) for (unsigned x = 0; x < blocks; ++x) {
    memset(g_smem, 0xff, sizeof(g_smem));
    launch_block(x, y, HTHREADS, [&] { ENTRY(A.data(), 0, strideA, (int)ldA, W.data(), (int)count, (int)m, (int)size); });
  }
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  return 0;
}

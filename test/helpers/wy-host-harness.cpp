// Runs one generated wy_factor kernel (common/wy.ts; kernel.cu, entry ENTRY) on the CPU: one
// std::thread per CUDA thread, one block at a time; its static __shared__ arrays become statics
// (one block lives at a time), __shfl_xor_sync a barrier per warp (cuda-host-warp.h). Strided
// operands. stdin: count r ib ldA strideA strideT, then count * strideA elements of A and count *
// strideT of tau; stdout: V then Y (count * r * NB each: one matrix every r * NB elements, ld r).
// Used by test/cuda/qr-wy-host-emulation.test.ts.
#include "cuda-host-warp.h"
#define __shared__ static
using std::fma; using std::min;
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, r, ib, ldA, strideA, strideT;
  if (scanf("%lld %lld %lld %lld %lld %lld", &count, &r, &ib, &ldA, &strideA, &strideT) != 6) return 2;
  std::vector<real> A(count * strideA + 1), T(count * strideT + 1);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (real)v; }
  for (long long i = 0; i < count * strideT; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; T[i] = (real)v; }
  const long long strideW = r * NB;
  std::vector<real> V(count * strideW, (real)NAN), Y(count * strideW, (real)NAN);
  blockDim.x = THREADS; gridDim.x = count;
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, THREADS, [&] { ENTRY(A.data(), 0, strideA, (int)ldA, T.data(), 0, strideT, 1, V.data(), Y.data(), strideW, (int)count, (int)r, (int)ib); });
  for (long long i = 0; i < count * strideW; ++i) printf("%.17g\n", (double)V[i]);
  for (long long i = 0; i < count * strideW; ++i) printf("%.17g\n", (double)Y[i]);
  return 0;
}

// Runs one generated QR kernel (kernel.cu, entry ENTRY; -DGEQRF for geqrf, else orgqr) on the CPU:
// one std::thread per CUDA thread, one block at a time; the dynamic shared memory is a NaN-filled
// global buffer, __syncthreads a std::barrier per block, and the warp intrinsics (__syncwarp,
// __shfl_xor_sync) a std::barrier per warp (lanes exchange through a slot array). Strided operands.
// stdin: count gridX blockX sharedBytes ldA strideA strideT, then count * strideA elements of A and
// count * strideT of tau; stdout: info (geqrf), then A and tau as given (count * stride each).
// Used by test/cuda/qr-host-emulation.test.ts.
#include "cuda-host-warp.h"
alignas(16) unsigned char smemRaw[256 * 1024];
using std::fma; using std::sqrt; using std::fabs; using std::hypot;
#define __shared__
#define __align__(x)
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, bx, shared, ldA, strideA, strideT;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &gx, &bx, &shared, &ldA, &strideA, &strideT) != 7) return 2;
  if (shared > (long long)sizeof(smemRaw) || bx > 32 * MAXW) return 4;
  std::vector<real> A(count * strideA + 1), T(count * strideT + 1);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (real)v; }
  for (long long i = 0; i < count * strideT; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; T[i] = (real)v; }
  std::vector<int> info(count, -99);
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x) {
    memset(smemRaw, 0xff, sizeof(smemRaw));
    launch_block(x, 0, bx, [&] {
#ifdef GEQRF
      ENTRY(A.data(), 0, strideA, (int)ldA, T.data(), 0, strideT, 1, info.data(), nullptr, (int)count);
#else
      ENTRY(A.data(), 0, strideA, (int)ldA, T.data(), 0, strideT, 1, nullptr, (int)count);
#endif
    });
  }
#ifdef GEQRF
  for (auto i : info) printf("%d\n", i);
#endif
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  for (long long i = 0; i < count * strideT; ++i) printf("%.17g\n", (double)T[i]);
  return 0;
}

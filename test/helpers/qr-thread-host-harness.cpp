// Runs one generated per-thread QR kernel (kernel.cu, entry ENTRY; -DGEQRF for geqrf, else orgqr;
// -DPOINTER for the pointer-array form, else strided; src/cuda/kernels/qr/generate-thread.ts) on the
// CPU: one std::thread per CUDA thread, one block at a time, __syncthreads a std::barrier (the
// kernel's only synchronisation); the dynamic shared memory is a NaN-filled global buffer.
// stdin: count gridX blockX sharedBytes ldA strideA offsetA strideT offsetT reversed, then the A array
// (offsetA + count * strideA elements) and the tau array (offsetT + count * strideT); matrix q at
// offset + q * stride (the pointer form gets a pointer to each). reversed = 1 passes the index map
// q -> count - 1 - q (info of matrix q at count - 1 - q). stdout: info (geqrf), then both arrays.
// Used by test/cuda/qr-thread-host-emulation.test.ts.
#include "cuda-host-warp.h"
// The 16-byte vectors of common/tile-load.ts's dense path.
struct alignas(16) double2 { double x, y; };
struct alignas(16) float4 { float x, y, z, w; };
alignas(16) unsigned char smemRaw[256 * 1024];
using std::fma; using std::sqrt; using std::fabs; using std::hypot; using std::min;
#define __shared__
#define __align__(x)
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, bx, shared, ldA, strideA, offsetA, strideT, offsetT, reversed;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &gx, &bx, &shared, &ldA, &strideA, &offsetA, &strideT, &offsetT, &reversed) != 10) return 2;
  if (shared > (long long)sizeof(smemRaw) || bx > 32 * MAXW) return 4;
  const long long na = offsetA + count * strideA, nt = offsetT + count * strideT;
  // 16-byte aligned arrays (as device allocations), so the kernels' vector paths run where the offsets allow.
  std::vector<double> rawA((na * sizeof(real)) / 8 + 2), rawT((nt * sizeof(real)) / 8 + 2);
  real* A = reinterpret_cast<real*>(rawA.data());
  real* T = reinterpret_cast<real*>(rawT.data());
  for (long long i = 0; i < na; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (real)v; }
  for (long long i = 0; i < nt; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; T[i] = (real)v; }
  std::vector<int> info(count, -99), index(count);
  for (long long q = 0; q < count; ++q) index[q] = (int)(reversed ? count - 1 - q : q);
  const int* idx = reversed ? index.data() : nullptr;
#ifdef POINTER
  std::vector<real*> pa(count), pt(count);
  for (long long q = 0; q < count; ++q) { pa[q] = A + offsetA + q * strideA; pt[q] = T + offsetT + q * strideT; }
#define OPERANDS pa.data(), 0, 0, (int)ldA, pt.data(), 0, 0, 1
#else
#define OPERANDS A, offsetA, strideA, (int)ldA, T, offsetT, strideT, 1
#endif
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x) {
    memset(smemRaw, 0xff, sizeof(smemRaw));
    launch_block(x, 0, bx, [&] {
#ifdef GEQRF
      ENTRY(OPERANDS, info.data(), idx, (int)count);
#else
      ENTRY(OPERANDS, idx, (int)count);
#endif
    });
  }
#ifdef GEQRF
  for (auto i : info) printf("%d\n", i);
#endif
  for (long long i = 0; i < na; ++i) printf("%.17g\n", (double)A[i]);
  for (long long i = 0; i < nt; ++i) printf("%.17g\n", (double)T[i]);
  return 0;
}

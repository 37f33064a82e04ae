// Runs one generated QR kernel (kernel.cu, entry ENTRY; -DGEQRF for geqrf, else orgqr) on the CPU:
// one std::thread per CUDA thread, one block at a time; the dynamic shared memory is a NaN-filled
// global buffer, __syncthreads a std::barrier per block, and the warp intrinsics (__syncwarp,
// __shfl_xor_sync) a std::barrier per warp (lanes exchange through a slot array). Strided operands.
// stdin: count gridX blockX sharedBytes ldA strideA strideT, then count * strideA elements of A and
// count * strideT of tau; stdout: info (geqrf), then A and tau as given (count * stride each).
// Used by test/cuda/qr-host-emulation.test.ts.
#include <barrier>
#include <thread>
#include <vector>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
constexpr int MAXW = 32;
std::unique_ptr<std::barrier<>> g_warp[MAXW];
std::unique_ptr<std::barrier<>> g_block;
double g_slot[MAXW][32];
alignas(16) unsigned char smemRaw[256 * 1024];
inline int warpOf() { return threadIdx.x / 32; }
inline void __syncwarp() { g_warp[warpOf()]->arrive_and_wait(); }
inline void __syncthreads() { g_block->arrive_and_wait(); }
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
using std::fma; using std::sqrt; using std::fabs; using std::hypot;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
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
    for (unsigned w = 0; w < bx / 32; ++w) g_warp[w] = std::make_unique<std::barrier<>>(32);
    g_block = std::make_unique<std::barrier<>>(bx);
    std::vector<std::thread> th;
    for (unsigned tx = 0; tx < bx; ++tx)
      th.emplace_back([&, tx] { threadIdx.x = tx; blockIdx.x = x;
#ifdef GEQRF
        ENTRY(A.data(), 0, strideA, (int)ldA, T.data(), 0, strideT, 1, info.data(), nullptr, (int)count);
#else
        ENTRY(A.data(), 0, strideA, (int)ldA, T.data(), 0, strideT, 1, nullptr, (int)count);
#endif
      });
    for (auto& h : th) h.join();
  }
#ifdef GEQRF
  for (auto i : info) printf("%d\n", i);
#endif
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  for (long long i = 0; i < count * strideT; ++i) printf("%.17g\n", (double)T[i]);
  return 0;
}

// Runs one generated Jacobi kernel (kernel.cu, entry ENTRY; -DGESVD for gesvd) on the CPU: one
// std::thread per CUDA thread, one block at a time; __shared__ arrays become statics (one block
// lives at a time), and the warp intrinsics (__syncwarp, __ballot_sync, __all_sync,
// __shfl_xor_sync) are built from a std::barrier per warp. Strided operands only.
// -DBLOCK: a one-block-per-matrix kernel (generate-block.ts): its extern __shared__ buffer is one
// static array, __syncthreads and __syncthreads_or a std::barrier over the block, and it gets a
// workspace of WORK elements per block (the kernel's own constant) and first = 0.
// stdin: count gridX blockX m n ldA strideA (then count * strideA elements of A); stdout: info,
// then the outputs (syev: W then A; gesvd: S, U, VT, each densely packed). Used by
// test/cuda/jacobi-host-emulation.test.ts.
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
double g_slot[MAXW][32];
inline int warpOf() { return threadIdx.x / 32; }
inline void __syncwarp() { g_warp[warpOf()]->arrive_and_wait(); }
inline unsigned __ballot_sync(unsigned, int pred) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot[w][l] = pred ? 1 : 0;
  g_warp[w]->arrive_and_wait();
  unsigned bits = 0;
  for (int i = 0; i < 32; ++i) if (g_slot[w][i] != 0) bits |= 1u << i;
  g_warp[w]->arrive_and_wait();
  return bits;
}
std::unique_ptr<std::barrier<>> g_block;
int g_or[1024];
inline void __syncthreads() { g_block->arrive_and_wait(); }
inline int __syncthreads_or(int pred) {
  g_block->arrive_and_wait();
  g_or[threadIdx.x] = pred ? 1 : 0;
  g_block->arrive_and_wait();
  int any = 0;
  for (unsigned i = 0; i < blockDim.x; ++i) any |= g_or[i];
  g_block->arrive_and_wait();
  return any;
}
inline bool __all_sync(unsigned m, int pred) { return __ballot_sync(m, pred) == 0xffffffffu; }
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
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
#ifdef BLOCK
#define __shared__
#define __align__(x) __attribute__((aligned(x)))
#else
#define __shared__ static
#endif
#include "kernel.cu"   // from -I<dir>
#ifdef BLOCK
alignas(16) unsigned char smem[256 * 1024];
#endif
int main() {
  long long count, gx, bx, m, n, ldA, strideA;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &gx, &bx, &m, &n, &ldA, &strideA) != 7) return 2;
  std::vector<real> A(count * strideA + 1);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (real)v; }
  const long long k = m < n ? m : n;
  std::vector<int> info(count, -99);
#ifdef GESVD
  std::vector<real> S(count * k + 1), U(count * m * k + 1), V(count * k * n + 1);
#else
  std::vector<real> W(count * n + 1);
#endif
  blockDim.x = bx; gridDim.x = gx;
#ifdef BLOCK
  std::vector<real> work(gx * (long long)WORK + 1);
#define EXTRA work.data(), 0LL,
#else
#define EXTRA
#endif
  for (unsigned x = 0; x < gx; ++x) {
    g_block = std::make_unique<std::barrier<>>(bx);
    for (unsigned w = 0; w < bx / 32; ++w) g_warp[w] = std::make_unique<std::barrier<>>(32);
    std::vector<std::thread> th;
    for (unsigned tx = 0; tx < bx; ++tx)
      th.emplace_back([&, tx] { threadIdx.x = tx; blockIdx.x = x;
#ifdef GESVD
        ENTRY(A.data(), 0, strideA, (int)ldA, S.data(), 0, k, (int)k, U.data(), 0, m * k, (int)m, V.data(), 0, k * n, (int)k, EXTRA info.data(), nullptr, (int)count);
#else
        ENTRY(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, EXTRA info.data(), nullptr, (int)count);
#endif
      });
    for (auto& h : th) h.join();
  }
  for (auto i : info) printf("%d\n", i);
#ifdef GESVD
  for (long long i = 0; i < count * k; ++i) printf("%.17g\n", (double)S[i]);
  for (long long i = 0; i < count * m * k; ++i) printf("%.17g\n", (double)U[i]);
  for (long long i = 0; i < count * k * n; ++i) printf("%.17g\n", (double)V[i]);
#else
  for (long long i = 0; i < count * n; ++i) printf("%.17g\n", (double)W[i]);
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
#endif
  return 0;
}

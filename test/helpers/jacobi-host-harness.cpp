// Runs one generated Jacobi kernel (kernel.cu, entry ENTRY; -DGESVD for gesvd) on the CPU: one
// std::thread per CUDA thread, one block at a time; __shared__ arrays become statics (one block
// lives at a time), and the warp intrinsics (__syncwarp, __ballot_sync, __all_sync,
// __shfl_xor_sync, __shfl_sync) are built from a std::barrier per warp; rsqrt is 1 / sqrt off by up to 2 ulps. Strided operands only.
// -DBLOCK: a one-block-per-matrix kernel (generate-block.ts): its extern __shared__ buffer is one
// static array, __syncthreads and __syncthreads_or a std::barrier over the block, and it gets a
// workspace of WORK elements per block (the kernel's own constant) and first = 0; -DSTAGED: a
// per-thread kernel staged through its extern __shared__ buffer (the same static array and block
// barrier, no workspace); -DIO=float: the
// data's element type where the kernel computes in a wider `real` (float32 data of the block designs).
// stdin: count gridX blockX m n ldA strideA (then count * strideA elements of A); stdout: info,
// then the outputs (syev: W then A; gesvd: S, U, VT, each densely packed). Used by
// test/cuda/jacobi-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp; using std::min;
// The 16-byte vector types of the staged copies (common/span-stage.ts).
struct alignas(16) double2 { double x, y; };
struct alignas(16) float4 { float x, y, z, w; };
// rsqrt as the hardware's approximation may be: 1 / sqrt off by up to 2 ulps either way (rsqrtf's
// bound), the offset picked by a hash of the input (deterministic: equal inputs, equal outputs).
inline double rsqrt(double x) {
  double r = 1.0 / std::sqrt(x);
  if (!std::isfinite(r) || r == 0) return r;
  unsigned long long b, rb;
  std::memcpy(&b, &x, 8); std::memcpy(&rb, &r, 8);
  rb += (long long)((b * 0x9E3779B97F4A7C15ull) >> 59) % 5 - 2;
  std::memcpy(&r, &rb, 8);
  return r;
}
inline float rsqrtf(float x) {
  float r = 1.0f / std::sqrt(x);
  if (!std::isfinite(r) || r == 0) return r;
  unsigned b, rb;
  std::memcpy(&b, &x, 4); std::memcpy(&rb, &r, 4);
  rb += (int)((b * 2654435761u) >> 27) % 5 - 2;
  std::memcpy(&r, &rb, 4);
  return r;
}
#define __align__(x) __attribute__((aligned(x)))
#if defined(BLOCK) || defined(STAGED)
#define __shared__
#else
#define __shared__ static
#endif
#include "kernel.cu"   // from -I<dir>
#ifndef IO
#define IO real
#endif
#if defined(BLOCK) || defined(STAGED)
alignas(16) unsigned char smem[256 * 1024];
#endif
int main() {
  long long count, gx, bx, m, n, ldA, strideA;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &gx, &bx, &m, &n, &ldA, &strideA) != 7) return 2;
  std::vector<IO> A(count * strideA + 1);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (IO)v; }
  const long long k = m < n ? m : n;
  std::vector<int> info(count, -99);
#ifdef GESVD
  std::vector<IO> S(count * k + 1), U(count * m * k + 1), V(count * k * n + 1);
#else
  std::vector<IO> W(count * n + 1);
#endif
  blockDim.x = bx; gridDim.x = gx;
#ifdef BLOCK
  std::vector<real> work(gx * (long long)WORK + 1);
#define EXTRA work.data(), 0LL,
#else
#define EXTRA
#endif
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] {
#ifdef GESVD
      ENTRY(A.data(), 0, strideA, (int)ldA, S.data(), 0, k, (int)k, U.data(), 0, m * k, (int)m, V.data(), 0, k * n, (int)k, EXTRA info.data(), nullptr, (int)count);
#else
      ENTRY(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, EXTRA info.data(), nullptr, (int)count);
#endif
    });
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

// Runs one class kernel of a variable-size batch (kernel.cu, entry ENTRY: gemm with -DGEMM, getrf
// with -DGETRF, else potrf) on the CPU: one std::thread per CUDA thread, one block at a time
// (cuda-host-warp.h), the dynamic shared memory a NaN-filled buffer (the test rewrites the extern
// declaration to use it and the register design's volatile ld move to a plain copy). Every member
// lives in one buffer; the pointer table holds host addresses into it, the int table the member's
// sizes as the launcher writes them (gemm: m n k ldA ldB ldC; potrf: n ld index; getrf: m n ld index).
// stdin: count gx gy bx len, then (gemm) alpha beta (with -DLIVE, the device-count form: the class's
// count, passed by address) and per member offA offB offC m n k ldA ldB ldC,
// (potrf) per member off n ld index, (getrf) pivotStride and per member off m n ld index; then len
// elements. stdout: the buffer, then (potrf, getrf) count infos, then (getrf) count * pivotStride
// pivots (those no kernel writes come back as -7).
// Used by test/cuda/vbatched-host-emulation.test.ts and test/cuda/vbatched-getrf-host-emulation.test.ts.
#include "cuda-host-warp.h"
struct alignas(16) double2 { double x, y; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
using std::fma; using std::fabs; using std::min; using std::max; using std::sqrt;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
alignas(16) unsigned char g_smem[256 * 1024];
#ifdef GETRF
// The register LU's reciprocals (generate-register.ts); its pivot keys and warp reductions: cuda-host-warp.h.
inline double __drcp_rn(double x) { return 1.0 / x; }
inline float __frcp_rn(float x) { return 1.0f / x; }
#endif
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, gy, bx, len;
  if (scanf("%lld %lld %lld %lld %lld", &count, &gx, &gy, &bx, &len) != 5) return 2;
#ifdef GEMM
  double alpha, beta;
  if (scanf("%lf %lf", &alpha, &beta) != 2) return 2;
#ifdef LIVE
  // The device-count form: the class's count (the rows past it must not be read).
  int live;
  if (scanf("%d", &live) != 1) return 2;
#endif
  std::vector<long long> off(3 * count);
  std::vector<int> dims(6 * count);
  for (long long q = 0; q < count; ++q) {
    if (scanf("%lld %lld %lld", &off[3 * q], &off[3 * q + 1], &off[3 * q + 2]) != 3) return 2;
    for (int e = 0; e < 6; ++e) if (scanf("%d", &dims[6 * q + e]) != 1) return 2;
  }
#elif defined(GETRF)
  long long pivotStride;
  if (scanf("%lld", &pivotStride) != 1) return 2;
  std::vector<long long> off(count);
  std::vector<int> dims(4 * count);
  for (long long q = 0; q < count; ++q)
    if (scanf("%lld %d %d %d %d", &off[q], &dims[4 * q], &dims[4 * q + 1], &dims[4 * q + 2], &dims[4 * q + 3]) != 5) return 2;
  std::vector<int> ipiv(count * pivotStride + 1, -7);
#else
  std::vector<long long> off(count);
  std::vector<int> dims(3 * count);
  for (long long q = 0; q < count; ++q) if (scanf("%lld %d %d %d", &off[q], &dims[3 * q], &dims[3 * q + 1], &dims[3 * q + 2]) != 4) return 2;
#endif
  std::vector<real> A(len + 1);
  for (long long i = 0; i < len; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; A[i] = (real)strtod(s, nullptr); }
  std::vector<real*> ptrs(off.size());
  for (size_t i = 0; i < off.size(); ++i) ptrs[i] = A.data() + off[i];
  std::vector<int> info(count, -7);
  blockDim.x = bx; gridDim.x = gx; gridDim.y = gy; gridDim.z = 1;
  for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    memset(g_smem, 0xff, sizeof(g_smem));
    launch_block(x, y, bx, [&] {
      blockIdx.z = 0;
#if defined(GEMM) && defined(LIVE)
      ENTRY(ptrs.data(), dims.data(), (int)count, (real)alpha, (real)beta, &live);
#elif defined(GEMM)
      ENTRY(ptrs.data(), dims.data(), (int)count, (real)alpha, (real)beta);
#elif defined(GETRF)
      ENTRY(ptrs.data(), dims.data(), ipiv.data(), (int)pivotStride, info.data(), (int)count);
#else
      ENTRY(ptrs.data(), dims.data(), info.data(), (int)count);
#endif
    });
  }
  for (long long i = 0; i < len; ++i) printf("%.17g\n", (double)A[i]);
#ifndef GEMM
  for (long long q = 0; q < count; ++q) printf("%d\n", info[q]);
#endif
#ifdef GETRF
  for (long long q = 0; q < count * pivotStride; ++q) printf("%d\n", ipiv[q]);
#endif
  return 0;
}

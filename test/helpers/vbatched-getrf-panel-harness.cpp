// Runs the blocked class kernels of a variable-size batched LU (getrf/generate-panel.ts's class
// frame: panel.cu, entry PANEL; update.cu, entry UPDATE) on the CPU, step after step as the
// launcher launches them: one std::thread per CUDA thread, one block at a time (cuda-host-warp.h),
// the panel's dynamic shared memory a NaN-filled buffer (the test rewrites its extern declaration
// to use it). Each kernel lives in a namespace of its own (both declare the same prelude).
// stdin: count len pivotStride steps; per step i0 panelGrid panelThreads panelShared updateGridX
// updateGridY updateThreads (updateGridX 0: no update); per member off m n ld index; then len
// elements. stdout: the buffer, count infos, count * pivotStride pivots (-7: never written).
// Used by test/cuda/vbatched-getrf-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::fabs; using std::min; using std::max; using std::sqrt;
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
alignas(16) unsigned char g_smem[256 * 1024];
namespace kp {
#include "panel.cu"   // from -I<dir>
}
namespace ku {
#include "update.cu"
}
using real = kp::real;
int main() {
  long long count, len, pivotStride, steps;
  if (scanf("%lld %lld %lld %lld", &count, &len, &pivotStride, &steps) != 4) return 2;
  std::vector<long long> st(7 * steps);
  for (long long s = 0; s < 7 * steps; ++s) if (scanf("%lld", &st[s]) != 1) return 2;
  std::vector<long long> off(count);
  std::vector<int> dims(4 * count);
  for (long long q = 0; q < count; ++q)
    if (scanf("%lld %d %d %d %d", &off[q], &dims[4 * q], &dims[4 * q + 1], &dims[4 * q + 2], &dims[4 * q + 3]) != 5) return 2;
  std::vector<real> A(len + 1);
  for (long long i = 0; i < len; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; A[i] = (real)strtod(s, nullptr); }
  std::vector<real*> ptrs(count);
  for (long long q = 0; q < count; ++q) ptrs[q] = A.data() + off[q];
  std::vector<int> info(count, -7), ipiv(count * pivotStride + 1, -7);
  for (long long s = 0; s < steps; ++s) {
    const long long* x = &st[7 * s];
    const int i0 = (int)x[0];
    blockDim.x = x[2]; gridDim.x = x[1]; gridDim.y = 1; gridDim.z = 1;
    for (unsigned b = 0; b < gridDim.x; ++b) {
      memset(g_smem, 0xff, sizeof(g_smem));
      launch_block(b, 0, blockDim.x, [&] { kp::PANEL(ptrs.data(), dims.data(), ipiv.data(), (int)pivotStride, info.data(), (int)count, i0); });
    }
    if (x[4] == 0) continue;
    blockDim.x = x[6]; gridDim.x = x[4]; gridDim.y = x[5];
    for (unsigned y = 0; y < gridDim.y; ++y) for (unsigned b = 0; b < gridDim.x; ++b)
      launch_block(b, y, blockDim.x, [&] { ku::UPDATE(ptrs.data(), dims.data(), ipiv.data(), (int)pivotStride, (int)count, i0); });
  }
  for (long long i = 0; i < len; ++i) printf("%.17g\n", (double)A[i]);
  for (long long q = 0; q < count; ++q) printf("%d\n", info[q]);
  for (long long q = 0; q < count * pivotStride; ++q) printf("%d\n", ipiv[q]);
  return 0;
}

// Runs one kernel of the blocked complex LU (kernel.cu, entry ENTRY) on the CPU: with -DPANEL the
// panel (zgetf2 on A(off:, off:off+w)), else the laswp (rows from ... to-1 with their pivots, on
// `cols` columns). One std::thread per CUDA thread, one block at a time (cuda-host-warp.h);
// __shared__ arrays become statics (one block lives at a time). -DPA: A in the pointer form.
// stdin: gx gy bx count len lenPiv pivotStride, then A's offset stride ld (and, in the pointer
// form, count element offsets), then the kernel's three ints (PANEL: m w off; else from to cols),
// then 2 len numbers (the interleaved buffer), lenPiv pivots and count infos.
// stdout: the buffer, the pivots, the infos. Used by test/cuda/zlu-blocked-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::fabs; using std::hypot; using std::min; using std::max;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#include "kernel.cu"   // from -I<dir>
#include "complex-host-operand.h"
int main() {
  long long gx, gy, bx, count, len, lenPiv, pivotStride;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &gx, &gy, &bx, &count, &len, &lenPiv, &pivotStride) != 7) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
  Operand a;
  if (!readOperand(a, count, POINTER_A, base)) return 2;
  int i0, i1, i2;
  if (scanf("%d %d %d", &i0, &i1, &i2) != 3) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  std::vector<int> piv(lenPiv + 1), info(count + 1);
  for (long long i = 0; i < lenPiv; ++i) if (scanf("%d", &piv[i]) != 1) return 4;
  for (long long i = 0; i < count; ++i) if (scanf("%d", &info[i]) != 1) return 4;
  blockDim.x = bx; gridDim.x = gx; gridDim.y = gy;
  for (unsigned y = 0; y < gy; ++y)
    for (unsigned x = 0; x < gx; ++x)
      launch_block(x, y, bx, [&] {
#if defined(PANEL)
        ENTRY(ARG_A, a.off, a.stride, a.ld, piv.data(), (int)pivotStride, info.data(), nullptr, (int)count, i0, i1, i2);
#else
        ENTRY(ARG_A, a.off, a.stride, a.ld, piv.data(), (int)pivotStride, nullptr, (int)count, i0, i1, i2);
#endif
      });
  printPairs(buf.data(), len);
  for (long long i = 0; i < lenPiv; ++i) printf("%d\n", piv[i]);
  for (long long i = 0; i < count; ++i) printf("%d\n", info[i]);
  return 0;
}

// Runs one generated complex gemm kernel (kernel.cu, entry ENTRY; -DTILED for the tiled design, else
// the very-small one) on the CPU: one std::thread per CUDA thread, one block at a time
// (cuda-host-warp.h), the tiled design's dynamic shared memory a NaN-filled buffer (the test
// rewrites its extern declaration to use it). -DPA / -DPB / -DPC: that operand in the pointer form
// (an array of host addresses into the buffer, one per matrix), else strided.
// stdin: gx gy gz bx count m n k len, alphaRe alphaIm betaRe betaIm, then per operand (A, B, C)
// offset stride ld and, in the pointer form, count element offsets (complex elements), then 2 len
// numbers (the interleaved buffer). stdout: the buffer.
// Used by test/cuda/zgemm-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::min; using std::max;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
alignas(16) unsigned char g_smem[256 * 1024];
#include "kernel.cu"   // from -I<dir>
#include "complex-host-operand.h"
int main() {
  long long gx, gy, gz, bx, count, m, n, k, len;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", &gx, &gy, &gz, &bx, &count, &m, &n, &k, &len) != 9) return 2;
  double ar, ai, br, bi;
  if (scanf("%lf %lf %lf %lf", &ar, &ai, &br, &bi) != 4) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
  Operand a, b, c;
  if (!readOperand(a, count, POINTER_A, base) || !readOperand(b, count, POINTER_B, base) || !readOperand(c, count, POINTER_C, base)) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  blockDim.x = bx; gridDim.x = gx; gridDim.y = gy; gridDim.z = gz;
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    memset(g_smem, 0xff, sizeof(g_smem));
    launch_block(x, y, bx, [&] {
      blockIdx.z = z;
#ifdef TILED
      ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, ARG_C, c.off, c.stride, c.ld, (int)count,
            (real)ar, (real)ai, (real)br, (real)bi, (int)m, (int)n, (int)k);
#else
      ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, ARG_C, c.off, c.stride, c.ld, (int)count,
            (real)ar, (real)ai, (real)br, (real)bi);
#endif
    });
  }
  printPairs(buf.data(), len);
  return 0;
}

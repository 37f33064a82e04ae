// Runs one generated real gemm kernel of the tiled design (kernel.cu, entry ENTRY) on the CPU: one
// std::thread per CUDA thread, one block at a time (cuda-host-warp.h), the dynamic shared memory a
// NaN-filled buffer (the test rewrites its extern declaration to use it). -DPA / -DPB / -DPC: that
// operand in the pointer form (an array of host addresses into the buffer, one per matrix), else strided.
// stdin: gx gy gz bx count m n k len, alpha beta, then per operand (A, B, C) offset stride ld and, in
// the pointer form, count element offsets, then len numbers (the buffer). stdout: the buffer.
// Used by test/cuda/gemm-tiled-host-emulation.test.ts.
#include "cuda-host-warp.h"
#include <cstdlib>
#include <cstring>
#include <vector>
// The 16-byte vectors the tiled design loads and stores (CUDA's vector types).
struct alignas(16) double2 { double x, y; };
struct alignas(16) float4 { float x, y, z, w; };
using std::fma; using std::min; using std::max; using std::fmaf;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
alignas(16) unsigned char g_smem[256 * 1024];
#include "kernel.cu"   // from -I<dir>
#include "host-operand.h"
int main() {
  long long gx, gy, gz, bx, count, m, n, k, len;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", &gx, &gy, &gz, &bx, &count, &m, &n, &k, &len) != 9) return 2;
  double alpha, beta;
  if (scanf("%lf %lf", &alpha, &beta) != 2) return 2;
  std::vector<real> buf(len + 1);
  real* base = buf.data();
  OperandOf<real> a, b, c;
  if (!readOperand(a, count, POINTER_A, base) || !readOperand(b, count, POINTER_B, base) || !readOperand(c, count, POINTER_C, base)) return 2;
  for (long long i = 0; i < len; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; buf[i] = (real)strtod(s, nullptr); }
  blockDim.x = bx; gridDim.x = gx; gridDim.y = gy; gridDim.z = gz;
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    memset(g_smem, 0xff, sizeof(g_smem));
    launch_block(x, y, bx, [&] {
      blockIdx.z = z;
      ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, ARG_C, c.off, c.stride, c.ld, (int)count,
            (real)alpha, (real)beta, (int)m, (int)n, (int)k);
    });
  }
  for (long long i = 0; i < len; ++i) printf("%.17g\n", (double)buf[i]);
  return 0;
}

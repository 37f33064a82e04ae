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
struct Operand { long long off, stride; int ld; std::vector<real*> ptrs; };
static bool readOperand(Operand& o, long long count, bool pointer, real* base) {
  if (scanf("%lld %lld %d", &o.off, &o.stride, &o.ld) != 3) return false;
  if (!pointer) return true;
  for (long long q = 0; q < count; ++q) { long long e; if (scanf("%lld", &e) != 1) return false; o.ptrs.push_back(base + e); }
  return true;
}
#ifdef PA
#define ARG_A a.ptrs.data()
#else
#define ARG_A base
#endif
#ifdef PB
#define ARG_B b.ptrs.data()
#else
#define ARG_B base
#endif
#ifdef PC
#define ARG_C c.ptrs.data()
#else
#define ARG_C base
#endif
int main() {
  long long gx, gy, gz, bx, count, m, n, k, len;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", &gx, &gy, &gz, &bx, &count, &m, &n, &k, &len) != 9) return 2;
  double alpha, beta;
  if (scanf("%lf %lf", &alpha, &beta) != 2) return 2;
  std::vector<real> buf(len + 1);
  real* base = buf.data();
  Operand a, b, c;
#ifdef PA
  if (!readOperand(a, count, true, base)) return 2;
#else
  if (!readOperand(a, count, false, base)) return 2;
#endif
#ifdef PB
  if (!readOperand(b, count, true, base)) return 2;
#else
  if (!readOperand(b, count, false, base)) return 2;
#endif
#ifdef PC
  if (!readOperand(c, count, true, base)) return 2;
#else
  if (!readOperand(c, count, false, base)) return 2;
#endif
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

// Runs one generated complex gesvd kernel (kernel.cu, entry ENTRY) on the CPU: one std::thread per
// CUDA thread, one block at a time (cuda-host-warp.h), the kernel's static shared memory per block.
// A, S, U and VT lie in one buffer of reals: the complex ones at pair offsets, S at real offsets.
// -DPA: every operand in the pointer form (arrays of host addresses into the buffer, one per
// matrix), else strided; -DNOU / -DNOVT: U / VT not asked for (a null operand, as the launcher passes).
// stdin: gx bx count len, then per operand given (A, S, U, VT) offset stride ld and, in the pointer
// form, count element offsets, then len numbers (the buffer). stdout: the buffer, then count info
// values. Used by test/cuda/zgesvd-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::sqrt; using std::fabs; using std::hypot; using std::ilogb; using std::ldexp;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#include "kernel.cu"   // from -I<dir>
#include <cstdlib>
#include "complex-host-operand.h"
#ifdef PA
#define ARG(o, base) o.ptrs.data()
#else
#define ARG(o, base) base
#endif
int main() {
  long long gx, bx, count, len;
  if (scanf("%lld %lld %lld %lld", &gx, &bx, &count, &len) != 4) return 2;
  std::vector<real2> pairs(len / 2 + 1);
  real* buf = &pairs[0].x;
  real2* base2 = pairs.data();
  OperandOf<real2> a, u, vt;
  OperandOf<real> s;
  if (!readOperand(a, count, POINTER_A, base2) || !readOperand(s, count, POINTER_A, buf)) return 2;
#ifndef NOU
  if (!readOperand(u, count, POINTER_A, base2)) return 2;
#define ARG_U ARG(u, base2)
#else
#define ARG_U nullptr
#endif
#ifndef NOVT
  if (!readOperand(vt, count, POINTER_A, base2)) return 2;
#define ARG_VT ARG(vt, base2)
#else
#define ARG_VT nullptr
#endif
  for (long long i = 0; i < len; ++i) { char t[64]; if (scanf("%63s", t) != 1) return 3; buf[i] = (real)strtod(t, nullptr); }
  std::vector<int> info(count, -99);
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] {
      ENTRY(ARG(a, base2), a.off, a.stride, a.ld, ARG(s, buf), s.off, s.stride, s.ld, ARG_U, u.off, u.stride, u.ld, ARG_VT, vt.off, vt.stride, vt.ld,
            info.data(), nullptr, (int)count);
    });
  for (long long i = 0; i < len; ++i) printf("%.17g\n", (double)buf[i]);
  for (long long q = 0; q < count; ++q) printf("%d\n", info[q]);
  return 0;
}

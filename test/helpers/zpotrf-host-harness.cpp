// Runs one generated complex Cholesky kernel (kernel.cu, entry ENTRY: zpotrf, or with -DSOLVE zpotrs /
// zposv) on the CPU: one std::thread per CUDA thread, one block at a time (cuda-host-warp.h), the
// kernel's static shared memory per block over NaN garbage. -DPA / -DPB: that operand in the pointer
// form (an array of host addresses into the buffer, one per matrix), else strided.
// stdin: gx bx count nrhs len, then per operand (A, and B with -DSOLVE) offset stride ld and, in the
// pointer form, count element offsets (complex elements), then 2 len numbers (the interleaved
// buffer). stdout: the buffer, then count info values.
// Used by test/cuda/zpotrf-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::min; using std::max; using std::sqrt; using std::fabs;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#include "kernel.cu"   // from -I<dir>
#include "complex-host-operand.h"
int main() {
  long long gx, bx, count, nrhs, len;
  if (scanf("%lld %lld %lld %lld %lld", &gx, &bx, &count, &nrhs, &len) != 5) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
  Operand a, b;
  if (!readOperand(a, count, POINTER_A, base)) return 2;
#ifdef SOLVE
  if (!readOperand(b, count, POINTER_B, base)) return 2;
#else
  (void)b; (void)POINTER_B;
#endif
  if (!readPairs(buf.data(), len)) return 3;
  std::vector<int> info(count, -99);
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x) {
    launch_block(x, 0, bx, [&] {
#ifdef SOLVE
      ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, info.data(), nullptr, (int)count, (int)nrhs);
#else
      ENTRY(ARG_A, a.off, a.stride, a.ld, info.data(), nullptr, (int)count);
#endif
    });
  }
  printPairs(buf.data(), len);
  for (long long q = 0; q < count; ++q) printf("%d\n", info[q]);
  return 0;
}

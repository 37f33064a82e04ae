// Runs one generated complex herk kernel (kernel.cu, entry ENTRY) on the CPU: one std::thread per
// CUDA thread of a 3-D block, one block at a time (cuda-host-shim.h: __syncthreads a barrier),
// __shared__ arrays as statics (one block lives at a time). -DPA / -DPC: that operand in the
// pointer form (an array of host addresses into the buffer, one per matrix), else strided.
// stdin: gx bx by bz count len, then per operand (A, C) offset stride ld and, in the pointer form,
// count element offsets (complex elements); then k alpha beta (-DSYRK, zsyrk's kernels: k alphaRe
// alphaIm betaRe betaIm); then 2 len numbers (the interleaved buffer). stdout: the buffer.
// Used by test/cuda/zherk-host-emulation.test.ts and, through test/helpers/zchain.ts, the chains.
#include "cuda-host-shim.h"
using std::fma; using std::fabs;
#undef __align__
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static
#include "kernel.cu"   // from -I<dir>
#include "complex-host-operand.h"
int main() {
  long long gx, bx, by, bz, count, len;
  if (scanf("%lld %lld %lld %lld %lld %lld", &gx, &bx, &by, &bz, &count, &len) != 6) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
  Operand a, c;
  if (!readOperand(a, count, POINTER_A, base) || !readOperand(c, count, POINTER_C, base)) return 2;
  long long k;
#ifdef SYRK
  char ar[64], ai[64], br[64], bi[64];
  if (scanf("%lld %63s %63s %63s %63s", &k, ar, ai, br, bi) != 5) return 2;
  const double alphaRe = strtod(ar, nullptr), alphaIm = strtod(ai, nullptr), betaRe = strtod(br, nullptr), betaIm = strtod(bi, nullptr);
#else
  char al[64], be[64];
  if (scanf("%lld %63s %63s", &k, al, be) != 3) return 2;
  const double alpha = strtod(al, nullptr), beta = strtod(be, nullptr);
#endif
  if (!readPairs(buf.data(), len)) return 3;
  run_grid(gx, 1, bx, by, bz, 0, [&] {
#ifdef SYRK
    ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_C, c.off, c.stride, c.ld, nullptr, (int)count, (int)k, alphaRe, alphaIm, betaRe, betaIm);
#else
    ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_C, c.off, c.stride, c.ld, nullptr, (int)count, (int)k, alpha, beta);
#endif
  });
  printPairs(buf.data(), len);
  return 0;
}

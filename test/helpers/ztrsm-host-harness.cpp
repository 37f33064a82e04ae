// Runs one generated complex trsm kernel (kernel.cu, entry ENTRY) on the CPU: one std::thread per
// CUDA thread, one block at a time (cuda-host-warp.h: the shuffles from a barrier per warp), every
// block of the gx x gy grid. -DPA / -DPB: that operand in the pointer form (an array of host
// addresses into the buffer, one per matrix), else strided.
// stdin: gx gy bx count len, then per operand (A, B) offset stride ld and, in the pointer form,
// count element offsets (complex elements); then nrhs alphaRe alphaIm; then 2 len numbers (the
// interleaved buffer). stdout: the buffer.
// Used by test/cuda/ztrsm-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::fabs; using std::hypot; using std::min; using std::max;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#include "kernel.cu"   // from -I<dir>
#include "complex-host-operand.h"
int main() {
  long long gx, gy, bx, count, len;
  if (scanf("%lld %lld %lld %lld %lld", &gx, &gy, &bx, &count, &len) != 5) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
  Operand a, b;
  if (!readOperand(a, count, POINTER_A, base) || !readOperand(b, count, POINTER_B, base)) return 2;
  long long nrhs;
  char re[64], im[64];
  if (scanf("%lld %63s %63s", &nrhs, re, im) != 3) return 2;
  const double alphaRe = strtod(re, nullptr), alphaIm = strtod(im, nullptr);
  if (!readPairs(buf.data(), len)) return 3;
  blockDim.x = bx; gridDim.x = gx; gridDim.y = gy;
  for (unsigned y = 0; y < gy; ++y)
    for (unsigned x = 0; x < gx; ++x)
      launch_block(x, y, bx, [&] {
        ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, nullptr, (int)count, (int)nrhs, alphaRe, alphaIm);
      });
  printPairs(buf.data(), len);
  return 0;
}

// Runs one generated complex LU kernel (kernel.cu, entry ENTRY: zgetrf, or with -DSOLVE zgetrs or
// zgesv) on the CPU: one std::thread per CUDA thread, one block at a time (cuda-host-warp.h: the
// shuffles from a barrier per warp); __shared__ arrays become statics (one block lives at a time).
// -DPA / -DPB: that operand in the pointer form (an array of host addresses into
// the buffer, one per matrix), else strided.
// stdin: gx bx count len lenPiv pivotStride, then per operand (A, and B with -DSOLVE) offset stride
// ld and, in the pointer form, count element offsets (complex elements); with -DSOLVE nrhs; then
// 2 len numbers (the interleaved buffer) and lenPiv pivots. stdout: the buffer, the pivots, the infos.
// Used by test/cuda/zgetrf-host-emulation.test.ts.
#include "lu-host-shims.h"
#define __noinline__ __attribute__((noinline))   // the warp step's rare paths (the standard headers are in already)
#include "kernel.cu"   // from -I<dir>
#undef __noinline__
#include "complex-host-operand.h"
int main() {
  long long gx, bx, count, len, lenPiv, pivotStride;
  if (scanf("%lld %lld %lld %lld %lld %lld", &gx, &bx, &count, &len, &lenPiv, &pivotStride) != 6) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
  Operand a, b;
  if (!readOperand(a, count, POINTER_A, base)) return 2;
  long long nrhs = 0;
#ifdef SOLVE
  if (!readOperand(b, count, POINTER_B, base)) return 2;
  if (scanf("%lld", &nrhs) != 1) return 2;
#endif
  if (!readPairs(buf.data(), len)) return 3;
  std::vector<int> piv(lenPiv + 1), info(count + 1, -7);
  for (long long i = 0; i < lenPiv; ++i) if (scanf("%d", &piv[i]) != 1) return 4;
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] {
#ifdef SOLVE
      ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, piv.data(), (int)pivotStride, info.data(), nullptr, (int)count, (int)nrhs);
#else
      ENTRY(ARG_A, a.off, a.stride, a.ld, piv.data(), (int)pivotStride, info.data(), nullptr, (int)count);
#endif
    });
  (void)b; (void)nrhs;
  printPairs(buf.data(), len);
  for (long long i = 0; i < lenPiv; ++i) printf("%d\n", piv[i]);
  for (long long i = 0; i < count; ++i) printf("%d\n", info[i]);
  return 0;
}

// Runs one of the complex inverses' own kernels (kernel.cu, entry ENTRY: with -DSCAN the diagonal
// scan, with -DCOLUMNS getri's column interchanges (operands W, A), else a move (A, B);
// kernels/zinverse/generate-move.ts) on the CPU: one std::thread per CUDA thread, one block at a
// time (cuda-host-shim.h). -DPA / -DPB: the first / second operand in the pointer form (an array of
// host addresses into the buffer, one per matrix), else strided.
// stdin: gx bx count n len, then per operand offset stride ld and, in the pointer form, count
// element offsets (complex elements); with -DCOLUMNS then pivotStride and count * pivotStride
// pivots; then count info values, then 2 len numbers (the interleaved buffer). stdout: the buffer,
// then count info values.
// Used by test/cuda/zinverse-host-emulation.test.ts.
#include "cuda-host-shim.h"
#define __shared__ static
#undef __align__
#define __align__(n) __attribute__((aligned(n)))
#include "kernel.cu"   // from -I<dir>
#include "complex-host-operand.h"
int main() {
  long long gx, bx, count, n, len;
  if (scanf("%lld %lld %lld %lld %lld", &gx, &bx, &count, &n, &len) != 5) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
  Operand a, b;
  if (!readOperand(a, count, POINTER_A, base)) return 2;
#ifndef SCAN
  if (!readOperand(b, count, POINTER_B, base)) return 2;
#else
  (void)b; (void)POINTER_B;
#endif
  std::vector<int> piv;
  long long pivotStride = 0;
#ifdef COLUMNS
  if (scanf("%lld", &pivotStride) != 1) return 2;
  piv.resize(count * pivotStride + 1);
  for (long long q = 0; q < count * pivotStride; ++q) if (scanf("%d", &piv[q]) != 1) return 2;
#endif
  std::vector<int> info(count);
  for (long long q = 0; q < count; ++q) if (scanf("%d", &info[q]) != 1) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  run_grid(gx, 1, bx, 1, 1, 0, [&] {
#if defined(SCAN)
    ENTRY(ARG_A, a.off, a.stride, a.ld, nullptr, (int)count, info.data(), (int)n);
#elif defined(COLUMNS)
    ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, piv.data(), (int)pivotStride, info.data(), nullptr, (int)count, (int)n);
#else
    ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_B, b.off, b.stride, b.ld, info.data(), nullptr, (int)count, (int)n);
#endif
  });
  printPairs(buf.data(), len);
  for (long long q = 0; q < count; ++q) printf("%d\n", info[q]);
  return 0;
}

// Runs a classification kernel of device-sized variable batches (gemm/, potrf/ or getrf/generate-vdevice.ts)
// on the CPU: one thread after another (the kernel has no barriers and no shared memory; its
// atomicAdd is then a plain increment). Reads the members from stdin, writes the counters, every
// row of every region (the rows past a region's counter too: they must stay zero) and the codes.
// Build: g++ -std=c++20 -DENTRY=<entry> [-DGEMM | -DINTS=4 (getrf)] -I<dir of kernel.cu> this file.
#include "cuda-host-serial.h"
#include "kernel.cu"
#include "vdevice-host-operand.h"

int main() {
  int count, regions;
  if (scanf("%d %d", &count, &regions) != 2) return 2;
#ifdef GEMM
  const int P = 3, I = 6;
  int alphaZero, betaOne;
  if (scanf("%d %d", &alphaZero, &betaOne) != 2) return 2;
  Operand a, b, c;
  a.read(count); b.read(count); c.read(count);
  Buf<int> info(count, 7777);
#else
#ifndef INTS
#define INTS 3
#endif
  const int P = 1, I = INTS;   // potrf: n, ld, index; getrf: m, n, ld, index
  Operand a;
  a.read(count);
  Buf<int> info(count + 1, 7777);
#endif
  const long long rows = (long long)regions * count;
  Buf<long long> ptrs(rows * P, 0);
  Buf<int> dims(rows * I, 0), counters(regions, 0);
  eachThread(count, [&] {
#ifdef GEMM
    ENTRY(a.rows.data(), a.colsOrNull(), a.ld.data(), a.ptr.data(), a.maxRows, a.maxCols,
          b.rows.data(), b.colsOrNull(), b.ld.data(), b.ptr.data(), b.maxRows, b.maxCols,
          c.rows.data(), c.colsOrNull(), c.ld.data(), c.ptr.data(), c.maxRows, c.maxCols,
          count, alphaZero, betaOne, count, ptrs.data(), dims.data(), counters.data(), info.data());
#else
    ENTRY(a.rows.data(), a.colsOrNull(), a.ld.data(), a.ptr.data(), a.maxRows, a.maxCols, count, count,
          ptrs.data(), dims.data(), counters.data(), info.data());
#endif
  });
  for (int r = 0; r < regions; ++r) printf("%d\n", counters[r]);
  for (long long q = 0; q < rows; ++q) {
    for (int e = 0; e < P; ++e) printf("%lld ", ptrs[q * P + e]);
    for (int e = 0; e < I; ++e) printf("%d ", dims[q * I + e]);
    printf("\n");
  }
  for (int v : info) printf("%d\n", v);
  return 0;
}

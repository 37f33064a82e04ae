// Runs trsm's device-sized kernels that build tables (trsm/generate-vdevice.ts) on the CPU, one thread
// after another (no barriers, no shared memory; atomicAdd a plain increment):
// -DCLASSIFY: the classification of A and B; reads the members from stdin (and skip flags), writes the
//   counters, every row of every region (rows past a counter too: they must stay zero) and the codes;
// -DROWS: an update step's GEMM rows from one region's trsm rows; writes the GEMM counters and rows.
// Build: g++ -std=c++20 -DENTRY=<entry> -DCLASSIFY|-DROWS -I<dir of kernel.cu> this file.
#include "cuda-host-serial.h"
#include "kernel.cu"
#include "vdevice-host-operand.h"

int main() {
#ifdef CLASSIFY
  int count, regions, hasSkip;
  if (scanf("%d %d %d", &count, &regions, &hasSkip) != 3) return 2;
  Operand a, b;
  a.read(count); b.read(count);
  Buf<int> skip(count, 0), info(count, 7777);
  if (hasSkip) for (int i = 0; i < count; ++i) if (scanf("%d", &skip[i]) != 1) return 2;
  const long long rows = (long long)regions * count;
  Buf<long long> ptrs(rows * 2, 0);
  Buf<int> dims(rows * 4, 0), counters(regions, 0);
  eachThread(count, [&] {
    ENTRY(a.rows.data(), a.colsOrNull(), a.ld.data(), a.ptr.data(), a.maxRows, a.maxCols,
          b.rows.data(), b.colsOrNull(), b.ld.data(), b.ptr.data(), b.maxRows, b.maxCols,
          count, count, ptrs.data(), dims.data(), counters.data(), info.data(), hasSkip ? skip.data() : nullptr, -1);
  });
  print<2, 4>(regions, rows, counters, ptrs, dims);
  for (int v : info) printf("%d\n", v);
#else
  int count, regions, tOff, tSize, sOff, sSize, betaOne, bytes;
  if (scanf("%d %d %d %d %d %d %d %d", &count, &regions, &tOff, &tSize, &sOff, &sSize, &betaOne, &bytes) != 8) return 2;
  Buf<long long> tp(count * 2);
  Buf<int> td(count * 4);
  for (int q = 0; q < count; ++q)
    if (scanf("%lld %lld %d %d %d %d", &tp[2 * q], &tp[2 * q + 1], &td[4 * q], &td[4 * q + 1], &td[4 * q + 2], &td[4 * q + 3]) != 6) return 2;
  const long long rows = (long long)regions * count;
  Buf<long long> ptrs(rows * 3, 0);
  Buf<int> dims(rows * 6, 0), counters(regions, 0);
  eachThread(count, [&] {
    ENTRY(tp.data(), td.data(), count, tOff, tSize, sOff, sSize, betaOne, bytes, count, ptrs.data(), dims.data(), counters.data());
  });
  print<3, 6>(regions, rows, counters, ptrs, dims);
#endif
  return 0;
}

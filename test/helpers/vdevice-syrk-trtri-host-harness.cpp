// Runs syrk's and trtri's device-sized table kernels (syrk/ and trtri/generate-vdevice.ts) on the CPU,
// one thread after another (no barriers, no shared memory; atomicAdd a plain increment):
// -DSYRK_CLASSIFY: the classification of A and C; reads the members from stdin, writes the counters,
//   every row of every region (rows past a counter too: they must stay zero) and the codes;
// -DSYRK_ROWS: an off-diagonal step's GEMM rows from one region's syrk rows; writes the GEMM counters and rows;
// -DTRTRI_CLASSIFY: the classification (float64) of members placed in one buffer of ones with the
//   listed elements zero, which it reads too (the scan); writes the counters, the rows (the pointer as an element offset into the buffer, -1
//   for none) and work[0 .. count];
// -DTRTRI_ROWS: a recursion step's two trsm rows from one region's trtri rows; writes the left
//   solve's counters and rows, then the right solve's.
// Build: g++ -std=c++20 -DENTRY=<entry> -D<mode> -I<dir of kernel.cu> this file.
#include <cmath>
#include "cuda-host-serial.h"
#include "kernel.cu"
#include "vdevice-host-operand.h"

int main() {
#if defined(SYRK_CLASSIFY)
  int count, regions, alphaZero, betaOne;
  if (scanf("%d %d %d %d", &count, &regions, &alphaZero, &betaOne) != 4) return 2;
  Operand a, c;
  a.read(count); c.read(count);
  Buf<int> info(count, 7777);
  const long long rows = (long long)regions * count;
  Buf<long long> ptrs(rows * 2, 0);
  Buf<int> dims(rows * 4, 0), counters(regions, 0);
  eachThread(count, [&] {
    ENTRY(a.rows.data(), a.colsOrNull(), a.ld.data(), a.ptr.data(), a.maxRows, a.maxCols,
          c.rows.data(), c.colsOrNull(), c.ld.data(), c.ptr.data(), c.maxRows, c.maxCols,
          count, alphaZero, betaOne, count, ptrs.data(), dims.data(), counters.data(), info.data());
  });
  print<2, 4>(regions, rows, counters, ptrs, dims);
  for (int v : info) printf("%d\n", v);
#elif defined(SYRK_ROWS)
  int count, regions, rOff, rSize, cOff, cSize, betaOne, bytes;
  if (scanf("%d %d %d %d %d %d %d %d", &count, &regions, &rOff, &rSize, &cOff, &cSize, &betaOne, &bytes) != 8) return 2;
  Buf<long long> sp(count * 2);
  Buf<int> sd(count * 4);
  for (int q = 0; q < count; ++q)
    if (scanf("%lld %lld %d %d %d %d", &sp[2 * q], &sp[2 * q + 1], &sd[4 * q], &sd[4 * q + 1], &sd[4 * q + 2], &sd[4 * q + 3]) != 6) return 2;
  const long long rows = (long long)regions * count;
  Buf<long long> ptrs(rows * 3, 0);
  Buf<int> dims(rows * 6, 0), counters(regions, 0);
  eachThread(count, [&] {
    ENTRY(sp.data(), sd.data(), count, rOff, rSize, cOff, cSize, betaOne, bytes, count, ptrs.data(), dims.data(), counters.data());
  });
  print<3, 6>(regions, rows, counters, ptrs, dims);
#elif defined(TRTRI_CLASSIFY)
  int count, regions, scanAbove, unit, maxRows, maxCols, hasCols;
  long long length;
  if (scanf("%d %d %d %d %d %d %d %lld", &count, &regions, &scanAbove, &unit, &maxRows, &maxCols, &hasCols, &length) != 8) return 2;
  Buf<int> rows(count), cols(count), ld(count);
  Buf<long long> offset(count), ptr(count);
  for (int i = 0; i < count; ++i) if (scanf("%d %d %d %lld", &rows[i], &cols[i], &ld[i], &offset[i]) != 4) return 2;
  // The buffer: ones, but for the listed elements, which are zero.
  Buf<double> data(length, 1.0);
  int zeros;
  if (scanf("%d", &zeros) != 1) return 2;
  for (int z = 0; z < zeros; ++z) { long long e; if (scanf("%lld", &e) != 1 || e < 0 || e >= length) return 2; data[e] = 0; }
  for (int i = 0; i < count; ++i) ptr[i] = (long long)(data.data() + offset[i]);
  const long long regionRows = (long long)regions * count;
  Buf<long long> ptrs(regionRows, 0);
  Buf<int> dims(regionRows * 3, 0), counters(regions, 0), work(count + 1, 7777);
  eachThread(count, [&] {
    ENTRY(rows.data(), hasCols ? cols.data() : nullptr, ld.data(), ptr.data(), maxRows, maxCols, count, scanAbove, unit, count,
          ptrs.data(), dims.data(), counters.data(), work.data());
  });
  // Pointers as element offsets into the buffer (-1: none), so the test need not know its address.
  const long long base = (long long)data.data();
  for (long long q = 0; q < regionRows; ++q) ptrs[q] = ptrs[q] == 0 ? -1 : (ptrs[q] - base) / (long long)sizeof(double);
  print<1, 3>(regions, regionRows, counters, ptrs, dims);
  for (int v : work) printf("%d\n", v);
#else
  int count, regions, loOff, loSize, hiOff, hiSize, bytes;
  if (scanf("%d %d %d %d %d %d %d", &count, &regions, &loOff, &loSize, &hiOff, &hiSize, &bytes) != 7) return 2;
  Buf<long long> tp(count);
  Buf<int> td(count * 3);
  for (int q = 0; q < count; ++q) if (scanf("%lld %d %d %d", &tp[q], &td[3 * q], &td[3 * q + 1], &td[3 * q + 2]) != 4) return 2;
  const long long rows = (long long)regions * count;
  Buf<long long> lp(rows * 2, 0), rp(rows * 2, 0);
  Buf<int> ld(rows * 4, 0), rd(rows * 4, 0), lc(regions, 0), rc(regions, 0);
  eachThread(count, [&] {
    ENTRY(tp.data(), td.data(), count, loOff, loSize, hiOff, hiSize, bytes, count,
          lp.data(), ld.data(), lc.data(), rp.data(), rd.data(), rc.data());
  });
  print<2, 4>(regions, rows, lc, lp, ld);
  print<2, 4>(regions, rows, rc, rp, rd);
#endif
  return 0;
}

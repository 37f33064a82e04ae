// Runs the check kernel of getrs or gesv on device sizes (solve/generate-vdevice-lu.ts) on the CPU,
// one thread after another (no barriers, no shared memory; atomicAdd a plain increment). Reads
// count, regions and the members of A and B from stdin; writes the codes, the row interchanges'
// table (every row) and, with -DGESV, getrf's counters and every row of every region (rows past a
// counter too: they must stay zero).
// Build: g++ -std=c++20 -DENTRY=<entry> [-DGESV] -I<dir of kernel.cu> this file.
#include "cuda-host-serial.h"
#include "kernel.cu"
#include "vdevice-host-operand.h"

int main() {
  int count, regions;
  if (scanf("%d %d", &count, &regions) != 2) return 2;
  Operand a, b;
  a.read(count); b.read(count);
  // Poisoned: every entry the kernel must write shows it did.
  Buf<int> codes(count, 7777), swapDims(count * 4, 7777);
  Buf<long long> swapPtrs(count, 7777);
#ifdef GESV
  const long long rows = (long long)regions * count;
  Buf<long long> ptrs(rows, 0);
  Buf<int> dims(rows * 4, 0), counters(regions, 0);
#endif
  eachThread(count, [&] {
    ENTRY(a.rows.data(), a.colsOrNull(), a.ld.data(), a.ptr.data(), a.maxRows, a.maxCols,
          b.rows.data(), b.colsOrNull(), b.ld.data(), b.ptr.data(), b.maxRows, b.maxCols, count,
#ifdef GESV
          count, ptrs.data(), dims.data(), counters.data(), nullptr, nullptr, nullptr, -1,
#endif
          swapPtrs.data(), swapDims.data(), codes.data());
  });
  for (int v : codes) printf("%d\n", v);
  for (int i = 0; i < count; ++i) printf("%lld %d %d %d %d\n", swapPtrs[i], swapDims[4 * i], swapDims[4 * i + 1], swapDims[4 * i + 2], swapDims[4 * i + 3]);
#ifdef GESV
  for (int r = 0; r < regions; ++r) printf("%d\n", counters[r]);
  for (long long q = 0; q < rows; ++q) printf("%lld %d %d %d %d\n", ptrs[q], dims[4 * q], dims[4 * q + 1], dims[4 * q + 2], dims[4 * q + 3]);
#endif
  return 0;
}

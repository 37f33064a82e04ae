// What the host harnesses of the device-sized table kernels (vdevice-*-host-harness.cpp) share: a
// device-sized operand read from stdin (its flag for a cols array, the host's maxima, then each
// member's rows, cols, ld and address), and the tables printed back (every counter, then every row's
// P pointers and I ints). Include after cuda-host-serial.h (Buf).
#pragma once
#include <cstdio>

struct Operand {
  int hasCols = 0, maxRows = 0, maxCols = 0;
  Buf<int> rows, cols, ld;
  Buf<long long> ptr;
  void read(int count) {
    if (scanf("%d %d %d", &hasCols, &maxRows, &maxCols) != 3) throw 1;
    rows.resize(count); cols.resize(count); ld.resize(count); ptr.resize(count);
    for (int i = 0; i < count; ++i) if (scanf("%d %d %d %lld", &rows[i], &cols[i], &ld[i], &ptr[i]) != 4) throw 1;
  }
  int* colsOrNull() { return hasCols ? cols.data() : nullptr; }
};

template <int P, int I> void print(int regions, long long rows, Buf<int>& counters, Buf<long long>& ptrs, Buf<int>& dims) {
  for (int r = 0; r < regions; ++r) printf("%d\n", counters[r]);
  for (long long q = 0; q < rows; ++q) {
    for (int e = 0; e < P; ++e) printf("%lld ", ptrs[q * P + e]);
    for (int e = 0; e < I; ++e) printf("%d ", dims[q * I + e]);
    printf("\n");
  }
}

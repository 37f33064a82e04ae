// What the complex host harnesses (zgemm, zpotrf, zlu, ztrsm, zherk, zheev, zgesvd) read and write alike; include after
// kernel.cu, which defines real2. An operand: its offset, stride and ld from stdin and, in the
// pointer form, one element offset per matrix (complex elements) turned into host addresses into
// the buffer. The buffer: len (re, im) pairs, read exactly (strtod) and written with 17 digits.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "host-operand.h"
using Operand = OperandOf<real2>;
static bool readPairs(real2* buf, long long len) {
  for (long long i = 0; i < len; ++i) {
    char s[64], t[64];
    if (scanf("%63s %63s", s, t) != 2) return false;
    buf[i].x = (real)strtod(s, nullptr);
    buf[i].y = (real)strtod(t, nullptr);
  }
  return true;
}
static void printPairs(const real2* buf, long long len) {
  for (long long i = 0; i < len; ++i) printf("%.17g %.17g\n", (double)buf[i].x, (double)buf[i].y);
}


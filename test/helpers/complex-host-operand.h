// What the complex host harnesses (zgemm, zpotrf, zlu, ztrsm, zherk, zheev, zgesvd) read and write alike; include after
// kernel.cu, which defines real2. An operand: its offset, stride and ld from stdin and, in the
// pointer form, one element offset per matrix (complex elements) turned into host addresses into
// the buffer. The buffer: len (re, im) pairs, read exactly (strtod) and written with 17 digits.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
// Elements of type E: pairs (real2), or reals for an operand of the parts' type (heev's W, gesvd's S).
template <typename E> struct OperandOf { long long off, stride; int ld; std::vector<E*> ptrs; };
using Operand = OperandOf<real2>;
template <typename E> static bool readOperand(OperandOf<E>& o, long long count, bool pointer, E* base) {
  if (scanf("%lld %lld %d", &o.off, &o.stride, &o.ld) != 3) return false;
  if (!pointer) return true;
  for (long long q = 0; q < count; ++q) { long long e; if (scanf("%lld", &e) != 1) return false; o.ptrs.push_back(base + e); }
  return true;
}
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

// The operands' forms, as the harness was compiled: -DPA / -DPB / -DPC put that operand in the
// pointer form (its argument the array of matrix addresses `x.ptrs`), else strided (the buffer's base).
#ifdef PA
#define ARG_A a.ptrs.data()
#define POINTER_A true
#else
#define ARG_A base
#define POINTER_A false
#endif
#ifdef PB
#define ARG_B b.ptrs.data()
#define POINTER_B true
#else
#define ARG_B base
#define POINTER_B false
#endif
#ifdef PC
#define ARG_C c.ptrs.data()
#define POINTER_C true
#else
#define ARG_C base
#define POINTER_C false
#endif

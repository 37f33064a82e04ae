// The complex host harnesses' operands (zgemm, zpotrf, zlu; include after kernel.cu, which defines
// real2): each operand's offset, stride and ld from stdin and, in the pointer form, one element
// offset per matrix (complex elements) turned into host addresses into the buffer.
#pragma once
#include <cstdio>
#include <vector>
struct Operand { long long off, stride; int ld; std::vector<real2*> ptrs; };
static bool readOperand(Operand& o, long long count, bool pointer, real2* base) {
  if (scanf("%lld %lld %d", &o.off, &o.stride, &o.ld) != 3) return false;
  if (!pointer) return true;
  for (long long q = 0; q < count; ++q) { long long e; if (scanf("%lld", &e) != 1) return false; o.ptrs.push_back(base + e); }
  return true;
}

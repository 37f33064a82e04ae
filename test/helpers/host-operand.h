// What the host harnesses read alike (the complex ones through complex-host-operand.h, and the real
// tiled gemm's): an operand's offset, stride and ld from stdin and, in the pointer form, one element
// offset per matrix turned into host addresses into the buffer. Elements of type E: reals, or pairs
// (real2) for the complex harnesses.
#pragma once
#include <cstdio>
#include <vector>
template <typename E> struct OperandOf { long long off, stride; int ld; std::vector<E*> ptrs; };
template <typename E> static bool readOperand(OperandOf<E>& o, long long count, bool pointer, E* base) {
  if (scanf("%lld %lld %d", &o.off, &o.stride, &o.ld) != 3) return false;
  if (!pointer) return true;
  for (long long q = 0; q < count; ++q) { long long e; if (scanf("%lld", &e) != 1) return false; o.ptrs.push_back(base + e); }
  return true;
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

// Runs the generated TSQR kernels on the CPU through cuda-host-shim.h, in the order of
// src/cuda/kernels/tsqr/launch.ts (gram, reduce, chol per stage; stage 3 only where a matrix took
// the shifted route; then store). The test writes gram.cu, store.cu, chol.cu, reduce.cu into a
// folder (-I) and entries.h naming the four entries. Input on stdin:
//   m n count ld stride gramBlocks gramThreads gramShared storeBlocks storeThreads storeShared
//   cholShared reduceSlices fallbackLimit failLimit shiftScale, then A (count * stride values).
// Output: routes, info, R (count * n * n, ld n), Q (the A buffer). Used by
// test/cuda/tsqr-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include <cstdint>
static inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
static inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
#define __shared__
namespace kg {
#include "gram.cu"
}
#undef N
#undef TRI
#undef ROWS
#undef SLOTS
#undef TB
#undef NPAD
#undef NT
#undef GS
#undef GROUPS
#undef LDS
namespace ks {
#include "store.cu"
}
#undef N
#undef TRI
#undef ROWS
#undef SLOTS
namespace kc {
#include "chol.cu"
}
#undef N
namespace kr {
#include "reduce.cu"
}
#include "entries.h"
using real = kg::real;
int main() {
  long long m, n, count, ld, stride, gb, gt, gs, sb, st, ss, cs, slices;
  double fallbackLimit, failLimit, shiftScale;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lf %lf %lf", &m, &n, &count, &ld, &stride, &gb, &gt, &gs, &sb, &st, &ss, &cs, &slices,
            &fallbackLimit, &failLimit, &shiftScale) != 16) return 2;
  std::vector<real> A(count * stride), partials(count * gb * n * n), sums(count * n * n), factors(count * 3 * n * n), R(count * n * n);
  for (auto& e : A) { double v; if (scanf("%lf", &v) != 1) v = NAN; e = (real)v; }
  std::vector<int> info(count, -7), route(count, -7);
  const int nn = (int)(n * n);
  auto stage = [&](int s) {
    run_grid(gb, count, gt, 1, 1, gs, [&] { GRAM(A.data(), 0, stride, (int)ld, m, factors.data(), info.data(), route.data(), s, partials.data()); });
    run_grid((nn + 31) / 32, count, 32, slices, 1, 32 * slices * sizeof(real), [&] { REDUCE(partials.data(), (int)gb, nn, sums.data()); });
    run_grid(count, 1, 32, 1, 1, cs, [&] {
      CHOL(sums.data(), s, factors.data(), info.data(), route.data(), R.data(), 0, n * n, (int)n, (real)fallbackLimit, (real)failLimit, (real)shiftScale);
    });
  };
  stage(1);
  stage(2);
  bool shifted = false;
  for (int r : route) shifted = shifted || r == 1;
  if (shifted) stage(3);
  run_grid(sb, count, st, 1, 1, ss, [&] { STORE(A.data(), 0, stride, (int)ld, m, factors.data(), info.data(), route.data()); });
  for (int r : route) printf("%d\n", r);
  for (int i : info) printf("%d\n", i);
  for (auto e : R) printf("%.17g\n", (double)e);
  for (auto e : A) printf("%.17g\n", (double)e);
  return 0;
}

// Runs one generated trmm pipelined kernel (kernel.cu, entry ENTRY; generate-pipelined.ts) on the CPU
// (cuda-host-shim.h), strided or, with -DPOINTER, as a list batch (a pointer a matrix, offset kept).
// Input on stdin: the launch (count t nvec alpha offA strideA ldA offB strideB ldB gx bx by shared
// lenA lenB), then A and B; output: B. Used by test/cuda/trmm-pipelined-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, t, nvec, offA, strideA, ldA, offB, strideB, ldB, gx, bx, by, shared, lenA, lenB;
  double alpha;
  if (scanf("%lld %lld %lld %lf %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &t, &nvec, &alpha, &offA, &strideA, &ldA, &offB, &strideB, &ldB, &gx, &bx, &by, &shared, &lenA, &lenB) != 16) return 2;
  std::vector<real> A(lenA), B(lenB);
  for (auto& x : A) { double v; scanf("%lf", &v); x = (real)v; }
  for (auto& x : B) { double v; scanf("%lf", &v); x = (real)v; }
#ifdef POINTER
  std::vector<const real*> pa(count);
  std::vector<real*> pb(count);
  for (long long i = 0; i < count; ++i) { pa[i] = A.data() + i * strideA; pb[i] = B.data() + i * strideB; }
  run_grid(gx, 1, bx, by, 1, shared, [&] {
    ENTRY(pa.data(), offA, 0, (int)ldA, pb.data(), offB, 0, (int)ldB, (int)count, (int)t, (int)nvec, (real)alpha);
  });
#else
  run_grid(gx, 1, bx, by, 1, shared, [&] {
    ENTRY(A.data(), offA, strideA, (int)ldA, B.data(), offB, strideB, (int)ldB, (int)count, (int)t, (int)nvec, (real)alpha);
  });
#endif
  for (auto& x : B) printf("%.17g\n", (double)x);
  return 0;
}

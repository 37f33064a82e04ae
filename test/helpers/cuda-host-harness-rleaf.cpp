// Runs one generated trmm leaf of the register or product design (kernel.cu, entry ENTRY) on the CPU
// (cuda-host-shim.h). Input on stdin: the launch (count t nvec alpha offA strideA ldA offB strideB ldB
// gx bx by shared lenA lenB), then A and B; output: B. Used by test/cuda/trmm-register-leaf-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, t, nvec, offA, strideA, ldA, offB, strideB, ldB, gx, bx, by, shared, lenA, lenB;
  double alpha;
  if (scanf("%lld %lld %lld %lf %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &t, &nvec, &alpha, &offA, &strideA, &ldA, &offB, &strideB, &ldB, &gx, &bx, &by, &shared, &lenA, &lenB) != 16) return 2;
  std::vector<real> A(lenA), B(lenB);
  for (auto& x : A) { double v; scanf("%lf", &v); x = (real)v; }
  for (auto& x : B) { double v; scanf("%lf", &v); x = (real)v; }
  run_grid(gx, 1, bx, by, 1, shared, [&] {
    ENTRY(A.data(), offA, strideA, (int)ldA, B.data(), offB, strideB, (int)ldB, (int)count, (int)t, (int)nvec, (real)alpha);
  });
  for (auto& x : B) printf("%.17g\n", (double)x);
  return 0;
}

// Runs one generated trsm/trmm leaf kernel (kernel.cu, entry ENTRY) on the CPU: one std::thread per CUDA
// thread, a std::barrier for __syncthreads, one block at a time with NaN-filled shared memory.
// Input on stdin: the launch (count t nvec ldx alpha offA strideA ldA offB strideB ldB gx gy bx by
// shared lenA lenB), then A and B; output: B. Used by test/cuda/trsm-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, t, nvec, ldx, offA, strideA, ldA, offB, strideB, ldB, gx, gy, bx, by, shared, lenA, lenB;
  double alpha;
  if (scanf("%lld %lld %lld %lld %lf %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &t, &nvec, &ldx, &alpha, &offA, &strideA, &ldA, &offB, &strideB, &ldB, &gx, &gy, &bx, &by, &shared, &lenA, &lenB) != 18) return 2;
  std::vector<real> A(lenA), B(lenB);
  for (auto& x : A) { double v; scanf("%lf", &v); x = (real)v; }
  for (auto& x : B) { double v; scanf("%lf", &v); x = (real)v; }
  run_grid(gx, gy, bx, by, 1, shared, [&] {
    ENTRY(A.data(), offA, strideA, (int)ldA, B.data(), offB, strideB, (int)ldB, (int)count, (int)t, (int)nvec, (int)ldx, (real)alpha);
  });
  for (auto& x : B) printf("%.17g\n", (double)x);
  return 0;
}

// Runs one generated syrk leaf kernel (or, with -DLAUUM, a lauum leaf) (kernel.cu, entry ENTRY) on the
// CPU through cuda-host-shim.h. Input on stdin: the launch, then the operands; output: the written
// operand (C, or A for lauum). Used by test/cuda/syrk-host-emulation.test.ts.
// syrk:  count t k alpha beta offA strideA ldA offC strideC ldC gx gy side matrices shared lenA lenC, A, C
// lauum: count t lds offA strideA ldA gx threads matrices shared lenA, A
#include "cuda-host-shim.h"
#include "kernel.cu"   // from -I<dir>
static void read(std::vector<real>& x) { for (auto& e : x) { double v; if (scanf("%lf", &v) != 1) v = NAN; e = (real)v; } }
static void write(const std::vector<real>& x) { for (auto e : x) printf("%.17g\n", (double)e); }
int main() {
#ifdef LAUUM
  long long count, t, lds, offA, strideA, ldA, gx, threads, matrices, shared, lenA;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &t, &lds, &offA, &strideA, &ldA, &gx, &threads, &matrices, &shared, &lenA) != 11) return 2;
  std::vector<real> A(lenA);
  read(A);
  run_grid(gx, 1, threads, matrices, 1, shared, [&] { ENTRY(A.data(), offA, strideA, (int)ldA, (int)count, (int)t, (int)lds); });
  write(A);
#else
  long long count, t, k, offA, strideA, ldA, offC, strideC, ldC, gx, gy, side, matrices, shared, lenA, lenC;
  double alpha, beta;
  if (scanf("%lld %lld %lld %lf %lf %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &t, &k, &alpha, &beta, &offA, &strideA, &ldA, &offC, &strideC, &ldC, &gx, &gy, &side, &matrices, &shared, &lenA, &lenC) != 18) return 2;
  std::vector<real> A(lenA), C(lenC);
  read(A);
  read(C);
  run_grid(gx, gy, side, side, matrices, shared, [&] {
    ENTRY(A.data(), offA, strideA, (int)ldA, C.data(), offC, strideC, (int)ldC, (int)count, (int)t, (int)k, (real)alpha, (real)beta);
  });
  write(C);
#endif
  return 0;
}

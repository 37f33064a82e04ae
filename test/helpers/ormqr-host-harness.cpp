// Runs one generated ormqr kernel (kernel.cu, entry ENTRY; -DPOINTER for the pointer-array form) on
// the CPU through cuda-host-shim.h. Input on stdin:
//   count r k nvec ldt ldA ldT ldC gx threads matrices shared lenA lenT lenC
//   strided: offA strideA offT strideT offC strideC   pointer: count offsets of A, of T, of C
//   then A, T, C. Output: C. Used by test/cuda/ormqr-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include "kernel.cu"   // from -I<dir>
static void read(std::vector<real>& x) { for (auto& e : x) { double v; if (scanf("%lf", &v) != 1) v = NAN; e = (real)v; } }
static void write(const std::vector<real>& x) { for (auto e : x) printf("%.17g\n", (double)e); }
int main() {
  long long count, r, k, nvec, ldt, ldA, ldT, ldC, gx, threads, matrices, shared, lenA, lenT, lenC;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &r, &k, &nvec, &ldt, &ldA, &ldT, &ldC, &gx, &threads, &matrices, &shared, &lenA, &lenT, &lenC) != 15) return 2;
#ifdef POINTER
  std::vector<long long> oA(count), oT(count), oC(count);
  for (auto* o : {&oA, &oT, &oC}) for (auto& e : *o) if (scanf("%lld", &e) != 1) return 2;
#else
  long long offA, strideA, offT, strideT, offC, strideC;
  if (scanf("%lld %lld %lld %lld %lld %lld", &offA, &strideA, &offT, &strideT, &offC, &strideC) != 6) return 2;
#endif
  std::vector<real> A(lenA), T(lenT), C(lenC);
  read(A);
  read(T);
  read(C);
#ifdef POINTER
  std::vector<const real*> pA(count), pT(count);
  std::vector<real*> pC(count);
  for (long long i = 0; i < count; ++i) { pA[i] = A.data() + oA[i]; pT[i] = T.data() + oT[i]; pC[i] = C.data() + oC[i]; }
  run_grid(gx, 1, threads, matrices, 1, shared, [&] {
    ENTRY(pA.data(), 0, 0, (int)ldA, pT.data(), 0, 0, (int)ldT, pC.data(), 0, 0, (int)ldC, (int)count, (int)r, (int)k, (int)nvec, (int)ldt);
  });
#else
  run_grid(gx, 1, threads, matrices, 1, shared, [&] {
    ENTRY(A.data(), offA, strideA, (int)ldA, T.data(), offT, strideT, (int)ldT, C.data(), offC, strideC, (int)ldC, (int)count, (int)r, (int)k, (int)nvec, (int)ldt);
  });
#endif
  write(C);
  return 0;
}

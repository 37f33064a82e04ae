// Runs the dense gesvd route's kernels (kernel.cu: PACK, UNPACK and VALUES, float64, strided operands)
// on the CPU, in the route's order: A packed into G (transposed where asked), G unpacked into X at
// A's layout (read transposed where asked: X is A again), and s and info from the first k elements
// of each G and the given vendor info. Input on stdin: m n count ld stride offset transpose k
// sStride, then A (offset + count * stride + 2 elements) and the vendor info (count ints); output:
// G, flags, X, s, info. Used by test/cuda/vendor-dense-host-emulation.test.ts.
#include "cuda-host-shim.h"
inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
#include "kernel.cu"   // from -I<dir>
int main() {
  long long m, n, count, ld, stride, offset, transpose, k, sStride;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", &m, &n, &count, &ld, &stride, &offset, &transpose, &k, &sStride) != 9) return 2;
  const long long len = offset + count * stride + 2;
  std::vector<real> A(len), G(count * m * n, (real)-1), X(len, (real)-0.5), S(count * sStride + 1, (real)-0.5);
  std::vector<int> vendor(count), flags(count, 0), info(count, -7);
  for (auto& x : A) { double v; if (scanf("%lf", &v) != 1) return 3; x = (real)v; }
  for (auto& x : vendor) if (scanf("%d", &x) != 1) return 4;
  const int parts = PARTS, threads = THREADS;
  run_grid((unsigned)(count * parts), 1, threads, 1, 1, 0, [&] {
    PACK(A.data(), offset, stride, (int)ld, (int)m, (int)n, G.data(), flags.data(), (int)count, parts);
  });
  const int ldG = transpose ? (int)n : (int)m;
  run_grid((unsigned)(count * parts), 1, threads, 1, 1, 0, [&] {
    UNPACK(X.data(), offset, stride, (int)ld, (int)m, (int)n, G.data(), ldG, m * n, flags.data(), (int)count, parts);
  });
  std::vector<real> src(count * k);
  for (long long q = 0; q < count; ++q) for (long long i = 0; i < k; ++i) src[q * k + i] = G[q * m * n + i];
  run_grid((unsigned)count, 1, 32, 1, 1, 0, [&] {
    VALUES(S.data(), 1, sStride, 1, src.data(), flags.data(), vendor.data(), info.data(), nullptr, (int)k, (int)count);
  });
  for (auto& x : G) printf("%.17g\n", (double)x);
  for (auto& x : flags) printf("%d\n", x);
  for (auto& x : X) printf("%.17g\n", (double)x);
  for (auto& x : S) printf("%.17g\n", (double)x);
  for (auto& x : info) printf("%d\n", x);
  return 0;
}

// Runs one launch of the variable-size batched syrk class kernel (kernel.cu, entry ENTRY;
// syrk/generate-vbatched.ts) on the CPU: one std::thread per CUDA thread of a 3-D block, one block
// at a time (cuda-host-shim.h), the dynamic shared memory NaN-filled (the test rewrites the extern
// declaration to use it). Every member's A and C live in one buffer; the pointer table holds host
// addresses into it, the int table n, k, ldA, ldC as the launcher writes them.
// stdin: count gx gy bx by bz shared len, then alpha beta off size, then per member
// offA offC n k ldA ldC. The buffer: len float64 values in the file argv[1], written back to
// argv[2] (binary: a class launch's buffer holds hundreds of thousands of elements).
// Used by test/cuda/vbatched-syrk-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include "cuda-host-vote.h"
using std::fma;
#include "kernel.cu"   // from -I<dir>
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  long long count, gx, gy, bx, by, bz, shared, len;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld", &count, &gx, &gy, &bx, &by, &bz, &shared, &len) != 8) return 2;
  double alpha, beta;
  int off, size;
  if (scanf("%lf %lf %d %d", &alpha, &beta, &off, &size) != 4) return 2;
  std::vector<long long> where(2 * count);
  std::vector<int> dims(4 * count);
  for (long long q = 0; q < count; ++q) {
    if (scanf("%lld %lld", &where[2 * q], &where[2 * q + 1]) != 2) return 2;
    for (int e = 0; e < 4; ++e) if (scanf("%d", &dims[4 * q + e]) != 1) return 2;
  }
  std::vector<double> io(len);
  FILE* in = fopen(argv[1], "rb");
  if (in == nullptr || fread(io.data(), sizeof(double), len, in) != (size_t)len) return 3;
  fclose(in);
  std::vector<real> A(len + 1);
  for (long long i = 0; i < len; ++i) A[i] = (real)io[i];
  std::vector<real*> ptrs(where.size());
  for (size_t i = 0; i < where.size(); ++i) ptrs[i] = A.data() + where[i];
  run_grid(gx, gy, bx, by, bz, shared, [&] {
    ENTRY(ptrs.data(), dims.data(), (int)count, off, size, (real)alpha, (real)beta);
  });
  for (long long i = 0; i < len; ++i) io[i] = (double)A[i];
  FILE* out = fopen(argv[2], "wb");
  if (out == nullptr || fwrite(io.data(), sizeof(double), len, out) != (size_t)len) return 4;
  fclose(out);
  return 0;
}

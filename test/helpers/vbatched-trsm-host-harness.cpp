// Runs one launch of the variable-size batched trsm class kernel (kernel.cu, entry ENTRY;
// trsm/generate-vbatched.ts), or with -DCOPY the posv copies (solve/generate-copy-vbatched.ts), on the CPU: one std::thread per CUDA thread of a 2-D block, one block
// at a time (cuda-host-shim.h), the dynamic shared memory NaN-filled (the test rewrites the extern
// declaration to use it). Every member's A and B live in one buffer; the pointer table holds host
// addresses into it, the int table t, nvec, ldA, ldB as the launcher writes them.
// stdin: count gx gy bx by shared len, then alpha off size nvecMax ldx, then per member
// offA offB t nvec ldA ldB; then len elements. stdout: the buffer.
// -DCOPY: count gx gy bx by shared len, then back and infos (one per batch index), then per member
// offB offCopy rows cols ldB index; then len elements. stdout: the buffer.
// -DPERMUTE (getrs/gesv's row interchanges, solve/generate-permute-vbatched.ts): count gx gy bx by
// shared len, then nMax cap pivotStride useInfo, infos and the infos (one per batch index), pivots
// and the pivots; then per member offB n nrhs ldB index; then len elements. stdout: the buffer.
// Used by test/cuda/vbatched-trsm-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include "cuda-host-vote.h"
using std::fma;
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, gy, bx, by, shared, len;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &gx, &gy, &bx, &by, &shared, &len) != 7) return 2;
#ifdef COPY
  int back, infos;
  if (scanf("%d %d", &back, &infos) != 2) return 2;
  std::vector<int> info(infos);
  for (int i = 0; i < infos; ++i) if (scanf("%d", &info[i]) != 1) return 2;
  std::vector<long long> where(2 * count);
  std::vector<int> dims(4 * count);
  for (long long q = 0; q < count; ++q) {
    if (scanf("%lld %lld", &where[2 * q], &where[2 * q + 1]) != 2) return 2;
    for (int e = 0; e < 4; ++e) if (scanf("%d", &dims[4 * q + e]) != 1) return 2;
  }
#elif defined(PERMUTE)
  int nMax, cap, pivotStride, useInfo, infos, pivots;
  if (scanf("%d %d %d %d", &nMax, &cap, &pivotStride, &useInfo) != 4) return 2;
  if (scanf("%d", &infos) != 1) return 2;
  std::vector<int> info(infos + 1);
  for (int i = 0; i < infos; ++i) if (scanf("%d", &info[i]) != 1) return 2;
  if (scanf("%d", &pivots) != 1) return 2;
  std::vector<int> ipiv(pivots + 1);
  for (int i = 0; i < pivots; ++i) if (scanf("%d", &ipiv[i]) != 1) return 2;
  std::vector<long long> where(count);
  std::vector<int> dims(4 * count);
  for (long long q = 0; q < count; ++q) {
    if (scanf("%lld", &where[q]) != 1) return 2;
    for (int e = 0; e < 4; ++e) if (scanf("%d", &dims[4 * q + e]) != 1) return 2;
  }
#else
  double alpha;
  int off, size, nvecMax, ldx;
  if (scanf("%lf %d %d %d %d", &alpha, &off, &size, &nvecMax, &ldx) != 5) return 2;
  std::vector<long long> where(2 * count);
  std::vector<int> dims(4 * count);
  for (long long q = 0; q < count; ++q) {
    if (scanf("%lld %lld", &where[2 * q], &where[2 * q + 1]) != 2) return 2;
    for (int e = 0; e < 4; ++e) if (scanf("%d", &dims[4 * q + e]) != 1) return 2;
  }
#endif
  std::vector<real> A(len + 1);
  for (long long i = 0; i < len; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; A[i] = (real)strtod(s, nullptr); }
  std::vector<real*> ptrs(where.size());
  for (size_t i = 0; i < where.size(); ++i) ptrs[i] = A.data() + where[i];
  run_grid(gx, gy, bx, by, 1, shared, [&] {
#ifdef COPY
    ENTRY(ptrs.data(), dims.data(), info.data(), (int)count, back);
#elif defined(PERMUTE)
    ENTRY(ptrs.data(), 1, dims.data(), ipiv.data(), pivotStride, useInfo ? info.data() : nullptr, (int)count, nMax, cap);
#else
    ENTRY(ptrs.data(), dims.data(), (int)count, off, size, nvecMax, ldx, (real)alpha);
#endif
  });
  for (long long i = 0; i < len; ++i) printf("%.17g\n", (double)A[i]);
  return 0;
}

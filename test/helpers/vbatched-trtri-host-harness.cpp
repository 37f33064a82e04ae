// Runs one launch of a variable-size batched trtri class kernel (kernel.cu, entry ENTRY;
// trtri/generate-vbatched.ts) on the CPU: one std::thread per CUDA thread of a 2-D block, one block
// at a time (cuda-host-shim.h), the dynamic shared memory NaN-filled (the test rewrites the extern
// declaration to use it). Every member lives in one buffer; the pointer table holds host addresses
// into it, the int table n, ldA, batch index as the launcher writes them.
// stdin: count gx gy bx by shared len, then useInfo unit infos, then per member offA n ldA index;
// then len elements. stdout: the buffer, then the infos. -DSCAN: the scan (its `unit` argument).
// Used by test/cuda/vbatched-trtri-host-emulation.test.ts.
#include "cuda-host-shim.h"
#include "cuda-host-vote.h"
using std::fma;
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, gx, gy, bx, by, shared, len;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &gx, &gy, &bx, &by, &shared, &len) != 7) return 2;
  int useInfo, unit, infos;
  if (scanf("%d %d %d", &useInfo, &unit, &infos) != 3) return 2;
  std::vector<int> info(infos + 1, -99);
  std::vector<long long> where(count);
  std::vector<int> dims(3 * count);
  for (long long q = 0; q < count; ++q) {
    if (scanf("%lld", &where[q]) != 1) return 2;
    for (int e = 0; e < 3; ++e) if (scanf("%d", &dims[3 * q + e]) != 1) return 2;
  }
  std::vector<real> A(len + 1);
  for (long long i = 0; i < len; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; A[i] = (real)strtod(s, nullptr); }
  std::vector<real*> ptrs(count);
  for (long long q = 0; q < count; ++q) ptrs[q] = A.data() + where[q];
  run_grid(gx, gy, bx, by, 1, shared, [&] {
#ifdef SCAN
    ENTRY(ptrs.data(), dims.data(), (int)count, info.data(), unit);
#else
    ENTRY(ptrs.data(), dims.data(), (int)count, useInfo ? info.data() : nullptr);
#endif
  });
  for (long long i = 0; i < len; ++i) printf("%.17g\n", (double)A[i]);
  for (int i = 0; i < infos; ++i) printf("%d\n", info[i]);
  return 0;
}

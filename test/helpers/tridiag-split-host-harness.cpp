// Runs the tridiagonal syev's split design (generate-syev.ts stages 'record' and 'finish',
// generate-apply.ts) and, on a copy of the same input, the one-kernel design, on the CPU: one
// std::thread per CUDA thread, one block at a time (cuda-host-warp.h). The four generated files
// (-I<dir>: one.cu, record.cu, apply.cu, finish.cu; entries ONE, RECORD, APPLY, FINISH) each in a
// namespace of its own (their constants share names), each with its own shared buffer.
// stdin: count threads n ldA strideA rows (the apply kernel's R), then count * strideA elements of A.
// stdout: per matrix the rotations recorded and whether the chain finished in the record kernel;
// then for each design (split first) info, W (count * n), A (count * strideA).
// -DIO=float: the data's element type where the kernels compute in double.
// Used by test/cuda/tridiag-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp; using std::hypot; using std::copysign;
using std::fmin; using std::fmax; using std::min;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }   // CUDA: 1 ulp
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__
#define __align__(x) __attribute__((aligned(x)))
// A kernel's `extern __shared__ ... smem[]` names its namespace's array.
namespace one { alignas(16) unsigned char smem[256 * 1024];
#include "one.cu"
}
namespace rec { alignas(16) unsigned char smem[256 * 1024];
#include "record.cu"
}
namespace app { alignas(16) unsigned char smem[256 * 1024];
#include "apply.cu"
}
namespace fin { alignas(16) unsigned char smem[256 * 1024];
#include "finish.cu"
}
#ifndef IO
#define IO real
#endif
using real = double;

static void poison(unsigned char* p) { memset(p, 0xff, 256 * 1024); }   // NaN garbage

int main() {
  long long count, bx, n, ldA, strideA, rows;
  if (scanf("%lld %lld %lld %lld %lld %lld", &count, &bx, &n, &ldA, &strideA, &rows) != 6) return 2;
  std::vector<IO> A(count * strideA + 1);
  for (long long i = 0; i < count * strideA; ++i) { double v; if (scanf("%lf", &v) != 1) return 3; A[i] = (IO)v; }
  std::vector<IO> A1 = A;
  std::vector<int> info(count, -99), info1(count, -99);
  std::vector<IO> W(count * n + 1), W1(count * n + 1);
  const long long slice = rec::WORK;
  if (fin::WORK != slice || app::WORK != slice) return 4;
  std::vector<real> work(count * slice + 1, std::nan(""));
  std::vector<real> work1(count * (long long)one::WORK + 1);
  gridDim.x = count;
  // Split: record (a block per matrix), apply (blocks of rows x matrices), finish (a block per matrix).
  blockDim.x = bx;
  for (unsigned x = 0; x < count; ++x) {
    poison(rec::smem);
    launch_block(x, 0, bx, [&] { rec::RECORD(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, work.data(), 0LL, info.data(), nullptr, (int)count); });
  }
  std::vector<int> recorded(count), done(count);
  for (long long k = 0; k < count; ++k) {
    const int* hdr = (const int*)(work.data() + k * slice + n * n + 2 * n);
    recorded[k] = hdr[0]; done[k] = hdr[1];
  }
  blockDim.x = rows; gridDim.x = (n + rows - 1) / rows; gridDim.y = count;
  for (unsigned y = 0; y < count; ++y) for (unsigned x = 0; x < gridDim.x; ++x) {
    poison(app::smem);
    launch_block(x, y, rows, [&] { app::APPLY(work.data(), 0LL, (int)count); });
  }
  blockDim.x = bx; gridDim.x = count; gridDim.y = 1;
  for (unsigned x = 0; x < count; ++x) {
    poison(fin::smem);
    launch_block(x, 0, bx, [&] { fin::FINISH(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, work.data(), 0LL, info.data(), nullptr, (int)count); });
  }
  // The one-kernel design on the same input.
  for (unsigned x = 0; x < count; ++x) {
    poison(one::smem);
    launch_block(x, 0, bx, [&] { one::ONE(A1.data(), 0, strideA, (int)ldA, W1.data(), 0, n, (int)n, work1.data(), 0LL, info1.data(), nullptr, (int)count); });
  }
  for (long long k = 0; k < count; ++k) printf("%d %d\n", recorded[k], done[k]);
  for (auto i : info) printf("%d\n", i);
  for (long long i = 0; i < count * n; ++i) printf("%.17g\n", (double)W[i]);
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  for (auto i : info1) printf("%d\n", i);
  for (long long i = 0; i < count * n; ++i) printf("%.17g\n", (double)W1[i]);
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A1[i]);
  return 0;
}

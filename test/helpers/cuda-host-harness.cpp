// Runs one generated trsm/trmm leaf kernel (kernel.cu, entry ENTRY) on the CPU: one std::thread per CUDA
// thread, a std::barrier for __syncthreads, one block at a time with NaN-filled shared memory.
// Input on stdin: the launch (count t nvec ldx alpha offA strideA ldA offB strideB ldB gx gy bx by
// shared lenA lenB), then A and B; output: B. Used by test/cuda/trsm-host-emulation.test.ts.
#include <barrier>
#include <thread>
#include <vector>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<>* g_bar;
unsigned char* g_shared;
inline void __syncthreads() { g_bar->arrive_and_wait(); }
using std::min; using std::max;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
#define __align__(x)
#include "kernel.cu"   // from -I<dir>
int main() {
  long long count, t, nvec, ldx, offA, strideA, ldA, offB, strideB, ldB, gx, gy, bx, by, shared, lenA, lenB;
  double alpha;
  if (scanf("%lld %lld %lld %lld %lf %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &t, &nvec, &ldx, &alpha, &offA, &strideA, &ldA, &offB, &strideB, &ldB, &gx, &gy, &bx, &by, &shared, &lenA, &lenB) != 18) return 2;
  std::vector<real> A(lenA), B(lenB);
  for (auto& x : A) { double v; scanf("%lf", &v); x = (real)v; }
  for (auto& x : B) { double v; scanf("%lf", &v); x = (real)v; }
  blockDim.x = bx; blockDim.y = by; gridDim.x = gx; gridDim.y = gy;
  std::vector<unsigned char> sh(shared + 64);
  for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    memset(sh.data(), 0xff, sh.size());   // NaN garbage
    g_shared = sh.data();
    std::barrier<> bar(bx * by);
    g_bar = &bar;
    std::vector<std::thread> th;
    for (unsigned ty = 0; ty < by; ++ty) for (unsigned tx = 0; tx < bx; ++tx)
      th.emplace_back([&, tx, ty] { threadIdx.x = tx; threadIdx.y = ty; blockIdx.x = x; blockIdx.y = y;
        ENTRY(A.data(), offA, strideA, (int)ldA, B.data(), offB, strideB, (int)ldB, (int)count, (int)t, (int)nvec, (int)ldx, (real)alpha); });
    for (auto& h : th) h.join();
  }
  for (auto& x : B) printf("%.17g\n", (double)x);
  return 0;
}

// Runs the tridiagonal syev's inverse-iteration design (generate-syev.ts stages 'reduce' and 'store',
// generate-stein.ts's values and vectors kernels) on the CPU: one std::thread per CUDA thread, one
// block at a time (cuda-host-warp.h), and V := Q V between the vectors and store kernels in plain C++
// (dorm2r with the reflectors of rows 1 ... n-1; the GPU runs the project's ormqr there). The four
// generated files (-I<dir>: reduce.cu, values.cu, vectors.cu, store.cu; entries REDUCE, VALUES,
// VECTORS, STORE) each in a namespace of its own.
// With -DPANEL=<entry> (and panel.cu) the reduce stage is the load stage and the blocked reduction runs
// between it and the values kernel: panels of NBP columns, each followed by Z(p1:n, p1:n) -= V W^T +
// W V^T in plain C++ (the GPU runs two GEMMs there).
// stdin: count threads n ldA strideA steinThreads parts, then count * strideA elements of A.
// argv: the slice's offsets of tau, V and Wb.
// stdout: info (count), W (count * n), A (count * strideA).
// -DIO=float: the data's element type where the kernels compute in double.
// With -DCLUSTERS=<entry> -DCLUSTER_THREADS=<t> (and clusters.cu): the clusters kernel after the vectors kernel.
// Used by test/cuda/tridiag-stein-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp; using std::hypot; using std::copysign;
using std::fmin; using std::fmax; using std::min;
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }   // CUDA: 1 ulp
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __align__(x) __attribute__((aligned(x)))
#define __shared__
namespace red { alignas(16) unsigned char smem[256 * 1024];
#include "reduce.cu"
}
namespace sto { alignas(16) unsigned char smem[256 * 1024];
#include "store.cu"
}
#undef __shared__
#define __shared__ static
namespace val {
#include "values.cu"
}
#ifdef VECTORS
namespace vec {
#include "vectors.cu"
}
#endif
#ifdef PANEL
namespace pan {
#include "panel.cu"
}
#endif
#ifdef CLUSTERS
namespace clu {
#include "clusters.cu"
}
#endif
#ifndef IO
#define IO real
#endif
using real = double;

int main(int argc, char** argv) {
  long long count, bx, n, ldA, strideA, sx, parts, tau, v;
  if (argc != 4) return 1;
  tau = atoll(argv[1]); v = atoll(argv[2]);   // the slice's offsets of tau and V
  const long long wb = atoll(argv[3]);          // and of the panel's W
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &bx, &n, &ldA, &strideA, &sx, &parts) != 7) return 2;
  std::vector<IO> A(count * strideA + 1);
  for (long long i = 0; i < count * strideA; ++i) { double x; if (scanf("%lf", &x) != 1) return 3; A[i] = (IO)x; }
  std::vector<int> info(count, -99);
  std::vector<IO> W(count * n + 1);
  const long long slice = red::WORK;
  if (sto::WORK != slice || val::SLICE != slice || val::PARTS != parts) return 4;
  std::vector<real> work(count * slice + 1, std::nan(""));
  blockDim.x = bx; gridDim.x = count;
  for (unsigned x = 0; x < count; ++x) {
    memset(red::smem, 0xff, sizeof red::smem);
    launch_block(x, 0, bx, [&] { red::REDUCE(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, work.data(), 0LL, info.data(), nullptr, (int)count); });
  }
#ifdef PANEL
  for (long long p0 = 0; p0 < n - 1; p0 += pan::NB) {
    const long long p1 = std::min(p0 + (long long)pan::NB, n - 1);
    for (unsigned x = 0; x < count; ++x)
      launch_block(x, 0, bx, [&] { pan::PANEL(work.data(), 0LL, (int)count, (int)p0); });
    for (long long k = 0; k < count; ++k) {
      real* s = work.data() + k * slice;
      if (((int*)(s + n * n + 2 * n))[2] != 0) continue;   // failed: the panels did nothing
      for (long long c = p1; c < n; ++c)
        for (long long r = p1; r < n; ++r) {
          real acc = s[r + c * n];
          for (long long j = 0; j < p1 - p0; ++j)
            acc -= s[r + (p0 + j) * n] * s[wb + c + j * n] + s[wb + r + j * n] * s[c + (p0 + j) * n];
          s[r + c * n] = acc;
        }
    }
  }
#endif
  blockDim.x = sx; gridDim.x = count * parts;
  for (unsigned x = 0; x < count * parts; ++x)
    launch_block(x, 0, sx, [&] { val::VALUES(work.data(), 0LL, (int)count); });
#ifdef VECTORS
  for (unsigned x = 0; x < count * parts; ++x)
    launch_block(x, 0, sx, [&] { vec::VECTORS(work.data(), 0LL, (int)count); });
#endif
#ifdef CLUSTERS
  blockDim.x = CLUSTER_THREADS; gridDim.x = count;
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, CLUSTER_THREADS, [&] { clu::CLUSTERS(work.data(), 0LL, (int)count); });
#endif
  blockDim.x = bx; gridDim.x = count;
  // V := H(0) ... H(n-3) V per matrix: reflector i has 1 at row i + 1 and its tail in Z(i+2:n, i).
#ifdef VECTORS
  for (long long k = 0; k < count; ++k) {
    real* s = work.data() + k * slice;
    for (long long i = n - 3; i >= 0; --i) {
      const real t = s[tau + i];
      if (t == 0) continue;
      for (long long j = 0; j < n; ++j) {
        real* c = s + v + j * n;
        real acc = c[i + 1];
        for (long long r = i + 2; r < n; ++r) acc += s[r + i * n] * c[r];
        acc *= t;
        c[i + 1] -= acc;
        for (long long r = i + 2; r < n; ++r) c[r] -= acc * s[r + i * n];
      }
    }
  }
#endif
  for (unsigned x = 0; x < count; ++x) {
    memset(sto::smem, 0xff, sizeof sto::smem);
    launch_block(x, 0, bx, [&] { sto::STORE(A.data(), 0, strideA, (int)ldA, W.data(), 0, n, (int)n, work.data(), 0LL, info.data(), nullptr, (int)count); });
  }
  for (auto i : info) printf("%d\n", i);
  for (long long i = 0; i < count * n; ++i) printf("%.17g\n", (double)W[i]);
  for (long long i = 0; i < count * strideA; ++i) printf("%.17g\n", (double)A[i]);
  return 0;
}

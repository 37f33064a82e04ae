// Runs the bidiagonalization gesvd (kernels/bidiag/: reduce, vectors and store; the tridiag family's
// values and vectors kernels in their upper-half form) on the CPU: one std::thread per CUDA thread, one
// block at a time (cuda-host-warp.h), and U := Q_B U_B, V := P_B V_B between the vectors and store
// kernels in plain C++ (dorm2r; the GPU runs the project's ormqr there). The five generated files
// (-I<dir>: reduce.cu, values.cu, vectors.cu, bvectors.cu, store.cu; entries REDUCE, VALUES, VECTORS
// (absent: values only), BVECTORS, STORE) each in a namespace of its own.
// stdin: count m n ldA strideA reduceThreads steinThreads parts vectorsThreads storeThreads, then count * strideA elements of A.
// argv: the bidiag slice's offsets of W, UB, VB, PM, tauq, taup; then left (0/1), right (0/1).
// stdout: info (count), S (count * k), U (count * m * k, ld m), VT (count * k * n, ld k).
// -DIO=float: the data's element type where the kernels compute in double.
// With -DPANEL=<entry> and -DTAIL=<entry> (panel.cu, tail.cu) the reduce kernel is the load stage and
// the blocked reduction follows it: panels of nb columns (argv 9) at 0, nb, ... below `from` (argv 10),
// each followed by W(p1:M, p1:K) -= V Y^T + X U in plain C++ (the GPU runs two GEMMs there), then the
// tail stage.
// With -DCLUSTERS=<entry> -DCLUSTER_THREADS=<t> (and clusters.cu): the clusters kernel after the vectors kernel.
// Used by test/cuda/gesvd-bidiag-host-emulation.test.ts.
#include "cuda-host-warp.h"
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp; using std::copysign;
using std::fmin; using std::fmax; using std::min;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __align__(x) __attribute__((aligned(x)))
#define __shared__ static
namespace red {
#include "reduce.cu"
}
#ifdef PANEL
namespace pan {
#include "panel.cu"
}
namespace tai {
#include "tail.cu"
}
#endif
namespace val {
#include "values.cu"
}
#ifdef VECTORS
namespace vec {
#include "vectors.cu"
}
#endif
namespace bvec {
#include "bvectors.cu"
}
namespace sto {
#include "store.cu"
}
#ifdef CLUSTERS
namespace clu {
#include "clusters.cu"
}
#endif
#ifndef IO
#define IO real
#endif
using real = double;

// C (rows x cols, ld ldc) := H(0) ... H(nr-1) C, reflector j: 1 at row j, tail a[j+1 ..., j] (ld lda).
static void applyReflectors(const real* a, long long lda, const real* tau, long long nr, real* c, long long rows, long long cols, long long ldc) {
  for (long long i = nr - 1; i >= 0; --i) {
    const real t = tau[i];
    if (t == 0) continue;
    for (long long j = 0; j < cols; ++j) {
      real* cj = c + j * ldc;
      real acc = cj[i];
      for (long long r = i + 1; r < rows; ++r) acc += a[r + i * lda] * cj[r];
      acc *= t;
      cj[i] -= acc;
      for (long long r = i + 1; r < rows; ++r) cj[r] -= acc * a[r + i * lda];
    }
  }
}

int main(int argc, char** argv) {
  long long count, m, n, ldA, strideA, bx, sx, parts, vx, tx;
#ifdef PANEL
  if (argc != 11) return 1;
  const long long nb = atoll(argv[9]), from = atoll(argv[10]);
#else
  if (argc != 9) return 1;
#endif
  const long long ow = atoll(argv[1]), oub = atoll(argv[2]), ovb = atoll(argv[3]), opm = atoll(argv[4]), otq = atoll(argv[5]), otp = atoll(argv[6]);
  const bool left = atoi(argv[7]) != 0, right = atoi(argv[8]) != 0;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &m, &n, &ldA, &strideA, &bx, &sx, &parts, &vx, &tx) != 10) return 2;
  const long long k = std::min(m, n), rows = std::max(m, n);
  std::vector<IO> A(count * strideA + 1);
  for (long long i = 0; i < count * strideA; ++i) { double x; if (scanf("%lf", &x) != 1) return 3; A[i] = (IO)x; }
  std::vector<int> info(count, -99);
  std::vector<IO> S(count * k + 1), U(count * m * k + 1), VT(count * k * n + 1);
  const long long slice = red::SLICE, bslice = red::BSLICE;
  if (val::SLICE != slice || sto::BSLICE != bslice || val::PARTS != parts) return 4;
  std::vector<real> work(count * slice + 1, std::nan("")), bwork(count * bslice + 1, std::nan(""));
  gridDim.x = count;
  blockDim.x = bx;
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, bx, [&] { red::REDUCE(A.data(), 0, strideA, (int)ldA, work.data(), bwork.data(), 0LL, (int)count); });
#ifdef PANEL
  for (long long p0 = 0; p0 < from; p0 += nb) {
    for (unsigned x = 0; x < count; ++x)
      launch_block(x, 0, bx, [&] { pan::PANEL(work.data(), bwork.data(), 0LL, (int)count, (int)p0); });
    // W(p1:M, p1:K) -= V Y^T + X U (V W's columns p0 ... p1-1 below p1, U its rows p0 ... p1-1, X in UB, Y in VB).
    const long long p1 = p0 + nb;
    for (long long q = 0; q < count; ++q) {
      real* b = bwork.data() + q * bslice;
      real* W = b + ow; const real* X = b + oub; const real* Y = b + ovb;
      for (long long j = p1; j < k; ++j)
        for (long long r = p1; r < rows; ++r) {
          real acc = W[r + j * rows];
          for (long long l = 0; l < nb; ++l) acc -= W[r + (p0 + l) * rows] * Y[j + l * k] + X[r + l * rows] * W[p0 + l + j * rows];
          W[r + j * rows] = acc;
        }
    }
  }
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, bx, [&] { tai::TAIL(A.data(), 0, strideA, (int)ldA, work.data(), bwork.data(), 0LL, (int)count); });
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
  blockDim.x = vx; gridDim.x = count;
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, vx, [&] { bvec::BVECTORS(work.data(), bwork.data(), 0LL, (int)count); });
  for (long long q = 0; q < count; ++q) {
    real* b = bwork.data() + q * bslice;
    if (((int*)(work.data() + q * slice + 4 * k * k + 4 * k))[2] != 0) continue;   // failed
    if (left) applyReflectors(b + ow, rows, b + otq, k, b + oub, rows, k, rows);
    if (right && k >= 3) applyReflectors(b + opm + 1, k, b + otp, k - 2, b + ovb + 1, k - 1, k, k);
  }
  blockDim.x = tx;
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, tx, [&] { sto::STORE(S.data(), 0, k, (int)k, U.data(), 0, m * k, (int)m, VT.data(), 0, k * n, (int)k,
      work.data(), bwork.data(), 0LL, info.data(), nullptr, (int)count); });
  for (auto i : info) printf("%d\n", i);
  for (long long i = 0; i < count * k; ++i) printf("%.17g\n", (double)S[i]);
  for (long long i = 0; i < count * m * k; ++i) printf("%.17g\n", (double)U[i]);
  for (long long i = 0; i < count * k * n; ++i) printf("%.17g\n", (double)VT[i]);
  return 0;
}

// Runs the complex bidiagonalization gesvd (kernels/zbidiag/: reduce, widen and store; the tridiag
// family's values and vectors kernels in their upper-half form; the bidiag family's vectors kernel) on
// the CPU: one std::thread per CUDA thread, one block at a time (cuda-host-warp.h), and U := Q_B U,
// V := P_B V between the widen and store kernels in plain C++ (zunm2r; the GPU runs the zqr family's
// unmqr there). The generated files (-I<dir>: reduce.cu, values.cu, vectors.cu, bvectors.cu, widen.cu,
// store.cu; entries REDUCE, VALUES, VECTORS and WIDEN (absent: values only), BVECTORS, STORE) each in a
// namespace of its own.
// stdin: count m n ldA strideA reduceThreads steinThreads parts vectorsThreads storeThreads, then
//   count * strideA pairs of A (re im).
// argv: the complex slice's offsets of W, UB, VB, PM, tauq, taup (reals); the tridiag slice's hdr; left (0/1), right (0/1).
// stdout: info (count), S (count * k), U (count * m * k pairs, ld m), VT (count * k * n pairs, ld k), a number a line.
// -DIO=float: the data's element type where the kernels compute in double.
// With -DCLUSTERS=<entry> -DCLUSTER_THREADS=<t> (and clusters.cu): the clusters kernel after the vectors kernel.
// Used by test/cuda/zgesvd-large-host-emulation.test.ts.
#include "cuda-host-warp.h"
#include <complex>
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp; using std::copysign;
using std::fmin; using std::fmax; using std::min;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __align__(x) __attribute__((aligned(x)))
#define __shared__ static
namespace red {
#include "reduce.cu"
}
namespace val {
#include "values.cu"
}
#ifdef VECTORS
namespace vec {
#include "vectors.cu"
}
namespace wid {
#include "widen.cu"
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
using cplx = std::complex<double>;

// C (rows x cols, ld ldc; pairs) := H(0) ... H(nr-1) C, H(i) = I - tau_i v v^H, v: 1 at row i, tail a[i+1 ..., i] (ld lda).
static void applyReflectors(const cplx* a, long long lda, const cplx* tau, long long nr, cplx* c, long long rows, long long cols, long long ldc) {
  for (long long i = nr - 1; i >= 0; --i) {
    const cplx t = tau[i];
    if (t == cplx(0)) continue;
    for (long long j = 0; j < cols; ++j) {
      cplx* cj = c + j * ldc;
      cplx acc = cj[i];
      for (long long r = i + 1; r < rows; ++r) acc += std::conj(a[r + i * lda]) * cj[r];
      acc *= t;
      cj[i] -= acc;
      for (long long r = i + 1; r < rows; ++r) cj[r] -= acc * a[r + i * lda];
    }
  }
}

int main(int argc, char** argv) {
  long long count, m, n, ldA, strideA, bx, sx, parts, vx, tx;
  if (argc != 10) return 1;
  const long long ow = atoll(argv[1]), oub = atoll(argv[2]), ovb = atoll(argv[3]), opm = atoll(argv[4]), otq = atoll(argv[5]), otp = atoll(argv[6]), ohdr = atoll(argv[7]);
  const bool left = atoi(argv[8]) != 0, right = atoi(argv[9]) != 0;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &m, &n, &ldA, &strideA, &bx, &sx, &parts, &vx, &tx) != 10) return 2;
  const long long k = std::min(m, n), rows = std::max(m, n);
  std::vector<IO> A(2 * count * strideA + 2);
  for (long long i = 0; i < 2 * count * strideA; ++i) { double x; if (scanf("%lf", &x) != 1) return 3; A[i] = (IO)x; }
  std::vector<int> info(count, -99);
  std::vector<IO> S(count * k + 1), U(2 * count * m * k + 2), VT(2 * count * k * n + 2);
  const long long slice = red::SLICE, bslice = red::BSLICE, cslice = red::CSLICE;
  if (val::SLICE != slice || bvec::BSLICE != bslice || sto::CSLICE != cslice || val::PARTS != parts) return 4;
  std::vector<real> work(count * slice + 1, std::nan("")), bwork(count * bslice + 1, std::nan("")), cwork(count * cslice + 2, std::nan(""));
  gridDim.x = count;
  blockDim.x = bx;
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, bx, [&] { red::REDUCE((const red::io2*)A.data(), 0, strideA, (int)ldA, work.data(), bwork.data(), cwork.data(), 0LL, (int)count); });
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
  blockDim.x = tx;
#ifdef VECTORS
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, tx, [&] { wid::WIDEN(work.data(), bwork.data(), cwork.data(), 0LL, (int)count); });
#endif
  for (long long q = 0; q < count; ++q) {
    cplx* c = (cplx*)(cwork.data() + q * cslice);
    if (((int*)(work.data() + q * slice + ohdr))[2] != 0) continue;   // failed
    if (left) applyReflectors(c + ow / 2, rows, c + otq / 2, k, c + oub / 2, rows, k, rows);
    if (right && k >= 2) applyReflectors(c + opm / 2 + 1, k, c + otp / 2, k - 1, c + ovb / 2 + 1, k - 1, k, k);
  }
  for (unsigned x = 0; x < count; ++x)
    launch_block(x, 0, tx, [&] { sto::STORE(S.data(), 0, k, (int)k, (sto::io2*)U.data(), 0, m * k, (int)m, (sto::io2*)VT.data(), 0, k * n, (int)k,
      work.data(), bwork.data(), cwork.data(), 0LL, info.data(), nullptr, (int)count); });
  for (auto i : info) printf("%d\n", i);
  for (long long i = 0; i < count * k; ++i) printf("%.17g\n", (double)S[i]);
  for (long long i = 0; i < 2 * count * m * k; ++i) printf("%.17g\n", (double)U[i]);
  for (long long i = 0; i < 2 * count * k * n; ++i) printf("%.17g\n", (double)VT[i]);
  return 0;
}

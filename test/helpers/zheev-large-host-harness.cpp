// Runs the complex heev's tridiagonal design (kernels/zheev/: reduce.cu and store.cu; the tridiag
// family's values.cu and, with -DVECTORS, vectors.cu; entries REDUCE, STORE, VALUES, VECTORS) on the
// CPU in the order its launcher launches them: one std::thread per CUDA thread, one block at a time
// (cuda-host-warp.h), each file in a namespace of its own, chunk after chunk as recorded. A chunk's
// workspace (NaN-filled once, reused by the next chunk as the device's is): its real slices, then its
// complex slices.
// A and W lie in one buffer of IO (double, or float with -DIO=float): A's matrices at pair offsets,
// W's at real offsets. -DPA: both operands in the pointer form (arrays of host addresses into the
// buffer, one per matrix), else strided.
// With -DCLUSTERS=<entry> -DCLUSTER_THREADS=<t> (and clusters.cu): the clusters kernel after the vectors kernel.
// stdin: count threads steinThreads parts storeThreads storeParts len chunks, then the chunks' first matrix and matrices
// (first blocks each), then per operand (A, W) offset stride ld and, in the pointer form, count
// element offsets, then len numbers (the buffer). stdout: the buffer, then count info values. Used by test/cuda/zheev-large-host-emulation.test.ts.
#include "cuda-host-warp.h"
#include <cstdlib>
using std::fma; using std::sqrt; using std::fabs; using std::ilogb; using std::ldexp; using std::copysign;
using std::fmin; using std::fmax; using std::min;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __align__(x) __attribute__((aligned(x)))
#define __shared__ static
namespace red {
#include "reduce.cu"
}
namespace sto {
#include "store.cu"
}
namespace val {
#include "values.cu"
}
#ifdef VECTORS
namespace vec {
#include "vectors.cu"
}
#endif
#ifdef CLUSTERS
namespace clu {
#include "clusters.cu"
}
#endif
#ifndef IO
#define IO double
#endif

struct Operand { long long off, stride; int ld; std::vector<long long> elems; };
static bool readOperand(Operand& o, long long count) {
  if (scanf("%lld %lld %d", &o.off, &o.stride, &o.ld) != 3) return false;
#ifdef PA
  for (long long q = 0; q < count; ++q) { long long e; if (scanf("%lld", &e) != 1) return false; o.elems.push_back(e); }
#endif
  return true;
}

int main() {
  long long count, bx, sx, parts, tx, tparts, len, chunks;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld", &count, &bx, &sx, &parts, &tx, &tparts, &len, &chunks) != 8) return 2;
  std::vector<long long> firsts(chunks), blocks(chunks);
  long long most = 0;
  for (long long c = 0; c < chunks; ++c) { if (scanf("%lld %lld", &firsts[c], &blocks[c]) != 2) return 2; most = std::max(most, blocks[c]); }
  Operand a, w;
  if (!readOperand(a, count) || !readOperand(w, count)) return 2;
  std::vector<IO> buf(len + 2);
  for (long long i = 0; i < len; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; buf[i] = (IO)strtod(s, nullptr); }
  if (red::SLICE != val::SLICE || sto::SLICE != val::SLICE || red::CSLICE != sto::CSLICE || val::PARTS != parts) return 4;
  std::vector<double> ws(most * (red::SLICE + red::CSLICE) + 1, std::nan(""));
  std::vector<int> info(count, -99);
  using rio2 = red::io2;
  using sio2 = sto::io2;
#ifdef PA
  std::vector<const rio2*> ra; std::vector<sio2*> sa; std::vector<IO*> sw;
  for (long long q = 0; q < count; ++q) {
    ra.push_back(reinterpret_cast<const rio2*>(buf.data()) + a.elems[q]);
    sa.push_back(reinterpret_cast<sio2*>(buf.data()) + a.elems[q]);
    sw.push_back(buf.data() + w.elems[q]);
  }
#define RA ra.data()
#define SA sa.data()
#define SW sw.data()
#else
#define RA reinterpret_cast<const rio2*>(buf.data())
#define SA reinterpret_cast<sio2*>(buf.data())
#define SW buf.data()
#endif
  for (long long c = 0; c < chunks; ++c) {
    const long long first = firsts[c], nb = blocks[c];
    double* work = ws.data();
    double* cwork = ws.data() + nb * red::SLICE;   // the launcher's: the complex slices after the chunk's real ones
    blockDim.x = bx; gridDim.x = nb;
    for (unsigned x = 0; x < nb; ++x)
      launch_block(x, 0, bx, [&] { red::REDUCE(RA, a.off, a.stride, a.ld, work, cwork, first, (int)count); });
    blockDim.x = sx; gridDim.x = nb * parts;
    for (unsigned x = 0; x < nb * parts; ++x)
      launch_block(x, 0, sx, [&] { val::VALUES(work, first, (int)count); });
#ifdef VECTORS
    for (unsigned x = 0; x < nb * parts; ++x)
      launch_block(x, 0, sx, [&] { vec::VECTORS(work, first, (int)count); });
#endif
#ifdef CLUSTERS
    blockDim.x = CLUSTER_THREADS; gridDim.x = nb;
    for (unsigned x = 0; x < nb; ++x)
      launch_block(x, 0, CLUSTER_THREADS, [&] { clu::CLUSTERS(work, first, (int)count); });
#endif
    blockDim.x = tx; gridDim.x = nb; gridDim.y = tparts;
    for (unsigned y = 0; y < tparts; ++y) for (unsigned x = 0; x < nb; ++x)
      launch_block(x, y, tx, [&] { sto::STORE(SA, a.off, a.stride, a.ld, SW, w.off, w.stride, w.ld, work, cwork, first, info.data(), nullptr, (int)count); });
    gridDim.y = 1;
  }
  for (long long i = 0; i < len; ++i) printf("%.17g\n", (double)buf[i]);
  for (long long q = 0; q < count; ++q) printf("%d\n", info[q]);
  return 0;
}

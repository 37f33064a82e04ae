// Runs a generated TMA gemm kernel (src/cuda/kernels/gemm/generate-tma.ts) on the CPU, one block
// at a time, a std::thread per CUDA thread (cuda-host-warp.h), with the device helpers the
// kernel leaves to a host harness (MYRIAD_HOST_EMULATION):
// - shared memory is g_smem, whose first byte has the shared address SHARED_BASE (not a multiple
//   of 1024: the kernel must round its ring up itself);
// - tmaLoad copies a box of a 3-D tensor map at once, zeros outside the tensor, into shared
//   memory with the 128-byte swizzle applied to the shared address (16-byte unit bits 4-6 XOR
//   bits 7-9), then completes its bytes on the barrier;
// - an mbarrier is a pending-arrival count, a transaction byte count and a count of completed
//   phases (a phase completes when both reach zero); waiting for parity P returns once the
//   completed phases' parity differs from P;
// - mmaF64 (m16n8k8), mmaF64k4 and mmaF64k16 gather the warp's fragments (PTX ISA, .f64) and
//   compute each lane's four accumulators from them.
// The kernel's dynamic shared array is replaced by g_smem by the test. Input (stdin, text):
// threads bm bn m n k count alpha beta blocks (0: one per tile and matrix, else a persistent grid); for A and B: dims[3], strides[2] (bytes), box[3], length,
// data; C: offset stride ld length data. Output: C's buffer, one %.17g per line.
#define MYRIAD_HOST_EMULATION 1
#include "cuda-host-warp.h"
#include <atomic>
#include <map>
#include <mutex>
#include <iostream>
#include <string>
#include <cstdlib>
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
using std::min; using std::max; using std::fma;

struct double2 { double x, y; };
constexpr unsigned SHARED_BASE = 16;
alignas(1024) static unsigned char g_smem[1 << 18];
static unsigned sharedAddress(const void* p) { return SHARED_BASE + (unsigned)((const unsigned char*)p - g_smem); }
static unsigned char* sharedPointer(unsigned a) { return g_smem + (a - SHARED_BASE); }

struct TmaMap { const double* base; long long dims[3]; long long strides[2]; int box[3]; };

struct Barrier { long long count = 0, pending = 0, tx = 0; unsigned completed = 0; };
static std::mutex g_barMutex;
static std::map<unsigned, Barrier> g_bars;
static void settle(Barrier& b) {
  if (b.pending == 0 && b.tx == 0) { b.completed++; b.pending = b.count; }
}
static void mbarInit(unsigned bar, unsigned count) {
  std::lock_guard<std::mutex> lock(g_barMutex);
  g_bars[bar] = Barrier{count, count, 0, 0};
}
static void fenceBarrierInit() {}
static void mbarExpectBytes(unsigned bar, unsigned bytes) {
  std::lock_guard<std::mutex> lock(g_barMutex);
  Barrier& b = g_bars.at(bar);
  b.tx += bytes;
  b.pending--;
  settle(b);
}
static void mbarArrive(unsigned bar) {
  std::lock_guard<std::mutex> lock(g_barMutex);
  Barrier& b = g_bars.at(bar);
  if (b.pending <= 0) { fprintf(stderr, "arrival on a barrier with no pending arrivals\n"); std::abort(); }
  b.pending--;
  settle(b);
}
static void mbarWait(unsigned bar, unsigned parity) {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(g_barMutex);
      if ((g_bars.at(bar).completed & 1u) != parity) return;
    }
    std::this_thread::yield();
  }
}
static void prefetchMaps(const TmaMap*, const TmaMap*) {}
static void tmaLoad(unsigned dst, const TmaMap* map, unsigned bar, int x, int y, int z) {
  // Boxes of 128-byte rows start on a 1024-byte boundary (the swizzle's period) in this design.
  if ((dst & 1023u) != 0) { fprintf(stderr, "tmaLoad to shared address %u: not 1024-byte aligned\n", dst); std::abort(); }
  if (map->box[0] * 8 != 128) { fprintf(stderr, "inner box of %d bytes, not the 128-byte swizzle's\n", map->box[0] * 8); std::abort(); }
  long long bytes = 0;
  for (int c = 0; c < map->box[2]; ++c) for (int r = 0; r < map->box[1]; ++r) for (int e = 0; e < map->box[0]; ++e) {
    const long long gx = (long long)x + e, gy = (long long)y + r, gz = (long long)z + c;
    const bool inside = gx >= 0 && gy >= 0 && gz >= 0 && gx < map->dims[0] && gy < map->dims[1] && gz < map->dims[2];
    const double v = inside ? map->base[gx + gy * map->strides[0] / 8 + gz * map->strides[1] / 8] : 0.0;
    const unsigned linear = dst + (unsigned)(((c * map->box[1] + r) * map->box[0] + e) * 8);
    const unsigned swizzled = linear ^ (((linear >> 7) & 7u) << 4);
    std::memcpy(sharedPointer(swizzled), &v, 8);
    bytes += 8;
  }
  std::lock_guard<std::mutex> lock(g_barMutex);
  Barrier& b = g_bars.at(bar);
  b.tx -= bytes;
  settle(b);
}
static double2 ld2(const double* p) { double2 v; std::memcpy(&v, p, 16); return v; }

static double g_frag[MAXW][32][12];
// One m16n8kK tile of a warp: each lane's K / 2 values of A and K / 4 of B gathered, then each
// lane's four accumulators (PTX ISA, "Matrix Fragments for mma.m16n8k4 / k8 / k16" with .f64:
// a_{2j} = A(g, q + 4j), a_{2j+1} = A(g + 8, q + 4j), b_j = B(q + 4j, g), c = C(g + 8 (r / 2), 2q + r % 2)).
template <int K>
static void mmaTile(double (&c)[4], const double* a, const double* b) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  for (int i = 0; i < K / 2; ++i) g_frag[w][l][i] = a[i];
  for (int j = 0; j < K / 4; ++j) g_frag[w][l][K / 2 + j] = b[j];
  g_warp[w]->arrive_and_wait();
  const int g = l / 4, q = l % 4;
  for (int r = 0; r < 4; ++r) {
    const int row = g + 8 * (r >> 1), col = 2 * q + (r & 1);
    double sum = c[r];
    for (int kk = 0; kk < K; ++kk) {
      const double av = g_frag[w][4 * (row % 8) + kk % 4][2 * (kk / 4) + (row >= 8 ? 1 : 0)];
      const double bv = g_frag[w][4 * col + kk % 4][K / 2 + kk / 4];
      sum = fma(av, bv, sum);
    }
    c[r] = sum;
  }
  g_warp[w]->arrive_and_wait();
}
static void mmaF64(double (&c)[4], const double (&a)[4], const double (&b)[2]) { mmaTile<8>(c, a, b); }
static void mmaF64k4(double (&c)[4], double a0, double a1, double b0) {
  const double a[2] = {a0, a1}, b[1] = {b0};
  mmaTile<4>(c, a, b);
}
static void mmaF64k16(double (&c)[4], const double (&a)[4], const double (&a8)[4], const double (&b)[2], const double (&b8)[2]) {
  const double aa[8] = {a[0], a[1], a[2], a[3], a8[0], a8[1], a8[2], a8[3]}, bb[4] = {b[0], b[1], b8[0], b8[1]};
  mmaTile<16>(c, aa, bb);
}

#include "kernel.cu"

static std::vector<double> readArray(long long n) {
  // strtod, not operator>>: C's poison is written as nan.
  std::vector<double> v(n);
  std::string word;
  for (auto& x : v) { std::cin >> word; x = std::strtod(word.c_str(), nullptr); }
  return v;
}
static TmaMap readMap(std::vector<double>& data) {
  TmaMap m{};
  for (auto& d : m.dims) std::cin >> d;
  for (auto& s : m.strides) std::cin >> s;
  for (auto& b : m.box) std::cin >> b;
  long long n; std::cin >> n;
  data = readArray(n);
  m.base = data.data();
  return m;
}

int main() {
  int threads, bm, bn, m, n, k, count, blocks; double alpha, beta;
  std::cin >> threads >> bm >> bn >> m >> n >> k >> count >> alpha >> beta >> blocks;
  std::vector<double> a, b;
  const TmaMap mapA = readMap(a), mapB = readMap(b);
  long long offsetC, strideC; int ldC; long long lengthC;
  std::cin >> offsetC >> strideC >> ldC >> lengthC;
  std::vector<double> c = readArray(lengthC);
  if (!std::cin) { fprintf(stderr, "bad input\n"); return 2; }
  // blocks = 0: a block per tile and matrix (grid x the tiles, y the batch); else a persistent grid of that many.
  const unsigned tiles = blocks > 0 ? (unsigned)blocks : (unsigned)(((m + bm - 1) / bm) * ((n + bn - 1) / bn));
  const int rows = blocks > 0 ? 1 : count;
  gridDim.x = tiles; gridDim.y = rows; gridDim.z = 1; blockDim.x = threads;
  for (int y = 0; y < rows; ++y) for (unsigned x = 0; x < tiles; ++x) {
    std::memset(g_smem, 0xff, sizeof g_smem);   // NaN garbage
    g_bars.clear();
    launch_block(x, y, threads, [&] { blockIdx.z = 0; ENTRY(mapA, mapB, c.data(), offsetC, strideC, ldC, count, alpha, beta, m, n, k); });
  }
  for (double v : c) printf("%.17g\n", v);
  return 0;
}

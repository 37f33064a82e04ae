// Runs the blocked LU's spread leaf (kernels/getrf/generate-spread.ts; kernel.cu, entry ENTRY) on
// the CPU with every block of the grid at once, as its blocks wait for each other: one process per
// block (fork), each with a std::thread per CUDA thread (cuda-host-warp.h) and its own statics as
// the block's shared memory; A, the pivots, info, the slots and the sync words in MAP_SHARED
// memory, the flag and tagged-word accesses as C++ atomics. REAL is double or float.
// stdin: count G threads lenA lenPiv offA strideA ldA pivotStride m w off lenSlots lenSync, then
// lenA elements of A, lenPiv pivots, count infos. stdout: A, the pivots, the infos.
// Used by test/cuda/getrf-spread-host-emulation.test.ts.
#include "cuda-host-warp.h"
#include <atomic>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
using std::fma; using std::fabs; using std::min; using std::max;
#define __shared__ static
#define MYRIAD_HOST_EMULATION 1

// 64-bit lanes exchanged exactly (the primary template goes through a double).
uint64_t g_slot64[MAXW][32];
template <> unsigned long long __shfl_xor_sync<unsigned long long>(unsigned, unsigned long long v, int off) {
  const int w = warpOf(), l = threadIdx.x % 32;
  g_warp[w]->arrive_and_wait();
  g_slot64[w][l] = v;
  g_warp[w]->arrive_and_wait();
  const unsigned long long r = g_slot64[w][l ^ off];
  g_warp[w]->arrive_and_wait();
  return r;
}
inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <typename T> T __ldcg(const T* p) { T v; __atomic_load(p, &v, __ATOMIC_RELAXED); return v; }
inline int acquireFlag(const int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void releaseFlag(int* p) { __atomic_store_n(p, 1, __ATOMIC_RELEASE); }
inline void fenceAcqRel() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void storeRelaxed64(unsigned long long* p, unsigned long long v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
inline void storeRelaxed32(unsigned* p, unsigned v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
inline unsigned long long loadRelaxed64(const unsigned long long* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline unsigned loadRelaxed32(const unsigned* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

#include "kernel.cu"   // from -I<dir>

template <typename T> T* shared(long long n) {
  void* p = mmap(nullptr, sizeof(T) * (n + 1), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); exit(6); }
  return static_cast<T*>(p);   // zero-filled
}

int main() {
  long long count, G, threads, lenA, lenPiv, offA, strideA, ldA, pivotStride, m, w, off, lenSlots, lenSync;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &G, &threads, &lenA, &lenPiv, &offA, &strideA,
            &ldA, &pivotStride, &m, &w, &off, &lenSlots, &lenSync) != 14) return 2;
  real* A = shared<real>(lenA);
  for (long long i = 0; i < lenA; ++i) { char s[64]; if (scanf("%63s", s) != 1) return 3; A[i] = (real)strtod(s, nullptr); }
  int* piv = shared<int>(lenPiv);
  int* info = shared<int>(count);
  for (long long i = 0; i < lenPiv; ++i) if (scanf("%d", &piv[i]) != 1) return 4;
  for (long long i = 0; i < count; ++i) if (scanf("%d", &info[i]) != 1) return 5;
  real* slots = shared<real>(lenSlots);
  for (long long i = 0; i < lenSlots; ++i) slots[i] = (real)NAN;   // garbage the tags must not accept
  int* sync = shared<int>(lenSync);
  blockDim.x = threads; gridDim.x = count * G;
  std::vector<pid_t> kids;
  for (long long b = 0; b < count * G; ++b) {
    const pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 7; }
    if (pid == 0) {
      launch_block(b, 0, threads, [&] {
        ENTRY(A, offA, strideA, (int)ldA, piv, (int)pivotStride, info, (int)count, (int)m, (int)w, (int)off, (int)G, slots, sync);
      });
      fflush(stdout);
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 8;
  }
  for (long long i = 0; i < lenA; ++i) printf("%.17g\n", (double)A[i]);
  for (long long i = 0; i < lenPiv; ++i) printf("%d\n", piv[i]);
  for (long long i = 0; i < count; ++i) printf("%d\n", info[i]);
  return 0;
}

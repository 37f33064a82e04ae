// __syncthreads_or for kernels run on the CPU through cuda-host-shim.h (any block shape): every
// thread arrives, sets a shared flag where its predicate holds, arrives again, reads the flag, and
// the block's first thread resets it after a third barrier. Included by the harnesses of the class
// kernels that vote (vbatched-trsm-, vbatched-syrk- and vbatched-trtri-host-harness.cpp).
#pragma once
#include <atomic>
std::atomic<int> g_or_acc{0};
// The first barrier orders the last call's reset before any set.
inline int __syncthreads_or(int pred) {
  g_bar->arrive_and_wait();
  if (pred) g_or_acc.fetch_or(1);
  g_bar->arrive_and_wait();
  const int any = g_or_acc.load();
  g_bar->arrive_and_wait();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) g_or_acc.store(0);
  return any;
}

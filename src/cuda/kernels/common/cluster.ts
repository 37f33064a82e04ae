/**
 * Thread-block cluster primitives (sm_90; inline PTX, so NVRTC needs no headers), shared by the
 * families whose blocks cooperate in a cluster (tsm2's split-k reduction, getrf's spread leaf).
 * PTX ISA: "Distributed shared memory", "barrier.cluster", "mbarrier".
 */

/**
 * This block's rank in its cluster and the cluster's index in the grid; a barrier over every
 * thread of every block of the cluster with release / acquire semantics; and `peer`: the same
 * shared variable in block `rank` of the cluster, as a generic pointer (mapa), through which plain
 * loads and stores reach that block's shared memory (the compiler batches them; a barrier's memory
 * clobber keeps them on their side of it).
 */
export const CLUSTER_HELPERS = `static __device__ __forceinline__ unsigned clusterRank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
static __device__ __forceinline__ unsigned clusterIndex() { unsigned r; asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r)); return r; }
static __device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
template <typename T> static __device__ __forceinline__ T* peer(T* p, unsigned rank) {
  unsigned long long r;
  asm("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank));
  return reinterpret_cast<T*>(r);
}`;

/**
 * mbarriers a cluster's blocks arrive on remotely: initialised by one thread with the arrivals a
 * phase takes (made visible to the cluster before any remote arrival: mbarrierInitFence, then a
 * cluster barrier), arrived on from another block with release semantics at cluster scope, waited
 * on locally for a phase's parity with acquire; clusterFence orders a thread's earlier stores
 * before its (or, through a warp barrier, its warp's) next arrival.
 */
export const MBARRIER_HELPERS = `static __device__ __forceinline__ unsigned sharedAddress(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
static __device__ __forceinline__ void mbarrierInit(unsigned long long* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sharedAddress(bar)), "r"(arrivals) : "memory");
}
static __device__ __forceinline__ void mbarrierInitFence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
static __device__ __forceinline__ void clusterFence() { asm volatile("fence.acq_rel.cluster;" ::: "memory"); }
// One arrival on the same mbarrier of the block of that rank.
static __device__ __forceinline__ void mbarrierArriveRemote(unsigned long long* bar, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(sharedAddress(bar)), "r"(rank));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(remote) : "memory");
}
// Until the phase of this parity has completed.
static __device__ __forceinline__ void mbarrierWait(unsigned long long* bar, unsigned parity) {
  asm volatile("{\\n\\t.reg .pred done;\\n"
               "WAIT:\\n\\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\\n"
               "\\t@!done bra WAIT;\\n}" :: "r"(sharedAddress(bar)), "r"(parity) : "memory");
}`;

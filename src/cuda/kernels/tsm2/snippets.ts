/**
 * CUDA C++ pieces the TSM2 generators share: vector types, streaming loads, cp.async, and the
 * thread-block-cluster primitives (inline PTX, so NVRTC needs no headers).
 */
import type { DType } from '../../../core/dtype.js';
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import { CLUSTER_HELPERS } from '../common/cluster.js';
import { cType, elementBytes } from '../common/precision.js';

/** The CUDA vector type of `width` elements (1 = the scalar). */
export function vectorType(dtype: DType, width: number): string {
  if (width === 1) return cType(dtype);
  return `${cType(dtype)}${width}`;
}

/** The widest vector (in elements, at most 16 bytes) whose width divides `count`. */
export function widestVector(dtype: DType, count: number): number {
  const max = 16 / elementBytes(dtype);
  for (let w = max; w > 1; w /= 2) if (count % w === 0) return w;
  return 1;
}

/** Component `i` of a vector value (`.x`, `.y`, ...), or the value itself for width 1. */
export function component(value: string, width: number, i: number): string {
  return width === 1 ? value : `${value}.${'xyzw'[i]}`;
}

/** Device functions of the TSM2 kernels: cp.async and cluster helpers only where asked for. */
export function tsm2Prelude(dtype: DType, use: { fma?: boolean; cpAsync?: boolean; cluster?: boolean } = {}): string {
  const bytes = elementBytes(dtype);
  const t = cType(dtype);
  const { type: ptx, register: reg } = dtypeInfo(dtype).cuda.ptx;
  const fma = `static __device__ __forceinline__ real fmaReal(real a, real b, real c) { return ${cudaMath(dtype, 'fma')}(a, b, c); }`;
  const cpAsync = `// Asynchronous global -> shared copy of one element (sm_80+); src-size 0 writes a zero and
// reads nothing, which is how rows past the end of B are padded.
static __device__ __forceinline__ void cpAsyncReal(real* dst, const real* src, bool valid) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], ${bytes}, %2;\\n" :: "r"(s), "l"(src), "r"(valid ? ${bytes} : 0) : "memory");
}
static __device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\\n" ::: "memory"); }
static __device__ __forceinline__ void cpAsyncWaitAll() { asm volatile("cp.async.wait_group 0;\\n" ::: "memory"); }
// All but the newest N committed groups complete (N a compile-time constant).
template <int N> static __device__ __forceinline__ void cpAsyncWait() { asm volatile("cp.async.wait_group %0;\\n" :: "n"(N) : "memory"); }
// BYTES (4, 8 or 16) from global to shared, of which only \`valid\` are read; the rest become zeros.
template <int BYTES> static __device__ __forceinline__ void cpAsyncBytes(void* dst, const void* src, int valid) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  if (BYTES == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\\n" :: "r"(s), "l"(src), "r"(valid) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\\n" :: "r"(s), "l"(src), "n"(BYTES), "r"(valid) : "memory");
}`;
  const cluster = `${CLUSTER_HELPERS}
// A load from the shared memory of block \`rank\` of this cluster.
static __device__ __forceinline__ real loadClusterShared(const real* local, unsigned rank) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(local);
  unsigned remote; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\\n" : "=r"(remote) : "r"(a), "r"(rank));
  real v; asm volatile("ld.shared::cluster.${ptx} %0, [%1];\\n" : "=${reg}"(v) : "r"(remote) : "memory");
  return v;
}`;
  return [`typedef ${t} real;\ntypedef long long i64;`, use.fma === false ? '' : fma,
    use.cpAsync ? cpAsync : '', use.cluster ? cluster : ''].filter((x) => x !== '').join('\n') + '\n';
}

/** Reads op(B)(row, col) from global memory (B's pointer `B`, leading dimension `ldb`). */
export function bIndex(transB: 'N' | 'T', row: string, col: string): string {
  return transB === 'N' ? `(${row}) + (i64)(${col}) * ldb` : `(${col}) + (i64)(${row}) * ldb`;
}

/**
 * The end of a split-k TSM2R kernel, once each block's partial sums are in its `red` buffer
 * ([T2][T1 * V] in shared memory): block `rank` of the cluster adds slice `rank` of all S buffers
 * through distributed shared memory, in rank order (the same bits on every run), and stores the
 * sums with `store(row, col, value)`. `rowBaseDeclaration` declares `rowBase` (the block's first
 * row) where the kernel has not already.
 */
export function clusterReduceAndStore(store: (row: string, col: string, value: string) => string, rowBaseDeclaration = ''): string {
  return `clusterSync();
    {
      const unsigned rank = clusterRank();${rowBaseDeclaration === '' ? '' : `\n      ${rowBaseDeclaration}`}
      for (int e = (int)rank * T1 + tid; e < T1 * V * T2; e += S * T1) {
        const int lr = e % (T1 * V);
        const int col = p + e / (T1 * V);
        real sum = (real)0;
        #pragma unroll
        for (int q = 0; q < S; ++q) sum += loadClusterShared(red + e, (unsigned)q);
        if (rowBase + lr < m && col < N) ${store('rowBase + lr', 'col', 'sum')}
      }
    }
    clusterSync();                         // no block leaves while others read its buffer`;
}

/** The TSM2R kernel's declaration (both designs take the same arguments; `cluster` is its __cluster_dims__ or ''). */
export function tsm2rSignature(name: string, cluster: string, threads: number): string {
  return `extern "C" __global__ void ${cluster}__launch_bounds__(${threads}, 1)
${name}(const int m, const int k, const int kChunk,
    const real* __restrict__ A, const i64 lda,
    const real* __restrict__ B, const i64 ldb,
    real* __restrict__ C, const i64 ldc,
    const real alpha, const real beta)`;
}

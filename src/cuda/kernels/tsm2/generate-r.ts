/**
 * The TSM2R generator (paper 3.1): C (m x n) = alpha op(A) op(B) + beta C, A large (m x k), B tall
 * and skinny (k x n). A pure function from `Tsm2rParams` to CUDA C++.
 *
 * Design, following Algorithm 4 and what sm_90 adds:
 * - Outer product (Algorithm 2): thread t owns rows row0 .. row0+vec-1 of C and t2 accumulators
 *   per row; it streams its rows of A once per pass, so A is read ceil(n / t2) times in all.
 * - B in shared memory (Algorithm 3), row-major per tile so every thread reads the same address
 *   (a broadcast, no bank conflict, section 3.1.4) as 8- or 16-byte vectors.
 * - Prefetch (section 3.1.5): the next t3 k-steps of A are loaded into registers while the
 *   current ones are used; the next B tile is fetched with cp.async into a second buffer instead
 *   of the paper's nextB registers (no registers held, one barrier per tile).
 * - Split k: m = 10240 rows are too few threads to keep an H100's memory busy, so the blocks of
 *   one thread-block cluster (`split`) take disjoint k-ranges of the same rows and add their
 *   partial sums through distributed shared memory, in a fixed order (deterministic, no
 *   workspace, no atomics).
 * - beta = 0 never reads C; rows past m and k past the block's range are guarded, so m and k
 *   need not be multiples of anything.
 */
import { dtypeInfo } from '../../../core/dtype-table.js';
import { elementBytes, precisionLetter } from '../common/precision.js';
import type { KernelSource } from '../../runtime/types.js';
import type { Tsm2rParams } from './params.js';
import { TSM2R_MAX_SPLIT } from './params.js';
import { bIndex, clusterReduceAndStore, tsm2rSignature, component, tsm2Prelude, vectorType, widestVector } from './snippets.js';
import { generateTsm2rStaged, stagedProblems, stagedSharedElements } from './generate-r-staged.js';

/** The kernel's name: every code-changing parameter appears in it. */
export function tsm2rName(p: Tsm2rParams): string {
  const staged = p.stages > 0 ? `_st${p.stages}${p.engine === 'dmma' ? '_dmma' : ''}` : '';
  return `tsm2r_${precisionLetter(p.dtype)}${p.transA}${p.transB}_n${p.n}_t${p.t1}x${p.t2}x${p.t3}_tk${p.tileK}_v${p.vec}_s${p.split}_pf${p.prefetch}${staged}`;
}

/** Dynamic shared memory (bytes): two B tiles, or the cluster's reduction buffer if larger. */
export function tsm2rSharedBytes(p: Tsm2rParams): number {
  if (p.stages > 0) return stagedSharedElements(p) * elementBytes(p.dtype);
  const tiles = 2 * p.tileK * p.t2;
  const reduction = p.split > 1 ? p.t1 * p.vec * p.t2 : 0;
  return Math.max(tiles, reduction) * elementBytes(p.dtype);
}

/** Throws on a parameter set the generated code cannot honour. */
export function checkTsm2rParams(p: Tsm2rParams): void {
  const fail = (why: string): never => { throw new Error(`tsm2r params ${JSON.stringify(p)}: ${why}`); };
  const int = (x: number): boolean => Number.isInteger(x) && x >= 1;
  if (![p.n, p.t1, p.t2, p.t3, p.tileK, p.vec, p.split].every(int)) fail('every size must be a positive integer');
  if (![0, 1, 2, 4].includes(p.prefetch)) fail('prefetch must be 0, 1, 2 or 4 tiles');
  if (p.t1 % 32 !== 0 || p.t1 > 1024) fail('t1 must be a multiple of 32, at most 1024');
  if (p.t2 > p.n) fail('t2 must not exceed n');
  if (p.tileK % p.t3 !== 0) fail('tileK must be a multiple of t3');
  if (![1, 2, 4].includes(p.vec) || p.vec > dtypeInfo(p.dtype).vectorLanes) fail('vec must be 1, 2 (or 4 for float32)');
  if (p.transA === 'T' && p.vec !== 1) fail('vec must be 1 when op(A) = T');
  if (![1, 2, 4, 8].includes(p.split) || p.split > TSM2R_MAX_SPLIT) fail('split must be 1, 2, 4 or 8');
  if (!Number.isInteger(p.stages) || p.stages < 0 || p.stages === 1 || p.stages > 8) fail('stages must be 0 (registers) or 2 ... 8');
  if (p.engine !== 'fma' && p.engine !== 'dmma') fail("engine must be 'fma' or 'dmma'");
  if (p.stages === 0 && p.engine !== 'fma') fail('dmma needs a staged A (stages >= 2)');
  if (p.stages > 0) for (const why of stagedProblems(p)) fail(why);
}

export function generateTsm2r(p: Tsm2rParams): KernelSource {
  checkTsm2rParams(p);
  const name = tsm2rName(p);
  if (p.stages > 0) return generateTsm2rStaged(p, name);
  const V = p.vec;
  const vecA = vectorType(p.dtype, V);
  const W = widestVector(p.dtype, p.t2); // B row read width from shared memory
  const vecB = vectorType(p.dtype, W);
  const cluster = p.split > 1 ? `__cluster_dims__(1, ${p.split}, 1) ` : '';

  // a[u][v] := op(A)(row0 + v, kk + u), zero outside the matrix or past kEnd.
  const loadA = (target: string, kk: string): string => {
    if (p.transA === 'T') {
      return `#pragma unroll
      for (int u = 0; u < T3; ++u) {
        const int kq = ${kk} + u;
        ${target}[u][0] = (kq < kEnd && row0 < m) ? __ldg(A + kq + (i64)row0 * lda) : (real)0;
      }`;
    }
    const parts = Array.from({ length: V }, (_, v) => `${target}[u][${v}] = ${component('t', V, v)};`).join(' ');
    return `#pragma unroll
      for (int u = 0; u < T3; ++u) {
        const int kq = ${kk} + u;
        const real* col = A + (i64)kq * lda + row0;
        if (kq < kEnd && full) {
          const ${vecA} t = __ldcs(reinterpret_cast<const ${vecA}*>(col)); ${parts}
        } else {
          #pragma unroll
          for (int v = 0; v < V; ++v) ${target}[u][v] = (kq < kEnd && row0 + v < m) ? __ldcs(col + v) : (real)0;
        }
      }`;
  };

  // acc[v][j] += aCur[u][v] * Bt[s + u][j], B read W columns at a time.
  const fmaLines: string[] = [];
  for (let j = 0; j < p.t2; j += W) {
    fmaLines.push(`{ const ${vecB} b = *reinterpret_cast<const ${vecB}*>(bRow + ${j});`);
    for (let w = 0; w < W; w++)
      fmaLines.push(`  #pragma unroll
          for (int v = 0; v < V; ++v) acc[v][${j + w}] = fmaReal(aCur[u][v], ${component('b', W, w)}, acc[v][${j + w}]);`);
    fmaLines.push('}');
  }

  // L2 prefetch of this thread's rows of A, `prefetch` tiles ahead (op(A) = N: rows contiguous).
  const prefetch = p.prefetch > 0 && p.transA === 'N' ? `        {
          const int kp = kt + ${p.prefetch} * TK;
          if (row0 < m) {
            #pragma unroll 8
            for (int u = 0; u < TK; ++u)
              if (kp + u < kEnd) asm volatile("prefetch.global.L2 [%0];" :: "l"(A + (i64)(kp + u) * lda + row0));
          }
        }
` : '';

  const store = (row: string, col: string, value: string): string => `{
          real* c = C + (${row}) + (i64)(${col}) * ldc;
          real r = alpha * (${value});
          if (beta != (real)0) r = fmaReal(beta, *c, r); // beta = 0: C is never read
          *c = r;
        }`;

  const epilogue = p.split === 1
    ? `#pragma unroll
    for (int v = 0; v < V; ++v) {
      if (row0 + v < m) {
        #pragma unroll
        for (int j = 0; j < T2; ++j) if (p + j < N) ${store('row0 + v', 'p + j', 'acc[v][j]')}
      }
    }`
    : `// Cluster reduction: every block publishes its partial sums, then block \`rank\` adds slice
    // \`rank\` of all S buffers in rank order (fixed order: the same bits on every run).
    cpAsyncWaitAll();
    __syncthreads();                       // the B tiles are dead; reuse them
    real* red = smem;                      // [T2][T1 * V]
    #pragma unroll
    for (int j = 0; j < T2; ++j) {
      #pragma unroll
      for (int v = 0; v < V; ++v) red[j * (T1 * V) + tid * V + v] = acc[v][j];
    }
    ${clusterReduceAndStore(store, 'const int rowBase = blockIdx.x * (T1 * V);')}`;

  const source = `// ${name}: generated by src/cuda/kernels/tsm2/generate-r.ts (TSM2R, paper Algorithm 4)
${tsm2Prelude(p.dtype, { cpAsync: true, cluster: p.split > 1 })}
constexpr int N = ${p.n}, T1 = ${p.t1}, T2 = ${p.t2}, T3 = ${p.t3}, TK = ${p.tileK}, V = ${V};${p.split > 1 ? ` constexpr int S = ${p.split};` : ""}

${tsm2rSignature(name, cluster, p.t1)}
{
  extern __shared__ __align__(16) unsigned char smemBytes[];
  real* smem = reinterpret_cast<real*>(smemBytes);   // [2][TK][T2]: double-buffered B tiles
  const int tid = threadIdx.x;
  const int row0 = (blockIdx.x * T1 + tid) * V;
  const bool full = row0 + V <= m;
  const int kBegin = blockIdx.y * kChunk;            // this block's share of k
  const int kEnd = min(k, kBegin + kChunk);
  (void)full;

  for (int p = 0; p < N; p += T2) {                  // passes over t2 columns of C
    if (p > 0) __syncthreads();                      // the last pass's B tiles are read
    real acc[V][T2];
    #pragma unroll
    for (int v = 0; v < V; ++v) {
      #pragma unroll
      for (int j = 0; j < T2; ++j) acc[v][j] = (real)0;
    }

    if (kBegin < kEnd) {
      // op(B)(kt .. kt+TK-1, p .. p+T2-1) -> smem[buf], zero past kEnd or n. Consecutive threads
      // fill consecutive shared addresses (no bank conflict); reads of B hit L1 across rows.
      auto loadTileB = [&](int buf, int kt) {
        real* dst = smem + buf * (TK * T2);
        #pragma unroll
        for (int it = 0; it < (TK * T2 + T1 - 1) / T1; ++it) {
          const int e = tid + it * T1;
          if ((TK * T2) % T1 == 0 || e < TK * T2) {
            const int r = e / T2, j = e % T2;
            const bool ok = kt + r < kEnd && p + j < N;
            cpAsyncReal(dst + e, ok ? B + ${bIndex(p.transB, 'kt + r', 'p + j')} : B, ok);
          }
        }
        cpAsyncCommit();
      };

      loadTileB(0, kBegin);
      real aCur[T3][V];
      ${loadA('aCur', 'kBegin')}
      int buf = 0;
      for (int kt = kBegin; kt < kEnd; kt += TK) {
        cpAsyncWaitAll();
        __syncthreads();                             // tile kt visible; everyone done with buf ^ 1
        if (kt + TK < kEnd) loadTileB(buf ^ 1, kt + TK);
${prefetch}        const real* Bt = smem + buf * (TK * T2);
        #pragma unroll 2
        for (int s = 0; s < TK; s += T3) {
          real aNext[T3][V];                         // prefetch: next t3 steps of A
          ${loadA('aNext', 'kt + s + T3')}
          #pragma unroll
          for (int u = 0; u < T3; ++u) {
            const real* bRow = Bt + (s + u) * T2;
            ${fmaLines.join('\n            ')}
          }
          #pragma unroll
          for (int u = 0; u < T3; ++u) {
            #pragma unroll
            for (int v = 0; v < V; ++v) aCur[u][v] = aNext[u][v];
          }
        }
        buf ^= 1;
      }
    }

    ${epilogue}
  }
}
`;
  return { name: `${name}.cu`, source, entry: name };
}

/**
 * The TSM2L generator (paper 3.2): C (m x n) = alpha op(A) op(B) + beta C with A tall and skinny
 * (m x k, k small) and B small (k x n). A pure function from `Tsm2lParams` to CUDA C++.
 *
 * With k this small, TSM2R's threads each do a handful of FMAs and exit: the kernel is latency
 * bound (section 3.2.1). Both of the paper's cures launch only m / tcf threads that walk row
 * tiles with a grid stride, so each thread has many independent loads in flight:
 * - 'opt1' (Algorithm 6): tile after tile, each a complete TSM2R step;
 * - 'opt2' (Algorithm 7): interleaved: while tile r is computed and stored, tile r + 1's rows of A
 *   (and of C when beta != 0: the paper's nextC registers) are already on their way.
 * All of op(B) (k x n) is loaded into shared memory once per block (it always fits), so the
 * paper's per-tile B reloads vanish; k and n are compile-time constants and every loop over them
 * is unrolled. The thread-count factor tcf is the launch's grid size, chosen by the planner.
 */
import { dtypeInfo } from '../../../core/dtype-table.js';
import { precisionLetter } from '../common/precision.js';
import type { KernelSource } from '../../runtime/types.js';
import type { Tsm2lParams } from './params.js';
import { TSM2L_MAX_K, TSM2L_MAX_N } from './params.js';
import { bIndex, component, tsm2Prelude, vectorType, widestVector } from './snippets.js';

export function tsm2lName(p: Tsm2lParams): string {
  return `tsm2l_${precisionLetter(p.dtype)}${p.transA}${p.transB}_k${p.k}_n${p.n}_t${p.t1}_v${p.vec}_${p.variant}`;
}

export function checkTsm2lParams(p: Tsm2lParams): void {
  const fail = (why: string): never => { throw new Error(`tsm2l params ${JSON.stringify(p)}: ${why}`); };
  const int = (x: number): boolean => Number.isInteger(x) && x >= 1;
  if (![p.k, p.n, p.t1, p.vec].every(int)) fail('every size must be a positive integer');
  if (p.k > TSM2L_MAX_K || p.n > TSM2L_MAX_N) fail(`k and n must be at most ${TSM2L_MAX_K} and ${TSM2L_MAX_N}`);
  if (p.t1 % 32 !== 0 || p.t1 > 1024) fail('t1 must be a multiple of 32, at most 1024');
  if (![1, 2, 4].includes(p.vec) || p.vec > dtypeInfo(p.dtype).vectorLanes) fail('vec must be 1, 2 (or 4 for float32)');
  if (p.transA === 'T' && p.vec !== 1) fail('vec must be 1 when op(A) = T');
  if (p.variant !== 'opt1' && p.variant !== 'opt2') fail("variant must be 'opt1' or 'opt2'");
}

export function generateTsm2l(p: Tsm2lParams): KernelSource {
  checkTsm2lParams(p);
  const name = tsm2lName(p);
  const V = p.vec;
  const vec = vectorType(p.dtype, V);
  const W = widestVector(p.dtype, p.n);
  const vecB = vectorType(p.dtype, W);
  const unpack = (target: string, index: string): string =>
    Array.from({ length: V }, (_, v) => `${target}[${index}][${v}] = ${component('t', V, v)};`).join(' ');

  // a[kk][v] := op(A)(row + v, kk); zero past m.
  const loadA = (a: string, row: string): string => p.transA === 'T'
    ? `#pragma unroll
    for (int kk = 0; kk < K; ++kk) ${a}[kk][0] = ${row} < m ? __ldcs(A + kk + ${row} * lda) : (real)0;`
    : `if (${row} + V <= m) {
      #pragma unroll
      for (int kk = 0; kk < K; ++kk) { const ${vec} t = __ldcs(reinterpret_cast<const ${vec}*>(A + ${row} + kk * lda)); ${unpack(a, 'kk')} }
    } else {
      #pragma unroll
      for (int kk = 0; kk < K; ++kk) {
        #pragma unroll
        for (int v = 0; v < V; ++v) ${a}[kk][v] = ${row} + v < m ? __ldcs(A + ${row} + v + kk * lda) : (real)0;
      }
    }`;

  // c[v][j] := C(row + v, j) (only when beta != 0); transposed storage so `unpack` fits.
  const loadC = (c: string, row: string): string => `if (${row} + V <= m) {
      #pragma unroll
      for (int j = 0; j < N; ++j) { const ${vec} t = __ldcs(reinterpret_cast<const ${vec}*>(C + ${row} + j * ldc)); ${unpack(c, 'j')} }
    } else {
      #pragma unroll
      for (int j = 0; j < N; ++j) {
        #pragma unroll
        for (int v = 0; v < V; ++v) ${c}[j][v] = ${row} + v < m ? C[${row} + v + j * ldc] : (real)0;
      }
    }`;

  const fma = (a: string): string[] => {
  const lines: string[] = [];
  for (let j = 0; j < p.n; j += W) {
    lines.push(`{ const ${vecB} b = *reinterpret_cast<const ${vecB}*>(Bs + kk * N + ${j});`);
    for (let w = 0; w < W; w++)
      lines.push(`  #pragma unroll
        for (int v = 0; v < V; ++v) acc[${j + w}][v] = fmaReal(${a}[kk][v], ${component('b', W, w)}, acc[${j + w}][v]);`);
    lines.push('}');
  }
  return lines;
  };
  const pack = Array.from({ length: V }, (_, v) => `${component('o', V, v)} = out[${v}];`).join(' ');

  // C(row + v, :) = alpha acc + beta c; c is read (by the caller, into `c`) only when beta != 0.
  const computeAndStore = (a: string, c: string, row: string): string => `{
      real acc[N][V];
      #pragma unroll
      for (int j = 0; j < N; ++j) {
        #pragma unroll
        for (int v = 0; v < V; ++v) acc[j][v] = (real)0;
      }
      #pragma unroll
      for (int kk = 0; kk < K; ++kk) {
        ${fma(a).join('\n        ')}
      }
      const bool full = ${row} + V <= m;
      #pragma unroll
      for (int j = 0; j < N; ++j) {
        real out[V];
        #pragma unroll
        for (int v = 0; v < V; ++v) out[v] = beta != (real)0 ? fmaReal(beta, ${c}[j][v], alpha * acc[j][v]) : alpha * acc[j][v];
        if (full) { ${vec} o; ${pack} __stcs(reinterpret_cast<${vec}*>(C + ${row} + j * ldc), o); }
        else {
          #pragma unroll
          for (int v = 0; v < V; ++v) if (${row} + v < m) C[${row} + v + j * ldc] = out[v];
        }
      }
    }`;

  const body = p.variant === 'opt1'
    ? `for (; row < m; row += stride) {
    real a[K][V];
    ${loadA('a', 'row')}
    real c[N][V];
    if (beta != (real)0) { ${loadC('c', 'row')} }
    ${computeAndStore('a', 'c', 'row')}
  }`
    : `real a[K][V], c[N][V];
  ${loadA('a', 'row')}
  if (beta != (real)0) { ${loadC('c', 'row')} }
  for (; row < m; row += stride) {
    const i64 next = row + stride;                    // the next row tile, fetched ahead
    real an[K][V], cn[N][V];
    ${loadA('an', 'next')}
    if (beta != (real)0) { ${loadC('cn', 'next')} }
    ${computeAndStore('a', 'c', 'row')}
    #pragma unroll
    for (int kk = 0; kk < K; ++kk) {
      #pragma unroll
      for (int v = 0; v < V; ++v) a[kk][v] = an[kk][v];
    }
    if (beta != (real)0) {
      #pragma unroll
      for (int j = 0; j < N; ++j) {
        #pragma unroll
        for (int v = 0; v < V; ++v) c[j][v] = cn[j][v];
      }
    }
  }`;

  const source = `// ${name}: generated by src/cuda/kernels/tsm2/generate-l.ts (TSM2L, paper Algorithm ${p.variant === 'opt1' ? 6 : 7})
${tsm2Prelude(p.dtype)}
constexpr int K = ${p.k}, N = ${p.n}, T1 = ${p.t1}, V = ${V};

extern "C" __global__ void __launch_bounds__(${p.t1}, 1)
${name}(const i64 m,
    const real* __restrict__ A, const i64 lda,
    const real* __restrict__ B, const i64 ldb,
    real* __restrict__ C, const i64 ldc,
    const real alpha, const real beta)
{
  __shared__ __align__(16) real Bs[K * N];            // all of op(B), row-major
  for (int e = threadIdx.x; e < K * N; e += T1) {
    const int r = e / N, j = e % N;
    Bs[e] = B[${bIndex(p.transB, 'r', 'j')}];
  }
  __syncthreads();
  const i64 stride = (i64)gridDim.x * T1 * V;        // m / tcf threads, V rows each
  i64 row = ((i64)blockIdx.x * T1 + threadIdx.x) * V;
  ${body}
}
`;
  return { name: `${name}.cu`, source, entry: name };
}

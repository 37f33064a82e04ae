/**
 * The row kernel of TSQR: the passes over A (generate-chol.ts computes the factors between them).
 *
 * Grid (blocks, count): block x of matrix b takes the tiles x, x + blocks, ... of `threads` rows
 * (a grid-stride loop, so each block's share of rows is fixed by the plan: the sums are
 * deterministic). Thread t of a tile loads row t of A into registers (coalesced: a warp reads 32
 * consecutive elements of each column), applies the matrix's first `nsolve` triangular factors
 * (x := x R1^{-1}, then x R2^{-1}, ...; factors in shared memory, snippets.ts), then
 * - 'gram': writes the row into a shared tile (column-major, leading dimension threads + 1) and
 *   the block accumulates the tile's Gram matrix X^T X: the threads form groups of
 *   nt (nt + 1) / 2 (nt = n / tile, rounded up), thread (ti, tj), ti <= tj, of a group owning the
 *   tile x tile block (ti, tj) of the upper half of the n x n sum (symmetry halves the work) in
 *   registers, group g taking rows g, g + groups, ... of the tile (threads past the last whole
 *   group idle here). At the end the groups add
 *   their sums in group order and the block writes its n x n partial to
 *   partials[(b * blocks + x) * n * n]; generate-reduce.ts sums the partials in a fixed order.
 *   So Q1 = A R1^{-1} (and Q2 = Q1 R2^{-1} in shifted CholeskyQR3) is never written: its Gram
 *   matrix is formed on the fly from A (Fukaya et al. 2020, Alg. 4, fused).
 * - 'store': writes the row back over A: Q = A R1^{-1} R2^{-1} (R3^{-1}) with 2 + route[b]
 *   solves, in the order CholeskyQR2/3 forms it, so Q is the algorithm's own Q bit for bit.
 *
 * Matrices with info[b] != 0 are skipped by the Gram passes ('store' writes NaN over them); the
 * third Gram pass (stage 3) takes only the matrices on the shifted route (route[b] = 1).
 * Rows past m load as zeros (a zero row adds nothing to the Gram matrix).
 */
import type { KernelSource } from '../../runtime/types.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import type { TsqrRowsParams } from './params.js';
import { TSQR_MAX_N } from './params.js';
import { factorHelpers, packedTriangle } from './snippets.js';

/** Columns of the Gram tile rounded up to whole register tiles. */
export const paddedColumns = (p: Pick<TsqrRowsParams, 'n' | 'tile'>): number => Math.ceil(p.n / p.tile) * p.tile;

/** Threads of one group of the Gram accumulation: one per tile x tile block of the upper half of the n x n sum. */
export const groupThreads = (p: Pick<TsqrRowsParams, 'n' | 'tile'>): number => {
  const nt = paddedColumns(p) / p.tile;
  return (nt * (nt + 1)) / 2;
};

/** Factors a pass holds in shared memory: two in the Gram passes (stage <= 3), three in 'store'. */
export const factorSlots = (mode: TsqrRowsParams['mode']): number => (mode === 'gram' ? 2 : 3);

/** Dynamic shared bytes of one block: the packed factors, and in 'gram' the tile. */
export function rowsSharedBytes(p: TsqrRowsParams): number {
  const bytes = elementBytes(p.dtype);
  const tile = p.mode === 'gram' ? paddedColumns(p) * (p.threads + 1) : 0;
  return (factorSlots(p.mode) * packedTriangle(p.n) + tile) * bytes;
}

export function checkRowsParams(p: TsqrRowsParams): void {
  const fail = (what: string): never => { throw new Error(`tsqr rows: ${what} (${JSON.stringify(p)})`); };
  if (!Number.isInteger(p.n) || p.n < 1 || p.n > TSQR_MAX_N) fail(`n must be 1..${TSQR_MAX_N}`);
  if (!Number.isInteger(p.threads) || p.threads % 32 !== 0 || p.threads < 32 || p.threads > 256) fail('threads must be a multiple of 32 in 32..256');
  if (p.mode === 'gram') {
    if (![1, 2, 4].includes(p.tile)) fail('tile must be 1, 2 or 4');
    if (p.threads < groupThreads(p)) fail('threads must hold one group (nt (nt + 1) / 2 threads, nt = n / tile)');
  } else if (p.tile !== 1) fail('store takes tile 1');
}

export function rowsName(p: TsqrRowsParams): string {
  return `tsqr_${p.mode}_${precisionLetter(p.dtype)}_n${p.n}_t${p.threads}${p.mode === 'gram' ? `_b${p.tile}` : ''}`;
}

export function generateRows(p: TsqrRowsParams): KernelSource {
  checkRowsParams(p);
  const entry = rowsName(p);
  const gram = p.mode === 'gram';
  const npad = paddedColumns(p);
  const defines = `#define N ${p.n}
#define TRI ${packedTriangle(p.n)}
#define ROWS ${p.threads}
#define SLOTS ${factorSlots(p.mode)}${gram ? `
#define TB ${p.tile}
#define NPAD ${npad}
#define NT ${npad / p.tile}
#define GS ${groupThreads(p)}
#define GROUPS ${Math.floor(p.threads / groupThreads(p))}
#define LDS (ROWS + 1)` : ''}`;
  const signature = `real* __restrict__ A, long long offsetA, long long strideA, int ldA, long long m,
    const real* __restrict__ factors, const int* __restrict__ info, const int* __restrict__ route`;
  const load = `    const long long r = row0 + threadIdx.x;
    real x[N];
#pragma unroll
    for (int c = 0; c < N; ++c) x[c] = r < m ? a[r + c * (long long)ldA] : (real)0;
    for (int s = 0; s < nsolve; ++s) solveRow(x, fac + s * TRI);`;
  const body = gram ? `
// stage 1, 2, 3: the Gram matrix of A, A R1^{-1}, A R1^{-1} R2^{-1}.
extern "C" __global__ void __launch_bounds__(ROWS) ${entry}(${signature}, int stage, real* __restrict__ partials) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int b = blockIdx.y;
  if (stage > 1 && (info[b] != 0 || (stage == 3 && route[b] != 1))) return;   // info and route are written by stage 1's chol
  real* fac = (real*)smemBytes;
  real* tile = fac + SLOTS * TRI;
  const int nsolve = stage - 1;
  loadFactors(factors + (long long)b * 3 * N * N, fac, nsolve, threadIdx.x, ROWS);
  for (int c = N; c < NPAD; ++c) tile[c * LDS + threadIdx.x] = 0;   // padding columns: zero once
  const real* a = A + offsetA + (long long)b * strideA;
  // Thread t of a group: the t-th block (ti, tj), ti <= tj, of the upper half, row by row.
  const int g = threadIdx.x / GS;
  int ti = 0, tj = threadIdx.x % GS;
  while (tj >= NT - ti) { tj -= NT - ti; ++ti; }
  tj += ti;
  real acc[TB][TB];
#pragma unroll
  for (int k = 0; k < TB; ++k)
#pragma unroll
    for (int l = 0; l < TB; ++l) acc[k][l] = 0;
  __syncthreads();
  for (long long row0 = (long long)blockIdx.x * ROWS; row0 < m; row0 += (long long)gridDim.x * ROWS) {
${load}
    __syncthreads();   // the previous tile is consumed
#pragma unroll
    for (int c = 0; c < N; ++c) tile[c * LDS + threadIdx.x] = x[c];
    __syncthreads();
    for (int rr = g; g < GROUPS && rr < ROWS; rr += GROUPS) {   // threads past the last whole group idle
      real u[TB], v[TB];
#pragma unroll
      for (int k = 0; k < TB; ++k) { u[k] = tile[(ti * TB + k) * LDS + rr]; v[k] = tile[(tj * TB + k) * LDS + rr]; }
#pragma unroll
      for (int k = 0; k < TB; ++k)
#pragma unroll
        for (int l = 0; l < TB; ++l) acc[k][l] = fmaReal(u[k], v[l], acc[k][l]);
    }
  }
  // The groups' sums added in group order (deterministic), in the tile's space (NPAD^2 <= NPAD * LDS).
  __syncthreads();
  real* red = tile;
  for (int h = 0; h < GROUPS; ++h) {
    if (g == h) {
#pragma unroll
      for (int k = 0; k < TB; ++k)
#pragma unroll
        for (int l = 0; l < TB; ++l) {
          if (ti == tj && k > l) continue;   // a diagonal block's lower half is its upper half's mirror
          const int i = ti * TB + k, j = tj * TB + l;
          const real sum = h == 0 ? acc[k][l] : red[i + j * NPAD] + acc[k][l];
          red[i + j * NPAD] = sum;
          red[j + i * NPAD] = sum;   // the lower half (acc[l][k] = acc[k][l] bit for bit on a diagonal block)
        }
    }
    __syncthreads();
  }
  real* out = partials + ((long long)b * gridDim.x + blockIdx.x) * N * N;
  for (int e = threadIdx.x; e < N * N; e += ROWS) out[e] = red[e % N + (e / N) * NPAD];
}` : `
// Q = A R1^{-1} R2^{-1} (R3^{-1} on the shifted route) over A; NaN where info[b] != 0.
extern "C" __global__ void __launch_bounds__(ROWS) ${entry}(${signature}) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int b = blockIdx.y;
  const bool failed = info[b] != 0;
  real* fac = (real*)smemBytes;
  const int nsolve = failed ? 0 : 2 + route[b];
  loadFactors(factors + (long long)b * 3 * N * N, fac, nsolve, threadIdx.x, ROWS);
  __syncthreads();
  real* a = A + offsetA + (long long)b * strideA;
  const real nan = (real)__longlong_as_double(0x7ff8000000000000LL);
  for (long long row0 = (long long)blockIdx.x * ROWS; row0 < m; row0 += (long long)gridDim.x * ROWS) {
${load}
    if (r < m) {
#pragma unroll
      for (int c = 0; c < N; ++c) a[r + c * (long long)ldA] = failed ? nan : x[c];
    }
  }
}`;
  const source = `// ${entry}: generated by src/cuda/kernels/tsqr/generate-rows.ts
${precisionPrelude(p.dtype)}
${defines}
${factorHelpers()}
${body}
`;
  return { name: `${entry}.cu`, source, entry };
}

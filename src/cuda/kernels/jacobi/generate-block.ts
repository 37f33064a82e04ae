/**
 * Batched Jacobi for n = 33 ... 512: one thread block per matrix, syev (two-sided) and gesvd
 * (one-sided, Hestenes), in the parallel (round-robin) order of the warp design (generate-warp.ts)
 * with __syncthreads for __syncwarp.
 *
 * Each round of a sweep takes the n2 / 2 disjoint pairs of the circle tournament over n2 = n
 * rounded up to even (a zero dummy index for odd n, never rotated), in two phases with a barrier
 * after each:
 * - syev: (1) one thread per pair computes (c, s) from a_pp, a_qq, a_pq with the reference's
 *   formulas and test, and writes its 2 x 2 diagonal block's exact result (no other pair reads
 *   it); (2) A := J^T A J by 2 x 2 blocks (rows of pair k, columns of pair l, k != l: the right
 *   rotation of l then the left one of k, four elements per thread, so the row and column updates
 *   need no barrier between them: the rotations of a round commute, Brent and Luk 1985), and
 *   V := V J by rows.
 * - gesvd: (1) `group` lanes per pair sum ||g_p||^2, ||g_q||^2, g_p . g_q (shuffle reductions,
 *   common/block-reduce.ts) and one of them computes (c, s); (2) G := G J and V := V J by rows.
 * Convergence test, sweep limit, info, NaN handling, the power-of-two scaling of G, the sorting
 * (eigenvalues ascending, singular values descending, ties by index) and the completion of U's
 * columns for zero singular values are the warp design's and the CPU reference's
 * (cpu/lapack/jacobi.ts).
 *
 * Storage: A (G) and V in dynamic shared memory where the plan found room (`aShared`, `vShared`),
 * else in a global workspace of WORK elements per block (the launcher passes `work` and the batch
 * index of the first block, `first`, so a large batch runs in chunks of bounded workspace). A
 * block's matrix is then a few hundred KiB that stay in L2 while the block sweeps it.
 *
 * Precision: these designs compute in float64 whatever the data's dtype (BLOCK_COMPUTE; float32
 * data is widened on load and rounded once on store, as the CPU reference does). In float32
 * arithmetic the ~n rotations a sweep applies to each column of V let ||V^T V - I|| / (n eps)
 * reach 37.9 at n = 256 (H100, 2026-11-26; the test's limit is 30). Above REORTHOGONALIZE_ABOVE,
 * V then gets the reference's one pass of modified Gram-Schmidt after the sweeps (the same growth
 * in float64 failed that limit at 512 x 512; cpu/lapack/jacobi.ts says why one pass suffices).
 */
import { REORTHOGONALIZE_ABOVE } from '../../../core/algorithms.js';
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { cType, elementBytes } from '../common/precision.js';
import type { GesvdBlockParams, SyevBlockParams } from './params.js';
import {
  GESVD_TEST, PAIR_OF, SYEV_TEST, gesvdDims, gesvdLoad, gesvdOutputs, gesvdRange, gesvdScale, gesvdSortNormalise, gesvdTag, identityV,
  jacobiPrelude, pairRotation, syevDims, syevLoad, syevOutputs, syevSort, syevTag,
} from './snippets.js';

/** Where each array of a block kernel lives: element offsets in shared memory or in the block's workspace slice. */
export interface BlockLayout {
  /** Leading dimensions of the matrix (A or G) and of V. */
  readonly ldMat: number;
  readonly ldV: number;
  /** Offset of the matrix and of V: in shared memory (reals) where shared, else in the workspace slice. */
  readonly matOffset: number;
  readonly vOffset: number;
  /** Offset (reals) of the per-round scratch in shared memory, and the reals before the int arrays. */
  readonly scratchOffset: number;
  readonly sharedReals: number;
  readonly sharedInts: number;
  /** Dynamic shared bytes of one block. */
  readonly sharedBytes: number;
  /** Workspace elements per block (0: none). */
  readonly work: number;
}

const n2Of = (n: number): number => n + (n & 1);

/** The arithmetic (and shared memory and workspace) of the block designs, whatever the data's dtype. */
export const BLOCK_COMPUTE: DType = 'float64';

/** The element type of the data's pointers: `real` where it is the arithmetic's, else the data's own. */
const ioType = (dtype: DType): string => (dtype === BLOCK_COMPUTE ? 'real' : cType(dtype));

/** The block designs' prelude: the arithmetic's precision (the data's type is spelled in the pointers). */
const blockPrelude = (): string => jacobiPrelude(BLOCK_COMPUTE);

function layout(rows: number, n2: number, vectors: boolean, aShared: boolean, vShared: boolean, scratch: number, ints: number, padMat: boolean): BlockLayout {
  // Shared copies of A (syev) and V get the leading dimension n2 + 1 against bank conflicts of row walks.
  const ldMat = aShared && padMat ? n2 + 1 : rows;
  const ldV = vShared ? n2 + 1 : n2;
  const matSize = n2 * ldMat;
  const vSize = vectors ? n2 * ldV : 0;
  let sharedReals = 0;
  let work = 0;
  let matOffset: number, vOffset: number;
  if (aShared) { matOffset = sharedReals; sharedReals += matSize; } else { matOffset = work; work += matSize; }
  if (vShared && vectors) { vOffset = sharedReals; sharedReals += vSize; } else { vOffset = work; work += vSize; }
  const scratchOffset = sharedReals;
  sharedReals += scratch;
  return { ldMat, ldV, matOffset, vOffset, scratchOffset, sharedReals, sharedInts: ints, sharedBytes: sharedReals * elementBytes(BLOCK_COMPUTE) + ints * 4, work };
}

/** syev's block layout: A n2 x n2, V n2 x n2 (vectors), scratch c and s per pair; ints: the pairs and the sort. */
export function syevBlockLayout(p: Pick<SyevBlockParams, 'dtype' | 'n' | 'vectors' | 'aShared' | 'vShared'>): BlockLayout {
  const n2 = n2Of(p.n);
  return layout(n2, n2, p.vectors, p.aShared, p.vShared && p.vectors, n2, n2 + n2, true);
}

/** Whether gesvd accumulates V (the right vectors for m >= n, the left ones of A^T for m < n). */
export const gesvdNeedsV = (p: Pick<GesvdBlockParams, 'm' | 'n' | 'wantU' | 'wantVt'>): boolean => (p.m >= p.n ? p.wantVt : p.wantU);

/** gesvd's block layout: G max(m, n) x n2, V n2 x n2, scratch c, s, sigma, dots and 32 for block reductions. */
export function gesvdBlockLayout(p: Pick<GesvdBlockParams, 'dtype' | 'm' | 'n' | 'wantU' | 'wantVt' | 'aShared' | 'vShared'>): BlockLayout {
  const k2 = n2Of(Math.min(p.m, p.n));
  const needV = gesvdNeedsV(p);
  return layout(Math.max(p.m, p.n), k2, needV, p.aShared, p.vShared && needV, 3 * k2 + 32, k2 + k2, false);
}

/** Lanes that sum one pair's dot products: T / HALF rounded down to a power of two, 1 ... 32. */
export function gesvdGroup(threads: number, k: number): number {
  const half = n2Of(k) / 2;
  let g = 1;
  while (g < 32 && 2 * g * half <= threads) g *= 2;
  return g;
}

const storageTag = (p: { aShared: boolean; vShared: boolean }): string => `${p.aShared ? 's' : 'g'}${p.vShared ? 's' : 'g'}`;

/** Phase (1)'s stores of pair k: its rotation and its indices, for phase (2). */
const BLOCK_STORES = ['cs[k] = c;', 'sn[k] = s;', 'ip[k] = p;', 'jq[k] = q;'];

/** The block's arrays: `a` (or `g`) and `v` in shared memory or the workspace slice. */
function arrays(l: BlockLayout, mat: string, aShared: boolean, vectors: boolean, vShared: boolean): string {
  return `  extern __shared__ __align__(16) unsigned char smem[];
  real* sh = (real*)smem;
  real* ws = work + (long long)blockIdx.x * WORK;   // this block's workspace slice (unused where WORK is 0)
  (void)ws;
  real* ${mat} = ${aShared ? 'sh' : 'ws'} + ${l.matOffset};
${vectors ? `  real* v = ${vShared ? 'sh' : 'ws'} + ${l.vOffset};` : ''}
  int* ints = (int*)(sh + ${l.sharedReals});`;
}

/**
 * One pass of modified Gram-Schmidt over V's first `rows` columns (rows x rows, leading dimension
 * LDV), as the reference's `reorthogonalize`: column j normalised (a block sum), then projected out
 * of the columns after it (a warp per column, lanes down the rows). `red`: 32 reals of scratch.
 * Emitted only above REORTHOGONALIZE_ABOVE; `failed` is uniform over the block.
 */
function reorthogonalizeV(size: number, rows: string, red: string): string {
  if (size <= REORTHOGONALIZE_ABOVE) return '';
  return `  // V's columns: one pass of modified Gram-Schmidt (rounding in the rotations, see the header).
  if (!failed) {
    const int lane = tid & 31, warp = tid >> 5;
    for (int j = 0; j < ${rows}; ++j) {
      real nrm = real(0);
      for (int i = tid; i < ${rows}; i += T) nrm = fmaReal(v[i + j * LDV], v[i + j * LDV], nrm);
      const real inv = real(1) / sqrtReal(blockSum(nrm, ${red}));
      for (int i = tid; i < ${rows}; i += T) v[i + j * LDV] *= inv;
      __syncthreads();
      for (int c = j + 1 + warp; c < ${rows}; c += T / 32) {
        real d = real(0);
        for (int i = lane; i < ${rows}; i += 32) d = fmaReal(v[i + j * LDV], v[i + c * LDV], d);
        d = groupSum(d, 32);
        for (int i = lane; i < ${rows}; i += 32) v[i + c * LDV] -= d * v[i + j * LDV];
      }
      __syncthreads();
    }
  }`;
}

export function syevBlockSource(p: SyevBlockParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, threads, aShared, maxSweeps } = p;
  const vShared = p.vShared && vectors;
  const l = syevBlockLayout(p);
  const entry = `syev_block_${syevTag(p)}_t${threads}_${storageTag({ aShared, vShared })}_s${maxSweeps}`;
  const V = (line: string): string => (vectors ? line : '');
  const io = ioType(dtype);
  const reorthogonalize = vectors ? reorthogonalizeV(n, 'N', 'cs') : '';
  const source = `${blockPrelude()}
${syevDims(n)}
constexpr int T = ${threads};
constexpr int LDA = ${l.ldMat};
constexpr int LDV = ${l.ldV};
constexpr long long WORK = ${l.work};   // workspace elements per block
constexpr int MAX_SWEEPS = ${maxSweeps};
${PAIR_OF}
${reorthogonalize ? blockReduceSource('sum') : ''}
extern "C" __global__ void __launch_bounds__(T) ${entry}(
    ${operandParameters('A', kind, true, io)},
    ${operandParameters('W', kind, true, io)},
    real* __restrict__ work, long long first,
    int* __restrict__ info, const int* __restrict__ index, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${arrays(l, 'a', aShared, vectors, vShared)}
  real* cs = sh + ${l.scratchOffset};
  real* sn = cs + HALF;
  int* ip = ints;
  int* jq = ip + HALF;
  int* perm = jq + HALF;
  ${io}* g = ${matrixPointer('A', kind, 'mat')};
  int bad = 0;
${syevLoad(2, uplo, vectors, 'LDA', 'LDV')}
  const bool failed = __syncthreads_or(bad) != 0;
  const real tol = sqrtReal(real(N)) * EPS;
  bool done = failed || N < 2;
  for (int sweep = 0; sweep < MAX_SWEEPS && !done; ++sweep) {
    int rotated = 0;
    for (int r = 0; r < N2 - 1; ++r) {
      // (1) Pair k's rotation; its own 2 x 2 diagonal block set to the exact result.
      for (int k = tid; k < HALF; k += T) {
        int p, q;
        pairOf(r, k, p, q);
        const real apq = a[p + q * LDA], app = a[p + p * LDA], aqq = a[q + q * LDA];
${pairRotation(8, SYEV_TEST, ['a[p + p * LDA] = app - t * apq;', 'a[q + q * LDA] = aqq + t * apq;', 'a[p + q * LDA] = real(0);', 'a[q + p * LDA] = real(0);'], BLOCK_STORES)}
      }
      __syncthreads();
      // (2) A := J^T A J by the 2 x 2 blocks (rows p_k, q_k; columns p_l, q_l), k != l.
      for (int idx = tid; idx < HALF * HALF; idx += T) {
        const int k = idx % HALF, l = idx / HALF;
        const real sk = sn[k], sl = sn[l];
        if (k == l || (sk == real(0) && sl == real(0))) continue;
        const real ck = cs[k], cl = cs[l];
        const int p = ip[k], q = jq[k];
        real* c0 = a + ip[l] * LDA;
        real* c1 = a + jq[l] * LDA;
        real x00 = c0[p], x01 = c1[p], x10 = c0[q], x11 = c1[q];
        rot2(x00, x01, cl, sl);
        rot2(x10, x11, cl, sl);
        rot2(x00, x10, ck, sk);
        rot2(x01, x11, ck, sk);
        c0[p] = x00; c1[p] = x01; c0[q] = x10; c1[q] = x11;
      }
${V(`      // V := V J: row i of columns p_l, q_l (rows past N stay zero).
      for (int idx = tid; idx < N * HALF; idx += T) {
        const int i = idx % N, l = idx / N;
        const real sl = sn[l];
        if (sl != real(0)) rot2(v[i + ip[l] * LDV], v[i + jq[l] * LDV], cs[l], sl);
      }`)}
      __syncthreads();
    }
    done = __syncthreads_or(rotated) == 0;
  }
${reorthogonalize}
${syevSort('!failed', 'LDA', '__syncthreads()')}
  __syncthreads();
${syevOutputs(kind, vectors, 'LDA', 'LDV', false, io)}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * `blockProject(g, perm, dots, red, r, j)`: ||g_j||^2 (a block sum) after two classical Gram-Schmidt
 * passes of column j of G (M x K, ld M) against the columns perm[0 ... r - 1] (the reference's passes
 * are modified Gram-Schmidt: the same subspace, to rounding); `dots` r reals, `red` 32 of scratch.
 * Every thread of the block calls it.
 */
const BLOCK_PROJECT = `static __device__ real blockProject(real* g, const int* perm, real* dots, real* red, int r, int j) {
  const int tid = threadIdx.x;
  for (int pass = 0; pass < 2; ++pass) {
    for (int c = tid; c < r; c += T) {
      const int jc = perm[c];
      real dot = real(0);
      for (int i = 0; i < M; ++i) dot = fmaReal(g[i + jc * M], g[i + j * M], dot);
      dots[c] = dot;
    }
    __syncthreads();
    for (int i = tid; i < M; i += T) {
      real x = g[i + j * M];
      for (int c = 0; c < r; ++c) x -= dots[c] * g[i + perm[c] * M];
      g[i + j * M] = x;
    }
    __syncthreads();
  }
  real nrm = real(0);
  for (int i = tid; i < M; i += T) nrm = fmaReal(g[i + j * M], g[i + j * M], nrm);
  return blockSum(nrm, red);
}`;

/**
 * The block design's end of gesvd, after the sort and the normalisation, in parallel over the block:
 * where the sweeps did not settle, the reference's absolute test (common/gesvd-settle.ts has the
 * serial form the warp designs use and says why) and, where G's columns are an output (`gOut`),
 * their orthonormalisation in sig's order; and the completion of the columns of zero singular
 * values (the first unit vector that stays long after the passes against the columns before it).
 * Multiplies by 1 / ||x|| (one division: this path spilled around the division and square-root
 * subroutines otherwise, nvcc 13).
 */
function gesvdBlockSettle(gOut: boolean): string {
  // G's column j times 1 / sqrt(nn), then a barrier.
  const scale = `const real inv = real(1) / sqrtReal(nn);
          for (int i = tid; i < M; i += T) g[i + j * M] *= inv;
          __syncthreads();`;
  return `  const bool swept = done;
  if (!swept && !failed) {
    real top = real(0);
    for (int j = 0; j < K; ++j) top = sig[j] > top ? sig[j] : top;
    real off = real(0), all = real(0);
    if (top > real(0))
      for (int idx = tid; idx < K * K; idx += T) {
        const int p = idx % K, q = idx / K;
        if (q < p) continue;
        real d = real(0);
        for (int i = 0; i < M; ++i) d = fmaReal(g[i + p * M], g[i + q * M], d);
        const real w = (sig[p] / top) * (sig[q] / top);
        const real sq = (d * d) * (w * w);
        all += p == q ? sq : real(2) * sq;
        if (p != q) off += real(2) * sq;
      }
    off = blockSum(off, red);
    all = blockSum(all, red);
    done = top == real(0) || off <= (real(K) * EPS) * (real(K) * EPS) * all;
  }
${gOut ? `  if (!failed) {
    for (int r = 0; r < K; ++r) {
      const int j = perm[r];
      bool fill = !(sig[j] > real(0));
      if (!fill && !swept) {
        real nn = blockProject(g, perm, dots, red, r, j);
        if (nn < real(0.25) && nn > real(0)) {
          ${scale}
          nn = blockProject(g, perm, dots, red, r, j);
        }
        if (nn > real(0)) {
          ${scale}
        } else {
          fill = true;
        }
      }
      if (!fill) continue;
      for (int ei = 0; ei < M; ++ei) {
        for (int i = tid; i < M; i += T) g[i + j * M] = i == ei ? real(1) : real(0);
        __syncthreads();
        const real nn = blockProject(g, perm, dots, red, r, j);
        if (nn > real(0.25)) {
          ${scale}
          break;
        }
      }
    }
  }` : ''}`;
}

export function gesvdBlockSource(p: GesvdBlockParams): KernelSource {
  const { dtype, m, n, wantU, wantVt, kind, threads, aShared, maxSweeps } = p;
  const tall = m >= n;
  const needV = gesvdNeedsV(p);
  const vShared = p.vShared && needV;
  const l = gesvdBlockLayout(p);
  const group = gesvdGroup(threads, Math.min(m, n));
  const entry = `gesvd_block_${gesvdTag(p)}_t${threads}_${storageTag({ aShared, vShared })}_s${maxSweeps}`;
  const io = ioType(dtype);
  const source = `${blockPrelude()}
${gesvdDims(m, n)}
constexpr int T = ${threads};
constexpr int GROUP = ${group};   // lanes per pair in the dot products
constexpr int LDV = ${l.ldV};
constexpr long long WORK = ${l.work};   // workspace elements per block
constexpr int MAX_SWEEPS = ${maxSweeps};
${gesvdRange(BLOCK_COMPUTE)}
${PAIR_OF}
${blockReduceSource('sum')}
${blockReduceSource('max')}
${(tall ? wantU : wantVt) ? BLOCK_PROJECT : ''}

extern "C" __global__ void __launch_bounds__(T) ${entry}(
    ${operandParameters('A', kind, false, io)},
    ${operandParameters('S', kind, true, io)},
    ${operandParameters('U', kind, true, io)},
    ${operandParameters('V', kind, true, io)},
    real* __restrict__ work, long long first,
    int* __restrict__ info, const int* __restrict__ index, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${arrays(l, 'g', aShared, needV, vShared)}
  real* cs = sh + ${l.scratchOffset};
  real* sn = cs + HALF;
  real* sig = sn + HALF;
  real* dots = sig + N2;
  real* red = dots + N2;
  int* ip = ints;
  int* jq = ip + HALF;
  int* perm = jq + HALF;
  const real tol = sqrtReal(real(M)) * EPS;
  const ${io}* ga = ${matrixPointer('A', kind, 'mat')};
  int bad = 0;
  real amax = real(0);
${gesvdLoad(2, tall)}
${needV ? identityV(2) : ''}
  const bool failed = __syncthreads_or(bad) != 0;
  amax = blockMax(amax, red);
${gesvdScale(BLOCK_COMPUTE, 'e != 0')}
  __syncthreads();
  const int part = tid % GROUP;   // this thread's share of its pair's (column's) sums
  bool done = failed || K < 2;
  for (int sweep = 0; sweep < MAX_SWEEPS && !done; ++sweep) {
    int rotated = 0;
    for (int r = 0; r < N2 - 1; ++r) {
      // (1) GROUP lanes per pair: alpha = ||g_p||^2, beta = ||g_q||^2, gamma = g_p . g_q; then (c, s).
      // The loop bound is uniform over the block: every lane reaches the shuffles.
      for (int k0 = 0; k0 < HALF; k0 += T / GROUP) {
        const int k = k0 + tid / GROUP;
        int p = 0, q = 0;
        real alpha = real(0), beta = real(0), gamma = real(0);
        if (k < HALF) {
          pairOf(r, k, p, q);
          for (int i = part; i < M; i += GROUP) {
            const real x = g[i + p * M], y = g[i + q * M];
            alpha = fmaReal(x, x, alpha);
            beta = fmaReal(y, y, beta);
            gamma = fmaReal(x, y, gamma);
          }
        }
        alpha = groupSum(alpha, GROUP);
        beta = groupSum(beta, GROUP);
        gamma = groupSum(gamma, GROUP);
        if (k < HALF && part == 0) {
${pairRotation(10, GESVD_TEST, [], BLOCK_STORES)}
        }
      }
      __syncthreads();
      // (2) G := G J (and V := V J): row i of columns p_k, q_k.
      for (int idx = tid; idx < M * HALF; idx += T) {
        const int i = idx % M, k = idx / M;
        const real s = sn[k];
        if (s != real(0)) rot2(g[i + ip[k] * M], g[i + jq[k] * M], cs[k], s);
      }
${needV ? `      for (int idx = tid; idx < K * HALF; idx += T) {
        const int i = idx % K, k = idx / K;
        const real s = sn[k];
        if (s != real(0)) rot2(v[i + ip[k] * LDV], v[i + jq[k] * LDV], cs[k], s);
      }` : ''}
      __syncthreads();
    }
    done = __syncthreads_or(rotated) == 0;
  }
${needV ? reorthogonalizeV(Math.min(m, n), 'K', 'red') : ''}
  // Column norms, descending order by rank (ties by index), then U's columns normalised.
  for (int j0 = 0; j0 < K; j0 += T / GROUP) {
    const int j = j0 + tid / GROUP;
    real s = real(0);
    if (j < K && !failed)
      for (int i = part; i < M; i += GROUP) s = fmaReal(g[i + j * M], g[i + j * M], s);
    s = groupSum(s, GROUP);
    if (j < K && part == 0) sig[j] = sqrtReal(s);
  }
  __syncthreads();
${gesvdSortNormalise('!failed', '__syncthreads()')}
  __syncthreads();
${gesvdBlockSettle(tall ? wantU : wantVt)}
${gesvdOutputs({ ...p, dtype: BLOCK_COMPUTE }, '', io)}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

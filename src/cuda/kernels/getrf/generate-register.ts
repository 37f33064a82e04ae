/**
 * Batched LU with partial pivoting for medium sizes (up to 128 x 128): one thread block per
 * matrix, the whole matrix in registers, one read of A and one write, one barrier per panel of
 * NB columns.
 *
 * This is the register design of the KBLAS paper (batched-triangular-kblas, "register" kernels up
 * to 256) applied to dgetrf, with the delayed row swapping of the very-small paper (section 4.4,
 * as in generate-small.ts): rows never move, a swap only changes which position each row occupies.
 *
 * Layout: lane l of every warp holds rows l, l + 32, l + 64, ... (RB of them); columns go to warps
 * in blocks of NB, cyclically (block c to warp c mod TC: the shrinking trailing matrix stays
 * balanced); v[r][b] is row lane + 32 r of column colOf(b, warp). Loads and stores are
 * column-major coalesced (a warp touches 32 consecutive rows). Every warp holds every row, so a
 * pivot row reaches a warp through one shuffle per column: no shared memory for U.
 *
 * Panel p (columns k0 = NB p ... k0 + NB - 1), owned by warp p mod TC:
 * - the owner factors it alone, warp-synchronously (dgetf2 on m x NB: per column LAPACK's idamax
 *   over positions k.. with two or three warp reductions (REDUX) instead of a shuffle tree, ties to
 *   the smaller position, NaN only at position k wins: the rules of generate-small.ts; scaling by the
 *   reciprocal, or a division below the safe minimum, as dgetf2; rank-1 updates of the panel's
 *   other columns), publishes the multipliers and the NB pivots (row, position) to shared memory
 *   (double buffered by the parity of p), writes ipiv and the first zero pivot;
 * - one barrier; every warp replays the NB position changes and applies the NB rank-1 updates to
 *   its columns right of the panel, the pivot row's value by shuffle.
 * NB = 1 is the column-by-column design (one barrier per column). Blocking by NB cuts the
 * barriers, the block-wide waits on the owner's serial pivot/scale chain, by NB (the paper's
 * argument for the fused panel, section 4.3, applied inside the register design).
 * An exactly zero pivot sets info, is not scaled, and the factorisation goes on (dgetf2).
 */
import type { DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, precisionLetter } from '../common/precision.js';
import { forEachTileElement, registerPrelude } from '../common/register-tile.js';
import type { GetrfRegisterParams } from './params.js';

/** The pivot search key (an unsigned integer, larger wins): see pivotKey in the source. */
function pivotKeyHelpers(dtype: DType): string {
  if (elementBytes(dtype) === 8) {
    return `typedef unsigned long long ukey;
// |x| as ordered bits + 2; a NaN: 1 (loses to everything), or inf + 2 at position k (wins, as
// LAPACK's idamax, whose first NaN wins; ties go to the smaller position); not a candidate: 0.
static __device__ __forceinline__ ukey pivotKey(real x, bool atK) {
  return x != x ? (atK ? 0x7ff0000000000002ULL : 1ULL) : (ukey)__double_as_longlong(fabs(x)) + 2ULL;
}
// The warp's largest key (two 32-bit reductions); every lane gets it.
static __device__ __forceinline__ ukey warpMaxKey(ukey key) {
  const unsigned hi = (unsigned)(key >> 32), lo = (unsigned)key;
  const unsigned mhi = __reduce_max_sync(FULL, hi);
  const unsigned mlo = __reduce_max_sync(FULL, hi == mhi ? lo : 0u);
  return ((ukey)mhi << 32) | mlo;
}`;
  }
  return `typedef unsigned ukey;
static __device__ __forceinline__ ukey pivotKey(real x, bool atK) {
  return x != x ? (atK ? 0x7f800002u : 1u) : __float_as_uint(fabsf(x)) + 2u;
}
static __device__ __forceinline__ ukey warpMaxKey(ukey key) { return __reduce_max_sync(FULL, key); }`;
}

/**
 * Whether the update of the columns right of a panel loops over the panel's columns kk at run time
 * (one copy of the update) rather than unrolled (NB copies). Registers are indexed by b and r only;
 * column k's pivot row and multipliers come from shared memory by kk, so the loop's instructions are
 * the unrolled ones plus its counter. Compile time (nvcc 13, sm_90, CPU): float64 64 x 64 at NB = 8
 * 1.7 -> 1.0 s, 40 x 40 2.0 -> 1.0 s, 128 x 128 at NB = 4 0.9 -> 0.7 s, float32 64 x 64 1.5 -> 0.9 s,
 * registers equal or more within the same blocks an SM (96 x 96: 110 -> 118), no local memory. Not where
 * the launch bounds cap a thread at 64 registers (float32 100 and 128 at two blocks an SM): there the
 * rolled loop's state spilled inside it. An earlier rolled form that masked the update by column
 * measured slower on the H100 (2026-11-25).
 */
function rolledUpdate(p: GetrfRegisterParams): boolean {
  return 65536 / (32 * p.warps * (p.minBlocks ?? 1)) > 64;
}

export function getrfRegisterSource(p: GetrfRegisterParams): KernelSource {
  return registerSource(p, {
    tag: 'reg',
    parameters: `${operandParameters('A', p.kind, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count`,
    opening: `const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};`,
    rows: 'M', cols: 'N', steps: 'STEPS',
  });
}

/**
 * A size class of a variable batch (common/vbatch.ts): members m x n with m, n <= the class bound
 * (p.rows = p.cols), each member's pointer, m, n, ld and batch index from device tables (ints: m, n,
 * ld, index per member, GETRF_VBATCH_INTS). Rows i >= m get no position (as the uniform kernel's
 * rows past M), columns j >= n are skipped by the warp-uniform column tests, and the panel loops
 * stop at min(m, n): a block is one member, so every bound is block-uniform, and the member's
 * elements see the operations of the uniform m x n kernel in the same order (the pivot search's
 * winner does not depend on the number of warps or rows a thread holds: the first of the largest
 * magnitudes).
 */
export function getrfRegisterVbatchedSource(p: GetrfRegisterParams): KernelSource {
  if (p.kind !== 'pointer') throw new Error('the vbatched register kernel reads a pointer table: kind must be pointer');
  return registerSource(p, {
    tag: 'vreg',
    parameters: `real* const* __restrict__ A, const int* __restrict__ dims,
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, int count`,
    opening: `const int mm = dims[4 * mid], nm = dims[4 * mid + 1], ldA = dims[4 * mid + 2];
  const long long id = dims[4 * mid + 3];
  const int steps = mm < nm ? mm : nm;
  real* a = A[mid];`,
    rows: 'mm', cols: 'nm', steps: 'steps',
  });
}

/** What the uniform and the class kernels differ in: parameters, the block's matrix, and the bounds the loops stop at. */
interface RegisterFrame {
  readonly tag: string;
  readonly parameters: string;
  /** Declares `id` (the batch index), `a` and, for the class kernel, ldA and the member's bounds. */
  readonly opening: string;
  /** The rows, columns and steps as the kernel sees them (the constants, or the member's run-time values). */
  readonly rows: string;
  readonly cols: string;
  readonly steps: string;
}

function registerSource(p: GetrfRegisterParams, f: RegisterFrame): KernelSource {
  const nb = p.nb ?? 1;
  const entry = `getrf_${f.tag}_${precisionLetter(p.dtype)}_${p.rows}x${p.cols}_${kindTag(p.kind)}_w${p.warps}${nb === 1 ? '' : `_nb${nb}`}${(p.minBlocks ?? 1) === 1 ? '' : `_b${p.minBlocks}`}`;
  const source = `${registerPrelude(p.dtype, p.rows, p.cols, p.warps, nb)}
constexpr int STEPS = M < N ? M : N;
constexpr real SAFE_MIN = ${dtypeInfo(p.dtype).cuda.safeMin};
#define RCP(x) __${dtypeInfo(p.dtype).cuda.intrinsic}rcp_rn(x)
${pivotKeyHelpers(p.dtype)}

extern "C" __global__ void __launch_bounds__(TC * 32, ${p.minBlocks ?? 1}) ${entry}(
    ${f.parameters}) {
  __shared__ real sL[2][NB][RB * 32];         // multipliers of the panel's columns, by row
  __shared__ int sRow[2][NB], sPos[2][NB];    // each column's pivot row and position
  __shared__ int sInfo;
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  ${f.opening}
  int* pv = ipiv + id * (long long)pivotStride;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  real v[RB][CB];
  // LAPACK's position of each row after the swaps so far. Rows chosen as pivots at steps < k sit
  // at positions < k (final), the others at positions >= k: "done" is pos < k, no second array.
  // Rows past M get -1 (done from the start).
  int pos[RB];
#pragma unroll
  for (int r = 0; r < RB; ++r) {
    const int i = lane + 32 * r;
    pos[r] = i < ${f.rows} ? i : -1;
#pragma unroll
    for (int b = 0; b < CB; ++b) {
      const int j = colOf(b, warp);
      v[r][b] = (i < ${f.rows} && j < ${f.cols}) ? a[i + (long long)j * ldA] : real(0);
    }
  }
  if (threadIdx.x == 0) sInfo = 0;            // thread 0 is also the first panel's owner

  // Panel p = TC bk + w: bk (the owner's register block) is a compile-time index, so the panel's
  // columns are never indexed at run time and blocks left of it drop out of the update statically.
#pragma unroll
  for (int bk = 0; bk < CB / NB; ++bk) {
#pragma unroll 1
  for (int w = 0; w < TC; ++w) {
    const int k0 = (TC * bk + w) * NB;
    if (k0 >= ${f.steps}) break;                   // block-uniform
    const int par = (TC * bk + w) & 1;
    if (warp == w) {
      int pw[RB];                              // positions during the panel (pos is replayed below)
#pragma unroll
      for (int r = 0; r < RB; ++r) pw[r] = pos[r];
#pragma unroll
      for (int kk = 0; kk < NB; ++kk) {
        const int k = k0 + kk;
        if (k >= ${f.steps}) break;                 // warp-uniform
        const int c = bk * NB + kk;
        // idamax: the lane's best row, then the warp's largest key, then its smallest position.
        ukey key = 0;
        int kpos = 0x7fffffff, krow = 0;
        real xb = real(0);
#pragma unroll
        for (int r = 0; r < RB; ++r) {
          if (pw[r] >= k) {
            const ukey kr = pivotKey(v[r][c], pw[r] == k);
            if (kr > key || (kr == key && pw[r] < kpos)) { key = kr; kpos = pw[r]; krow = lane + 32 * r; xb = v[r][c]; }
          }
        }
        const ukey best = warpMaxKey(key);
        const int pp = __reduce_min_sync(FULL, key == best ? kpos : 0x7fffffff);
        const int src = __ffs(__ballot_sync(FULL, key == best && kpos == pp)) - 1;
        const real pivot = __shfl_sync(FULL, xb, src);
        const int prow = __shfl_sync(FULL, krow, src);
        const bool scale = pivot != real(0);
        real l[RB];
#pragma unroll
        for (int r = 0; r < RB; ++r) l[r] = v[r][c];
        // (warp-uniform branches: the division below the safe minimum stays off the common path)
        if (scale) {
          if (absReal(pivot) < SAFE_MIN) {
#pragma unroll
            for (int r = 0; r < RB; ++r) l[r] = l[r] / pivot;
          } else {
            const real rcp = RCP(pivot);       // = 1 / pivot, correctly rounded
#pragma unroll
            for (int r = 0; r < RB; ++r) l[r] = l[r] * rcp;
          }
        }
#pragma unroll
        for (int r = 0; r < RB; ++r) {
          const int i = lane + 32 * r;
          if (pw[r] >= k && i != prow) {
            sL[par][kk][i] = l[r];
            v[r][c] = l[r];
          } else {
            l[r] = v[r][c];
          }
          if (i == prow) pw[r] = k;
          else if (pw[r] == k) pw[r] = pp;     // the row at position k takes the pivot's place
        }
        if (lane == 0) {
          sRow[par][kk] = prow;
          sPos[par][kk] = pp;
          pv[k] = pp;
          if (!scale && sInfo == 0) sInfo = k + 1;
        }
        // Rank-1 update of the panel's columns right of k (the pivot row's value by shuffle).
#pragma unroll
        for (int jj = kk + 1; jj < NB; ++jj) {
          const int cj = bk * NB + jj;
          real t = real(0);
#pragma unroll
          for (int r = 0; r < RB; ++r) if (lane + 32 * r == prow) t = v[r][cj];
          const real u = __shfl_sync(FULL, t, prow & 31);
#pragma unroll
          for (int r = 0; r < RB; ++r) if (pw[r] > k) v[r][cj] = fmaReal(-l[r], u, v[r][cj]);
        }
      }
    }
    __syncthreads();
    // Every warp: replay the panel's position changes, update its columns right of the panel.
${rolledUpdate(p) ? `    // (kk rolled: registers are indexed by b and r only, column k's pivot row and multipliers come
    // from shared memory)
#pragma unroll 1` : `    // (kk unrolled: a rolled kk loop with one copy of the update masked by column measured slower
    // on the H100, 2026-11-25)
#pragma unroll`}
    for (int kk = 0; kk < NB; ++kk) {
      const int k = k0 + kk;
      if (k >= ${f.steps}) break;                   // block-uniform
      const int prow = sRow[par][kk], pp = sPos[par][kk];
      real l[RB];
#pragma unroll
      for (int r = 0; r < RB; ++r) {
        const int i = lane + 32 * r;
        if (i == prow) pos[r] = k;
        else if (pos[r] == k) pos[r] = pp;
        l[r] = pos[r] > k ? sL[par][kk][i] : real(0);
      }
      // A zero multiplier leaves a pivot/done row unchanged only if its value is finite, so those
      // rows are masked, not multiplied by zero.
#pragma unroll
      for (int b = bk * NB; b < CB; ++b) {
        if (b < (bk + 1) * NB && warp <= w) continue;   // the panel itself, or columns left of it
        const int j = colOf(b, warp);
        if (j >= ${f.cols}) continue;                           // warp-uniform
        // (a select keyed by the lane's own row: keyed by prow >> 5 alone, NVVM makes v a local array)
        real t = real(0);
#pragma unroll
        for (int r = 0; r < RB; ++r) if (lane + 32 * r == prow) t = v[r][b];
        const real u = __shfl_sync(FULL, t, prow & 31);
#pragma unroll
        for (int r = 0; r < RB; ++r) if (pos[r] > k) v[r][b] = fmaReal(-l[r], u, v[r][b]);
      }
    }
  }
  }
  __syncthreads();
  // ld through a volatile move: without it the compiler keeps the CB column offsets of the loads
  // live through the whole factorisation (16 registers at CB = 8) and spills at 128 x 128.
  int ldStore;
  asm volatile("mov.b32 %0, %1;" : "=r"(ldStore) : "r"(ldA));
${forEachTileElement(`if (i < ${f.rows} && j < ${f.cols}) a[pos[r] + (long long)j * ldStore] = v[r][b];`)}
  if (threadIdx.x == 0) info[id] = sInfo;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * Batched LU with partial pivoting for medium sizes (up to 128 x 128): one thread block per
 * matrix, the whole matrix in registers, one read of A and one write, one barrier per column.
 *
 * This is the register design of the KBLAS paper (batched-triangular-kblas, "register" kernels up
 * to 256) applied to dgetf2, with the delayed row swapping of the very-small paper (section 4.4,
 * as in getrf/small.ts): rows never move, a swap only changes which position each row occupies.
 *
 * Layout: lane l of every warp holds rows l, l + 32, l + 64, ... (RB of them); warp w holds
 * columns w, w + TC, w + 2 TC, ... (CB of them, cyclic so the shrinking trailing matrix stays
 * balanced). Loads and stores are column-major-coalesced (a warp touches 32 consecutive rows).
 * Every warp holds every row, so the pivot row reaches a warp through one shuffle per column: no
 * shared memory for the pivot row and no second barrier.
 *
 * Step k: the warp owning column k finds the pivot in its registers (LAPACK's idamax over
 * positions k.., ties to the smaller position, NaN only at position k wins: the rules of
 * small.ts), scales its column (by the reciprocal, or a division below the safe minimum, as
 * dgetf2), publishes the multipliers and the pivot's row/position to shared memory (double
 * buffered by the parity of k), writes ipiv[k] (0-based) and the first zero pivot; barrier; every
 * warp takes the pivot row of its columns by shuffle and applies the rank-1 update. An exactly
 * zero pivot sets info, is not scaled, and the factorisation goes on (dgetf2).
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters, type OperandKind } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import { kindTag } from '../potrf/operands.js';
import { mathHelpers } from '../potrf/small.js';
import { forEachTileElement } from '../common/register-tile.js';

export interface GetrfRegisterParams {
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  readonly kind: OperandKind;
  /** Warps per block = column groups (TC); each thread holds ceil(cols / warps) columns. */
  readonly warps: number;
}

/** The largest rows and columns the register design accepts (RB <= 4 row registers per column). */
export const REGISTER_DESIGN_MAX = 128;

/**
 * Warps for `cols` columns: about 8 columns per thread (32 doubles per thread at 128 x 128,
 * 512 threads), never fewer than 4 warps.
 */
export function registerWarps(cols: number): number {
  return Math.min(16, Math.max(4, Math.ceil(cols / 8)));
}

/** Shared declarations and the layout constants of both register designs (getrf and potrf). */
export function registerPrelude(dtype: DType, rows: number, cols: number, warps: number): string {
  return `${precisionPrelude(dtype)}
${mathHelpers(dtype)}
constexpr int M = ${rows};
constexpr int N = ${cols};
constexpr int TC = ${warps};                 // warps = column groups
constexpr int RB = (M + 31) / 32;           // rows per thread: lane + 32 a
constexpr int CB = (N + TC - 1) / TC;       // columns per thread: warp + TC b
constexpr unsigned FULL = 0xffffffffu;`;
}

export function getrfRegisterSource(p: GetrfRegisterParams): KernelSource {
  const entry = `getrf_reg_${precisionLetter(p.dtype)}_${p.rows}x${p.cols}_${kindTag(p.kind)}_w${p.warps}`;
  const source = `${registerPrelude(p.dtype, p.rows, p.cols, p.warps)}
constexpr int STEPS = M < N ? M : N;
constexpr real SAFE_MIN = ${p.dtype === 'float64' ? '2.2250738585072014e-308' : '1.1754943508222875e-38f'};

// (key, position): the larger key wins, ties go to the smaller position (idamax).
static __device__ __forceinline__ void better(real& key, int& pos, real okey, int opos) {
  if (okey > key || (okey == key && opos < pos)) { key = okey; pos = opos; }
}

extern "C" __global__ void __launch_bounds__(TC * 32, 1) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count) {
  __shared__ real sL[2][RB * 32];             // multipliers of step k, by row
  __shared__ int sRow[2], sPos[2];            // the pivot's row and position
  __shared__ int sInfo;
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};
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
    pos[r] = i < M ? i : -1;
#pragma unroll
    for (int b = 0; b < CB; ++b) {
      const int j = warp + TC * b;
      v[r][b] = (i < M && j < N) ? a[i + (long long)j * ldA] : real(0);
    }
  }
  if (threadIdx.x == 0) sInfo = 0;            // thread 0 is also the first step's owner

  // k = TC bk + w: bk (the owner's register column) is a compile-time index, so the column of
  // step k is never indexed at run time and columns left of it drop out of the update statically.
#pragma unroll
  for (int bk = 0; bk < CB; ++bk) {
#pragma unroll 1
  for (int w = 0; w < TC; ++w) {
    const int k = TC * bk + w;
    if (k >= STEPS) break;                    // block-uniform
    const int par = k & 1;
    if (warp == w) {
      real x[RB];
#pragma unroll
      for (int r = 0; r < RB; ++r) x[r] = v[r][bk];
      real key = real(-2);
      int kpos = 0x7fffffff;
#pragma unroll
      for (int r = 0; r < RB; ++r) {
        if (pos[r] >= k)
          better(key, kpos, x[r] != x[r] ? (pos[r] == k ? infReal() : real(-1)) : absReal(x[r]), pos[r]);
      }
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) {
        const real ok = __shfl_xor_sync(FULL, key, off);
        const int op = __shfl_xor_sync(FULL, kpos, off);
        better(key, kpos, ok, op);
      }
      const int pp = kpos;
      int mine = -1;
      real xp = real(0);
#pragma unroll
      for (int r = 0; r < RB; ++r) if (pos[r] == pp) { mine = lane + 32 * r; xp = x[r]; }
      const int src = __ffs(__ballot_sync(FULL, mine >= 0)) - 1;
      const real pivot = __shfl_sync(FULL, xp, src);
      const int prow = __shfl_sync(FULL, mine, src);
      const bool scale = pivot != real(0);
      const bool tiny = absReal(pivot) < SAFE_MIN;
      const real rcp = real(1) / pivot;
#pragma unroll
      for (int r = 0; r < RB; ++r) {
        const int i = lane + 32 * r;
        if (pos[r] >= k && i != prow) {
          real l = x[r];
          if (scale) l = tiny ? l / pivot : l * rcp;
          sL[par][i] = l;
          v[r][bk] = l;
        }
      }
      if (lane == 0) {
        sRow[par] = prow;
        sPos[par] = pp;
        pv[k] = pp;
        if (!scale && sInfo == 0) sInfo = k + 1;
      }
    }
    __syncthreads();
    const int prow = sRow[par], pp = sPos[par];
    const int src = prow & 31;
    real l[RB];                                // this lane's multipliers (0 where a row takes no update)
#pragma unroll
    for (int r = 0; r < RB; ++r) {
      const int i = lane + 32 * r;
      l[r] = real(0);
      if (pos[r] < k) continue;
      if (i == prow) { pos[r] = k; continue; }
      if (pos[r] == k) pos[r] = pp;            // the row at position k takes the pivot's place
      l[r] = sL[par][i];
    }
    // The pivot row of this warp's columns, one shuffle per column from the lane that holds it,
    // applied at once (one value live, not CB). A zero multiplier leaves a pivot/done row unchanged
    // only if its value is finite, so those rows are masked, not multiplied by zero.
#pragma unroll
    for (int b = bk; b < CB; ++b) {
      const int j = warp + TC * b;
      // (a select keyed by the lane's own row: keyed by prow >> 5 alone, NVVM makes v a local array)
      real t = real(0);
#pragma unroll
      for (int r = 0; r < RB; ++r) if (lane + 32 * r == prow) t = v[r][b];
      const real u = __shfl_sync(FULL, t, src);
      if ((b > bk || warp > w) && j < N) {
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
${forEachTileElement('if (i < M && j < N) a[pos[r] + (long long)j * ldStore] = v[r][b];')}
  if (threadIdx.x == 0) info[id] = sInfo;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

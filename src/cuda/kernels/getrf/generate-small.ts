/**
 * Batched LU with partial pivoting for m, n <= 32: the paper's register design REG-v3 (section
 * 4.4) with delayed row swapping (the paper's "delaying the swapping process", [1]).
 *
 * Thread r keeps row r of the input in registers for the whole factorisation and never moves it:
 * a swap only changes which position each row occupies (`pos`, LAPACK's row order after the
 * swaps so far), and each row is written once, at the end, to its final position. Several
 * matrices share a warp where one cannot fill it (REG-v3's 2-D layout): a matrix gets a
 * power-of-two group of lanes, so the pivot search is a butterfly of shuffles inside the group.
 *
 * Step k: every row not yet chosen offers |A(pos, k)|; the group finds the first position of the
 * largest magnitude exactly as LAPACK's idamax (a later entry wins only when strictly larger, so a
 * NaN at position k is kept and a NaN elsewhere never wins: encoded as +inf and -1); the pivot row
 * publishes itself to shared memory (for small float32 matrices the pivot value also goes to all by
 * one shuffle: pivotByShuffle); the other rows scale by the reciprocal of the pivot (by a
 * division below the safe minimum, as dgetf2) and take the rank-1 update. An exactly zero pivot
 * sets info (first one only), is neither swapped nor scaled, and the factorisation goes on.
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter } from '../common/precision.js';
import { slotSetup, type SmallLayout, smallPrelude } from '../common/warp-slots.js';
import type { GetrfSmallParams } from './params.js';

export const GETRF_SMALL_MAX = 32;

const nextPow2 = (x: number): number => (x <= 1 ? 1 : 2 ** Math.ceil(Math.log2(x)));

export function getrfSmallLayout(dtype: DType, rows: number, cols: number, warps: number, tile = false): SmallLayout {
  return { dtype, n: Math.max(rows, cols), warps, tile, lanes: nextPow2(rows) };
}

/**
 * Whether the pivot value goes to all rows by a shuffle from the winner's lane (its reciprocal then
 * starts before the barrier) rather than from shared memory after it. Measured on an H100 (getrf,
 * % of the bandwidth bound, shuffle vs shared): f32 n = 4 78.4 vs 74.6, n = 8 70.7 vs 63.7, but
 * n = 16 48.3 vs 64.5 (not understood), f64 n = 8 90.5 vs 92.0, n = 32 49.9 vs 50.6.
 */
const pivotByShuffle = (dtype: DType, n: number): boolean => n <= byPrecision(dtype, { double: 0, single: 8 });

/**
 * Constants and the in-register LU (shared with the fused gesv kernel). Needs smallPrelude and
 * slotSetup in scope; ROWS <= N lanes hold rows, COLS registers per row. After it, thread r holds
 * in rA the final row at position `pos`: L(pos, 0..pos) (unit diagonal implied) and U(pos, pos..).
 *
 * `masked`: the size classes of a variable batch (generate-vbatched.ts). luRows takes the member's
 * `steps` (min(m, n) <= STEPS) as a run-time bound: from step `steps` on no row is a candidate, no
 * row is updated and no info is set, while every lane still runs the unrolled steps (the warp's
 * shuffles and barriers need all of them, and members of different sizes share a warp).
 */
export function luPrelude(dtype: DType, rows: number, cols: number, shuffle = pivotByShuffle(dtype, rows), masked = false): string {
  const inSteps = masked ? ' && k < steps' : '';
  return `constexpr int ROWS = ${rows};
constexpr int COLS = ${cols};
constexpr int STEPS = ROWS < COLS ? ROWS : COLS;
constexpr real SAFE_MIN = ${dtypeInfo(dtype).cuda.safeMin};

// Key of a pivot candidate: larger wins, ties go to the smaller position (LAPACK's idamax).${shuffle ? `
// The position is packed with the lane (pos * 32 + lane: same order, positions are distinct), so
// the winner's lane is known to all after the reduction.` : ''}
static __device__ __forceinline__ void pivotKey(real x, bool candidate, int pos, int k, int lane, real& key, int& kpos) {
  key = !candidate ? real(-2) : (x != x ? (pos == k ? infReal() : real(-1)) : absReal(x));
  kpos = candidate ? ${shuffle ? 'pos * 32 + lane' : 'pos'} : 0x7fffffff;
  (void)lane;
}

/* In-place LU of the rows of one matrix; returns info. Rows move only in 'pos'. */
static __device__ __forceinline__ int luRows(real (&rA)[COLS], int r, int& pos, real* c0, real* c1,
                                             int* __restrict__ piv${masked ? ', int steps' : ''}) {
  int info = 0;
  bool done = false;
  const int lane = threadIdx.x & 31;
  pos = r;
#pragma unroll
  for (int k = 0; k < STEPS; ++k) {
    real* sr = (k & 1) ? c1 : c0;
    real key; int kpos;
    pivotKey(rA[k], r >= 0 && !done${inSteps}, pos, k, lane, key, kpos);
#pragma unroll
    for (int off = LANES / 2; off > 0; off >>= 1) {
      const real ok = __shfl_xor_sync(0xffffffffu, key, off);
      const int op = __shfl_xor_sync(0xffffffffu, kpos, off);
      if (ok > key || (ok == key && op < kpos)) { key = ok; kpos = op; }
    }
    const int p = ${shuffle ? 'kpos >> 5' : 'kpos'};
${shuffle ? `    // The pivot value straight from the winner's lane: its reciprocal is under way while the row
    // goes through shared memory.
    const real pivot = __shfl_sync(0xffffffffu, rA[k], kpos & 31);
    const real rp = real(1) / pivot;
` : ''}    const bool winner = r >= 0 && !done && pos == p;
    if (winner) {
#pragma unroll
      for (int j = k; j < COLS; ++j) sr[j] = rA[j];
      if (piv) piv[k] = p;
    }
    __syncwarp();${shuffle ? '' : `
    const real pivot = sr[k];`}
    if (pivot == real(0) && info == 0${inSteps}) info = k + 1;
    if (winner) { done = true; pos = k; }
    else if (r >= 0 && !done${inSteps}) {
      if (pos == k) pos = p;                       // the row that was at k takes the pivot's place
      real l = rA[k];
      if (pivot != real(0)) l = absReal(pivot) >= SAFE_MIN ? l * ${shuffle ? 'rp' : '(real(1) / pivot)'} : l / pivot;
      rA[k] = l;
#pragma unroll
      for (int j0 = ((k + 1) / VW) * VW; j0 < COLS; j0 += VW) {
        const vec v = *reinterpret_cast<const vec*>(sr + j0);
#pragma unroll
        for (int e = 0; e < VW; ++e) {
          const int j = j0 + e;
          if (j > k && j < COLS) rA[j] = fmaReal(-l, vget(v, e), rA[j]);
        }
      }
    }
  }
  return info;
}`;
}

export function getrfSmallSource(p: GetrfSmallParams): KernelSource {
  const entry = `getrf_${precisionLetter(p.dtype)}_${p.rows}x${p.cols}_${kindTag(p.kind)}_w${p.warps}`;
  const layout = getrfSmallLayout(p.dtype, p.rows, p.cols, p.warps);
  const source = `${smallPrelude(layout)}
${luPrelude(p.dtype, p.rows, p.cols)}

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count) {
${slotSetup()}
  real* a = valid ? ${matrixPointer('A', p.kind, 'mid')} : nullptr;
  const bool hasRow = valid && r < ROWS;
  const int row = hasRow ? r : -1;
  real rA[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) rA[j] = hasRow ? a[r + (long long)j * ldA] : real(0);
  int pos;
  const int inf = luRows(rA, row, pos, c0, c1, valid ? ipiv + id * (long long)pivotStride : nullptr);
  if (hasRow) {
#pragma unroll
    for (int j = 0; j < COLS; ++j) a[pos + (long long)j * ldA] = rA[j];
  }
  if (valid && r == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

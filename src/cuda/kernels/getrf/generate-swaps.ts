/**
 * The blocked LU's row interchanges (dlaswp, incx = 1) of a range of pivots on a range of columns of
 * every matrix, in one launch (plan.ts getrfBlockedSteps: after each panel, all its interchanges to
 * every column left and right of it; and the recursion's swaps inside a panel). The thread-per-column dlaswp of generate-laswp.ts walks the pivots in order, a load and a
 * store a pivot that the compiler cannot reorder (the next pivot may name the row just stored):
 * nb L2 round trips in series. Here a block takes a tile of columns and first composes the swaps
 * into one permutation of the rows they touch, in shared memory (warp 0: slots for rows from ...
 * to-1, then one slot for each other row a pivot names, found by a ballot over the slots; the
 * swaps exchange the slots' sources); then every touched element of the tile is read once and
 * written once, all loads in flight together (rows from ... to-1 of a column are contiguous).
 * Pivots beyond MAXP are done in chunks (one permutation each, in order). Columns inside
 * [from, to) (the panel's own, which its recursion has swapped already) are left alone.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { GetrfSwapsParams } from './params.js';

export const SWAPS_THREADS = 256;
/** Pivots composed per chunk (slots: at most twice as many). */
export const SWAPS_MAX_PIVOTS = 128;
/** The widest column tile a block takes. */
export const SWAPS_TILE = 16;

export function getrfSwapsSource(p: GetrfSwapsParams): KernelSource {
  const entry = `getrf_swaps_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}
constexpr int THREADS = ${SWAPS_THREADS};
constexpr int MAXP = ${SWAPS_MAX_PIVOTS};
constexpr int TC = ${SWAPS_TILE};

// Grid: (matrices, column tiles). A points at A(0, col0) of each matrix: cols columns from there,
// tiles of 'tile' (<= TC) columns; ipiv holds absolute 0-based rows; pivots from ... to-1 apply.
// A column c (col0 + its place in the range) with from <= c < to is left alone.
extern "C" __global__ void __launch_bounds__(THREADS) ${entry}(
    ${operandParameters('A', p.kind, true)},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ index, int count,
    int from, int to, int col0, int cols, int tile) {
  __shared__ int sPv[MAXP];
  __shared__ int sRow[2 * MAXP];   // the row each slot stands for
  __shared__ int sSrc[2 * MAXP];   // the row whose value the slot receives
  __shared__ int sCount;
  __shared__ real sVal[2 * MAXP * TC];
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  const int c0 = blockIdx.y * tile;
  if (c0 >= cols) return;
  const int w = min(tile, cols - c0);
  real* a = ${matrixPointer('A', p.kind, 'mid')} + (long long)c0 * ldA;
  const int* pv = ipiv + id * (long long)pivotStride;
  const int c = col0 + c0;                          // the tile's first column
  if (c >= from && c + w <= to) return;             // inside the panel (uniform)
  const int tid = threadIdx.x, lane = tid & 31;
  for (int k0 = from; k0 < to; k0 += MAXP) {
    const int k1 = min(to, k0 + MAXP), np = k1 - k0;
    __syncthreads();                                  // the previous chunk's slots are used up
    for (int s = tid; s < np; s += THREADS) { sPv[s] = pv[k0 + s]; sRow[s] = k0 + s; sSrc[s] = k0 + s; }
    __syncthreads();
    if (tid < 32) {
      int n = np;                                     // slots so far (the same in every lane)
      for (int k = k0; k < k1; ++k) {
        const int r = sPv[k - k0];
        if (r == k) continue;
        int slot = r >= k0 && r < k1 ? r - k0 : -1;
        for (int b = np; slot < 0 && b < n; b += 32) {
          const unsigned hit = __ballot_sync(0xffffffffu, b + lane < n && sRow[b + lane] == r);
          if (hit != 0u) slot = b + __ffs(hit) - 1;
        }
        if (slot < 0) {                               // a row first named now: a new slot
          slot = n++;
          if (lane == 0) { sRow[slot] = r; sSrc[slot] = r; }
        }
        __syncwarp();
        if (lane == 0) { const int t = sSrc[k - k0]; sSrc[k - k0] = sSrc[slot]; sSrc[slot] = t; }
        __syncwarp();
      }
      if (lane == 0) sCount = n;
    }
    __syncthreads();
    const int n = sCount;
    // Slots fastest: rows k0 ... k1-1 of a column are consecutive addresses.
    for (int e = tid; e < n * w; e += THREADS) {
      const int s = e % n, j = e / n;
      if (sSrc[s] != sRow[s] && (c + j < from || c + j >= to)) sVal[e] = a[sSrc[s] + (long long)j * ldA];
    }
    __syncthreads();
    for (int e = tid; e < n * w; e += THREADS) {
      const int s = e % n, j = e / n;
      if (sSrc[s] != sRow[s] && (c + j < from || c + j >= to)) a[sRow[s] + (long long)j * ldA] = sVal[e];
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

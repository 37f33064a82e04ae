/**
 * The warp-design class kernel of a variable-size batched LU (classes up to 32; the classes above
 * are the register design in its class frame, generate-register.ts). Tables (common/vbatch.ts):
 * one pointer per member, and ints m, n, ld and the member's batch index.
 *
 * The class bound N is the compile-time order (ROWS = COLS = N, so the lanes and slots are those of
 * the uniform N x N kernel). A member m x n (m, n <= N) is loaded into rows r < m and columns j < n;
 * lanes r >= m hold no row (never candidates, never updated: the uniform kernel's lanes past ROWS),
 * columns j >= n are zeros that are never stored. luRows (generate-small.ts, masked) stops the
 * pivot search, the updates and info at the member's min(m, n) steps while every lane runs the N
 * unrolled steps (members of different sizes share a warp, whose shuffles need every lane). The
 * member's elements see the operations of the uniform m x n kernel in the same order, and the
 * pivot search's winner does not depend on the reduction's width (the first of the largest
 * magnitudes, a total order), so the results are the uniform kernel's, pivots and info included.
 * Members with m = 0 or n = 0 only get info 0.
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionLetter } from '../common/precision.js';
import { slotSetup, smallPrelude } from '../common/warp-slots.js';
import { getrfSmallLayout, luPrelude } from './generate-small.js';
import type { GetrfSmallParams } from './params.js';

/** Entries per member in the int table (m, n, ld, batch index); one pointer each. */
export const GETRF_VBATCH_INTS = 4;

/** `p.rows` = `p.cols` is the class bound; `p.kind` must be 'pointer'. */
export function getrfSmallVbatchedSource(p: GetrfSmallParams): KernelSource {
  if (p.kind !== 'pointer') throw new Error('the vbatched warp kernel reads a pointer table: kind must be pointer');
  if (p.rows !== p.cols) throw new Error('a class kernel is square: rows and cols are the class bound');
  const entry = `getrf_vsmall_${precisionLetter(p.dtype)}_c${p.rows}_w${p.warps}`;
  const layout = getrfSmallLayout(p.dtype, p.rows, p.cols, p.warps);
  const source = `${smallPrelude(layout)}
${luPrelude(p.dtype, p.rows, p.cols, undefined, true)}

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    real* const* __restrict__ A, const int* __restrict__ dims,
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, int count) {
  const int* const index = nullptr;     // the member's batch index comes from dims
${slotSetup()}
  const int* dm = dims + ${GETRF_VBATCH_INTS} * (valid ? mid : 0);
  const int mm = valid ? dm[0] : 0;      // the member's rows and columns (<= N)
  const int nm = valid ? dm[1] : 0;
  const int ldA = valid ? dm[2] : 1;
  const long long bid = valid ? (long long)dm[3] : 0;
  const int steps = mm < nm ? mm : nm;
  real* a = (valid && steps > 0) ? A[mid] : nullptr;
  const bool hasRow = a != nullptr && r < mm;
  const int row = hasRow ? r : -1;
  real rA[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) rA[j] = (hasRow && j < nm) ? a[r + (long long)j * ldA] : real(0);
  int pos;
  const int inf = luRows(rA, row, pos, c0, c1, valid ? ipiv + bid * pivotStride : nullptr, steps);
  if (hasRow) {
#pragma unroll
    for (int j = 0; j < COLS; ++j) if (j < nm) a[pos + (long long)j * ldA] = rA[j];
  }
  if (valid && r == 0) info[bid] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

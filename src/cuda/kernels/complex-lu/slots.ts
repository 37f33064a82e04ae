/**
 * The complex LU kernels' warp-slot layout (common/warp-slots.ts: a matrix per group of `lanes`
 * lanes, one row a lane, several matrices a warp where one cannot fill it): the constants that
 * slotSetup() reads, with the slot's two column buffers counted in pairs, and the launch grid.
 */
import type { DType } from '../../../core/dtype.js';
import { complexPrelude, complexScalarHelpers } from '../common/complex.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import { smallGrid } from '../common/warp-slots.js';

export interface ComplexSlotLayout {
  readonly dtype: DType;
  /** Rows of a matrix: lanes 0 .. rows - 1 of its group hold them. */
  readonly rows: number;
  /** Lanes a matrix (>= rows; a power of two where the pivot search reduces over them). */
  readonly lanes: number;
  readonly warps: number;
  /** Pairs in each of the slot's two column buffers (the pivot row, or the lane map). */
  readonly pairs: number;
}

export const nextPow2 = (x: number): number => (x <= 1 ? 1 : 2 ** Math.ceil(Math.log2(x)));

/** The element types, their helpers and the layout's constants (slotSetup's N, LANES, MPW, WARPS, NC, SLOT). */
export function complexSlotPrelude(l: ComplexSlotLayout): string {
  // The buffers are `real` arrays of whole pairs: c0 and c1 stay aligned as real2.
  const nc = 2 * Math.max(1, l.pairs);
  return `${precisionPrelude(l.dtype)}
${mathHelpers(l.dtype)}
${complexPrelude(l.dtype)}
${complexScalarHelpers(l.dtype)}
constexpr int N = ${l.rows};
constexpr int LANES = ${l.lanes};               // lanes per matrix
constexpr int MPW = ${Math.floor(32 / l.lanes)};   // matrices per warp
constexpr int WARPS = ${l.warps};
constexpr int NC = ${nc};                       // reals per column buffer (whole pairs)
constexpr int SLOT = ${2 * nc};                 // shared reals per matrix`;
}

/**
 * The kernels' launch bounds: WARPS warps, and at least one block an SM asked explicitly. With the
 * thread count alone ptxas held some of these kernels to 128 registers and spilled (sm_90, CUDA 13:
 * gesv z n = 13, 14, 25 and c n = 23, 31 with further passes, getrs c 'N' n = 23, 4 to 32 bytes);
 * with the block count it allocates what they need (125 to 147 there) and none spills.
 */
export const COMPLEX_LAUNCH_BOUNDS = '__launch_bounds__(WARPS * 32, 1)';

/** Blocks for `count` matrices. */
export function complexSlotGrid(l: ComplexSlotLayout, count: number): number {
  return smallGrid({ dtype: l.dtype, n: l.rows, warps: l.warps, tile: false, lanes: l.lanes }, count);
}

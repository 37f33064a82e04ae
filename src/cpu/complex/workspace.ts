/**
 * Complex float64 working copies of one matrix at a time: the complex LAPACK reference runs on a
 * contiguous Float64Array of interleaved pairs (ld = rows, in complex elements), loaded from the
 * user's matrix and stored back with one pass each, as the real reference does (lapack/workspace.ts):
 * complex64 data is computed in float64 and rounded once when stored. Only the region the
 * operation reads is loaded, only the region it writes is stored.
 */
import type { MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { Region } from '../lapack/workspace.js';

export { WHOLE, Workspace, triangleRegion, type Region } from '../lapack/workspace.js';

/** Copies the region of complex `m` into w (ld = m.rows); w holds 2 m.rows m.cols floats. */
export function zload(m: MatrixView<FloatArray>, region: Region, w: Float64Array): void {
  zcopy(m.data, m.offset, m.ld, w, 0, m.rows, m.rows, m.cols, region);
}

/** Copies the region of w (ld = m.rows) back into complex `m`, rounding to its component type. */
export function zstore(w: Float64Array, region: Region, m: MatrixView<FloatArray>): void {
  zcopy(w, 0, m.rows, m.data, m.offset, m.ld, m.rows, m.cols, region);
}

function zcopy(
  src: FloatArray, srcOff: number, srcLd: number, dst: FloatArray, dstOff: number, dstLd: number,
  rows: number, cols: number, region: Region,
): void {
  const skip = region.diagonal ? 0 : 1;
  for (let j = 0; j < cols; j++) {
    let first = 0;
    let end = rows;
    if (region.triangle === 'lower') first = Math.min(j + skip, rows);
    else if (region.triangle === 'upper') end = Math.min(j + 1 - skip, rows);
    const s = 2 * (srcOff + j * srcLd);
    const d = 2 * (dstOff + j * dstLd);
    for (let i = 2 * first; i < 2 * end; i++) dst[d + i] = src[s + i]!;
  }
}

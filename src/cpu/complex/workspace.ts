/**
 * Complex float64 working copies of one matrix at a time: the complex LAPACK reference runs on a
 * contiguous Float64Array of interleaved pairs (ld = rows, in complex elements), loaded from the
 * user's matrix and stored back with one pass each, as the real reference does (lapack/workspace.ts):
 * complex64 data is computed in float64 and rounded once when stored. Only the region the
 * operation reads is loaded, only the region it writes is stored.
 */
import type { MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import { copyRegion, type Region } from '../lapack/workspace.js';

export { WHOLE, Workspace, triangleRegion, type Region } from '../lapack/workspace.js';

/** Copies the region of complex `m` into w (ld = m.rows); w holds 2 m.rows m.cols floats. */
export function zload(m: MatrixView<FloatArray>, region: Region, w: Float64Array): void {
  copyRegion(m.data, m.offset, m.ld, w, 0, m.rows, m.rows, m.cols, region, 2);
}

/** Copies the region of w (ld = m.rows) back into complex `m`, rounding to its component type. */
export function zstore(w: Float64Array, region: Region, m: MatrixView<FloatArray>): void {
  copyRegion(w, 0, m.rows, m.data, m.offset, m.ld, m.rows, m.cols, region, 2);
}

/**
 * Complex float64 working copies of one matrix at a time: the complex LAPACK reference runs on a
 * contiguous Float64Array of interleaved pairs (ld = rows, in complex elements), loaded from the
 * user's matrix and stored back with one pass each, as the real reference does (lapack/workspace.ts):
 * complex64 data is computed in float64 and rounded once when stored. Only the region the
 * operation reads is loaded, only the region it writes is stored.
 */
import { batchCount, matrixAt, type Batch, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import { copyRegion, type Region, type Workspace } from '../lapack/workspace.js';

export { WHOLE, Workspace, triangleRegion, type Region } from '../lapack/workspace.js';

/** Copies the region of complex `m` into w (ld = m.rows); w holds 2 m.rows m.cols floats. */
export function zload(m: MatrixView<FloatArray>, region: Region, w: Float64Array): void {
  copyRegion(m.data, m.offset, m.ld, w, 0, m.rows, m.rows, m.cols, region, 2);
}

/** Copies the region of w (ld = m.rows) back into complex `m`, rounding to its component type. */
export function zstore(w: Float64Array, region: Region, m: MatrixView<FloatArray>): void {
  copyRegion(w, 0, m.rows, m.data, m.offset, m.ld, m.rows, m.cols, region, 2);
}

/**
 * The batch loop of the one-matrix complex routines: each matrix's `region` loaded into a working
 * copy (ld = rows), `step` run on it (returns the matrix's info), the region stored back where
 * `store(info)` says (default: always), info written.
 */
export function eachMatrix(
  a: Batch<FloatArray>, region: Region, workspace: Workspace, info: Int32Array,
  step: (w: Float64Array, n: number) => number, store: (info: number) => boolean = () => true,
): void {
  const count = batchCount(a);
  for (let p = 0; p < count; p++) {
    const m = matrixAt(a, p);
    const w = workspace.get(2 * m.rows * m.rows);
    zload(m, region, w);
    const k = step(w, m.rows);
    if (store(k)) zstore(w, region, m);
    info[p] = k;
  }
}

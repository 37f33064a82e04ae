/**
 * Float64 working copies of one matrix at a time.
 *
 * Every kernel of the LAPACK reference runs on a contiguous Float64Array (ld = rows), loaded from
 * the user's matrix and stored back with one pass each. Two reasons:
 * - speed: the inner loops then only ever see one array type, so V8 keeps them monomorphic
 *   (a loop that has seen both Float64Array and Float32Array runs about 3x slower);
 * - accuracy: float32 data is computed in float64 and rounded once when stored, so the reference
 *   is at least as accurate as sgetf2/spotf2 (info and pivots can differ from a float32 LAPACK
 *   only on near-ties and near-singular input).
 * Only the region the operation reads (a triangle, with or without its diagonal) is loaded, and
 * only the region it writes is stored: the rest of the user's matrix is never touched.
 */
import type { FloatArray } from '../../core/dtype.js';
import type { MatrixView } from '../../core/batch.js';

/** Which part of a matrix is copied: all of it, or one triangle (with or without the diagonal). */
export interface Region {
  /** null: the whole matrix. */
  readonly triangle: 'lower' | 'upper' | null;
  readonly diagonal: boolean;
}

export const WHOLE: Region = { triangle: null, diagonal: true };
export const LOWER: Region = { triangle: 'lower', diagonal: true };
export const UPPER: Region = { triangle: 'upper', diagonal: true };
export const STRICT_LOWER: Region = { triangle: 'lower', diagonal: false };
export const STRICT_UPPER: Region = { triangle: 'upper', diagonal: false };

export const triangleRegion = (upper: boolean, diagonal = true): Region =>
  upper ? (diagonal ? UPPER : STRICT_UPPER) : (diagonal ? LOWER : STRICT_LOWER);

/** A reusable buffer, grown on demand (never per element, never per matrix once large enough). */
export class Workspace {
  private buffer = new Float64Array(64);
  /** At least `length` elements; contents unspecified. */
  get(length: number): Float64Array {
    if (this.buffer.length < length) this.buffer = new Float64Array(Math.max(length, 2 * this.buffer.length));
    return this.buffer;
  }
}

/** Copies the region of `m` into w (ld = m.rows). */
export function load(m: MatrixView<FloatArray>, region: Region, w: Float64Array): void {
  copyRegion(m.data, m.offset, m.ld, w, 0, m.rows, m.rows, m.cols, region);
}

/** Copies the region of w (ld = m.rows) back into `m`, rounding to its dtype. */
export function store(w: Float64Array, region: Region, m: MatrixView<FloatArray>): void {
  copyRegion(w, 0, m.rows, m.data, m.offset, m.ld, m.rows, m.cols, region);
}

/**
 * Copies a region of a matrix between two arrays; `parts` floats an element (1 real, 2 complex:
 * offsets and ld count elements).
 */
export function copyRegion(
  src: FloatArray, srcOff: number, srcLd: number, dst: FloatArray, dstOff: number, dstLd: number,
  rows: number, cols: number, region: Region, parts = 1,
): void {
  const skip = region.diagonal ? 0 : 1;
  for (let j = 0; j < cols; j++) {
    let first = 0;
    let end = rows;
    if (region.triangle === 'lower') first = Math.min(j + skip, rows);
    else if (region.triangle === 'upper') end = Math.min(j + 1 - skip, rows);
    const s = parts * (srcOff + j * srcLd);
    const d = parts * (dstOff + j * dstLd);
    for (let i = parts * first; i < parts * end; i++) dst[d + i] = src[s + i]!;
  }
}

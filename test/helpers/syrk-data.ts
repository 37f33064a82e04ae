/**
 * Test data of syrk and lauum (CPU emulation of the GPU plans and the GPU tests): which buffer
 * elements lie in the written triangle of a strided layout's matrices, and the tolerance of a
 * sum of k products of O(1) values.
 */
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { Layout } from './trsm-data.js';

/** Whether buffer element e lies in the `uplo` triangle (diagonal included) of a matrix of a strided n x n layout. */
export function inTriangle(l: Layout, uplo: Uplo): (e: number) => boolean {
  return (e) => {
    const q = e - l.offset;
    if (q < 0 || l.count === 0) return false;
    const m = l.stride === 0 ? 0 : Math.floor(q / l.stride);
    if (m >= l.count) return false;
    const w = q - m * l.stride;
    if (w >= l.ld * l.cols) return false;
    const i = w % l.ld, j = Math.floor(w / l.ld);
    return i < l.rows && (uplo === 'lower' ? i >= j : i <= j);
  };
}

/** The relative tolerance of sums of k products of values in [-1, 1] (scaled by |alpha|, |beta| up to 2.5). */
export const syrkTolerance = (dtype: DType, k: number): number => DTYPE_EPS[dtype] * 32 * Math.max(8, k);

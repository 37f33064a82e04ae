/**
 * The opening of the tiled and tensor-core batched GEMM kernels: which matrix of the batch this
 * block works on (grid y and z together, each limited to 65535), which BM x BN tile of its C
 * (grid x runs over the tiles, m fastest), and the pointers to its A, B and C. With a `triangle`,
 * a tile wholly outside it returns here, and `triangleGuard` is the test of one element of C.
 */
import type { Uplo } from '../../../core/enums.js';
import { matrixPointer } from '../common/batch-pointer.js';
import type { GemmOperandLayouts } from './params.js';

export function tileBlockPrologue(layouts: GemmOperandLayouts, triangle?: Uplo): string {
  const skip = triangle === undefined ? ''
    : triangle === 'lower'
      ? '\n  if (i0 + BM <= j0) return;                // every row of the tile is above the diagonal'
      : '\n  if (i0 >= j0 + BN) return;                // every row of the tile is below the diagonal';
  return `const int batch = blockIdx.z * gridDim.y + blockIdx.y;
  if (batch >= count) return;
  const int tilesM = (m + BM - 1) / BM;
  const int i0 = (blockIdx.x % tilesM) * BM;
  const int j0 = (blockIdx.x / tilesM) * BN;${skip}
  const real* a = ${matrixPointer('A', layouts.a.kind, 'batch')};
  const real* b = ${matrixPointer('B', layouts.b.kind, 'batch')};
  real* c = ${matrixPointer('C', layouts.c.kind, 'batch')};`;
}

/** ` && <C(row, col) is in the triangle>`, or nothing without one (the text is then unchanged). */
export function triangleGuard(triangle: Uplo | undefined, row: string, col: string): string {
  return triangle === undefined ? '' : triangle === 'lower' ? ` && ${row} >= ${col}` : ` && ${row} <= ${col}`;
}

/** The entry-name suffix of a triangle kernel. */
export const triangleTag = (triangle: Uplo | undefined): string => (triangle === undefined ? '' : triangle === 'lower' ? '_tl' : '_tu');

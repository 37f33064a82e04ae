/**
 * The opening of the tiled and tensor-core batched GEMM kernels: which matrix of the batch this
 * block works on (grid y and z together, each limited to 65535), which BM x BN tile of its C
 * (grid x runs over the tiles, m fastest), and the pointers to its A, B and C.
 */
import { matrixPointer } from '../common/batch-pointer.js';
import type { GemmOperandLayouts } from './params.js';

export function tileBlockPrologue(layouts: GemmOperandLayouts): string {
  return `const int batch = blockIdx.z * gridDim.y + blockIdx.y;
  if (batch >= count) return;
  const int tilesM = (m + BM - 1) / BM;
  const int i0 = (blockIdx.x % tilesM) * BM;
  const int j0 = (blockIdx.x / tilesM) * BN;
  const real* a = ${matrixPointer('A', layouts.a.kind, 'batch')};
  const real* b = ${matrixPointer('B', layouts.b.kind, 'batch')};
  real* c = ${matrixPointer('C', layouts.c.kind, 'batch')};`;
}

/**
 * alpha = 0: B := 0 over the m x n elements of every matrix, reading neither A nor B (BLAS: a NaN
 * in B does not survive), padding untouched. One thread per element, grid-stride.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { matrixElementsLoop } from '../common/element-loop.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { TrsmZeroParams } from './params.js';

export const ZERO_THREADS = 256;

export function trsmZeroSource(p: TrsmZeroParams): KernelSource {
  const entry = `trsm_zero_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${ZERO_THREADS}) ${entry}(
    ${operandParameters('B', p.kind, true)}, int count, int rows, int cols) {
${matrixElementsLoop(`    real* b = ${matrixPointer('B', p.kind, 'mat')};
    b[i + (long long)j * ldB] = real(0);`)}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

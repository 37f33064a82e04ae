/**
 * A batched out-of-place transpose: Y_i := X_i^T for every matrix of a group (X rows x cols, Y
 * cols x rows), either operand strided or a pointer array. One thread per element over the whole
 * batch (grid-stride), reads in column order: the matrices this serves are small (a copy of A^T
 * into a workspace for gels's minimum-norm case and back), so a tile through shared memory would
 * buy little over the launch itself. Padding of Y is not written.
 */
import type { DType } from '../../../core/dtype.js';
import { arg, type GpuDevice, type KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters, type OperandKind } from './batch-pointer.js';
import { matrixElementsLoop } from './element-loop.js';
import { kernelFor } from './kernel-cache.js';
import { operandArgs, type OperandArgs } from './operands.js';
import { precisionLetter, precisionPrelude } from './precision.js';

export interface TransposeParams {
  readonly dtype: DType;
  /** The form of X (read) and of Y (written). */
  readonly src: OperandKind;
  readonly dst: OperandKind;
}

export const TRANSPOSE_THREADS = 256;
/** Blocks at most: the grid-stride loop covers the rest. */
const TRANSPOSE_MAX_BLOCKS = 8192;

export function transposeSource(p: TransposeParams): KernelSource {
  const entry = `transpose_${precisionLetter(p.dtype)}_${kindTag(p.src)}_${kindTag(p.dst)}`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${TRANSPOSE_THREADS}) ${entry}(
    ${operandParameters('A', p.src, false)}, ${operandParameters('B', p.dst, true)}, int count, int rows, int cols) {
${matrixElementsLoop(`    const real* x = ${matrixPointer('A', p.src, 'mat')};
    real* y = ${matrixPointer('B', p.dst, 'mat')};
    y[j + (long long)i * ldB] = x[i + (long long)j * ldA];`)}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** Y := X^T for the `count` matrices of one launch group (X is `x.rows` x `x.cols`). */
export function transposeBatch(dev: GpuDevice, dtype: DType, x: OperandArgs, y: OperandArgs, count: number): void {
  const total = count * x.rows * x.cols;
  if (total === 0) return;
  const p: TransposeParams = { dtype, src: x.kind, dst: y.kind };
  const k = kernelFor(dev, 'transpose', p, () => transposeSource(p));
  k.launch({ grid: [Math.min(TRANSPOSE_MAX_BLOCKS, Math.ceil(total / TRANSPOSE_THREADS)), 1, 1], block: [TRANSPOSE_THREADS, 1, 1] }, [
    ...operandArgs(x), ...operandArgs(y), arg.i32(count), arg.i32(x.rows), arg.i32(x.cols),
  ]);
}

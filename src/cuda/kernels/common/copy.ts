/**
 * A batched out-of-place copy: Y_i := X_i for every matrix of a strided group (rows x cols each,
 * any leading dimensions). One thread per element over the whole batch (grid-stride, column
 * order): the large factorizations copy a panel aside with it before a GEMM writes the panel's
 * new value from the copy (a GEMM must not read what it writes). Padding of Y is not written.
 */
import type { DType } from '../../../core/dtype.js';
import { arg, type GpuDevice, type KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from './batch-pointer.js';
import { matrixElementsLoop } from './element-loop.js';
import { kernelFor } from './kernel-cache.js';
import { operandArgs, type OperandArgs } from './operands.js';
import { precisionLetter, precisionPrelude } from './precision.js';

export interface CopyParams {
  readonly dtype: DType;
}

const COPY_THREADS = 256;
/** Blocks at most: the grid-stride loop covers the rest. */
const COPY_MAX_BLOCKS = 8192;

export function copySource(p: CopyParams): KernelSource {
  const entry = `copy_${precisionLetter(p.dtype)}_st`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${COPY_THREADS}) ${entry}(
    ${operandParameters('A', 'strided', false)}, ${operandParameters('B', 'strided', true)}, int count, int rows, int cols) {
${matrixElementsLoop(`    ${matrixPointer('B', 'strided', 'mat')}[i + (long long)j * ldB] = ${matrixPointer('A', 'strided', 'mat')}[i + (long long)j * ldA];`)}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** Y := X for `count` strided matrices of `rows` x `cols`. */
export function copyBatch(
  dev: GpuDevice, dtype: DType, x: Pick<OperandArgs, 'pointer' | 'offset' | 'stride' | 'ld'>, y: Pick<OperandArgs, 'pointer' | 'offset' | 'stride' | 'ld'>,
  count: number, rows: number, cols: number,
): void {
  const total = count * rows * cols;
  if (total === 0) return;
  const p: CopyParams = { dtype };
  const k = kernelFor(dev, 'copy', p, () => copySource(p));
  k.launch({ grid: [Math.min(COPY_MAX_BLOCKS, Math.ceil(total / COPY_THREADS)), 1, 1], block: [COPY_THREADS, 1, 1] }, [
    ...operandArgs(x), ...operandArgs(y), arg.i32(count), arg.i32(rows), arg.i32(cols),
  ]);
}

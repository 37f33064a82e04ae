/**
 * posv / gesv on a route whose solves touch every matrix (a batched trsm: the real solves, the
 * complex Cholesky's beyond its fused kernel, the complex blocked LU): B of a matrix whose
 * factorisation failed (info != 0) must come back unchanged (LAPACK), so B is copied aside before
 * the solves (every matrix) and the failed matrices' B copied back after them (`failedOnly`). One
 * block per matrix; with `failedOnly`, blocks of matrices that succeeded return at once.
 * `matrixCopySource` is the kernel over the caller's element (`real`, or `real2`: a complex pair);
 * `copySource` / `copyMatrices` its real form and launcher (a complex batch is copied as the real
 * batch of its parts, common/pair-view.ts).
 */
import { batchCount, strided, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { kindTag, matrixPointer, operandParameters, type OperandKind } from './batch-pointer.js';
import { cachedKernel } from './kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from './operands.js';
import { pairsAsReals } from './pair-view.js';
import { precisionLetter, precisionPrelude } from './precision.js';
import type { BlockBatch } from './sub-blocks.js';

export const COPY_THREADS = 256;

export interface MatrixCopyKernel {
  readonly entry: string;
  /** The lines before the kernel (precisionPrelude, and complexPrelude for `real2`). */
  readonly prelude: string;
  readonly kind: OperandKind;
  readonly element: 'real' | 'real2';
  /** Only the matrices whose info is non-zero. */
  readonly failedOnly: boolean;
}

export function matrixCopySource(p: MatrixCopyKernel): string {
  const e = p.element;
  return `${p.prelude}

extern "C" __global__ void __launch_bounds__(${COPY_THREADS}) ${p.entry}(
    ${operandParameters('A', p.kind, false, e)},
    ${operandParameters('B', p.kind, true, e)},
    const int* __restrict__ info, const int* __restrict__ index, int count, int rows, int cols) {
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  ${p.failedOnly ? 'if (info[id] == 0) return;' : '(void)info; (void)id;'}
  const ${e}* a = ${matrixPointer('A', p.kind, 'mid')};
  ${e}* b = ${matrixPointer('B', p.kind, 'mid')};
  for (long long e = threadIdx.x; e < (long long)rows * cols; e += blockDim.x) {
    const long long i = e % rows, j = e / rows;
    b[i + j * ldB] = a[i + j * ldA];
  }
}
`;
}

/** B copied aside and back (copySource). */
export interface CopyParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  /** Only the matrices whose info is non-zero. */
  readonly failedOnly: boolean;
}

export function copySource(p: CopyParams): KernelSource {
  const entry = `copy_${p.failedOnly ? 'failed' : 'all'}_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = matrixCopySource({ entry, prelude: precisionPrelude(p.dtype), kind: p.kind, element: 'real', failedOnly: p.failedOnly });
  return { name: `${entry}.cu`, source, entry };
}

/**
 * Copies every matrix of `from` into `to` (real batches of the same shapes, one count), or only
 * those whose info (indexed by batch place) is non-zero.
 */
export function copyMatrices(dev: GpuDevice, from: Batch<DeviceArray>, to: Batch<DeviceArray>, info: DeviceArray, failedOnly: boolean): void {
  if (batchCount(from) === 0) return;
  const dtype = deviceDtype(to);
  const grouping = groupOperands(dev, [from, to]);
  try {
    for (const g of grouping.groups) {
      const [src, dst] = [g.operands[0]!, g.operands[1]!];
      if (dst.rows === 0 || dst.cols === 0) continue;
      const p: CopyParams = { dtype, kind: dst.kind, failedOnly };
      const k = cachedKernel(dev, `copy/${JSON.stringify(p)}`, () => copySource(p));
      k.launch({ grid: [g.count, 1, 1], block: [COPY_THREADS, 1, 1] }, [
        ...operandArgs(src), ...operandArgs(dst), arg.ptr(info), ...indexArgs(g.index, g.count), arg.i32(dst.rows), arg.i32(dst.cols),
      ]);
    }
  } finally {
    release(dev, grouping);
  }
}

/**
 * Runs `solve` on the complex B with B kept (the complex posv and gesv beyond their fused kernels): every matrix of B copied aside (packed, from the device's
 * workspace) before, and the matrices whose info is non-zero copied back after, so that their B
 * is as the caller gave it whatever the solves did there. The copies move pairs as the real batch
 * of their parts (common/pair-view.ts), through the real solves' copy kernel.
 */
export function keepingFailedPairs(dev: GpuDevice, b: BlockBatch<DeviceArray>, info: DeviceArray, count: number, solve: () => void): void {
  const parts = pairsAsReals(b);
  const rows = 2 * b.rows;
  const frame = Workspace.of(dev).frame();
  try {
    const aside = frame.take(deviceDtype(b), Math.max(1, count * rows * b.cols), `the copy of B kept aside by ${count} complex solves`);
    const copy = strided(aside, { rows, cols: b.cols, count, ld: Math.max(1, rows), stride: rows * b.cols }, 'b');
    copyMatrices(dev, parts, copy, info, false);
    solve();
    copyMatrices(dev, copy, parts, info, true);
  } finally {
    frame.end();
  }
}

/**
 * The recursive families' batches (trsm, syrk, lauum): a request's operands grouped into batches
 * of one shape that the GEMM (and the families' own launchers) take whole, with the leaf kernels'
 * operand arguments beside them; and the sub-block of every matrix of such a batch.
 * - all operands strided: one group, as they are;
 * - otherwise (list or variable batches): list batches by the shape and leading dimension of
 *   every operand, each with an uploaded pointer array (common/operands.ts) for the leaf kernels.
 */
import { batchCount, matrixAt, type Batch, type ListBatch, type MatrixView, type StridedBatch } from '../../../core/batch.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { uploadPointers, type OperandArgs } from './operands.js';

/** The batch forms a group holds (variable batches are grouped into lists). */
export type BlockBatch<S> = StridedBatch<S> | ListBatch<S>;

/** The rows x cols block at (r0, c0) of every matrix of a batch. */
export function block<S>(b: BlockBatch<S>, r0: number, c0: number, rows: number, cols: number): BlockBatch<S> {
  const delta = r0 + c0 * b.ld;
  if (b.kind === 'strided') return { ...b, offset: b.offset + delta, rows, cols };
  return { ...b, matrices: b.matrices.map((e) => ({ data: e.data, offset: e.offset + delta })), rows, cols };
}

/** Matrices of one shape: per operand, the batch and the leaf kernels' arguments. */
export interface BlockGroup {
  readonly count: number;
  readonly batches: readonly BlockBatch<DeviceArray>[];
  readonly args: readonly OperandArgs[];
}

/**
 * The groups of `batches` (all of one count); `skip(views)` drops a group by its first matrices
 * (empty ones). Uploaded pointer arrays go to `temporaries` (dispose after a synchronize).
 */
export function groupBlocks(
  dev: GpuDevice, batches: readonly Batch<DeviceArray>[], temporaries: DeviceArray[],
  skip: (first: readonly MatrixView<DeviceArray>[]) => boolean = () => false,
): BlockGroup[] {
  const count = batchCount(batches[0]!);
  if (count === 0) return [];
  if (batches.every((b) => b.kind === 'strided')) {
    const strided = batches as readonly StridedBatch<DeviceArray>[];
    const args = strided.map((x): OperandArgs =>
      ({ kind: 'strided', pointer: x.data.ptr, offset: x.offset, stride: x.stride, ld: x.ld, rows: x.rows, cols: x.cols }));
    return [{ count, batches: strided, args }];
  }
  const byKey = new Map<string, MatrixView<DeviceArray>[][]>();
  for (let i = 0; i < count; i++) {
    const views = batches.map((b) => matrixAt(b, i));
    const key = views.map((m) => `${m.rows}x${m.cols}/${m.ld}`).join(';');
    let members = byKey.get(key);
    if (members === undefined) byKey.set(key, (members = batches.map(() => [])));
    views.forEach((m, q) => members[q]!.push(m));
  }
  const out: BlockGroup[] = [];
  for (const members of byKey.values()) {
    if (skip(members.map((views) => views[0]!))) continue;
    const lists = members.map((views): ListBatch<DeviceArray> => {
      const first = views[0]!;
      return { kind: 'list', matrices: views.map((v) => ({ data: v.data, offset: v.offset })), rows: first.rows, cols: first.cols, ld: first.ld, order: 'col' };
    });
    const args = members.map((views, q): OperandArgs => {
      const ptr = uploadPointers(dev, views);
      temporaries.push(ptr);
      const x = lists[q]!;
      return { kind: 'pointer', pointer: ptr.ptr, offset: 0, stride: 0, ld: x.ld, rows: x.rows, cols: x.cols };
    });
    out.push({ count: members[0]!.length, batches: lists, args });
  }
  return out;
}

/**
 * Turning the batches of a request into kernel launches (shared by the factor and solve families). A kernel sees each operand in one of the two forms of common/batch-pointer.ts:
 * - all operands strided: one launch, `(base, offset, stride, ld)` per operand (the fast path);
 * - otherwise (list or variable batches): the matrices are grouped by shape and leading dimension
 *   (the kernels unroll the size), and each group gets an uploaded array of int64 pointers per
 *   operand, plus an int32 map from the group's matrix to its index in the batch (for info and
 *   ipiv) when the group is not the whole batch in order.
 */
import { batchCount, type Batch, type StridedBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { isDType, storageInfo } from '../../../core/dtype-table.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import type { OperandKind } from './batch-pointer.js';
import { groupMembers, memberAddresses, memberFields, type MemberFields } from './members.js';

export interface OperandArgs {
  readonly kind: OperandKind;
  /** Strided: the data pointer; pointer form: the device array of pointers. */
  readonly pointer: bigint;
  readonly offset: number;
  readonly stride: number;
  readonly ld: number;
  readonly rows: number;
  readonly cols: number;
}

export interface LaunchGroup {
  readonly count: number;
  readonly operands: readonly OperandArgs[];
  /** int32 map from the group's matrix to its batch index, or null for the identity. */
  readonly index: DeviceArray | null;
}

export interface Grouping {
  readonly groups: readonly LaunchGroup[];
  /** Uploaded pointer and index arrays: dispose with `release` once the launches have run. */
  readonly temporaries: readonly DeviceArray[];
}

/** The dtype of a device batch (the request is validated, so every matrix shares it). */
export function deviceDtype(b: Batch<DeviceArray>): DType {
  const data = b.kind === 'strided' ? b.data : b.matrices[0]?.data;
  return data !== undefined && isDType(data.dtype) ? data.dtype : 'float64';
}

export { groupByShape } from './members.js';

function groupFields(fields: readonly MemberFields[], count: number): number[][] {
  return groupMembers(count, fields.flatMap((f) => [f.rows, f.cols, f.ld]));
}

/**
 * Groups the matrices of `batches` (all of one count) into launches. `elementBytes`: the bytes of
 * one element as the batches count them where that is not their array's element (a complex pair:
 * both parts), for every batch or per batch (an entry undefined: that batch's array's); absent: the
 * array's.
 */
export function groupOperands(dev: GpuDevice, batches: readonly Batch<DeviceArray>[], elementBytes?: number | readonly (number | undefined)[]): Grouping {
  const count = batchCount(batches[0]!);
  if (count === 0) return { groups: [], temporaries: [] };
  if (batches.every((b) => b.kind === 'strided')) {
    const operands = batches.map((b): OperandArgs => {
      if (b.kind !== 'strided') throw new Error('unreachable');
      return { kind: 'strided', pointer: b.data.ptr, offset: b.offset, stride: b.stride, ld: b.ld, rows: b.rows, cols: b.cols };
    });
    return { groups: [{ count, operands, index: null }], temporaries: [] };
  }
  const temporaries: DeviceArray[] = [];
  const groups: LaunchGroup[] = [];
  // Each batch's fields read once; the pointer arrays written from them (no view or BigInt per matrix).
  const fields = batches.map((b) => memberFields(b));
  for (const members of groupFields(fields, count)) {
    const operands = fields.map((f, b): OperandArgs => {
      const first = members[0]!;
      const bytes = typeof elementBytes === 'number' ? elementBytes : elementBytes?.[b];
      const uploaded = dev.upload(memberAddresses(f, members, bytes ?? storageInfo(f.arrays[f.slot[first]!]!.dtype).bytes));
      temporaries.push(uploaded);
      return { kind: 'pointer', pointer: uploaded.ptr, offset: 0, stride: 0, ld: f.ld[first]!, rows: f.rows[first]!, cols: f.cols[first]! };
    });
    const identity = members.length === count;
    let index: DeviceArray | null = null;
    if (!identity) {
      index = dev.upload(Int32Array.from(members));
      temporaries.push(index);
    }
    groups.push({ count: members.length, operands, index });
  }
  return { groups, temporaries };
}

/**
 * A device array of int64 pointers to the first element of each matrix (the pointer-array form).
 * `elementBytes`: the bytes of one element as the offsets count them where that is not the array's (a complex pair).
 */
export function uploadPointers(dev: GpuDevice, views: readonly { readonly data: DeviceArray; readonly offset: number }[], elementBytes?: number): DeviceArray {
  const pointers = new BigInt64Array(views.length);
  views.forEach((m, q) => {
    pointers[q] = m.data.ptr + BigInt(m.offset * (elementBytes ?? storageInfo(m.data.dtype).bytes));
  });
  return dev.upload(pointers);
}

/** Waits for the launches that use the temporaries, then frees them. */
export function release(dev: GpuDevice, g: Grouping): void {
  if (g.temporaries.length === 0) return;
  dev.synchronize();
  for (const t of g.temporaries) t.dispose();
}

/** Dynamic shared bytes a planner may give one block: the device's opt-in limit less 1 KiB of reserve. */
export function sharedLimit(dev: GpuDevice): number {
  return dev.info.sharedPerBlockOptin - 1024;
}

/** Whether an operand's matrices lie back to back (strided, ld = rows, stride = rows cols, or one matrix): one contiguous span for a block's copy (common/span-stage.ts). */
export const densePacked = (o: OperandArgs, count: number): boolean =>
  o.kind === 'strided' && o.ld === o.rows && (o.stride === o.rows * o.cols || count === 1);

/** The four kernel arguments of one operand, matching `operandParameters` of common/batch-pointer.ts. */
export function operandArgs(o: Pick<OperandArgs, 'pointer' | 'offset' | 'stride' | 'ld'>): KernelArg[] {
  return [arg.ptr(o.pointer), arg.i64(o.offset), arg.i64(o.stride), arg.i32(o.ld)];
}

/** The four kernel arguments of a strided batch of device matrices (a sub-block view included). */
export function stridedArgs(b: StridedBatch<DeviceArray>): KernelArg[] {
  return operandArgs({ pointer: b.data.ptr, offset: b.offset, stride: b.stride, ld: b.ld });
}

/** The per-matrix integer arguments every factor/solve kernel takes after its operands. */
export function indexArgs(index: DeviceArray | null, count: number): KernelArg[] {
  return [arg.ptr(index === null ? 0n : index.ptr), arg.i32(count)];
}

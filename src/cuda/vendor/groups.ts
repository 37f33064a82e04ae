/**
 * A request's batches as the vendor routes use them: the address of every matrix (the API's
 * column-major batches with their ld, stride and offset; list and variable batches one matrix at
 * a time), and launch groups for the small kernels and the vendor's batched calls: a strided
 * request is one group as it is; otherwise the matrices are grouped by shape and leading
 * dimension (kernels/common/members.ts's `groupByShape`, as the own launchers group), each group
 * with an array of int64 addresses per operand and, where it is not the whole batch in order, an
 * int32 map to the batch's places. Those arrays live in the call's workspace frame
 * (stream-ordered, no allocation and no wait per call), and every address is checked against its
 * buffer first (a vendor routine reading outside it would poison the context).
 */
import { batchCount, matrixAt, type Batch } from '../../core/batch.js';
import { MyriadError } from '../../core/errors.js';
import { storageInfo } from '../../core/dtype-table.js';
import { groupByShape } from '../kernels/common/operands.js';
import type { WorkspaceFrame } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { launchStridedPointers, type GroupOperand } from './kernels.js';

/** One matrix: its first element's address, its shape and leading dimension. */
export interface MatrixAddress {
  readonly address: bigint;
  readonly rows: number;
  readonly cols: number;
  readonly ld: number;
}

/** Matrix i of a device batch, checked against its buffer (a vendor routine reading outside it would poison the context). */
export function matrixAddress(b: Batch<DeviceArray>, i: number, argument: string): MatrixAddress {
  const m = matrixAt(b, i);
  // A complex batch's ld and offset count (re, im) pairs in a buffer of the parts' type.
  const parts = b.dtype !== undefined ? 2 : 1;
  const elements = m.data.length / parts;
  const end = m.rows === 0 || m.cols === 0 ? m.offset : m.offset + m.ld * (m.cols - 1) + m.rows;
  if (end > elements || m.ld < Math.max(1, m.rows)) {
    throw new MyriadError('BOUNDS', `matrix ${i} (${m.rows} x ${m.cols}, ld ${m.ld}, offset ${m.offset}) does not fit its ${elements} elements`, argument);
  }
  return { address: m.data.ptr + BigInt(m.offset * parts * storageInfo(m.data.dtype).bytes), rows: m.rows, cols: m.cols, ld: m.ld };
}

export interface LaunchGroup {
  /** The batch places of the group's matrices, in group order. */
  readonly members: readonly number[];
  /** Per operand: rows, cols and ld shared by the group, and how the kernels find its matrices. */
  readonly shapes: readonly { readonly rows: number; readonly cols: number; readonly ld: number }[];
  readonly operands: readonly GroupOperand[];
  /** Group place -> batch place, or null where the group is the batch in order. */
  readonly index: DeviceArray | null;
}

/** The launch groups of `batches` (one count); pointer and index arrays taken from `frame`. */
export function launchGroups(dev: GpuDevice, frame: WorkspaceFrame, batches: readonly Batch<DeviceArray>[], names: readonly string[]): LaunchGroup[] {
  const count = batchCount(batches[0]!);
  if (count === 0) return [];
  if (batches.every((b) => b.kind === 'strided')) {
    const members = Array.from({ length: count }, (_, i) => i);
    const shapes = batches.map((b) => ({ rows: b.kind === 'strided' ? b.rows : 0, cols: b.kind === 'strided' ? b.cols : 0, ld: b.kind === 'strided' ? b.ld : 1 }));
    const operands = batches.map((b): GroupOperand => {
      if (b.kind !== 'strided') throw new Error('unreachable');
      for (const i of [0, count - 1]) matrixAddress(b, i, names[batches.indexOf(b)]!);
      return { kind: 'strided', pointer: b.data.ptr, offset: b.offset, stride: b.stride, ld: b.ld };
    });
    return [{ members, shapes, operands, index: null }];
  }
  const groups: LaunchGroup[] = [];
  for (const members of groupByShape(batches, count)) {
    const shapes = batches.map((b) => { const m = matrixAt(b, members[0]!); return { rows: m.rows, cols: m.cols, ld: m.ld }; });
    const operands = batches.map((b, o): GroupOperand => {
      const addresses = BigInt64Array.from(members, (i) => matrixAddress(b, i, names[o]!).address);
      const pointers = frame.take('int64', members.length, `${names[o]} matrix pointers`);
      dev.upload(addresses, pointers);
      return { kind: 'pointer', pointer: pointers.ptr, offset: 0, stride: 0, ld: shapes[o]!.ld };
    });
    let index: DeviceArray | null = null;
    if (members.length !== count) {
      index = frame.take('int32', members.length, 'batch places');
      dev.upload(Int32Array.from(members), index);
    }
    groups.push({ members, shapes, operands, index });
  }
  return groups;
}

/**
 * Launch groups whose operands are all in the pointer form, for the vendor routines that take
 * only arrays of matrix addresses (cublas?trsmBatched, cublas?getrsBatched): a strided request is
 * one group, its address arrays written by a kernel (no host loop and no upload per call: a batch
 * of 100000 matrices would cost milliseconds on the host); otherwise `launchGroups`' groups (already in that form, their addresses uploaded).
 * Each array is the frame's, so a route may rewrite it (gesv points failed matrices' B at
 * scratch).
 */
export function pointerGroups(dev: GpuDevice, frame: WorkspaceFrame, batches: readonly Batch<DeviceArray>[], names: readonly string[]): LaunchGroup[] {
  const count = batchCount(batches[0]!);
  if (count === 0 || !batches.every((b) => b.kind === 'strided')) return launchGroups(dev, frame, batches, names);
  const members = Array.from({ length: count }, (_, i) => i);
  const shapes: { rows: number; cols: number; ld: number }[] = [];
  const operands = batches.map((b, o): GroupOperand => {
    if (b.kind !== 'strided') throw new Error('unreachable');
    // The first and the last matrix inside the buffer: those between them are too (stride >= 0).
    const first = matrixAddress(b, 0, names[o]!);
    matrixAddress(b, count - 1, names[o]!);
    shapes.push({ rows: b.rows, cols: b.cols, ld: b.ld });
    const pointers = frame.take('int64', count, `${names[o]} matrix pointers`);
    // A complex batch's stride counts (re, im) pairs in a buffer of the parts' type.
    launchStridedPointers(dev, pointers, first.address, b.stride * (b.dtype !== undefined ? 2 : 1) * storageInfo(b.data.dtype).bytes, count);
    return { kind: 'pointer', pointer: pointers.ptr, offset: 0, stride: 0, ld: b.ld };
  });
  return [{ members, shapes, operands, index: null }];
}

/**
 * Matrices [start, start + size) of launch group `g` as a group of their own: the operands advanced
 * to matrix `start`, and the map to the batch's places (taken from `frame` and uploaded) unless they
 * are the batch in order from its first matrix.
 */
export function groupChunk(dev: GpuDevice, frame: WorkspaceFrame, g: LaunchGroup, start: number, size: number): LaunchGroup {
  const members = g.members.slice(start, start + size);
  const operands = g.operands.map((o): GroupOperand => (o.kind === 'strided'
    ? { ...o, offset: o.offset + start * o.stride }
    : { ...o, pointer: o.pointer + BigInt(8 * start) }));
  let index: DeviceArray | null = null;
  if (g.index !== null || start !== 0) {
    index = frame.take('int32', size, 'batch places');
    dev.upload(Int32Array.from(members), index);
  }
  return { members, shapes: g.shapes, operands, index };
}

/** The scratch a chunk of the dense routes may take for its matrices (a larger matrix gets a chunk of its own). */
export const DENSE_CHUNK_BYTES = 256 * 2 ** 20;

/** [start, size) of the chunks of `count` matrices of `bytesEach` bytes of scratch: as many as DENSE_CHUNK_BYTES holds, at least one. */
export function denseChunks(count: number, bytesEach: number): [number, number][] {
  const per = Math.max(1, Math.floor(DENSE_CHUNK_BYTES / Math.max(1, bytesEach)));
  const out: [number, number][] = [];
  for (let start = 0; start < count; start += per) out.push([start, Math.min(per, count - start)]);
  return out;
}

/**
 * Launching the compact-WY pieces of common/wy.ts, and the operand views the blocked QR drivers
 * (qr and ormqr families) walk: a chunk of equally sized matrices of one operand, in the kernels'
 * form (strided, or an uploaded pointer array) and in the GEMM family's (a strided or list batch),
 * from which a sub-matrix view (row i, column j) is a shifted offset in both.
 *
 * `eachWyChunk` groups the batches of a request (all strided: one group; list and variable: by
 * shape and leading dimension, as common/operands.ts), cuts each group into chunks whose workspace
 * fits WY_WORKSPACE_BYTES, allocates the workspace once per group and uploads each chunk's pointer
 * and index arrays.
 */
import { batchCount, matrixAt, type Batch, type ListEntry } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import type { OperandKind } from './batch-pointer.js';
import { cachedKernel, kernelFor } from './kernel-cache.js';
import { operandArgs, uploadPointers, type OperandArgs } from './operands.js';
import { elementBytes } from './precision.js';
import { WY_THREADS, lasetName, lasetSource, wyFactorSource, type LasetParams, type WyFactorParams } from './wy.js';

/** Workspace bytes one group of the blocked drivers may take; larger batches run in chunks. */
export const WY_WORKSPACE_BYTES = 256 << 20;

/** One operand of a chunk: `count` matrices of rows x cols, in the kernels' form and the GEMM's. */
export interface WyOperand {
  readonly kind: OperandKind;
  readonly rows: number;
  readonly cols: number;
  readonly ld: number;
  readonly count: number;
  /** Strided: the array, the first matrix's offset and the stride. */
  readonly data: DeviceArray | null;
  readonly offset: number;
  readonly stride: number;
  /** Pointer form: the uploaded pointer array and the matrices (for the GEMMs' list batches). */
  readonly pointers: DeviceArray | null;
  readonly views: readonly ListEntry<DeviceArray>[];
}

/** A rows x cols view at (i, j) of every matrix of an operand. */
export interface WyView {
  readonly args: OperandArgs;
  readonly batch: Batch<DeviceArray>;
}

export function wyView(o: WyOperand, i: number, j: number, rows: number, cols: number): WyView {
  const shift = i + j * o.ld;
  if (o.kind === 'strided') {
    const data = o.data!;
    return {
      args: { kind: 'strided', pointer: data.ptr, offset: o.offset + shift, stride: o.stride, ld: o.ld, rows, cols },
      batch: { kind: 'strided', data, rows, cols, count: o.count, ld: o.ld, stride: o.stride, offset: o.offset + shift, order: 'col' },
    };
  }
  return {
    args: { kind: 'pointer', pointer: o.pointers!.ptr, offset: shift, stride: 0, ld: o.ld, rows, cols },
    batch: { kind: 'list', matrices: o.views.map((v) => ({ data: v.data, offset: v.offset + shift })), rows, cols, ld: o.ld, order: 'col' },
  };
}

/** A dense strided batch in a workspace: `count` matrices of rows x cols (ld rows) every `stride` elements. */
export function workBatch(data: DeviceArray, rows: number, cols: number, count: number, stride: number): Batch<DeviceArray> {
  return { kind: 'strided', data, rows, cols, count, ld: Math.max(1, rows), stride, offset: 0, order: 'col' };
}

/** What a blocked driver gets per chunk. */
export interface WyChunk {
  readonly operands: readonly WyOperand[];
  readonly count: number;
  /** info of the chunk's first matrix (strided: shifted by the chunk's start), and the index map (pointer form). */
  readonly infoPointer: (info: DeviceArray) => bigint;
  readonly index: DeviceArray | null;
  /** The group's workspace (at least `count` x the elements per matrix asked for). */
  readonly work: DeviceArray;
}

/**
 * `body` for each chunk of each group of equally sized matrices of `batches` (one count), with a
 * workspace of `perMatrix(the group's first matrix)` elements per matrix, taken from the device
 * workspace (runtime/workspace.ts: no allocation or wait); the pointer and index uploads of list and
 * variable batches are released (after a synchronize) once every chunk is enqueued. List and variable batches: only
 * the matrices `include` accepts (info and index keep their places in the whole batch).
 * `budgetBytes` bounds a group's workspace (tests lower it to see chunks). `pointerBytes`: the bytes
 * of one element as the batches count them where that is not their array's (complex pairs: both
 * parts; `perMatrix` then counts the array's elements, the parts).
 */
export function eachWyChunk(dev: GpuDevice, dtype: DType, batches: readonly Batch<DeviceArray>[],
  perMatrix: (first: number) => number, body: (c: WyChunk) => void, include: (i: number) => boolean = () => true,
  budgetBytes = WY_WORKSPACE_BYTES, pointerBytes?: number): void {
  const count = batchCount(batches[0]!);
  if (count === 0) return;
  const temporaries: DeviceArray[] = [];
  const frame = Workspace.of(dev).frame();
  const take = (elements: number, matrices: number): DeviceArray =>
    frame.take(dtype, elements, `the blocked QR's V, Y and GEMM products (${matrices} matrices)`);
  const chunkOf = (elements: number, members: number): number =>
    Math.max(1, Math.min(members, Math.floor(budgetBytes / Math.max(1, elements * elementBytes(dtype)))));
  try {
    // A strided batch is one shape: the caller includes all of it or none.
    if (batches.every((b) => b.kind === 'strided')) {
      const elements = Math.max(1, perMatrix(0));
      const chunk = chunkOf(elements, count);
      const work = take(chunk * elements, chunk);
      for (let first = 0; first < count; first += chunk) {
        const n = Math.min(chunk, count - first);
        const operands = batches.map((b): WyOperand => {
          if (b.kind !== 'strided') throw new Error('unreachable');
          return { kind: 'strided', rows: b.rows, cols: b.cols, ld: b.ld, count: n, data: b.data, offset: b.offset + first * b.stride, stride: b.stride, pointers: null, views: [] };
        });
        body({ operands, count: n, infoPointer: (info) => info.ptr + BigInt(first * 4), index: null, work });
      }
      return;
    }
    const byKey = new Map<string, number[]>();
    for (let i = 0; i < count; i++) {
      if (!include(i)) continue;
      const key = batches.map((b) => { const m = matrixAt(b, i); return `${m.rows}x${m.cols}/${m.ld}`; }).join(';');
      const members = byKey.get(key);
      if (members === undefined) byKey.set(key, [i]); else members.push(i);
    }
    for (const members of byKey.values()) {
      const elements = Math.max(1, perMatrix(members[0]!));
      const chunk = chunkOf(elements, members.length);
      const work = take(chunk * elements, chunk);
      for (let first = 0; first < members.length; first += chunk) {
        const part = members.slice(first, first + chunk);
        const operands = batches.map((b): WyOperand => {
          const views = part.map((i) => matrixAt(b, i));
          const pointers = uploadPointers(dev, views, pointerBytes);
          temporaries.push(pointers);
          const m0 = views[0]!;
          return { kind: 'pointer', rows: m0.rows, cols: m0.cols, ld: m0.ld, count: part.length, data: null, offset: 0, stride: 0, pointers, views: views.map((v) => ({ data: v.data, offset: v.offset })) };
        });
        const index = dev.upload(Int32Array.from(part));
        temporaries.push(index);
        body({ operands, count: part.length, infoPointer: (info) => info.ptr, index, work });
      }
    }
  } finally {
    frame.end();
    if (temporaries.length > 0) {
      dev.synchronize();
      for (const t of temporaries) t.dispose();
    }
  }
}

/** Parameter objects by (dtype, kind, nb, transT), so a hot call finds its kernel by identity. */
const factorParams = new Map<string, WyFactorParams>();
const lasetParams = new Map<string, LasetParams>();

/**
 * V (explicit) and Y = V op(T) of the r x ib reflectors at `a` (a view) with scalars at `tau`, into
 * `v` and `y` (ld r, one matrix every `strideW` elements); see common/wy.ts.
 */
export function wyFactor(dev: GpuDevice, dtype: DType, nb: number, transT: boolean, count: number, a: OperandArgs, tau: OperandArgs,
  v: DeviceArray, y: DeviceArray, strideW: number, r: number, ib: number): void {
  const key = `${dtype}/${a.kind}/${nb}/${transT}`;
  let p = factorParams.get(key);
  if (p === undefined) factorParams.set(key, (p = { dtype, kind: a.kind, nb, transT }));
  const params = p;
  const k = kernelFor(dev, 'wy-factor', params, () => wyFactorSource(params));
  k.launch({ grid: [count, 1, 1], block: [WY_THREADS, 1, 1] }, [
    ...operandArgs(a), ...operandArgs(tau), arg.ptr(v.ptr), arg.ptr(y.ptr), arg.i64(strideW), arg.i32(count), arg.i32(r), arg.i32(ib),
  ]);
}

/** The rows x cols view `a` of each of `count` matrices := 0 off the diagonal, `diagonal` on it (dlaset). */
export function wyLaset(dev: GpuDevice, dtype: DType, count: number, a: OperandArgs, diagonal: number): void {
  if (a.rows === 0 || a.cols === 0 || count === 0) return;
  const key = `${dtype}/${a.kind}`;
  let p = lasetParams.get(key);
  if (p === undefined) lasetParams.set(key, (p = { dtype, kind: a.kind }));
  const params = p;
  const k = cachedKernel(dev, lasetName(params), () => lasetSource(params));
  k.launch({ grid: [count, 1, 1], block: [WY_THREADS, 1, 1] }, [
    ...operandArgs(a), arg.i32(count), arg.i32(a.rows), arg.i32(a.cols), arg.real(dtype, diagonal),
  ]);
}

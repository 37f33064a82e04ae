/**
 * Chunked copies for workers: a worker sees only memory it shares with the caller. Arrays on a
 * SharedArrayBuffer are handed over as they are (no copy); any other array is copied, one chunk
 * of matrices at a time, into a growing shared arena of that worker, and the outputs the
 * operation writes are copied back afterwards.
 *
 * Copy-back is of whole spans where the gaps in a chunk's span belong to nobody the call writes
 * (they come back as they were read), and matrix by matrix, column by column, where they may: another
 * written operand in the same memory (A and B interleaved in one buffer for gesv, through one array
 * or two views of it; info or ipiv in a batch's gaps), or the batch's own other matrices (a stride
 * shorter than a matrix's extent, as matrices stacked row-block-wise in one tall matrix, a chunk of
 * one matrix included), which other threads write meanwhile.
 */
import { footprintOf } from './footprint.js';
import type { Batch, MatrixView } from '../../core/batch.js';
import { isFloat64Array, isInt32Array, type FloatArray } from '../../core/dtype.js';
import { isBatch } from '../split.js';

type Typed = FloatArray | Int32Array;
/** The memory an array views: two views of one buffer are one store for the copy-back. */
type Memory = ArrayBufferLike;

export const isShared = (a: Typed): boolean => a.buffer instanceof SharedArrayBuffer;

/** A bump allocator over one SharedArrayBuffer, reset per call and grown on demand. */
export class Arena {
  private buffer: SharedArrayBuffer;
  private used = 0;
  constructor(bytes = 1 << 16) {
    this.buffer = new SharedArrayBuffer(bytes);
  }
  /** The current buffer (for the worker to touch its pages once). */
  bytes(): SharedArrayBuffer {
    return this.buffer;
  }
  /** Starts a call; an arena that a call outgrew is replaced by one twice that size. */
  reset(): void {
    if (this.used > this.buffer.byteLength) this.buffer = new SharedArrayBuffer(2 * this.used);
    this.used = 0;
  }
  /** A view of `length` elements like `like`, or undefined when the arena is too small this call. */
  alloc<T extends Typed>(like: T, length: number): T | undefined {
    const start = (this.used + 7) & ~7;
    this.used = start + length * like.BYTES_PER_ELEMENT; // counted even past the end, for reset()
    if (this.used > this.buffer.byteLength) return undefined;
    const Ctor = like.constructor as new (b: SharedArrayBuffer, offset: number, length: number) => T;
    return new Ctor(this.buffer, start, length);
  }
}

/** What to copy back after the worker has run. */
interface CopyBack { from: Typed; to: Typed; toOffset: number; length: number; views?: { from: MatrixView<FloatArray>; to: MatrixView<FloatArray> }[] }

export interface Staged { request: Record<string, unknown>; copyBack: CopyBack[] }

/** The request with every unshared array replaced by a staged copy; undefined when the arena is too small (call again after reset). */
export function stage(request: object, writes: readonly string[], arena: Arena): Staged | undefined {
  const out: Record<string, unknown> = {};
  const copyBack: CopyBack[] = [];
  const writtenStores = new Map<Memory, number>();
  const count = (m: Memory): void => { writtenStores.set(m, (writtenStores.get(m) ?? 0) + 1); };
  for (const key of writes) {
    const v = (request as Record<string, unknown>)[key];
    if (isBatch(v)) for (const s of storesOf(v)) count(s.buffer);
  }
  // info and ipiv come back whole: one placed in the gaps of a written batch's memory must not be
  // overwritten by that batch's span as it was read.
  for (const v of Object.values(request)) if (isInt32Array(v) && !isShared(v)) count(v.buffer);
  for (const [key, value] of Object.entries(request)) {
    const written = writes.includes(key);
    if (isInt32Array(value)) {
      if (isShared(value)) out[key] = value;
      else {
        const copy = arena.alloc(value, value.length);
        if (!copy) return undefined;
        copy.set(value);
        out[key] = copy;
        copyBack.push({ from: copy, to: value, toOffset: 0, length: value.length });
      }
    } else if (isBatch(value)) {
      const staged = stageBatch(value, arena, written, writtenStores, copyBack);
      if (!staged) return undefined;
      out[key] = staged;
    } else out[key] = value;
  }
  return { request: out, copyBack };
}

/** Floats per element: 2 for a complex batch (interleaved pairs; its counts are in complex elements). */
export const floatsPer = (b: Batch<FloatArray>): number => (b.dtype !== undefined ? 2 : 1);

function storesOf(b: Batch<FloatArray>): FloatArray[] {
  return b.kind === 'strided' ? [b.data] : b.matrices.map((m) => m.data);
}

function stageBatch(
  b: Batch<FloatArray>, arena: Arena, written: boolean, writtenStores: Map<Memory, number>, copyBack: CopyBack[],
): Batch<FloatArray> | undefined {
  if (b.kind === 'strided') {
    if (isShared(b.data) || b.count === 0) return b;
    // Empty matrices: nothing to copy either way (their stride may reach past the array's end), and
    // the worker gets an empty array, not a clone of the caller's whole buffer.
    if (footprintOf(b.rows, b.cols, b.ld) === 0) return { ...b, data: isFloat64Array(b.data) ? new Float64Array(0) : new Float32Array(0), offset: 0 };
    const f = floatsPer(b);
    const footprint = footprintOf(b.rows, b.cols, b.ld);
    const span = f * ((b.count - 1) * b.stride + footprint);
    const copy = arena.alloc(b.data, span);
    if (!copy) return undefined;
    copy.set(b.data.subarray(f * b.offset, f * b.offset + span));
    const staged: Batch<FloatArray> = { ...b, data: copy, offset: 0 };
    if (written) {
      // A stride shorter than a matrix's extent: the span holds other matrices' elements, also where
      // this chunk holds one matrix (a worker's share of a row-block stack), which others write meanwhile.
      const interleaved = b.stride < footprint;
      if (interleaved || (writtenStores.get(b.data.buffer) ?? 0) > 1) {
        const views = Array.from({ length: b.count }, (_, p) => ({
          from: { data: copy, offset: f * p * b.stride, ld: f * b.ld, rows: f * b.rows, cols: b.cols },
          to: { data: b.data, offset: f * (b.offset + p * b.stride), ld: f * b.ld, rows: f * b.rows, cols: b.cols },
        }));
        copyBack.push({ from: copy, to: b.data, toOffset: 0, length: 0, views });
      } else copyBack.push({ from: copy, to: b.data, toOffset: f * b.offset, length: span });
    }
    return staged;
  }
  const f = floatsPer(b);
  const matrices: MatrixView<FloatArray>[] = [];
  const views: { from: MatrixView<FloatArray>; to: MatrixView<FloatArray> }[] = [];
  for (let p = 0; p < b.matrices.length; p++) {
    const m = b.matrices[p]!;
    const rows = b.kind === 'list' ? b.rows : (m as MatrixView<FloatArray>).rows;
    const cols = b.kind === 'list' ? b.cols : (m as MatrixView<FloatArray>).cols;
    const ld = b.kind === 'list' ? b.ld : (m as MatrixView<FloatArray>).ld;
    if (isShared(m.data)) {
      matrices.push({ data: m.data, offset: m.offset, ld, rows, cols });
      continue;
    }
    const span = f * footprintOf(rows, cols, ld);
    const copy = arena.alloc(m.data, Math.max(span, 1));
    if (!copy) return undefined;
    copy.set(m.data.subarray(f * m.offset, f * m.offset + span));
    matrices.push({ data: copy, offset: 0, ld, rows, cols });
    // The copy-back views count floats (a complex element is two). An empty member has nothing to
    // copy back, and its offset may lie past its array's end (a 0 x n matrix on an empty array).
    if (written && span > 0) views.push({ from: { data: copy, offset: 0, ld: f * ld, rows: f * rows, cols }, to: { data: m.data, offset: f * m.offset, ld: f * ld, rows: f * rows, cols } });
  }
  if (views.length > 0) copyBack.push({ from: views[0]!.from.data, to: views[0]!.to.data, toOffset: 0, length: 0, views });
  if (b.kind === 'list') return { ...b, matrices: matrices.map((m) => ({ data: m.data, offset: m.offset })) };
  return { ...b, matrices };
}

/** Copies the written outputs back into the caller's arrays. */
export function unstage(s: Staged): void {
  for (const c of s.copyBack) {
    if (!c.views) {
      c.to.set(c.from.subarray(0, c.length), c.toOffset);
      continue;
    }
    for (const { from, to } of c.views) {
      for (let j = 0; j < from.cols; j++) {
        const f = from.offset + j * from.ld;
        to.data.set(from.data.subarray(f, f + from.rows), to.offset + j * to.ld);
      }
    }
  }
}

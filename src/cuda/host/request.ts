/**
 * Sub-requests: the part of a validated, column-major backend request (core/ops.ts) that covers
 * matrices [start, end), and the rewriting of its storages onto one device.
 *
 * - strided batch: offset += start * stride, count = end - start;
 * - list / variable batch: the entries [start, end);
 * - info: elements [start, end); ipiv: elements [start * pivotStride, end * pivotStride).
 * Integer arrays have no offset field in a request, so a slice of one stays an `IntSlice`
 * until it is mapped onto memory that begins exactly at its first element.
 */
import { batchCount, isBatch as isCoreBatch, matrixAt, type Batch } from '../../core/batch.js';
import { sliceRequest as sliceCore } from '../../core/slice.js';
import { MyriadError } from '../../core/errors.js';
import type { IntStorage, Storage } from '../../core/storage.js';

export type AnyStorage = Storage | IntStorage;
export type Request = Record<string, unknown>;

/** Elements [start, end) of an integer field (info, ipiv) of a sub-request. */
export interface IntSlice {
  readonly kind: 'int-slice';
  readonly data: IntStorage;
  readonly start: number;
  readonly end: number;
}

/** Element range [lo, hi) of one storage that a sub-request touches. */
export interface Range {
  lo: number;
  hi: number;
}

/** Where a storage goes on one device: `target`'s element 0 is the original's element `base`. */
export interface Placement {
  readonly target: AnyStorage;
  readonly base: number;
}

export { INT_FIELDS, intsPerMatrix } from '../../core/slice.js';

/** core's isBatch, typed for the storages a multi-GPU request holds. */
export function isBatch(v: unknown): v is Batch<AnyStorage> {
  return isCoreBatch(v);
}

export function isIntSlice(v: unknown): v is IntSlice {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'int-slice';
}

/** The number of matrices of a request (of its first batch; every batch holds the same). */
export function requestCount(request: Request): number {
  for (const v of Object.values(request)) if (isBatch(v)) return batchCount(v);
  return 0;
}

/** Elements one column-major matrix spans from its first element (0 for an empty matrix). */
export function footprint(rows: number, cols: number, ld: number): number {
  return rows === 0 || cols === 0 ? 0 : (cols - 1) * ld + rows;
}

/** The request (or a sub-request) restricted to its matrices [start, end); storages are unchanged (offsets still global). */
export function sliceRequest(request: Request, start: number, end: number): Request {
  return sliceCore(request, start, end, (value, lo, hi) => {
    // A slice of a slice counts from the outer slice's first element.
    const outer = isIntSlice(value) ? value : { data: value as IntStorage, start: 0 };
    const slice: IntSlice = { kind: 'int-slice', data: outer.data, start: outer.start + lo, end: outer.start + hi };
    return slice;
  });
}

/** Calls `visit` for every matrix span and int slice of the named fields (all fields when omitted). */
export function forEachReference(sub: Request, visit: (s: AnyStorage, lo: number, hi: number, field: string) => void, fields?: readonly string[]): void {
  for (const [key, value] of Object.entries(sub)) {
    if (fields && !fields.includes(key)) continue;
    if (isIntSlice(value)) visit(value.data, value.start, value.end, key);
    else if (isBatch(value)) {
      if (value.kind === 'strided') {
        if (value.count === 0) continue;
        const fp = footprint(value.rows, value.cols, value.ld);
        visit(value.data, value.offset, value.offset + (value.count - 1) * value.stride + fp, key);
      } else {
        for (let i = 0; i < value.matrices.length; i++) {
          const m = matrixAt(value, i);
          visit(m.data, m.offset, m.offset + footprint(m.rows, m.cols, m.ld), key);
        }
      }
    }
  }
}

/** The element range each distinct storage of a sub-request spans (the union over its references). */
export function storageRanges(sub: Request): Map<AnyStorage, Range> {
  const ranges = new Map<AnyStorage, Range>();
  forEachReference(sub, (s, lo, hi) => {
    const r = ranges.get(s);
    if (!r) ranges.set(s, { lo, hi: Math.max(lo, hi) });
    else {
      r.lo = Math.min(r.lo, lo);
      r.hi = Math.max(r.hi, hi);
    }
  });
  return ranges;
}

/**
 * The sub-request with every storage replaced by its placement: batch offsets move by -base,
 * and an int slice becomes its target, which must begin at the slice's first element.
 */
export function rebaseRequest(sub: Request, place: (s: AnyStorage) => Placement): Request {
  const out: Request = {};
  for (const [key, value] of Object.entries(sub)) {
    if (isIntSlice(value)) {
      const p = place(value.data);
      if (value.start !== p.base)
        throw new MyriadError('LAYOUT', `the integers of these matrices start at element ${value.start}, but the memory that holds them on this device starts at element ${p.base}`, key);
      out[key] = p.target;
    } else if (isBatch(value)) {
      out[key] = rebaseBatch(value, place);
    } else out[key] = value;
  }
  return out;
}

function rebaseBatch(b: Batch<AnyStorage>, place: (s: AnyStorage) => Placement): Batch<AnyStorage> {
  switch (b.kind) {
    case 'strided': {
      const p = place(b.data);
      return { ...b, data: p.target, offset: b.offset - p.base };
    }
    case 'list':
      return { ...b, matrices: b.matrices.map((m) => { const p = place(m.data); return { data: p.target, offset: m.offset - p.base }; }) };
    case 'variable':
      return { ...b, matrices: b.matrices.map((m) => { const p = place(m.data); return { ...m, data: p.target, offset: m.offset - p.base }; }) };
  }
}

/**
 * The exact element spans the named (output) fields write, per storage: one span per column
 * of every matrix, one per int slice. For copying results back where two parts' ranges of one
 * array interleave (a list batch whose matrices are not in order).
 */
export function writtenSpans(sub: Request, fields: readonly string[]): Map<AnyStorage, [number, number][]> {
  const spans = new Map<AnyStorage, [number, number][]>();
  const add = (s: AnyStorage, lo: number, hi: number): void => {
    if (hi <= lo) return;
    const list = spans.get(s) ?? [];
    list.push([lo, hi]);
    spans.set(s, list);
  };
  for (const key of fields) {
    const value = sub[key];
    if (isIntSlice(value)) add(value.data, value.start, value.end);
    else if (isBatch(value)) {
      for (let i = 0; i < batchCount(value); i++) {
        const m = matrixAt(value, i);
        if (m.rows === 0) continue;
        for (let j = 0; j < m.cols; j++) add(m.data, m.offset + j * m.ld, m.offset + j * m.ld + m.rows);
      }
    }
  }
  return spans;
}

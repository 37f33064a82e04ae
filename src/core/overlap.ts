/**
 * Memory shared between the arguments of one call, exact to the byte.
 *
 * Every matrix touches a set of byte segments: its columns (column-major) or rows (row-major),
 * `ld` elements apart, in one buffer. Host typed arrays are keyed by their ArrayBuffer (two views
 * of one buffer can overlap), device memory by the allocation itself. An output must not share a
 * byte with any other argument, nor with another matrix of itself; inputs may share memory
 * freely (a and b both read). Interleaved batches that never touch the same element (ld > rows,
 * matrices side by side) are legal.
 *
 * Cost: O(1) per pair of strided arguments in different buffers or disjoint ranges (the common
 * case); otherwise a sweep over the matrices sorted by address, exact per candidate pair.
 */
import { batchCount, matrixAt, validatedScan, type Batch, type ListBatch, type VariableBatch } from './batch.js';
import type { Order } from './enums.js';
import { MyriadError } from './errors.js';
import { isDeviceStorage, SpanScan, storagePlace, type IntStorage, type Storage, type StoragePlace } from './storage.js';

/** One argument of a call: a batch, or an integer array of which `used` elements are touched. */
export type Operand =
  | { name: string; output: boolean; batch: Batch<Storage> }
  | { name: string; output: boolean; ints: IntStorage; used: number };

/** Bytes [start + j * step, start + j * step + len) for j < n, in buffer `key`; matrix `index`. */
interface Span {
  key: object;
  start: number;
  step: number;
  len: number;
  n: number;
  lo: number;
  hi: number;
  index: number;
}

/** `parts`: 2 for a complex batch (offset, rows and ld count (re, im) pairs), else 1. */
function span(data: Storage, offset: number, rows: number, cols: number, ld: number, order: Order, index: number, parts: number, known?: StoragePlace): Span | undefined {
  if (rows === 0 || cols === 0) return undefined;
  const place = known ?? storagePlace(data);
  const { key, base } = place;
  const elem = place.elem * parts;
  const inner = order === 'col' ? rows : cols;
  const outer = order === 'col' ? cols : rows;
  const start = base + offset * elem;
  const contiguous = ld === inner || outer === 1;
  const s: Span = contiguous
    ? { key, start, step: inner * outer * elem, len: inner * outer * elem, n: 1, lo: 0, hi: 0, index }
    : { key, start, step: ld * elem, len: inner * elem, n: outer, lo: 0, hi: 0, index };
  s.lo = s.start;
  s.hi = s.start + (s.n - 1) * s.step + s.len;
  return s;
}

function matrixSpan(b: Batch<Storage>, i: number): Span | undefined {
  const m = matrixAt(b, i);
  return span(m.data, m.offset, m.rows, m.cols, m.ld, b.order, i, partsOf(b));
}

/** Floats per element: 2 for a complex batch (interleaved (re, im) pairs), else 1. */
const partsOf = (b: Batch<Storage>): number => ((b as { dtype?: unknown }).dtype === undefined ? 1 : 2);

/** Every non-empty matrix of an operand (a stride-0 batch is one matrix repeated: one span). */
function spansOf(op: Operand): Span[] {
  if (!('batch' in op)) {
    if (op.used === 0) return [];
    const { key, base, elem } = storagePlace(op.ints);
    return [{ key, start: base, step: op.used * elem, len: op.used * elem, n: 1, lo: base, hi: base + op.used * elem, index: 0 }];
  }
  const b = op.batch;
  const known = spanCache.get(b);
  if (known !== undefined) return known;
  const out: Span[] = [];
  if (b.kind === 'strided') {
    const count = b.stride === 0 ? Math.min(b.count, 1) : b.count;
    for (let i = 0; i < count; i++) {
      const s = matrixSpan(b, i);
      if (s) out.push(s);
    }
  } else {
    // The place of a member's array is worked out once per run of members in one array.
    const parts = partsOf(b);
    let data: Storage | undefined, place: StoragePlace | undefined;
    for (let i = 0; i < b.matrices.length; i++) {
      const m = matrixAt(b, i);
      if (m.data !== data || place === undefined) { data = m.data; place = storagePlace(m.data); }
      const s = span(m.data, m.offset, m.rows, m.cols, m.ld, b.order, i, parts, place);
      if (s) out.push(s);
    }
  }
  spanCache.set(b, out);
  return out;
}

/**
 * The spans of each batch while one check runs (checkNoOverlaps asks for an operand's spans up
 * to three times: itself, its bounds, a pair): made once, dropped when the check returns.
 */
let spanCache = new Map<Batch<Storage>, Span[]>();

interface Scan {
  /** Byte range [lo, hi) per buffer, as boundsOf gives it. */
  readonly bounds: Map<object, [number, number]>;
  /** In each buffer, every member starts at or after the end of the one before it: no two share a byte. */
  readonly disjoint: boolean;
}
let scanCache = new Map<Batch<Storage>, Scan>();

/**
 * One pass over the members of a list or variable batch that makes no object per member: each
 * buffer's byte range (each member's [lo, hi) computed as its span's), and whether the members
 * lie one after another in address order in each buffer (packed members, the usual variable
 * batch). Where they do, no two share a byte, and the exact sweep is not needed.
 */
function scanOf(b: ListBatch<Storage> | VariableBatch<Storage>): Scan {
  // A variable batch validated in this call was scanned by its validation, in the same pass.
  const known = scanCache.get(b) ?? (b.kind === 'variable' ? validatedScan(b) : undefined);
  if (known !== undefined) return known;
  const spans = new SpanScan();
  const parts = partsOf(b);
  let data: Storage | undefined, place: StoragePlace | undefined;
  for (let i = 0; i < b.matrices.length; i++) {
    const m = b.matrices[i]!;
    const rows = b.kind === 'variable' ? b.matrices[i]!.rows : b.rows;
    const cols = b.kind === 'variable' ? b.matrices[i]!.cols : b.cols;
    const ld = b.kind === 'variable' ? b.matrices[i]!.ld : b.ld;
    if (rows === 0 || cols === 0) continue;
    if (m.data !== data || place === undefined) {
      data = m.data;
      place = storagePlace(m.data);
      spans.enter(place.key);
    }
    // As span(): its first byte and the end of its last segment.
    const elem = place.elem * parts;
    const inner = b.order === 'col' ? rows : cols;
    const outer = b.order === 'col' ? cols : rows;
    const lo = place.base + m.offset * elem;
    spans.add(lo, ld === inner || outer === 1 ? lo + inner * outer * elem : lo + (outer - 1) * ld * elem + inner * elem);
  }
  const scan = { bounds: spans.bounds, disjoint: spans.disjoint };
  scanCache.set(b, scan);
  return scan;
}

/** Byte range [lo, hi) per buffer: O(1) for a strided batch. */
function boundsOf(op: Operand): Map<object, [number, number]> {
  const out = new Map<object, [number, number]>();
  if ('batch' in op && op.batch.kind === 'strided') {
    const b = op.batch;
    const first = b.count > 0 ? matrixSpan(b, 0) : undefined;
    if (first) out.set(first.key, [first.lo, first.hi + (b.count - 1) * b.stride * storagePlace(b.data).elem * partsOf(b)]);
    return out;
  }
  if ('batch' in op && op.batch.kind !== 'strided') return scanOf(op.batch).bounds;
  for (const s of spansOf(op)) {
    const r = out.get(s.key);
    out.set(s.key, r ? [Math.min(r[0], s.lo), Math.max(r[1], s.hi)] : [s.lo, s.hi]);
  }
  return out;
}

/** Does segment [s, e) meet any segment of `q`? */
function segmentHits(s: number, e: number, q: Span): boolean {
  const [kmin, kmax] = segmentRange(s, e, q);
  return kmin <= kmax;
}

/** The indices k of q's segments that meet [s, e): [kmin, kmax] (empty when kmin > kmax). */
function segmentRange(s: number, e: number, q: Span): [number, number] {
  if (q.n === 1) return q.start < e && q.start + q.len > s ? [0, 0] : [1, 0];
  return [
    Math.max(0, Math.floor((s - q.len - q.start) / q.step) + 1),
    Math.min(q.n - 1, Math.ceil((e - q.start) / q.step) - 1),
  ];
}

/** True when two spans share at least one byte. Cost: the segments of one inside the other's range. */
export function spansIntersect(x: Span, y: Span): boolean {
  if (x.key !== y.key || x.hi <= y.lo || y.hi <= x.lo) return false;
  const [p, q] = x.n <= y.n ? [x, y] : [y, x];
  const [jmin, jmax] = segmentRange(q.lo, q.hi, p);
  for (let j = jmin; j <= jmax; j++) {
    const s = p.start + j * p.step;
    if (segmentHits(s, s + p.len, q)) return true;
  }
  return false;
}

/**
 * The first pair (x from xs, y from ys) that shares memory, by a sweep in address order within
 * each buffer. With `ys` undefined, pairs of different spans within xs.
 */
function firstCrossing(xs: Span[], ys?: Span[]): [Span, Span] | undefined {
  const gx = byBuffer(xs);
  const gy = ys === undefined ? undefined : byBuffer(ys);
  for (const [key, xk] of gx) {
    const yk = gy?.get(key);
    if (gy !== undefined && yk === undefined) continue;
    const hit = sweep(xk, yk);
    if (hit) return hit;
  }
  return undefined;
}

function byBuffer(spans: Span[]): Map<object, Span[]> {
  const out = new Map<object, Span[]>();
  for (const s of spans) {
    const list = out.get(s.key);
    if (list) list.push(s);
    else out.set(s.key, [s]);
  }
  return out;
}

/**
 * The sweep of `firstCrossing` over the spans of one buffer: in address order (a stable sort,
 * skipped where the spans already are in order, as packed members are), each span against the
 * live spans of the other side (of its own where `ys` is undefined), those that end before it
 * starts dropped first.
 */
function sweep(xs: Span[], ys?: Span[]): [Span, Span] | undefined {
  const all = ys === undefined ? xs : xs.concat(ys);
  const n = all.length;
  let inOrder = true;
  for (let i = 1; i < n && inOrder; i++) inOrder = all[i]!.lo >= all[i - 1]!.lo;
  const order = inOrder ? undefined : Array.from({ length: n }, (_, i) => i).sort((p, q) => all[p]!.lo - all[q]!.lo || p - q);
  const active: [Span[], Span[]] = [[], []];
  for (let k = 0; k < n; k++) {
    const at = order === undefined ? k : order[k]!;
    const t = all[at]!;
    const side = at < xs.length ? 0 : 1;
    const other = ys === undefined ? 0 : 1 - side;
    const live = prune(active[other], t.lo);
    for (const o of live) if (spansIntersect(t, o)) return side === 0 ? [t, o] : [o, t];
    if (ys !== undefined) prune(active[side], t.lo);
    active[side].push(t);
  }
  return undefined;
}

/** Drops, in place and keeping their order, the spans that end at or before `lo`. */
function prune(list: Span[], lo: number): Span[] {
  let kept = 0;
  for (let i = 0; i < list.length; i++) if (list[i]!.hi > lo) list[kept++] = list[i]!;
  list.length = kept;
  return list;
}

/** Rejects an output whose matrices share memory with each other. */
function checkSelf(op: Operand): void {
  if (!('batch' in op) || !op.output || batchCount(op.batch) < 2) return;
  const b = op.batch;
  if (b.kind === 'strided') {
    const first = matrixSpan(b, 0);
    if (!first) return;
    const elem = storagePlace(b.data).elem * partsOf(b);
    const footprint = first.hi - first.lo;
    const stride = b.stride * elem;
    // Matrix i against i + d is matrix 0 against d (same shape, shifted): d up to the footprint.
    const dMax = stride === 0 ? 1 : Math.min(b.count - 1, Math.ceil(footprint / stride));
    for (let d = 1; d <= dMax; d++) {
      const other = { ...first, start: first.start + d * stride, lo: first.lo + d * stride, hi: first.hi + d * stride };
      if (spansIntersect(first, other))
        throw new MyriadError('LAYOUT', `an output's matrices must not overlap: with stride ${b.stride}, matrices 0 and ${d} share elements`, `${op.name}.stride`);
    }
    return;
  }
  if (scanOf(b).disjoint) return;
  const hit = firstCrossing(spansOf(op));
  if (hit) {
    const [i, j] = [Math.min(hit[0].index, hit[1].index), Math.max(hit[0].index, hit[1].index)];
    throw new MyriadError('LAYOUT', `an output's matrices must not overlap: matrices ${i} and ${j} share elements`, `${op.name}.matrices[${j}]`);
  }
}

const describe = (op: Operand, s: Span): string => ('batch' in op ? `${op.name} (matrix ${s.index})` : op.name);

/**
 * Throws LAYOUT naming both arguments when an output shares memory with another argument or
 * with itself. `operands` in argument order: the error names the later output of a pair.
 */
export function checkNoOverlaps(operands: readonly Operand[]): void {
  try {
    checkAll(operands);
  } finally {
    if (spanCache.size > 0) spanCache = new Map();
    if (scanCache.size > 0) scanCache = new Map();
  }
}

function checkAll(operands: readonly Operand[]): void {
  for (const op of operands) checkSelf(op);
  if (distinctBuffers(operands)) return;
  const bounds = operands.map(boundsOf);
  for (let j = 0; j < operands.length; j++) {
    for (let i = 0; i < j; i++) {
      const [x, y] = [operands[i]!, operands[j]!];
      if (!x.output && !y.output) continue;
      if (!shareRange(bounds[i]!, bounds[j]!)) continue;
      const hit = firstCrossing(spansOf(x), spansOf(y));
      if (!hit) continue;
      const [out, other, so, sx] = y.output ? [y, x, hit[1], hit[0]] : [x, y, hit[0], hit[1]];
      throw new MyriadError('LAYOUT',
        `${describe(out, so)} and ${describe(other, sx)} share memory: an output must not overlap any other argument`, out.name);
    }
  }
}

/** True when every operand is one buffer (strided, or integers) and no two share one: nothing to compare (the common call). */
function distinctBuffers(operands: readonly Operand[]): boolean {
  const keys: object[] = [];
  for (const op of operands) {
    let s: Storage | IntStorage;
    if ('batch' in op) {
      if (op.batch.kind !== 'strided') return false;
      s = op.batch.data;
    } else {
      s = op.ints;
    }
    const key = isDeviceStorage(s) ? s : s.buffer;
    if (keys.includes(key)) return false;
    keys.push(key);
  }
  return true;
}

function shareRange(p: Map<object, [number, number]>, q: Map<object, [number, number]>): boolean {
  for (const [key, [lo, hi]] of p) {
    const r = q.get(key);
    if (r && r[0] < hi && lo < r[1]) return true;
  }
  return false;
}

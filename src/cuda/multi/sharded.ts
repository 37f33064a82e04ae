/**
 * ShardedArray: one logical array whose element ranges live on different GPUs. It is device
 * storage as the core sees it (kind 'device', dtype, length), so batches are described over it
 * exactly as over a host array (`strided(sharded, { rows: 8, count })`), and the API validates
 * them the same way. `device` is -1: no single GPU holds it.
 *
 * Shards cover [0, length) in order without gaps. A batch over a sharded array runs, matrix by
 * matrix, on the device whose shard holds the matrix; a matrix that straddles two shards is a
 * LAYOUT error. Integer arrays (info, ipiv) that the context allocates for a call start
 * "pending" and are placed on the first call that uses them, next to the matrices they belong to.
 */
import { batchCount, matrixAt, type Batch, type StridedBatch } from '../../core/batch.js';
import { MyriadError } from '../../core/errors.js';
import type { DeviceStorage } from '../../core/storage.js';
import type { DeviceArray, DeviceDType } from '../runtime/types.js';
import { footprint, type AnyStorage } from '../host/request.js';
import type { Part } from './split.js';

/** Elements [start, end) of a sharded array, held by `array` on GPU `ordinal`. */
export interface Shard {
  readonly start: number;
  readonly end: number;
  readonly ordinal: number;
  readonly array: DeviceArray;
}

/** Device memory spread over several GPUs (one shard each), for a MultiDeviceContext. */
export class ShardedArray implements DeviceStorage {
  readonly kind = 'device' as const;
  /** -1: the array is spread over several GPUs (see `shards`). */
  readonly device = -1;
  #shards: Shard[] | undefined;
  #disposed = false;

  constructor(readonly dtype: DeviceDType, readonly length: number, shards?: Shard[]) {
    if (shards) this.place(shards);
  }

  get placed(): boolean {
    return this.#shards !== undefined;
  }
  get disposed(): boolean {
    return this.#disposed;
  }
  /** The shards in element order (empty while pending). */
  get shards(): readonly Shard[] {
    this.checkAlive();
    return this.#shards ?? [];
  }
  /** The GPUs holding a part, in element order. */
  get ordinals(): number[] {
    return this.shards.map((s) => s.ordinal);
  }

  /** Fixes where the elements live (once). The shards must tile [0, length) in order. */
  place(shards: Shard[]): void {
    this.checkAlive();
    if (this.#shards) throw new MyriadError('INVALID_ARGUMENT', 'this sharded array is already placed', 'shards');
    let at = 0;
    for (const s of shards) {
      if (s.start !== at || s.end < s.start || s.array.length < s.end - s.start || s.array.dtype !== this.dtype)
        throw new MyriadError('LAYOUT', `shards must tile [0, ${this.length}) in order with ${this.dtype} arrays; got [${s.start}, ${s.end}) at ${at}`, 'shards');
      at = s.end;
    }
    if (at !== this.length) throw new MyriadError('LAYOUT', `shards cover [0, ${at}) of ${this.length} elements`, 'shards');
    this.#shards = shards;
  }

  /** The shard on GPU `ordinal` that holds elements [lo, hi), if any. */
  shardOn(ordinal: number, lo: number, hi: number): Shard | undefined {
    return this.shards.find((s) => s.ordinal === ordinal && s.start <= lo && hi <= s.end);
  }

  /** The shard holding elements [lo, hi) on whichever GPU, if one holds them all. */
  shardHolding(lo: number, hi: number): Shard | undefined {
    const end = Math.max(hi, lo + 1);
    return this.shards.find((s) => s.start <= lo && end <= s.end) ?? this.shards.find((s) => s.start <= lo && hi <= s.end);
  }

  /** Frees every shard (after the work that uses them has finished: synchronize first). Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const s of this.#shards ?? []) s.array.dispose();
  }

  private checkAlive(): void {
    if (this.#disposed) throw new MyriadError('DISPOSED', `sharded array (${this.dtype}[${this.length}]) used after dispose()`);
  }
}

export function isSharded(s: unknown): s is ShardedArray {
  return s instanceof ShardedArray;
}

/** How `scatter` cuts an array into whole matrices: `count` matrices `stride` apart from `offset`. */
export interface ShardLayout {
  /** Matrices; default (length - offset) / stride. */
  count?: number;
  /** Elements from one matrix to the next; default ld * cols where rows is given, else (length - offset) / count. */
  stride?: number;
  offset?: number;
  /** Shorthand for a packed column-major layout: stride = ld * cols. */
  rows?: number;
  cols?: number;
  ld?: number;
}

/** The resolved layout: count, stride, offset (checked against the array's length). */
export function resolveLayout(length: number, layout: ShardLayout): { count: number; stride: number; offset: number } {
  if (typeof layout !== 'object' || layout === null) throw new MyriadError('INVALID_ARGUMENT', 'expected { count, stride?, offset? } or { rows, cols?, count? }', 'layout');
  const int = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new MyriadError('INVALID_ARGUMENT', `expected a non-negative integer, got ${String(v)}`, `layout.${name}`);
    return v;
  };
  const offset = int(layout.offset ?? 0, 'offset');
  const avail = Math.max(0, length - offset);
  let stride: number | undefined = layout.stride === undefined ? undefined : int(layout.stride, 'stride');
  if (stride === undefined && layout.rows !== undefined) stride = int(layout.ld ?? layout.rows, 'ld') * int(layout.cols ?? layout.rows, 'cols');
  let count: number | undefined = layout.count === undefined ? undefined : int(layout.count, 'count');
  if (stride === undefined) {
    if (count === undefined) throw new MyriadError('INVALID_ARGUMENT', 'give count, stride or rows', 'layout');
    if (count > 0 && avail % count !== 0) throw new MyriadError('LAYOUT', `${avail} elements are not ${count} equal matrices; give stride`, 'layout.count');
    stride = count > 0 ? avail / count : 0;
  }
  if (count === undefined) {
    if (stride === 0 || avail % stride !== 0) throw new MyriadError('LAYOUT', `${avail} elements are not a whole number of matrices of stride ${stride}; give count`, 'layout.count');
    count = avail / stride;
  }
  if (count > 0 && stride === 0) throw new MyriadError('LAYOUT', 'stride must be > 0 to split matrices among devices', 'layout.stride');
  if (offset + count * stride > length) throw new MyriadError('BOUNDS', `${count} matrices of stride ${stride} from offset ${offset} need ${offset + count * stride} elements; the array has ${length}`, 'layout');
  return { count, stride, offset };
}

/**
 * Element boundaries for `parts` of a layout: part k holds matrices [start, end), so its shard is
 * [offset + start * stride, offset + end * stride), the first widened to 0 and the last to `length`.
 */
export function shardBounds(length: number, layout: { stride: number; offset: number }, parts: readonly Part[]): { lane: number; start: number; end: number }[] {
  return parts.map((p, k) => ({
    lane: p.lane,
    start: k === 0 ? 0 : layout.offset + p.start * layout.stride,
    end: k === parts.length - 1 ? length : layout.offset + p.end * layout.stride,
  }));
}

/** Maps a GPU ordinal to the backend's lane index (throws for a GPU the context does not hold). */
export type LaneOf = (ordinal: number) => number;

/**
 * The parts a batch over sharded arrays dictates: maximal runs of consecutive matrices that
 * lie on one device, or undefined when no matrix of the batch is on a placed sharded array.
 */
export function runsOfBatch(b: Batch<AnyStorage>, field: string, laneOf: LaneOf): Part[] | undefined {
  const count = batchCount(b);
  if (count === 0) return undefined;
  if (b.kind === 'strided') return isSharded(b.data) && b.data.placed ? stridedRuns(b as StridedBatch<ShardedArray>, field, laneOf) : undefined;
  const lanes: (number | undefined)[] = [];
  let known = false;
  for (let i = 0; i < count; i++) {
    const m = matrixAt(b, i);
    const s = m.data;
    let lane: number | undefined;
    if (isSharded(s) && s.placed) {
      const shard = s.shardHolding(m.offset, m.offset + footprint(m.rows, m.cols, m.ld));
      if (!shard) throw new MyriadError('LAYOUT', 'this matrix straddles two devices\' shards', `${field}.matrices[${i}]`);
      lane = laneOf(shard.ordinal);
      known = true;
    } else if (typeof s === 'object' && s !== null && 'kind' in s && (s as DeviceStorage).kind === 'device' && !isSharded(s)) {
      lane = laneOf((s as DeviceStorage).device);
    }
    lanes.push(lane);
  }
  if (!known) return undefined;
  // Matrices in host memory go with their neighbours (they are staged to that device).
  const first = lanes.find((l) => l !== undefined)!;
  let prev = first;
  return runsOf(lanes.map((l) => (prev = l ?? prev)));
}

function runsOf(lanes: readonly number[]): Part[] {
  const parts: Part[] = [];
  let start = 0;
  for (let i = 1; i <= lanes.length; i++) {
    if (i === lanes.length || lanes[i] !== lanes[start]) {
      parts.push({ lane: lanes[start]!, start, end: i });
      start = i;
    }
  }
  return parts;
}

/** Runs of a strided batch over a sharded array, from the shard bounds (no per-matrix loop). */
function stridedRuns(b: StridedBatch<ShardedArray>, field: string, laneOf: LaneOf): Part[] {
  const fp = Math.max(1, footprint(b.rows, b.cols, b.ld));
  if (b.stride === 0 || b.count === 1) {
    const shard = b.data.shardHolding(b.offset, b.offset + fp);
    if (!shard) throw new MyriadError('LAYOUT', 'the matrix straddles two devices\' shards', field);
    return [{ lane: laneOf(shard.ordinal), start: 0, end: b.count }];
  }
  const runs: Part[] = [];
  for (const s of b.data.shards) {
    const first = Math.max(0, Math.ceil((s.start - b.offset) / b.stride));
    const last = Math.min(b.count - 1, Math.floor((s.end - fp - b.offset) / b.stride));
    if (first <= last) runs.push({ lane: laneOf(s.ordinal), start: first, end: last + 1 });
  }
  runs.sort((x, y) => x.start - y.start);
  let at = 0;
  for (const r of runs) {
    if (r.start !== at) break;
    at = r.end;
  }
  if (at !== b.count)
    throw new MyriadError('LAYOUT', `matrix ${at} (elements from ${b.offset + at * b.stride}) straddles two devices' shards; scatter with this batch's stride and offset`, field);
  return runs;
}

/** Runs dictated by a placed sharded int array (info: 1 per matrix, ipiv: pivotStride). */
export function runsOfInts(s: ShardedArray, per: number, count: number, field: string, laneOf: LaneOf): Part[] | undefined {
  if (!s.placed || per === 0 || count === 0) return undefined;
  const runs: Part[] = [];
  for (const sh of s.shards) {
    if (sh.start % per !== 0) throw new MyriadError('LAYOUT', `a shard starts at element ${sh.start}, inside one matrix's ${per} integers`, field);
    const start = sh.start / per;
    const end = Math.min(count, Math.floor(sh.end / per));
    if (start < end) runs.push({ lane: laneOf(sh.ordinal), start, end });
  }
  return runs;
}

/** The exact placement for pending ints: run k gets elements [start * per, end * per); the last shard reaches `length`. */
export function intBounds(length: number, per: number, parts: readonly Part[]): { lane: number; start: number; end: number }[] {
  return parts.map((p, k) => ({ lane: p.lane, start: p.start * per, end: k === parts.length - 1 ? length : p.end * per }));
}


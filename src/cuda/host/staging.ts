/**
 * One call on host data, on one GPU: the batch staged through the link in chunks, with the upload
 * of chunk k+1 overlapping the kernels of chunk k (docs/host-path.md).
 *
 *   copy stream   | up 0 | up 1 | up 2 | ...
 *   main stream          | run 0 | run 1 | run 2 | down (all outputs)
 *
 * - Each host array is staged once, as the element range the call touches, into one device buffer;
 *   chunk k uploads the part of that range it adds (so gaps between matrices keep their values,
 *   and a broadcast input, stride 0, goes up once). Host arrays are page-locked first where that
 *   pays (runtime/pinned.ts), which makes the copies asynchronous and 4-8x faster.
 * - An output that the kernels overwrite completely and nothing else reads (info, pivots, C with
 *   beta = 0 stored densely) is not uploaded at all.
 * - Outputs come back in one of two ways (`HostOutputs`):
 *   'after-all': they go down only after the kernels of every chunk are enqueued, in stream order
 *   behind them: an error while enqueueing leaves every caller output untouched, and a kernel that
 *   fails on the device stops the stream before any output is copied back. The roofline is
 *   (bytes up + bytes down) / link bandwidth: the copy engines never run both ways at once.
 *   'duplex': each chunk's page-locked outputs go down on a third stream right behind that chunk's
 *   kernels (enqueueRuns), so downloads overlap the next chunk's uploads and kernels and the
 *   roofline is max(bytes up, bytes down) / link bandwidth; on a device failure, outputs may be
 *   partly written (numerical failures are still each matrix's info). Pageable outputs come back
 *   at the end either way.
 * - Lists and variable batches run as one chunk (their matrices need not be in order).
 */
import { MyriadError } from '../../core/errors.js';
import type { OpName } from '../../core/ops.js';
import { isDeviceStorage, type DeviceStorage } from '../../core/storage.js';
import {
  forEachReference, INT_FIELDS, isBatch, isIntSlice, rebaseRequest, requestCount, sliceRequest, storageRanges,
  type AnyStorage, type Placement, type Range, type Request,
} from './request.js';
import { OUTPUTS } from '../../core/op-specs.js';
import type { DeviceArray, GpuDevice, HostArray } from '../runtime/types.js';
import { hostDType } from '../runtime/memory.js';

/** How a call is cut into chunks (tuning: see BENCHMARKS.md, host path). */
export interface StagingTuning {
  /** Aim for chunks of about this many bytes up (fewer, larger chunks cost fewer launches). */
  readonly chunkBytes: number;
  /** Never more chunks than this. */
  readonly maxChunks: number;
}

export const DEFAULT_STAGING: StagingTuning = { chunkBytes: 32 * 2 ** 20, maxChunks: 16 };

export interface HostCallOptions {
  readonly tuning?: StagingTuning;
  /** Where a device storage of the request lives (multi-GPU: a shard); default: where it is. */
  readonly placeDevice?: (s: AnyStorage) => Placement | undefined;
  /**
   * The duplex pipeline: each chunk's pinned outputs go down on the device's download stream right
   * behind that chunk's kernels, overlapping the next chunk's uploads and kernels. On a device
   * failure the outputs may then be partly written (numerical failures are still each matrix's
   * info). Default false: every output goes down after the kernels of every chunk.
   */
  readonly duplex?: boolean;
  /** Outputs that must come back only at the end, exactly (multi-GPU parts whose ranges interleave). */
  readonly atEnd?: ReadonlySet<AnyStorage>;
}

/** How a call's outputs come back: 'duplex' (per chunk, behind its kernels) or 'after-all' (after every kernel). */
export type HostOutputs = 'duplex' | 'after-all';

export function checkHostOutputs(x: unknown): HostOutputs {
  if (x === 'duplex' || x === 'after-all') return x;
  throw new MyriadError('INVALID_ARGUMENT', `expected 'duplex' or 'after-all', got ${String(x)}`, 'hostOutputs');
}

/** A host array of the call and its device copy: element `base` of the host is element 0 of `array`. */
interface StagedArray {
  readonly host: HostArray;
  readonly range: Range;
  readonly array: DeviceArray;
  /** Host elements [range.lo, uploaded) are on the device (or need not be). */
  uploaded: number;
  readonly upload: boolean;
  readonly output: boolean;
  /** Page-locked: its copies are asynchronous. */
  readonly pinned: boolean;
  /** Goes down chunk by chunk (duplex): enqueueDownloads leaves it. */
  readonly perChunk: boolean;
}

export class HostCall {
  private readonly staged = new Map<AnyStorage, StagedArray>();
  /** The request as a slice of all its matrices: info and pivots become int slices, whose ranges count. */
  private readonly whole: Request;
  private readonly chunks: readonly (readonly [number, number])[];
  /** Bytes copied each way (for bench and tests). */
  readonly bytes = { up: 0, down: 0 };
  /** The device's staging arena while this call holds it, else the arrays it allocated. */
  private arena: StagingArena | undefined;
  private readonly allocated: DeviceArray[] = [];

  /**
   * Checks and allocates everything (nothing is copied yet). `run` enqueues the operation on a
   * request whose storages are all device arrays of `device`.
   */
  constructor(
    private readonly device: GpuDevice,
    op: OpName,
    private readonly request: Request,
    private readonly run: (deviceRequest: Request) => void,
    private readonly options: HostCallOptions = {},
  ) {
    this.whole = sliceRequest(request, 0, requestCount(request));
    const outputs = new Set<AnyStorage>();
    forEachReference(this.whole, (s) => outputs.add(s), OUTPUTS[op]);
    const skipUpload = writeOnlyStorages(op, this.whole);
    const hosts = [...storageRanges(this.whole)].filter(([s]) => !isDeviceStorage(s)) as [HostArray & AnyStorage, Range][];
    try {
      const arrays = this.deviceArrays(hosts);
      const duplex = options.duplex === true && device.downloadBehind !== undefined;
      hosts.forEach(([host, range], i) => {
        const upload = !skipUpload.has(host);
        const pinned = device.pin(host);
        const output = outputs.has(host);
        const perChunk = duplex && output && pinned && !options.atEnd?.has(host);
        this.staged.set(host, { host, range, array: arrays[i]!, uploaded: upload ? range.lo : range.hi, upload, output, pinned, perChunk });
      });
    } catch (e) {
      this.dispose();
      throw e;
    }
    this.chunks = chunksOf(request, [...this.staged.values()].filter((s) => s.upload), options.tuning ?? DEFAULT_STAGING);
  }

  /**
   * Enqueues the uploads and kernels of every chunk; in a duplex call, each chunk's per-chunk outputs
   * go down behind its kernels (the rest wait for enqueueDownloads).
   *
   *   copy stream     | up 0 | up 1 | up 2 |
   *   main stream            | run 0 | run 1 | run 2 |
   *   download stream                | down 0| down 1| down 2 |
   *
   * A chunk's output range holds its own matrices (final once its kernels ran), earlier chunks'
   * (final too) and, where matrices interleave, later chunks' elements already uploaded (the
   * caller's own values, written again by a later chunk's download, which the download stream runs
   * after; outputs that are never uploaded are dense, so their chunks' ranges are disjoint): the
   * last copy of every element is its final value. Nothing a later upload reads is written: uploads read only
   * past the elements uploaded so far, and a chunk's download only elements uploaded before it.
   */
  enqueueRuns(): void {
    let behind = false;
    let done = false;
    try {
      for (const [start, end] of this.chunks) {
        const sub = this.chunks.length === 1 ? this.whole : sliceRequest(this.request, start, end);
        const ranges = storageRanges(sub);
        for (const [s, r] of ranges) {
          const st = this.staged.get(s);
          if (!st || !st.upload || r.hi <= st.uploaded) continue;
          this.device.uploadRange(st.host, st.uploaded, r.hi, st.array, st.uploaded - st.range.lo);
          this.bytes.up += (r.hi - st.uploaded) * st.host.BYTES_PER_ELEMENT;
          st.uploaded = r.hi;
        }
        this.device.awaitUploads();
        this.run(rebaseRequest(sub, (s) => this.place(s, sub)));
        for (const [s, r] of ranges) {
          const st = this.staged.get(s);
          if (!st?.perChunk || r.hi <= r.lo) continue;
          this.device.downloadBehind!(st.array, r.lo - st.range.lo, st.host, r.lo, r.hi);
          this.bytes.down += (r.hi - r.lo) * st.host.BYTES_PER_ELEMENT;
          behind = true;
        }
      }
      done = true;
    } finally {
      // The main stream (and so every wait, and the next call's work) waits for the downloads.
      if (behind) this.device.awaitDownloads!();
      // A chunk that failed to enqueue after earlier chunks' downloads were enqueued: those copies
      // still write the caller's arrays and read the staging arena, which the caller's error path
      // disposes; wait for them before the error leaves (a device error here is the one the caller
      // is already getting, or a later wait's).
      if (behind && !done) {
        try { this.device.synchronize(); } catch { /* reported by the error in flight or the next wait */ }
      }
    }
  }

  /** True when the call stages host arrays (a call on device data only enqueues). */
  get stagesHost(): boolean {
    return this.staged.size > 0;
  }

  /**
   * Enqueues the copies of every host output back into the caller's arrays, behind the kernels.
   * `exact` names outputs whose range holds other calls' results too (multi-GPU parts whose
   * matrices interleave): those come back through a temporary, only the elements written.
   * Pinned outputs go first: a pageable copy waits for the stream, and several GPUs should all
   * have their asynchronous copies in flight before any call waits (`which` splits the two).
   */
  enqueueDownloads(exact?: ReadonlyMap<AnyStorage, readonly (readonly [number, number])[]>, which: 'pinned' | 'pageable' | 'all' = 'all'): void {
    const order = [...this.staged].sort(([, x], [, y]) => Number(y.pinned) - Number(x.pinned));
    for (const [s, st] of order) {
      if (!st.output || st.perChunk || (which === 'pinned' && !st.pinned) || (which === 'pageable' && st.pinned)) continue;
      const spans = exact?.get(s);
      const length = st.range.hi - st.range.lo;
      this.bytes.down += length * st.host.BYTES_PER_ELEMENT;
      if (!spans) {
        this.device.downloadRange(st.array, 0, st.host, st.range.lo, st.range.hi);
        continue;
      }
      const tmp = st.host.slice(st.range.lo, st.range.hi) as HostArray;
      this.device.downloadRange(st.array, 0, tmp, 0, length);
      this.device.synchronize();
      for (const [a, b] of spans) (st.host as Float64Array).set((tmp as Float64Array).subarray(a - st.range.lo, b - st.range.lo), a);
    }
  }

  /** Frees the device copies, or hands the arena back (the work that uses them must have finished). */
  dispose(): void {
    if (this.arena) {
      this.arena.release();
      this.arena = undefined;
    } else {
      for (const a of this.allocated) {
        try { a.dispose(); } catch { /* a failed device takes its memory with its context */ }
      }
    }
    this.allocated.length = 0;
    this.staged.clear();
  }

  /**
   * One device array per host range: views of the device's staging arena where it is free and
   * large enough, else allocations. Each has `slack` elements past its range: some kernels read
   * (never use) up to a leading dimension beyond a matrix's last column, which is harmless in the
   * caller's memory but must not leave a tightly fitted staging buffer.
   */
  private deviceArrays(hosts: readonly [HostArray, Range][]): DeviceArray[] {
    const slack = slackOf(this.whole);
    const offsets: number[] = [];
    let bytes = 0;
    for (const [host, r] of hosts) {
      offsets.push(bytes);
      bytes += Math.ceil(((r.hi - r.lo + slack) * host.BYTES_PER_ELEMENT) / ARENA_ALIGN) * ARENA_ALIGN;
    }
    this.arena = StagingArena.of(this.device).lease(bytes);
    if (this.arena) {
      const buffer = this.arena.buffer!;
      return hosts.map(([host, r], i) => this.device.view(buffer, offsets[i]! / 8, r.hi - r.lo + slack, hostDType(host)));
    }
    for (const [host, r] of hosts) this.allocated.push(this.device.alloc(hostDType(host), r.hi - r.lo + slack));
    return this.allocated;
  }

  /** Where storage `s` of sub-request `sub` lives on the device. */
  private place(s: AnyStorage, sub: Request): Placement {
    const st = this.staged.get(s);
    const elsewhere = st ? undefined : this.options.placeDevice?.(s);
    const target = (st?.array ?? elsewhere?.target ?? s) as DeviceArray;
    const base = st?.range.lo ?? elsewhere?.base ?? 0;
    // An int slice (info, pivots of these matrices) must begin at its first element: a view.
    for (const key of INT_FIELDS) {
      const v = sub[key];
      if (isIntSlice(v) && v.data === s && v.start !== base) {
        return { target: this.device.view(target, v.start - base, v.end - v.start) as DeviceStorage, base: v.start };
      }
    }
    return { target: target as DeviceStorage, base };
  }
}

/** Offsets within the arena are multiples of this many bytes (any dtype's view is aligned, loads stay 16-byte). */
const ARENA_ALIGN = 256;

/**
 * One device buffer per GPU, reused by the host calls that fit it (up to `maxBytes`), so that a
 * small host call costs no cuMemAlloc/cuMemFree (each some tens of microseconds). One call holds
 * it at a time; a call that finds it held, or needs more, allocates its own arrays.
 */
export class StagingArena {
  static readonly maxBytes = 64 * 2 ** 20;
  private static readonly arenas = new WeakMap<GpuDevice, StagingArena>();
  buffer: DeviceArray | undefined;
  private held = false;

  private constructor(private readonly device: GpuDevice) {}

  static of(device: GpuDevice): StagingArena {
    let a = StagingArena.arenas.get(device);
    if (!a) StagingArena.arenas.set(device, (a = new StagingArena(device)));
    return a;
  }

  /** This arena with at least `bytes` (grown if needed), or undefined when held or too large. */
  lease(bytes: number): StagingArena | undefined {
    if (this.held || bytes > StagingArena.maxBytes) return undefined;
    if (!this.buffer || this.buffer.disposed || this.buffer.byteLength < bytes) {
      const old = this.buffer && !this.buffer.disposed ? this.buffer.byteLength : 0;
      this.buffer?.dispose();
      this.buffer = undefined;
      const grown = Math.min(StagingArena.maxBytes, Math.max(bytes, 2 * old, 2 ** 20));
      this.buffer = this.device.alloc('float64', Math.ceil(grown / 8));
    }
    this.held = true;
    return this;
  }

  release(): void {
    this.held = false;
  }
}

/** Elements of room past each staged range: the largest leading dimension of the request, plus a vector's worth. */
function slackOf(request: Request): number {
  let ld = 0;
  for (const v of Object.values(request)) {
    if (!isBatch(v)) continue;
    if (v.kind === 'strided') ld = Math.max(ld, v.ld);
    else for (const m of v.matrices) ld = Math.max(ld, 'ld' in m && typeof m.ld === 'number' ? m.ld : v.kind === 'list' ? v.ld : 0);
  }
  return ld + 32;
}

/** Chunk boundaries [start, end): by bytes up, strided batches only, at most one chunk per matrix. */
export function chunksOf(request: Request, uploads: readonly { range: Range; host: HostArray }[], tuning: StagingTuning): [number, number][] {
  const count = requestCount(request);
  const bytesUp = uploads.reduce((sum, s) => sum + (s.range.hi - s.range.lo) * s.host.BYTES_PER_ELEMENT, 0);
  const allStrided = Object.values(request).every((v) => !isBatch(v) || v.kind === 'strided');
  const n = allStrided ? Math.max(1, Math.min(tuning.maxChunks, count, Math.ceil(bytesUp / tuning.chunkBytes))) : 1;
  const out: [number, number][] = [];
  for (let k = 0; k < n; k++) out.push([Math.floor((k * count) / n), Math.floor(((k + 1) * count) / n)]);
  return out;
}

/**
 * Host storages that only write-only fields reference, and that those fields overwrite completely
 * over their whole range: info and pivots of uniform batches, C of gemm with beta = 0 stored densely.
 */
function writeOnlyStorages(op: OpName, request: Request): Set<AnyStorage> {
  const writeOnly = new Set<string>(['info']);
  if (op === 'getrf' || op === 'gesv') writeOnly.add('ipiv');
  const c = request['c'];
  if (op === 'gemm' && request['beta'] === 0 && isBatch(c) && c.kind === 'strided' && c.ld === c.rows && (c.count === 1 || c.stride === c.rows * c.cols)) writeOnly.add('c');
  const a = request['a'];
  if (writeOnly.has('ipiv') && !(isBatch(a) && a.kind === 'strided' && request['pivotStride'] === Math.min(a.rows, a.cols))) writeOnly.delete('ipiv');
  const found = new Set<AnyStorage>();
  const elsewhere = new Set<AnyStorage>();
  forEachReference(request, (s, _lo, _hi, field) => (writeOnly.has(field) ? found : elsewhere).add(s));
  for (const s of elsewhere) found.delete(s);
  return found;
}


/**
 * Page-locked host memory for the host path (docs/host-path.md).
 *
 * A copy from pageable memory runs at 7-15 GB/s (the driver stages it through its own pinned
 * buffers, one chunk at a time); from page-locked memory the DMA engines read the caller's pages
 * directly at the link's 55 GB/s each way, and the copy is truly asynchronous. So large host
 * arrays are registered with cuMemHostRegister (whole ArrayBuffers, PORTABLE: every GPU of the
 * process sees them) from the second call that uses them on (or the first, above `eagerBytes`),
 * and kept registered in a bounded cache, least recently used out first, so that a buffer used
 * again is not pinned again.
 *
 * Staleness. A registration belongs to the memory, not to the JavaScript object: when V8 frees
 * an ArrayBuffer (collected, or detached by a transfer) the range stays registered, and a later
 * buffer at the same address would be DMA'd from the old, pinned pages. So every entry keeps a
 * weak reference to its ArrayBuffer; an entry whose buffer is gone, detached or a different
 * object is stale, and every host copy first drops stale entries that overlap its range
 * (`guard`). A finalizer drops the entry of a collected buffer too, when it gets to run.
 */
import koffi from 'koffi';
import { totalmem } from 'node:os';
import { checkCuda } from './errors.js';
import { CU_MEMHOSTREGISTER_PORTABLE, CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, type CudaDriverApi } from './ffi-cuda.js';

interface Registration {
  readonly address: bigint;
  readonly bytes: number;
  readonly buffer: WeakRef<ArrayBufferLike>;
  lastUse: number;
}

/** What the host path asks of page-locked memory (a fake in tests). */
export interface PinnedMemory {
  /** Registers the ArrayBuffer under `view` when it is worth it (`now`: whenever it fits); true when its pages are locked now. */
  pin(view: ArrayBufferView, now?: boolean): boolean;
  /** Drops stale registrations overlapping `view` (call before any copy from or to host memory). */
  guard(view: ArrayBufferView): void;
}

/** Tuning of the cache (see BENCHMARKS.md, host path, for the measured crossover). */
export interface PinnedLimits {
  /** Buffers smaller than this stay pageable: registering costs more than it saves. */
  readonly minBytes: number;
  /** At most this many bytes stay registered (least recently used are unregistered first). */
  readonly maxBytes: number;
  /**
   * Buffers from this size are registered on first sight; smaller ones on their second call
   * (a buffer used once, such as a fresh info array, would pay the registration for nothing).
   */
  readonly eagerBytes: number;
}

export const DEFAULT_PINNED_LIMITS: PinnedLimits = {
  minBytes: 4 * 2 ** 20,
  maxBytes: Math.min(16 * 2 ** 30, Math.floor(totalmem() / 4)),
  // H200 probe (scripts/probe-pinned.mjs, BENCHMARKS.md): registering runs at ~27 GB/s and a
  // pinned copy at ~53 GB/s against 10-15 GB/s pageable, so one pinned copy pays for its
  // registration from 64 MiB (at 16 MiB it does not).
  eagerBytes: 64 * 2 ** 20,
};

type Memmove = (dst: ArrayBufferView, src: ArrayBufferView, n: number) => unknown;
let memmove: Memmove | undefined;

/** The address of a view's first byte (memmove(p, p, 0) returns p; koffi passes views without copying). */
export function addressOf(view: ArrayBufferView): bigint {
  memmove ??= koffi.load('libc.so.6').func('void *memmove(void *dst, const void *src, size_t n)') as unknown as Memmove;
  return BigInt(koffi.address(memmove(view, view, 0)));
}

export class PinnedRegistry implements PinnedMemory {
  private readonly entries: Registration[] = [];
  private registeredBytes = 0;
  private clock = 0;
  private readonly finalizer = new FinalizationRegistry<Registration>((r) => this.drop(r));
  /** Calls that have used each (not yet registered) buffer. */
  private readonly sightings = new WeakMap<ArrayBufferLike, number>();

  constructor(
    private readonly api: CudaDriverApi,
    private readonly limits: PinnedLimits = DEFAULT_PINNED_LIMITS,
  ) {}

  /** Bytes and buffers registered now (tests, bench). */
  get stats(): { bytes: number; buffers: number } {
    return { bytes: this.registeredBytes, buffers: this.entries.length };
  }

  pin(view: ArrayBufferView, now = false): boolean {
    const buffer = view.buffer;
    const bytes = buffer.byteLength;
    if (bytes < this.limits.minBytes || bytes > this.limits.maxBytes || isResizable(buffer)) {
      this.guard(view);
      return false;
    }
    const whole = new Uint8Array(buffer);
    const address = addressOf(whole);
    const live = this.entries.find((e) => e.address === address && e.bytes === bytes && e.buffer.deref() === buffer);
    if (live) {
      live.lastUse = ++this.clock;
      return true;
    }
    const seen = (this.sightings.get(buffer) ?? 0) + 1;
    this.sightings.set(buffer, seen);
    if (!now && seen < 2 && bytes < this.limits.eagerBytes) {
      this.guard(view);
      return false;
    }
    this.dropOverlapping(address, bytes);
    this.makeRoom(bytes);
    const result = this.api.cuMemHostRegister_v2(whole, bytes, CU_MEMHOSTREGISTER_PORTABLE);
    // Pinned by someone else (another library of the process): use the pages as they are.
    if (result === CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) return true;
    checkCuda(this.api, result, 'cuMemHostRegister_v2', `${bytes} bytes`);
    const entry: Registration = { address, bytes, buffer: new WeakRef(buffer), lastUse: ++this.clock };
    this.entries.push(entry);
    this.registeredBytes += bytes;
    this.finalizer.register(buffer, entry, entry);
    return true;
  }

  guard(view: ArrayBufferView): void {
    if (this.entries.length === 0 || view.byteLength === 0) return;
    const address = addressOf(view);
    for (const e of this.overlapping(address, view.byteLength)) {
      if (e.buffer.deref() !== view.buffer || view.buffer.byteLength !== e.bytes) this.drop(e);
    }
  }

  /** Unregisters everything (before a device's context is released: its registrations go with it). */
  clear(): void {
    for (const e of [...this.entries]) this.drop(e);
  }

  private overlapping(address: bigint, bytes: number): Registration[] {
    const end = address + BigInt(bytes);
    return this.entries.filter((e) => e.address < end && address < e.address + BigInt(e.bytes));
  }

  private dropOverlapping(address: bigint, bytes: number): void {
    for (const e of this.overlapping(address, bytes)) this.drop(e);
  }

  private makeRoom(bytes: number): void {
    while (this.entries.length > 0 && this.registeredBytes + bytes > this.limits.maxBytes) {
      const oldest = this.entries.reduce((a, b) => (b.lastUse < a.lastUse ? b : a));
      this.drop(oldest);
    }
  }

  /** Unregisters one entry (never throws: a failed unregister only leaves pages locked). */
  private drop(e: Registration): void {
    const i = this.entries.indexOf(e);
    if (i < 0) return;
    this.entries.splice(i, 1);
    this.registeredBytes -= e.bytes;
    this.finalizer.unregister(e);
    this.api.cuMemHostUnregister(e.address);
  }
}

function isResizable(buffer: ArrayBufferLike): boolean {
  return (buffer as { resizable?: boolean }).resizable === true || (buffer as { growable?: boolean }).growable === true;
}

import type { DType, FloatArray } from './dtype.js';
import { storageInfo } from './dtype-table.js';

/**
 * Memory on an accelerator, as the core sees it: a typed, sized region. The CUDA runtime's
 * `DeviceArray` implements it (and adds the pointer, copies and `dispose()`). The core only
 * needs dtype and length to validate a batch, so it does not depend on any backend.
 */
export interface DeviceStorage {
  readonly kind: 'device';
  readonly dtype: DType | 'int32' | 'int64';
  /** Length in elements. */
  readonly length: number;
  /** The device ordinal that holds the memory. */
  readonly device: number;
}

/** Where a batch of floats lives: a host typed array or device memory. */
export type Storage = FloatArray | DeviceStorage;
/** Where per-matrix integers (info, pivots) live. */
export type IntStorage = Int32Array | DeviceStorage;

/** True for device memory (a DeviceArray or ShardedArray), false for host arrays. */
export function isDeviceStorage(x: unknown): x is DeviceStorage {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'device';
}

/**
 * Where a storage's bytes lie, to compare memory exactly: `key` is the buffer (a host array's
 * ArrayBuffer, since two views of one buffer can overlap; device memory is its own), `base` the
 * byte where the storage starts in it, `elem` bytes per element.
 */
export interface StoragePlace {
  readonly key: object;
  readonly base: number;
  readonly elem: number;
}

/** Where `s`'s bytes lie (its buffer, first byte and element size): what overlap checks compare. */
export function storagePlace(s: Storage | IntStorage): StoragePlace {
  if (isDeviceStorage(s)) return { key: s, base: 0, elem: storageInfo(s.dtype)?.bytes ?? 8 };
  return { key: s.buffer, base: s.byteOffset, elem: s.BYTES_PER_ELEMENT };
}

/**
 * The spans [lo, hi) of a batch's members, added in member order, per buffer: each buffer's byte
 * range, and whether in each buffer every span starts at or after the end of those before it (then
 * no two share a byte). What overlap.ts's scan of a batch and core/batch.ts's validation pass of a
 * variable batch find; one pass, no object per span.
 */
export class SpanScan {
  /** Byte range [lo, hi) per buffer (a StoragePlace key). */
  readonly bounds = new Map<object, [number, number]>();
  disjoint = true;
  /** The running end of each buffer's spans so far (a buffer's spans may come in several runs). */
  private readonly lastHi = new Map<object, number>();
  private key: object | undefined;
  private prevHi = -Infinity;
  private range: [number, number] | undefined;

  /** The spans added next lie in buffer `key`. */
  enter(key: object): void {
    if (key === this.key) return;
    if (this.key !== undefined) this.lastHi.set(this.key, this.prevHi);
    this.key = key;
    this.prevHi = this.lastHi.get(key) ?? -Infinity;
    this.range = this.bounds.get(key);
  }

  /** A span [lo, hi) in the buffer entered last. */
  add(lo: number, hi: number): void {
    if (lo < this.prevHi) this.disjoint = false;
    if (hi > this.prevHi) this.prevHi = hi;
    const r = this.range;
    if (r === undefined) this.bounds.set(this.key!, (this.range = [lo, hi]));
    else {
      if (lo < r[0]) r[0] = lo;
      if (hi > r[1]) r[1] = hi;
    }
  }
}

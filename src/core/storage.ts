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

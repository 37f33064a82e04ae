import type { DType, FloatArray } from './dtype.js';

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

/**
 * The contract between a context (src/api/) and an accelerator backend (src/cuda/): declared
 * here, below both, so each depends on it and neither on the other.
 */
import type { DType, FloatArray } from './dtype.js';
import type { Backend, OpName } from './ops.js';
import type { DeviceStorage, IntStorage, Storage } from './storage.js';

/** What a context needs of an accelerator backend beyond the operations themselves. */
export interface DeviceBackend extends Backend<Storage, IntStorage> {
  /** Device int32 memory for info/pivots of device-resident batches. */
  allocInts(length: number): DeviceStorage;
  upload(host: FloatArray | Int32Array): DeviceStorage;
  download(device: DeviceStorage): FloatArray | Int32Array;
  alloc(dtype: DType | 'int32', length: number): DeviceStorage;
  /** Device-to-device copy of a whole array (same dtype and length). */
  copy(src: DeviceStorage, dst: DeviceStorage): void;
  /** Runs `fn` between two events on the stream and returns the elapsed milliseconds (waits). */
  time(fn: () => void): number;
  synchronize(): Promise<void>;
  describe(): string;
  dispose(): void;
  /**
   * Runs `fn` with its calls on host data enqueued but not waited for; `done` settles when they
   * have finished and written their outputs. Absent: host calls complete inside `fn`.
   */
  deferHost?<T>(fn: () => T): { result: T; done: Promise<void> };
  /**
   * Records the work `fn` enqueues (without running it) as one replayable unit (a CUDA graph);
   * `capturable(op)` says whether an operation's work can be recorded. Absent: no capture.
   */
  capture?(fn: () => void): { launch(): void; dispose(): void };
  capturable?(op: OpName): boolean;
}

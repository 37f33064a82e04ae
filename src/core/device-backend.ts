/**
 * The contract between a context (src/api/) and an accelerator backend (src/cuda/): declared
 * here, below both, so each depends on it and neither on the other.
 */
import type { DType, FloatArray } from './dtype.js';
import type { Backend, OpName } from './ops.js';
import type { DeviceStorage, IntStorage, Storage } from './storage.js';

/** What a prefetch did: of the distinct modules asked for, how many were at hand and how many compiled. */
export interface PrefetchReport {
  /** Distinct modules asked for. */
  readonly kernels: number;
  /** Already in memory or on disk. */
  readonly cached: number;
  /** Compiled now (on the compile workers). */
  readonly compiled: number;
  /** Not compiled by a worker (the call that needs one compiles it, and reports its error). */
  readonly failed: number;
  /** Wall time of the prefetch. */
  readonly ms: number;
  /** Compile time summed over the workers (more than `ms` where they overlapped). */
  readonly compileMs: number;
  /** Names of the modules compiled, each with the milliseconds it took. */
  readonly compiles: readonly { readonly name: string; readonly ms: number }[];
}

/** What warm planned (module names, in the order the calls asked for them) and what its prefetch did. */
export interface WarmKernels {
  readonly sources: readonly string[];
  /** Undefined where the device compiles nothing ahead (a device without a module cache). */
  readonly report: PrefetchReport | undefined;
}

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
  /**
   * Runs `record` on a backend over a device that runs nothing, then compiles every kernel those
   * calls asked for into the module cache (on the compile workers, all at once); loads nothing.
   */
  warm?(record: (planning: DeviceBackend) => void): Promise<WarmKernels>;
  /** warm's blocking form (for a synchronous caller about to make those calls: the demo). */
  warmSync?(record: (planning: DeviceBackend) => void): WarmKernels;
  /** The module cache's counters so far (compiled, loaded from disk, compile milliseconds); absent without one. */
  moduleStats?(): ModuleStats | undefined;
}

/** Counters of a module cache, for a first call's account (bench's `first ms`, scripts/cold-start.ts). */
export interface ModuleStats {
  readonly compiles: number;
  readonly diskHits: number;
  readonly memoryHits: number;
  /** Milliseconds compiling on the caller's thread (the workers' compiles are counted in `compiles`, not here). */
  readonly compileMs: number;
}

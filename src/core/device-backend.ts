/**
 * The contract between a context (src/api/) and an accelerator backend (src/cuda/): declared
 * here, below both, so each depends on it and neither on the other.
 */
import type { DeviceVariableOp, DeviceVariableRequest } from './device-batch.js';
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

/** The route one call took: its operation (or array-level function), the candidate's name (router.ts), and whether that ran on the GPU. */
export interface RouteTaken {
  readonly op: OpName | ArrayRouted;
  readonly route: string;
  readonly gpu: boolean;
}

/** The array-level functions a backend's router chooses a design for. */
export type ArrayRouted = 'qr';

/** The array-level qr's tall-and-skinny route: column-major Q (empty where not wanted), R (n x n per matrix) and info (> 0: redo by Householder). */
export interface TallSkinnyQrResult { q: FloatArray; r: FloatArray; info: Int32Array }

/** What a context needs of an accelerator backend beyond the operations themselves. */
export interface DeviceBackend extends Backend<Storage, IntStorage> {
  /** Device int32 memory for info/pivots of device-resident batches. */
  allocInts(length: number): DeviceStorage;
  upload(host: FloatArray | Int32Array | BigInt64Array): DeviceStorage;
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
   * How a call on host arrays copies its outputs back: 'duplex' (each chunk's page-locked outputs
   * behind its kernels; on a device failure outputs may be partly written) or 'after-all' (after
   * every kernel; on a device failure none is written). Absent: no host staging.
   */
  hostOutputs?: 'duplex' | 'after-all';
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
  /** Runs `fn` (a capture's calls, its run and its recording) on routes a graph can record. Absent: every route can be. */
  captureScope?<T>(fn: () => T): T;
  /**
   * Runs `record` on a backend over a device that runs nothing, then compiles every kernel those
   * calls asked for into the module cache (on the compile workers, all at once); loads nothing.
   */
  warm?(record: (planning: DeviceBackend) => void): Promise<WarmKernels>;
  /** The module cache's counters so far (compiled, loaded from disk, compile milliseconds); absent without one. */
  moduleStats?(): ModuleStats | undefined;
  /**
   * Blocks until the background compiles of optimised builds (quick builds' successors) are done:
   * a timing that follows cannot be disturbed by compile workers taking the host's cores.
   */
  settleBuilds?(): void;
  /**
   * The array-level qr of `count` column-major m x n host matrices (m >= n, modes 'reduced' and
   * 'r') by the backend's tall-and-skinny design, where its router takes the stack; undefined
   * where it does not (geqrf + orgqr then). `takesQrTallSkinny` asks before the copies are made.
   */
  takesQrTallSkinny?(m: number, n: number, count: number): boolean;
  qrTallSkinny?(a: FloatArray, m: number, n: number, count: number, wantQ: boolean): TallSkinnyQrResult;
  /**
   * Runs a validated request on variableDevice batches (sizes and addresses on the device:
   * core/device-batch.ts). Absent: the backend cannot read them (the context then throws UNSUPPORTED).
   */
  runDeviceVariable?(op: DeviceVariableOp, request: DeviceVariableRequest): void;
  /** The device address of element `offset` of `data` (for building a variableDevice batch's pointers). Absent: not addressable. */
  deviceAddress?(data: DeviceStorage, offset: number): bigint;
  /** The route of the last call with matrices (absent: the backend does not route). */
  readonly lastRoute?: RouteTaken | undefined;
}

/** Counters of a module cache, for a first call's account (bench's `first ms`, scripts/cold-start.ts). */
export interface ModuleStats {
  readonly compiles: number;
  readonly diskHits: number;
  readonly memoryHits: number;
  /** Milliseconds compiling on the caller's thread (the workers' compiles are counted in `compiles`, not here). */
  readonly compileMs: number;
}

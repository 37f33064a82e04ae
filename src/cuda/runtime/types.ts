/**
 * The contract between the CUDA runtime (this folder) and the kernel families
 * (src/cuda/kernels/<op>/). Kernel launchers see only these types.
 */
import type { DType } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { DeviceStorage } from '../../core/storage.js';
import type { ModuleStats, PrefetchReport } from '../../core/device-backend.js';

export type { ModuleStats, PrefetchReport } from '../../core/device-backend.js';

/** What a kernel planner needs to know about a GPU (read once from cuDeviceGetAttribute). */
export interface DeviceInfo {
  readonly ordinal: number;
  readonly name: string;
  /** e.g. 'sm_90' */
  readonly arch: string;
  readonly major: number;
  readonly minor: number;
  readonly smCount: number;
  readonly warpSize: number;
  readonly maxThreadsPerBlock: number;
  readonly maxThreadsPerSM: number;
  readonly maxBlocksPerSM: number;
  readonly regsPerBlock: number;
  readonly regsPerSM: number;
  /** Default per-block limit (48 KiB). */
  readonly sharedPerBlock: number;
  /** The opt-in per-block limit (227 KiB on sm_90), usable after raising the kernel attribute. */
  readonly sharedPerBlockOptin: number;
  readonly sharedPerSM: number;
  readonly clockKHz: number;
  readonly memoryClockKHz: number;
  readonly memoryBusWidthBits: number;
  readonly l2Bytes: number;
  readonly totalMemoryBytes: number;
}

/** Device memory holding `length` elements of `dtype`. */
export interface DeviceArray extends DeviceStorage {
  /** Device pointer to element 0. */
  readonly ptr: bigint;
  readonly byteLength: number;
  readonly disposed: boolean;
  dispose(): void;
}

/** One kernel argument, typed as the generated signature declares it. */
export type KernelArg =
  | { readonly type: 'ptr'; readonly value: bigint }
  | { readonly type: 'i32'; readonly value: number }
  | { readonly type: 'i64'; readonly value: bigint | number }
  | { readonly type: 'f32'; readonly value: number }
  | { readonly type: 'f64'; readonly value: number };

/** A by-value struct parameter (a `const __grid_constant__` TMA tensor map: 128 bytes), as its bytes. */
export interface StructArg { readonly type: 'bytes'; readonly value: Uint8Array }

/** Anything a launch passes: scalars and pointers, or a struct's bytes. */
export type LaunchArg = KernelArg | StructArg;

export const arg = {
  ptr: (value: bigint | DeviceArray): KernelArg => ({ type: 'ptr', value: typeof value === 'bigint' ? value : value.ptr }),
  i32: (value: number): KernelArg => ({ type: 'i32', value }),
  i64: (value: bigint | number): KernelArg => ({ type: 'i64', value }),
  f32: (value: number): KernelArg => ({ type: 'f32', value }),
  f64: (value: number): KernelArg => ({ type: 'f64', value }),
  bytes: (value: Uint8Array): StructArg => ({ type: 'bytes', value }),
  /** A scalar of the kernel's precision. */
  real: (dtype: DType, value: number): KernelArg => ({ type: dtypeInfo(dtype).cuda.ptx.type, value }),
};

/**
 * A tiled TMA tensor map (cuTensorMapEncodeTiled): `dims` elements per dimension (innermost
 * first), `strides` bytes from one index to the next of dims 1.. (the innermost is contiguous),
 * `box` elements copied per instruction; elements outside the tensor read as zeros.
 */
export interface TensorMapSpec {
  readonly dataType: 'float64';
  /** The tensor's first element (16-byte aligned). */
  readonly address: bigint;
  readonly dims: readonly number[];
  readonly strides: readonly number[];
  readonly box: readonly number[];
  /** 0 (none), 32, 64 or 128: the shared-memory swizzle (the inner box at most this many bytes). */
  readonly swizzleBytes: 0 | 32 | 64 | 128;
}

export type Dim3 = readonly [number, number, number];

export interface LaunchConfig {
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Dynamic shared memory in bytes (default 0). Above 48 KiB the runtime raises the kernel's limit. */
  readonly sharedBytes?: number;
}

export interface Kernel {
  readonly name: string;
  /** From cuFuncGetAttribute: registers per thread, static shared bytes, local (spill) bytes. */
  readonly registers: number;
  readonly staticSharedBytes: number;
  readonly localBytes: number;
  readonly maxThreadsPerBlock: number;
  /** Enqueue on the owning device's stream. Throws CudaError with the failing call's name. */
  launch(config: LaunchConfig, args: readonly LaunchArg[]): void;
}

/** A source to compile: the generator's output and the one kernel to fetch from it. */
export interface KernelSource {
  /** A readable name for logs and NVRTC errors, e.g. 'gemm_d_nn_8x8x8_tbc32.cu'. */
  readonly name: string;
  readonly source: string;
  /** The `extern "C" __global__` function name. */
  readonly entry: string;
  /** Extra NVRTC options (the runtime adds --gpu-architecture=sm_XY, -std=c++17, ...). */
  readonly options?: readonly string[];
}

export type DeviceDType = DType | 'int32' | 'int64';
export type HostArray = Float64Array | Float32Array | Int32Array | BigInt64Array;

/** A recorded point on a device's stream, for timing with CUDA events. */
export interface GpuEvent {
  record(): void;
  synchronize(): void;
  /** Milliseconds from `start` (recorded earlier) to this event. Both must have completed. */
  elapsedSince(start: GpuEvent): number;
  dispose(): void;
}

/** Work recorded from a device's stream (a CUDA graph), launched again as one unit. */
export interface DeviceGraph {
  /** Enqueues the recorded work on the device's stream. */
  launch(): void;
  dispose(): void;
}

/**
 * One GPU with its context and stream, as kernel launchers and the CUDA backend see it.
 * All work is enqueued on one stream in call order; `synchronize()` waits for it. The host path
 * adds a second stream for uploads, which the first waits on (`awaitUploads`).
 */
export interface GpuDevice {
  readonly info: DeviceInfo;
  /** Compiles (or fetches from the memory/disk cache) and loads a kernel for this device's arch. */
  kernel(src: KernelSource): Kernel;
  alloc(dtype: DeviceDType, length: number): DeviceArray;
  /** Copies host -> device (into `dst` when given, else a new array); synchronous w.r.t. the host buffer. */
  upload(host: HostArray, dst?: DeviceArray): DeviceArray;
  /** Copies device -> host (into `dst` when given); waits for the stream first. */
  download(src: DeviceArray, dst?: HostArray): HostArray;
  /** Device-to-device copy of `elements` elements, enqueued on the stream. */
  copy(src: DeviceArray, srcOffset: number, dst: DeviceArray, dstOffset: number, elements: number): void;
  /** Sets every byte of the array to `byte` (e.g. 0xff to poison float memory with NaN). */
  fill(dst: DeviceArray, byte: number): void;
  /**
   * Elements [start, start + length) of `array` as a device array sharing its memory (dispose()
   * frees nothing); with `dtype`, `length` elements of that type from element `start` of `array`.
   */
  view(array: DeviceArray, start: number, length: number, dtype?: DeviceDType): DeviceArray;

  // The host path (cuda/host/staging.ts): copies that overlap the stream's work.
  /** Locks the pages of `host`'s buffer where that pays (`now`: whenever it fits the cache); true when they are locked. */
  pin(host: HostArray, now?: boolean): boolean;
  /**
   * Host elements [lo, hi) of `host` into `dst` from element `dstOffset`, on the device's copy
   * stream: the call returns at once where `host` is pinned (the caller keeps it unchanged until
   * the work is done), after the bytes are staged otherwise.
   */
  uploadRange(host: HostArray, lo: number, hi: number, dst: DeviceArray, dstOffset: number): void;
  /** Work enqueued on the stream from now on waits for every uploadRange enqueued so far. */
  awaitUploads(): void;
  /**
   * Elements of `src` from `srcOffset` into host elements [lo, hi), in stream order after the
   * work enqueued before it: enqueued only where `host` is pinned, else it waits for the stream.
   */
  downloadRange(src: DeviceArray, srcOffset: number, host: HostArray, lo: number, hi: number): void;
  /**
   * The duplex host path: elements of `src` from `srcOffset` into host elements [lo, hi) on the
   * download stream, after the work enqueued on the main stream so far, so that the copy overlaps
   * the main stream's later kernels and the copy stream's later uploads. `host` must be pinned (a
   * pageable copy would wait). Absent: the device has no download stream (use downloadRange).
   */
  downloadBehind?(src: DeviceArray, srcOffset: number, host: HostArray, lo: number, hi: number): void;
  /** Work enqueued on the main stream from now on (and synchronize, idle) waits for every downloadBehind so far. */
  awaitDownloads?(): void;
  /** Resolves when the work enqueued so far has finished, without blocking the event loop. */
  idle(): Promise<void>;
  event(): GpuEvent;
  synchronize(): void;
  /**
   * Records (without running) the work `fn` enqueues into a graph; while recording, calls that
   * would synchronise, copy host memory or load a kernel throw. Absent where unsupported.
   */
  capture?(fn: () => void): DeviceGraph;
  /**
   * Lookahead (the large factorizations): `side(fn)` enqueues what `fn` launches on a second
   * stream, after everything enqueued on the main stream so far, so that it may overlap the main
   * stream's later work; `joinSide()` makes the main stream's later work wait for everything
   * enqueued on the side so far. Work on the side may not allocate, synchronise or copy to the host.
   */
  side?(fn: () => void): void;
  joinSide?(): void;
  /**
   * Puts the binaries of `sources` into the module cache (memory and disk) without loading them,
   * compiling those missing on worker threads, all at once: `prefetch` blocks this thread (a call in
   * progress: only where two or more are missing), `prefetchAsync` does not. Absent: nothing to do.
   */
  prefetch?(sources: readonly KernelSource[]): PrefetchReport;
  prefetchAsync?(sources: readonly KernelSource[]): Promise<PrefetchReport>;
  /** The module cache's counters (undefined where NVRTC cannot be loaded). Absent: no module cache. */
  moduleStats?(): ModuleStats | undefined;
  /** Blocks until every background (optimised) build of this process is in the module cache. Absent: none run. */
  settleBuilds?(): void;
  /**
   * The 128 bytes of a TMA tensor map (pass as `arg.bytes`). Absent where the driver cannot
   * encode one (no cuTensorMapEncodeTiled): designs that need it are not planned there.
   */
  tensorMap?(spec: TensorMapSpec): Uint8Array;
  /** An operation's call begins (the backend says so): a first call's quick builds serve that call only (runtime/tiered.ts). */
  beginCall?(): void;
  /**
   * A variable-size launcher's blocked-driver launches begin (true) or end (false): the launches of
   * a class its plan runs in several (one per panel, or per recursion step and its updates) and the
   * per-size path of members beyond the classes (common/driver-section.ts). A device that counts
   * launches (the --vbatched bench's) tells them from the launches that serve a whole size class or
   * the whole batch. Absent: nothing to do.
   */
  driverSection?(entering: boolean): void;
  /** The CUstream handle, for vendor libraries (cublasSetStream). */
  readonly streamHandle: unknown;
  dispose(): void;
}

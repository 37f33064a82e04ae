/**
 * Quick builds: the first call of a shape does not wait for the optimising compiler.
 *
 * A kernel whose serial steps are unrolled (`#pragma unroll`) costs NVRTC 0.3-1.2 s on the H200
 * machines' cores, most of it in the optimiser; with `--Ofast-compile=mid` the same source compiles
 * several times faster (BENCHMARKS.md "First calls": potrf's panel, getrf's register LU, the
 * tensor-core GEMM tiles). `mid` rather than `max`: the same compile time (nvcc 13.0 here), but
 * device functions are inlined (`max` calls them, each with a stack frame). So where such a
 * kernel is in neither the memory nor the disk cache, the call that first needs it compiles that
 * quick build, runs it, and hands the optimised build to background compile workers; the kernel
 * (a TieredKernel) switches to the optimised build as soon as it is ready, and at the latest at
 * its first launch in a later call (which then waits for it). Only the first call of a new shape
 * runs quick code: a quick build keeps the loops rolled (arrays indexed in them live in local
 * memory), several times slower, but compile time is what a first call is made of. The optimised
 * build is what the disk cache keeps for later processes (the background workers hold the process
 * open until it is written).
 *
 * A quick build runs the same algorithm in the same order, but the optimiser's contraction of a
 * multiply and an add into one FMA may differ, so a first call's results may differ from later
 * calls' in the last bits. MYRIAD_QUICK_FIRST=0 turns quick builds off (every call waits for the
 * optimised build, bitwise repeatable from the first call); `ctx.warm` and `myriad warm` compile
 * optimised builds only.
 */
import type { Env } from './libraries.js';
import type { Kernel, LaunchArg, LaunchConfig } from './types.js';

/** The NVRTC option of a quick build (CUDA 12.8+: the optimiser's fast-compile level). */
export const QUICK_BUILD_OPTION = '--Ofast-compile=mid';

/** Whether first calls may run quick builds (MYRIAD_QUICK_FIRST=0: never). */
export function quickFirst(env: Env = process.env): boolean {
  return env['MYRIAD_QUICK_FIRST'] !== '0';
}

/**
 * Whether a source is worth a quick build: one that unrolls loops (`#pragma unroll`, but not
 * `#pragma unroll 1`), where the optimiser's time goes. A kernel without one compiles in tens of
 * milliseconds either way; a second build would only add work.
 */
export function wantsQuickBuild(source: string): boolean {
  return /#pragma\s+unroll(?!\s*\(?\s*1\b)/.test(source);
}

/** The quick build of a compile request: the same, with QUICK_BUILD_OPTION last (so a cache key of its own). */
export function quickRequest<R extends { readonly options: readonly string[] }>(request: R): R {
  return { ...request, options: [...request.options, QUICK_BUILD_OPTION] };
}

/** A background compile that a kernel waits on: a look (`done`) and a wait that stores its result (`settle`). */
export interface PendingBuild {
  done(): boolean;
  /** Blocks until done, and puts its binaries in the module cache (once, whoever calls first). */
  settle(): void;
  /** Settles once its binaries are in the module cache (or it failed: the kernel's own load then reports why). */
  stored(): Promise<void>;
}

/**
 * A kernel served by its quick build until its optimised build is ready: launches switch to the
 * optimised one as soon as the background compile is done, when the launch belongs to a later
 * call than the one that made this kernel (`callNumber` moved on), or when the quick build cannot
 * take the launch (more threads than its registers allow).
 */
export class TieredKernel implements Kernel {
  private current: Kernel;
  private pending: PendingBuild | undefined;

  constructor(
    quick: Kernel,
    pending: PendingBuild,
    /** Loads the optimised build (from the module cache, once `pending` settled). */
    private readonly optimised: () => Kernel,
    /** The number of the call in progress (the device's call counter). */
    private readonly callNumber: () => number,
    private readonly madeInCall: number,
  ) {
    this.current = quick;
    this.pending = pending;
  }

  get name(): string { return this.current.name; }
  get registers(): number { return this.current.registers; }
  get staticSharedBytes(): number { return this.current.staticSharedBytes; }
  get localBytes(): number { return this.current.localBytes; }
  get maxThreadsPerBlock(): number { return this.current.maxThreadsPerBlock; }

  /** Whether the quick build still serves. */
  get quick(): boolean {
    return this.pending !== undefined;
  }

  launch(config: LaunchConfig, args: readonly LaunchArg[]): void {
    if (this.pending !== undefined) {
      const [bx, by, bz] = config.block;
      if (this.pending.done() || this.callNumber() !== this.madeInCall || bx * by * bz > this.current.maxThreadsPerBlock) this.upgrade();
    }
    this.current.launch(config, args);
  }

  /** Waits for the optimised build (if it is not ready) and serves it from now on. */
  upgrade(): void {
    if (this.pending === undefined) return;
    this.pending.settle();
    this.pending = undefined;
    this.current = this.optimised();
  }
}

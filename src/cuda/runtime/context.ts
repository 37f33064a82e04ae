/**
 * One device's native state shared by its arrays, kernels and events: the primary context,
 * the stream, and the allocations still alive. Everything that touches the device first makes
 * its context current (cuCtxSetCurrent), so several devices can be used from one thread.
 */
import { MyriadError } from '../../core/errors.js';
import { checkCuda } from './errors.js';
import type { CUcontext, CUstream, CudaDriverApi } from './ffi-cuda.js';

/** One cuMemAlloc'ed region. Holds no reference to its DeviceArray, so the array can be collected. */
export interface Allocation {
  readonly ptr: bigint;
  readonly bytes: number;
  freed: boolean;
}

/** The context last made current by this process (cuCtxSetCurrent is per thread; Node runs us on one). */
let currentContext: CUcontext | null = null;

export class DeviceContext {
  alive = true;
  private readonly allocations = new Set<Allocation>();
  /** Frees the memory of arrays collected without dispose() (the safety net, not the plan). */
  private readonly registry = new FinalizationRegistry<Allocation>((a) => this.free(a));

  /** Where launches and copies go now: the main stream, or the side stream inside onStream(). */
  private current: CUstream;

  constructor(
    readonly api: CudaDriverApi,
    readonly ordinal: number,
    readonly ctx: CUcontext,
    readonly mainStream: CUstream,
  ) {
    this.current = mainStream;
  }

  /** The stream work is enqueued on (the main stream outside onStream()). */
  get stream(): CUstream {
    return this.current;
  }

  /** Runs `fn` with everything it enqueues going to `stream` instead of the main stream. */
  onStream(stream: CUstream, fn: () => void): void {
    const saved = this.current;
    this.current = stream;
    try {
      fn();
    } finally {
      this.current = saved;
    }
  }

  /** Makes this device's context current; throws DISPOSED after dispose(). */
  activate(): void {
    if (!this.alive) throw new MyriadError('DISPOSED', `CUDA device ${this.ordinal} was disposed`);
    if (currentContext !== this.ctx) {
      checkCuda(this.api, this.api.cuCtxSetCurrent(this.ctx), 'cuCtxSetCurrent', `device ${this.ordinal}`);
      currentContext = this.ctx;
    }
  }

  check(result: number, call: string, detail = ''): void {
    checkCuda(this.api, result, call, detail);
  }

  /** Allocates `bytes` (0 bytes gives a null pointer and no native call). */
  allocate(bytes: number, owner: object): Allocation {
    this.activate();
    let ptr = 0n;
    if (bytes > 0) {
      const out: [number | bigint] = [0];
      this.check(this.api.cuMemAlloc_v2(out, bytes), 'cuMemAlloc_v2', `${bytes} bytes on device ${this.ordinal}`);
      ptr = BigInt(out[0]);
    }
    const a: Allocation = { ptr, bytes, freed: false };
    this.allocations.add(a);
    this.registry.register(owner, a, a);
    return a;
  }

  /** Frees once; a no-op for freed allocations and after the device is gone. */
  free(a: Allocation): void {
    if (a.freed) return;
    a.freed = true;
    this.allocations.delete(a);
    this.registry.unregister(a);
    if (!this.alive || a.ptr === 0n) return;
    // From a finalizer we must not throw: a failed free leaks, nothing more.
    if (currentContext !== this.ctx && this.api.cuCtxSetCurrent(this.ctx) === 0) currentContext = this.ctx;
    this.api.cuMemFree_v2(a.ptr);
  }

  /** Frees everything still allocated and marks the context dead (the device's dispose). */
  close(): void {
    for (const a of [...this.allocations]) this.free(a);
    this.alive = false;
    if (currentContext === this.ctx) currentContext = null;
  }

  /** Live allocations (for tests and leak reports). */
  get liveAllocations(): number {
    return this.allocations.size;
  }
}

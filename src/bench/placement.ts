/**
 * Where a benchmark's data lives: device memory on a CUDA context, host arrays on the CPU (shared
 * with the CPU backend's workers where MYRIAD_BENCH_SHARED=1), with pristine copies to restore
 * overwritten operands from, outside the timed calls.
 */
import { isFloat64Array, type DType, type FloatArray } from '../core/dtype.js';
import type { DeviceStorage, IntStorage, Storage } from '../core/storage.js';
import type { Context } from '../api/context.js';

/**
 * A copy of host data for the CPU: on a SharedArrayBuffer with MYRIAD_BENCH_SHARED=1 (the CPU
 * backend's workers then use it in place instead of copying their chunks), else a plain copy.
 */
function hostArray(a: FloatArray): FloatArray {
  if (process.env.MYRIAD_BENCH_SHARED !== '1') return a.slice() as FloatArray;
  const shared = isFloat64Array(a) ? new Float64Array(new SharedArrayBuffer(a.byteLength)) : new Float32Array(new SharedArrayBuffer(a.byteLength));
  shared.set(a);
  return shared;
}

/** Places host data where the context computes: device memory on CUDA, the array itself on the CPU. */
export class Placement {
  private readonly owned: DeviceStorage[] = [];
  constructor(private readonly ctx: Context) {}
  put(host: FloatArray): Storage {
    if (this.ctx.backend === 'cpu') return hostArray(host);
    const d = this.ctx.upload(host);
    this.owned.push(d);
    return d;
  }
  /** A working copy that `restore` refills from `pristine`. */
  working(pristine: Storage): Storage {
    if (this.ctx.backend === 'cpu') return hostArray(pristine as FloatArray);
    const p = pristine as DeviceStorage;
    const w = this.ctx.alloc(p.dtype as DType, p.length);
    this.owned.push(w);
    this.ctx.copy(p, w);
    return w;
  }
  /**
   * Per-matrix integers (info, pivots) allocated once, outside the timed calls: an allocation
   * per call would time cuMemAlloc (and a later cuMemFree, which synchronises) with the kernel.
   */
  ints(length: number): IntStorage {
    if (this.ctx.backend === 'cpu') return process.env.MYRIAD_BENCH_SHARED === '1' ? new Int32Array(new SharedArrayBuffer(4 * length)) : new Int32Array(length);
    const d = this.ctx.alloc('int32', length);
    this.owned.push(d);
    return d;
  }
  restore(pristine: Storage, work: Storage): void {
    if (this.ctx.backend === 'cpu') (work as FloatArray).set(pristine as FloatArray);
    else this.ctx.copy(pristine as DeviceStorage, work as DeviceStorage);
  }
  dispose(): void {
    for (const d of this.owned) (d as DeviceStorage & { dispose?: () => void }).dispose?.();
  }
}

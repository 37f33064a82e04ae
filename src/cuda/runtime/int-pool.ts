/**
 * Small int32 device arrays without a device allocation per call: the `info` a call on device
 * data returns when the caller passed none is a view cut from one of a few slabs.
 *
 * A slab's space comes back when every view cut from it has been garbage-collected (the views
 * are registered with a FinalizationRegistry): the kernels that wrote them were enqueued on the
 * device's one stream before any later kernel that writes the space again, so reuse is in stream
 * order. The pool is bounded (`maxSlabs`); past the bound, or for an array larger than a quarter
 * of a slab, `take` allocates as before. `dispose` frees the slabs (views still held then report
 * `disposed`, as after the device's dispose).
 */
import type { DeviceArray, GpuDevice } from './types.js';

/** Views start on 128-byte boundaries (32 int32). */
const ALIGN = 32;

interface Slab {
  readonly array: DeviceArray;
  /** Elements handed out from the start. */
  used: number;
  /** Views handed out and not yet collected. */
  live: number;
}

export interface IntPoolOptions {
  /** int32 elements per slab (default 65,536: 256 KiB). */
  readonly slabInts?: number;
  /** Slabs at most (default 16: 4 MiB). */
  readonly maxSlabs?: number;
}

export class IntPool {
  readonly slabInts: number;
  readonly maxSlabs: number;
  /** Arrays allocated on their own because the pool was full or they were large (for tests and benchmarks). */
  unpooled = 0;
  private slabs: Slab[] = [];
  private disposed = false;
  private readonly collected = new FinalizationRegistry<Slab>((slab) => {
    if (--slab.live === 0) slab.used = 0;
  });

  constructor(private readonly dev: GpuDevice, options: IntPoolOptions = {}) {
    this.slabInts = options.slabInts ?? 1 << 16;
    this.maxSlabs = options.maxSlabs ?? 16;
  }

  /** Slabs allocated now (at most maxSlabs). */
  get slabCount(): number {
    return this.slabs.length;
  }

  /** An int32 device array of `length` elements (contents undefined, as cuMemAlloc's). */
  take(length: number): DeviceArray {
    if (this.disposed || length === 0 || length > this.slabInts / 4) return this.own(length);
    const need = Math.ceil(length / ALIGN) * ALIGN;
    let slab: Slab | undefined;
    for (const s of this.slabs) {
      if (s.used + need <= this.slabInts) { slab = s; break; }
    }
    if (slab === undefined) {
      if (this.slabs.length >= this.maxSlabs) return this.own(length);
      slab = { array: this.dev.alloc('int32', this.slabInts), used: 0, live: 0 };
      this.slabs.push(slab);
    }
    const view = this.dev.view(slab.array, slab.used, length);
    slab.used += need;
    slab.live++;
    this.collected.register(view, slab);
    return view;
  }

  /** Frees every slab; later `take`s allocate on their own. */
  dispose(): void {
    this.disposed = true;
    for (const s of this.slabs) if (!s.array.disposed) s.array.dispose();
    this.slabs = [];
  }

  private own(length: number): DeviceArray {
    this.unpooled++;
    return this.dev.alloc('int32', length);
  }
}

/**
 * MultiDeviceContext: the public face of several GPUs. Every operation of Context works on it
 * (host batches are split by weight, run on every device at once and copied back in order);
 * it adds device-resident batches spread over the devices:
 *
 *   const ctx = open({ devices: 'all' }) as MultiDeviceContext;   // or openMultiDevice('all')
 *   const a = ctx.scatter(hostA, { rows: 16, count });            // whole matrices per device
 *   const { info } = ctx.potrf({ a: strided(a, { rows: 16, count }) }); // enqueued on every GPU
 *   await ctx.synchronize();                                      // waits for all of them
 *   const factors = ctx.gather(a), status = ctx.gather(info);     // back in original order
 */
import { Context } from './context.js';
import type { DType, FloatArray } from '../core/dtype.js';
import type { DeviceStorage } from '../core/storage.js';
import { median } from '../core/stats.js';
import { MultiDeviceBackend } from '../cuda/multi/backend.js';
import type { ShardLayout, ShardedArray } from '../cuda/multi/sharded.js';
import { weightsFromTimes } from '../cuda/multi/split.js';
import type { Spread } from '../cuda/multi/crossover.js';
import { checkHostOutputs, type HostOutputs } from '../cuda/host/staging.js';

/** A context over several GPUs of one host (from `openMultiDevice`): batches are split across them. */
export class MultiDeviceContext extends Context {
  constructor(
    readonly multi: MultiDeviceBackend,
    /** When set, `upload`/`alloc` scatter arrays into this many matrices (see `shardedBy`). */
    private readonly shardCount?: number,
    /** False for views that share another context's devices (their dispose() frees nothing). */
    private readonly owner = true,
  ) {
    super('cuda', multi, multi);
  }

  /** The GPU ordinals, in the order parts are assigned. */
  get devices(): number[] {
    return this.multi.ordinals;
  }
  /** Relative speeds: each device's share of a host batch (and of a scatter). */
  get weights(): readonly number[] {
    return this.multi.weights;
  }
  set weights(w: readonly number[]) {
    this.multi.weights = w;
  }
  /**
   * How many GPUs a call on host arrays runs on: 'auto' (default: one GPU for short calls, more as
   * the call's estimated time grows; multi/crossover.ts), 'all', or a number of GPUs.
   */
  get spread(): Spread {
    return this.multi.spread;
  }
  set spread(s: Spread) {
    this.multi.spread = s;
  }
  /**
   * How the outputs of a call on host arrays come back: 'duplex' (default: each chunk's page-locked
   * outputs are copied back behind its kernels, overlapping the next chunk's uploads; on a device
   * failure, outputs may be partly written) or 'after-all' (only after every GPU finished every
   * kernel: on a device failure no host output is written). Numerical failures are each matrix's
   * info either way.
   */
  get hostOutputs(): HostOutputs {
    return this.multi.hostOutputs;
  }
  set hostOutputs(h: HostOutputs) {
    this.multi.hostOutputs = checkHostOutputs(h);
  }
  /** Milliseconds per device of the last `time()` call (time() returns the slowest). */
  get lastDeviceTimes(): readonly number[] {
    return this.multi.lastDeviceTimes;
  }

  /** Copies a host array onto the devices, whole matrices per device, split by weight. */
  scatter(host: FloatArray | Int32Array, layout: ShardLayout, weights?: readonly number[]): ShardedArray {
    return this.multi.scatter(host, layout, weights);
  }
  /** Uninitialised device memory laid out as `scatter` would lay out `length` elements. */
  allocSharded(dtype: DType | 'int32', length: number, layout: ShardLayout, weights?: readonly number[]): ShardedArray {
    return this.multi.allocSharded(dtype, length, layout, weights);
  }
  /** The whole array back on the host, in original order (waits for the work enqueued before). */
  gather(device: DeviceStorage): FloatArray | Int32Array {
    return this.download(device);
  }

  override upload(host: FloatArray | Int32Array): DeviceStorage {
    return this.shardCount === undefined ? super.upload(host) : this.scatter(host, { count: this.shardCount });
  }
  override alloc(dtype: DType | 'int32', length: number): DeviceStorage {
    return this.shardCount === undefined ? super.alloc(dtype, length) : this.allocSharded(dtype, length, { count: this.shardCount });
  }

  /**
   * A view of this context whose `upload` and `alloc` scatter every array into `count` equal
   * matrices: code written for one GPU (benchmark workloads, say) then keeps its data spread over
   * every device without change. Disposing the view frees nothing.
   */
  shardedBy(count: number): MultiDeviceContext {
    return new MultiDeviceContext(this.multi, count, false);
  }

  /** One context per device, sharing this context's devices (for timing each alone). */
  deviceContexts(): MultiDeviceContext[] {
    return this.multi.lanes.map((lane) => new MultiDeviceContext(new MultiDeviceBackend([lane], this.multi.versions, { weights: [1], hostOutputs: this.multi.hostOutputs }), this.shardCount, false));
  }

  /**
   * Measures each device on the same work and sets the weights to the measured speeds.
   * `prepare(ctx)` builds the work on one device's context and returns the call to time.
   */
  calibrate(prepare: (ctx: Context) => () => void, repeats = 3): readonly number[] {
    const ms = this.deviceContexts().map((ctx) => {
      const run = prepare(ctx);
      run();
      return median(Array.from({ length: repeats }, () => ctx.time(run)));
    });
    this.weights = weightsFromTimes(ms);
    return this.weights;
  }

  override dispose(): void {
    if (this.owner) super.dispose();
  }
}

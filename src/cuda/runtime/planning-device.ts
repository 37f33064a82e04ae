/**
 * A device that plans and runs nothing: the kernel launchers run on it as on a GPU, and it records
 * every KernelSource they ask for (in order, once each). So the list of kernels a call would
 * compile comes from the call path itself (the families' planners and generators), never from a
 * second copy of their routing: `ctx.warm` and the in-call parallel compile (backend.ts) both
 * use it.
 *
 * Memory: arrays hold no storage (a distinct fake address and a length), so planning a call on
 * 10240 x 10240 matrices allocates nothing; copies, fills and launches do nothing; downloads read
 * zeros (an info of 0 for every matrix: the path of a call whose matrices all succeed). Arrays
 * of another device (the real one's, in the in-call plan) are accepted as they are.
 */
import { storageInfo } from '../../core/dtype-table.js';
import { allocateHost, hostDType } from './memory.js';
import type { DeviceArray, DeviceDType, DeviceGraph, DeviceInfo, GpuDevice, GpuEvent, HostArray, Kernel, KernelSource, LaunchConfig, KernelArg } from './types.js';

class PlannedArray implements DeviceArray {
  readonly kind = 'device' as const;
  disposed = false;
  constructor(readonly dtype: DeviceDType, readonly length: number, readonly ptr: bigint, readonly device: number) {}
  get byteLength(): number { return this.length * storageInfo(this.dtype).bytes; }
  dispose(): void { this.disposed = true; }
}

function clear(h: HostArray): void {
  if (h instanceof BigInt64Array) h.fill(0n);
  else h.fill(0);
}

class PlannedEvent implements GpuEvent {
  record(): void {}
  synchronize(): void {}
  elapsedSince(): number { return 0; }
  dispose(): void {}
}

export class PlanningDevice implements GpuDevice {
  readonly streamHandle = null;
  /** The sources asked for, first request first, each once (by name, entry, options and text). */
  readonly sources: KernelSource[] = [];
  private readonly seen = new Set<string>();
  private next = 1n << 40n;

  constructor(readonly info: DeviceInfo) {}

  kernel(src: KernelSource): Kernel {
    const id = `${src.entry}\u0000${(src.options ?? []).join(' ')}\u0000${src.source}`;
    if (!this.seen.has(id)) {
      this.seen.add(id);
      this.sources.push(src);
    }
    return {
      name: src.entry, registers: 0, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: this.info.maxThreadsPerBlock,
      launch(_config: LaunchConfig, _args: readonly KernelArg[]): void {},
    };
  }

  alloc(dtype: DeviceDType, length: number): DeviceArray {
    const ptr = this.next;
    // 256-byte aligned, distinct addresses (planners may look at alignment, never at contents).
    this.next += BigInt(Math.ceil((length * storageInfo(dtype).bytes + 1) / 256) * 256);
    return new PlannedArray(dtype, length, ptr, this.info.ordinal);
  }
  upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    return dst ?? this.alloc(hostDType(host), host.length);
  }
  download(src: DeviceArray, dst?: HostArray): HostArray {
    if (!dst) return allocateHost(src.dtype, src.length);
    clear(dst);
    return dst;
  }
  copy(): void {}
  fill(): void {}
  view(array: DeviceArray, start: number, length: number, dtype?: DeviceDType): DeviceArray {
    return new PlannedArray(dtype ?? array.dtype, length, array.ptr + BigInt(start * storageInfo(array.dtype).bytes), this.info.ordinal);
  }
  pin(): boolean { return false; }
  uploadRange(): void {}
  awaitUploads(): void {}
  downloadRange(_src: DeviceArray, _srcOffset: number, host: HostArray, lo: number, hi: number): void {
    clear(host.subarray(lo, hi));
  }
  async idle(): Promise<void> {}
  event(): GpuEvent { return new PlannedEvent(); }
  synchronize(): void {}
  capture(fn: () => void): DeviceGraph {
    fn();
    return { launch(): void {}, dispose(): void {} };
  }
  side(fn: () => void): void { fn(); }
  joinSide(): void {}
  dispose(): void {}
}

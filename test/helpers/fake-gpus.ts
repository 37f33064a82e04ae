/**
 * Fake GPUs for CI: "device" memory kept in host arrays, each request run with the CPU reference
 * on that memory (in place), every upload, launch, wait and download logged. A MultiDeviceContext
 * over them (`rig`) runs the multi-device splitting, staging and ordering without a GPU.
 */
import assert from 'node:assert/strict';
import type { Batch } from '../../src/core/batch.js';
import { OP_NAMES, type Backend, type OpName } from '../../src/core/ops.js';
import { isDeviceStorage, type IntStorage, type Storage } from '../../src/core/storage.js';
import { cpuBackend } from '../../src/cpu/backend.js';
import { CudaError } from '../../src/cuda/runtime/errors.js';
import type { DeviceArray, DeviceDType, DeviceInfo, GpuDevice, GpuEvent, HostArray, Kernel, KernelArg, KernelSource, LaunchArg, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { MultiDeviceBackend } from '../../src/cuda/multi/backend.js';
import { MultiDeviceContext } from '../../src/api/multi-context.js';
import { Context } from '../../src/api/context.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { StagingArena, type HostOutputs } from '../../src/cuda/host/staging.js';
import type { Lane } from '../../src/cuda/multi/lane.js';
import type { Spread } from '../../src/cuda/multi/crossover.js';

class FakeArray implements DeviceArray {
  readonly kind = 'device' as const;
  disposed = false;
  readonly ptr = 0n;
  constructor(readonly dtype: DeviceDType, readonly length: number, readonly device: number, readonly host: HostArray, private readonly live: Set<FakeArray>) {
    live.add(this);
  }
  get byteLength(): number { return this.host.byteLength; }
  dispose(): void { this.disposed = true; this.live.delete(this); }
}

const newHost = (dtype: DeviceDType, n: number): HostArray =>
  dtype === 'float64' ? new Float64Array(n) : dtype === 'float32' ? new Float32Array(n) : dtype === 'int32' ? new Int32Array(n) : new BigInt64Array(n);
const dtypeOf = (h: HostArray): DeviceDType =>
  h instanceof Float64Array ? 'float64' : h instanceof Float32Array ? 'float32' : h instanceof Int32Array ? 'int32' : 'int64';

export class FakeDevice implements GpuDevice {
  readonly info: DeviceInfo;
  readonly live = new Set<FakeArray>();
  readonly streamHandle = null;
  /** Throw CUDA_ERROR_OUT_OF_MEMORY from alloc/upload after this many allocations. */
  allocsLeft = Infinity;
  failSync = false;
  constructor(ordinal: number, readonly log: string[]) {
    this.info = { ordinal, name: `Fake GPU ${ordinal}`, arch: 'sm_90', major: 9, minor: 0, smCount: 4, warpSize: 32, maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536, sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1e6, memoryClockKHz: 1e6, memoryBusWidthBits: 1024, l2Bytes: 1 << 20, totalMemoryBytes: 1 << 30 };
  }
  kernel(): Kernel { throw new Error('no kernels on a fake device'); }
  alloc(dtype: DeviceDType, length: number): FakeArray {
    if (this.allocsLeft-- <= 0) throw new CudaError('CUDA_ERROR_OUT_OF_MEMORY', 2, 'cuMemAlloc_v2', `out of memory; ${length} elements on device ${this.info.ordinal}`);
    return new FakeArray(dtype, length, this.info.ordinal, newHost(dtype, length), this.live);
  }
  own(a: DeviceArray): FakeArray {
    if (!(a instanceof FakeArray && a.device === this.info.ordinal && !a.disposed)) assert.fail(`array of device ${a.device} used on ${this.info.ordinal}`);
    return a;
  }
  upload(host: HostArray, dst?: DeviceArray): FakeArray {
    const d = dst ? this.own(dst) : this.alloc(dtypeOf(host), host.length);
    (d.host as Float64Array).set(host as Float64Array);
    this.log.push(`up${this.info.ordinal}`);
    return d;
  }
  download(src: DeviceArray, dst?: HostArray): HostArray {
    const s = this.own(src);
    const out = dst ?? newHost(s.dtype, s.length);
    (out as Float64Array).set((s.host as Float64Array).subarray(0, out.length));
    this.log.push(`down${this.info.ordinal}`);
    return out;
  }
  copy(src: DeviceArray, so: number, dst: DeviceArray, d0: number, n: number): void {
    (this.own(dst).host as Float64Array).set((this.own(src).host as Float64Array).subarray(so, so + n), d0);
  }
  fill(dst: DeviceArray, byte: number): void {
    const h = this.own(dst).host;
    new Uint8Array(h.buffer, h.byteOffset, h.byteLength).fill(byte);
  }
  view(array: DeviceArray, start: number, length: number, dtype?: DeviceDType): FakeArray {
    const a = this.own(array);
    const t = dtype ?? a.dtype;
    const host = newHost(t, 0).constructor as new (b: ArrayBufferLike, offset: number, length: number) => HostArray;
    return new FakeArray(t, length, this.info.ordinal, new host(a.host.buffer, a.host.byteOffset + start * a.host.BYTES_PER_ELEMENT, length), new Set());
  }
  pin(): boolean { return false; }
  uploadRange(host: HostArray, lo: number, hi: number, dst: DeviceArray, dstOffset: number): void {
    (this.own(dst).host as Float64Array).set((host as Float64Array).subarray(lo, hi), dstOffset);
    this.log.push(`up${this.info.ordinal}`);
  }
  awaitUploads(): void {}
  downloadRange(src: DeviceArray, srcOffset: number, host: HostArray, lo: number, hi: number): void {
    (host as Float64Array).set((this.own(src).host as Float64Array).subarray(srcOffset, srcOffset + hi - lo), lo);
    this.log.push(`down${this.info.ordinal}`);
  }
  async idle(): Promise<void> { this.synchronize(); }
  /** Live arrays besides the staging arena (which stays allocated for the next host call). */
  get leaked(): number {
    const arena = StagingArena.of(this).buffer;
    return [...this.live].filter((a) => a !== arena).length;
  }
  event(): GpuEvent {
    const e = { t: 0, record() { e.t = performance.now(); }, synchronize() {}, elapsedSince: (s: GpuEvent) => Math.max(1e-3, e.t - (s as typeof e).t), dispose() {} };
    return e;
  }
  synchronize(): void {
    this.log.push(`sync${this.info.ordinal}`);
    if (this.failSync) throw new CudaError('CUDA_ERROR_ILLEGAL_ADDRESS', 700, 'cuStreamSynchronize', 'an illegal memory access was encountered');
  }
  dispose(): void { for (const a of [...this.live]) a.dispose(); }
}

/** Runs each request with the CPU reference on the fake arrays' host memory (in place). */
export function fakeBackend(dev: FakeDevice, counts: number[]): Backend<Storage, IntStorage> {
  const host = (s: unknown): unknown => (isDeviceStorage(s) ? dev.own(s as DeviceArray).host : s);
  const mapBatch = (b: Batch<Storage>): unknown =>
    b.kind === 'strided' ? { ...b, data: host(b.data) } : { ...b, matrices: b.matrices.map((m) => ({ ...m, data: host(m.data) })) };
  const run = (op: OpName) => (r: Record<string, unknown>): void => {
    const mapped: Record<string, unknown> = {};
    let count = 0;
    for (const [k, v] of Object.entries(r)) {
      const batch = typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'strided' || v.kind === 'list' || v.kind === 'variable');
      if (batch) { const b = v as Batch<Storage>; count = b.kind === 'strided' ? b.count : b.matrices.length; }
      mapped[k] = batch ? mapBatch(v as Batch<Storage>) : host(v);
    }
    dev.log.push(`launch${dev.info.ordinal}`);
    counts.push(count);
    (cpuBackend[op] as unknown as (x: unknown) => void)(mapped);
  };
  return Object.fromEntries([['name', 'fake'], ...OP_NAMES.map((op) => [op, run(op)])]) as unknown as Backend<Storage, IntStorage>;
}

export interface Rig { ctx: MultiDeviceContext; devices: FakeDevice[]; log: string[]; counts: number[][] }

/**
 * A context over `lanes` fake GPUs. Its host calls are split over every GPU (`spread: 'all'`: the
 * fakes' small calls would otherwise stay on one GPU by the crossover; pass 'auto' to test that),
 * and their outputs come back after every device has finished ('after-all', whose guarantees the
 * tests of this rig check; test/cuda/duplex.test.ts checks 'duplex' on simulated streams).
 */
export function rig(lanes = 2, weights?: number[], spread: Spread = 'all', hostOutputs: HostOutputs = 'after-all'): Rig {
  const log: string[] = [];
  const devices = Array.from({ length: lanes }, (_, i) => new FakeDevice(i, log));
  const counts = devices.map(() => [] as number[]);
  const laneList: Lane[] = devices.map((device, i) => ({ device, backend: fakeBackend(device, counts[i]!), hasKernel: () => true }));
  const backend = new MultiDeviceBackend(laneList, 'fake', weights ? { weights, spread } : { spread });
  backend.hostOutputs = hostOutputs;
  const ctx = new MultiDeviceContext(backend);
  return { ctx, devices, log, counts };
}

/** One recorded kernel launch: the entry, its configuration and its arguments. */
export interface RecordedLaunch { entry: string; config: LaunchConfig; args: readonly KernelArg[] }

/** The arguments of a recorded launch: scalars and pointers only (no recorded family passes a struct). */
export function scalarArgs(args: readonly LaunchArg[]): KernelArg[] {
  return args.map((a, i) => {
    if (a.type === 'bytes') throw new Error(`argument ${i} is a ${a.value.length}-byte struct: the recording devices take scalars`);
    return a;
  });
}

/** A FakeDevice whose kernels record their launches (in order) instead of running. */
export function recordingDevice(): { dev: FakeDevice; launches: RecordedLaunch[] } {
  const dev = new FakeDevice(0, []);
  const launches: RecordedLaunch[] = [];
  dev.kernel = ((src: KernelSource): Kernel => ({
    name: src.entry, registers: 0, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024,
    launch: (config, args) => { launches.push({ entry: src.entry, config, args: scalarArgs(args) }); },
  })) as FakeDevice['kernel'];
  return { dev, launches };
}

/** A FakeDevice whose kernels record each launch with its source (and run nothing). */
export class SourceRecordingDevice extends FakeDevice {
  readonly launches: { src: KernelSource; config: LaunchConfig; args: KernelArg[] }[] = [];
  override kernel(src?: KernelSource): Kernel {
    const launches = this.launches;
    return { name: src!.entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024, launch: (config, args) => { launches.push({ src: src!, config, args: scalarArgs(args) }); } };
  }
}

/** A CUDA context over a SourceRecordingDevice: the launchers run, the kernels only record. */
export function recordingContext(): { ctx: Context; dev: SourceRecordingDevice; backend: CudaBackend } {
  const dev = new SourceRecordingDevice(0, []);
  const backend = new CudaBackend(dev, 'fake');
  return { ctx: new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend), dev, backend };
}

/** A recorded launch argument as a number. */
export const argNumber = (a: KernelArg | undefined): number => Number(a!.value);

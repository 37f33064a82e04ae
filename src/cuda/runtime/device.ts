/**
 * CudaDevice: the GpuDevice of one ordinal. Primary context (shared with cuBLAS/cuSOLVER and
 * any other library of the process), one non-blocking stream on which everything is enqueued
 * in call order, the device's loaded modules, events for timing.
 */
import { MyriadError } from '../../core/errors.js';
import { compileOptions, targetOption } from './compiler.js';
import { DeviceContext } from './context.js';
import { readDeviceInfo } from './device-info.js';
import { checkCuda, NvrtcError } from './errors.js';
import { CU_EVENT_DEFAULT, CU_EVENT_DISABLE_TIMING, CU_STREAM_NON_BLOCKING, CUDA_ERROR_NOT_READY, type CUcontext, type CUevent, type CUmodule, type CUstream, type CUfunction } from './ffi-cuda.js';
import { CudaKernel } from './kernel.js';
import { encodeTensorMap } from './tensor-map.js';
import { captureGraph } from './graph.js';
import { allocateHost, checkLength, CudaDeviceArray, ELEMENT_BYTES, hostDType, ownArray } from './memory.js';
import { cudaRuntime, unusableReason, type CudaRuntime } from './runtime.js';
import { Workspace } from './workspace.js';
import { quickRequest, TieredKernel, wantsQuickBuild, type PendingBuild } from './tiered.js';
import type { PoolOutcome } from './compile-pool.js';
import type { ModuleCache, ModuleRequest } from './module-cache.js';
import type { DeviceArray, DeviceDType, DeviceGraph, DeviceInfo, GpuDevice, GpuEvent, HostArray, Kernel, KernelSource, ModuleStats, PrefetchReport, TensorMapSpec } from './types.js';

export class CudaDevice implements GpuDevice {
  readonly info: DeviceInfo;
  readonly context: DeviceContext;
  private readonly modules = new Map<string, CUmodule>();
  private readonly kernels = new Map<string, CudaKernel>();
  /** Kernels served by their quick build until the optimised one is ready (tiered.ts), by the optimised build's key. */
  private readonly tiered = new Map<string, TieredKernel>();
  /** The number of calls begun (beginCall): a quick build serves only the call that needed it first. */
  private calls = 0;
  private readonly bySource = new WeakMap<KernelSource, Kernel>();
  /** The host path's upload stream and the event that hands its copies to the main stream (created on first use). */
  private copyStream: CUstream | undefined;
  private uploadsDone: CUevent | undefined;
  /** The duplex host path's download stream and the events that order it after and before the main stream (created on first use). */
  private downloads: { stream: CUstream; after: CUevent; done: CUevent } | undefined;
  /** The lookahead stream and the events that order it against the main stream (created on first use). */
  private lookahead: { stream: CUstream; fork: CUevent; join: CUevent } | undefined;
  /** Stream priorities (lower is sooner) of the main and the lookahead stream. */
  private readonly priorities: { main: number; side: number };
  /** Inside capture(): calls that cannot be recorded throw. */
  private capturing = false;
  /** What libraries bound to this device release before its context goes (vendor handles). */
  private readonly disposers: (() => void)[] = [];

  private constructor(private readonly runtime: CudaRuntime, ordinal: number) {
    const api = runtime.api;
    if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= runtime.deviceCount) {
      throw new MyriadError('INVALID_ARGUMENT', `no CUDA device ${ordinal} (this machine has ${runtime.deviceCount})`, 'ordinal');
    }
    this.info = readDeviceInfo(api, ordinal);
    const ctx: [CUcontext | null] = [null];
    checkCuda(api, api.cuDevicePrimaryCtxRetain(ctx, ordinal), 'cuDevicePrimaryCtxRetain', `device ${ordinal}`);
    checkCuda(api, api.cuCtxSetCurrent(ctx[0]), 'cuCtxSetCurrent', `device ${ordinal}`);
    // The main stream at the greatest priority and the lookahead's side stream at the least: where
    // both have blocks waiting, the block scheduler starts the main stream's (the factorization's
    // critical path: the next panel) before more of the side's trailing update (gpu-only-cholesky.txt's
    // lookahead relies on the panel not queueing behind the update). MYRIAD_STREAM_PRIORITY=0 turns it off (probes).
    const least: [number] = [0], greatest: [number] = [0];
    checkCuda(api, api.cuCtxGetStreamPriorityRange(least, greatest), 'cuCtxGetStreamPriorityRange');
    this.priorities = process.env['MYRIAD_STREAM_PRIORITY'] === '0' ? { main: least[0], side: least[0] } : { main: greatest[0], side: least[0] };
    const stream: [CUstream | null] = [null];
    checkCuda(api, api.cuStreamCreateWithPriority(stream, CU_STREAM_NON_BLOCKING, this.priorities.main), 'cuStreamCreateWithPriority');
    this.context = new DeviceContext(api, ordinal, ctx[0] as CUcontext, stream[0] as CUstream);
    if (api.cuTensorMapEncodeTiled !== undefined) this.tensorMap = (spec) => encodeTensorMap(api, spec);
  }

  /** Opens device `ordinal` (throws BACKEND_UNAVAILABLE with the reason when CUDA is unusable). */
  static open(ordinal = 0): CudaDevice {
    let runtime: CudaRuntime;
    try {
      runtime = cudaRuntime();
    } catch (e) {
      throw new MyriadError('BACKEND_UNAVAILABLE', unusableReason(e));
    }
    return new CudaDevice(runtime, ordinal);
  }

  get streamHandle(): CUstream {
    return this.context.stream;
  }

  /** Makes this device's context current (for vendor libraries called on its behalf). */
  activate(): void {
    this.context.activate();
  }

  kernel(src: KernelSource): Kernel {
    // Generators memoise their KernelSource objects: the same object needs no re-hashing.
    const seen = this.bySource.get(src);
    if (seen) return seen;
    this.notCapturing(`loading ${src.name}`);
    const kernel = this.lookup(src);
    this.bySource.set(src, kernel);
    return kernel;
  }

  private moduleRequest(src: KernelSource): ModuleRequest {
    return moduleRequestFor(this.runtime, this.info, src);
  }

  settleBuilds(): void {
    this.runtime.backgroundBuilds().settleAll();
  }

  moduleStats(): ModuleStats | undefined {
    try {
      const cache = this.runtime.cache();
      return { compiles: cache.stats.compiles, diskHits: cache.stats.diskHits, memoryHits: cache.stats.memoryHits, compileMs: cache.timing.compileMs };
    } catch {
      return undefined;
    }
  }

  prefetch(sources: readonly KernelSource[]): PrefetchReport {
    const t0 = performance.now();
    // (Builds started ahead are left to the kernels' lookups, which wait for them.)
    const { cache, missing, kernels } = this.missing(sources);
    if (missing.length === 0) return this.store(cache, missing, [], kernels, t0);
    // A call in progress: the quick builds of those that want one (tiered.ts), their optimised builds
    // handed to the background workers once these are done.
    const later: ModuleRequest[] = [], now: ModuleRequest[] = [];
    for (const r of missing) (this.runtime.quickBuilds && wantsQuickBuild(r.source) ? later : now).push(r);
    for (const q of later.map(quickRequest)) if (!cache.has(q)) now.push(q);
    const pool = this.runtime.compilePool();
    // One kernel to compile (or one worker allowed): the call compiles it itself, as without a pool.
    const report = pool.worthIt(now.length)
      ? this.store(cache, now, pool.compileSync(now), kernels, t0)
      : { kernels, cached: kernels - missing.length, compiled: 0, failed: 0, ms: performance.now() - t0, compileMs: 0, compiles: [] };
    if (later.length > 0) this.runtime.backgroundBuilds().start(later);
    return report;
  }

  async prefetchAsync(sources: readonly KernelSource[]): Promise<PrefetchReport> {
    const t0 = performance.now();
    const { cache, missing, kernels, ahead } = this.missing(sources);
    const [outcomes] = await Promise.all([
      missing.length === 0 ? [] : this.runtime.compilePool().compile(missing),
      ...ahead.map((build) => build.stored()),
    ]);
    return this.store(cache, missing, outcomes, kernels, t0);
  }

  /**
   * The distinct requests of `sources` that are neither in memory nor on disk, less those being
   * compiled ahead (`ahead`: their builds, which store them in the cache).
   */
  private missing(sources: readonly KernelSource[]): { cache: ModuleCache; missing: ModuleRequest[]; kernels: number; ahead: PendingBuild[] } {
    const cache = this.runtime.cache();
    const builds = this.runtime.backgroundBuilds();
    const keys = new Set<string>();
    const missing: ModuleRequest[] = [];
    const ahead = new Set<PendingBuild>();
    for (const src of sources) {
      const request = this.moduleRequest(src);
      const key = cache.keyOf(request);
      if (keys.has(key)) continue;
      keys.add(key);
      if (cache.has(request)) continue;
      const build = builds.aheadOf(key);
      if (build) ahead.add(build);
      else missing.push(request);
    }
    return { cache, missing, kernels: keys.size, ahead: [...ahead] };
  }

  private store(cache: ModuleCache, missing: readonly ModuleRequest[], outcomes: readonly PoolOutcome[], kernels: number, t0: number): PrefetchReport {
    const compiles: { name: string; ms: number }[] = [];
    let failed = 0;
    missing.forEach((request, i) => {
      const o = outcomes[i];
      if (o?.binary) {
        cache.put(request, o.binary);
        compiles.push({ name: request.name, ms: o.ms });
      } else failed++;
    });
    return { kernels, cached: kernels - missing.length, compiled: compiles.length, failed, ms: performance.now() - t0, compileMs: compiles.reduce((s, c) => s + c.ms, 0), compiles };
  }

  private lookup(src: KernelSource): Kernel {
    const cache = this.runtime.cache();
    const request = this.moduleRequest(src);
    const key = cache.keyOf(request);
    const kernelKey = `${key}:${src.entry}`;
    const known = this.kernels.get(kernelKey) ?? this.tiered.get(kernelKey);
    if (known) return known;
    // Compiled ahead of this call (warmAhead): waited for, neither compiled again nor served quick.
    this.runtime.backgroundBuilds().aheadOf(key)?.settle();
    if (this.runtime.quickBuilds && wantsQuickBuild(src.source) && !cache.has(request)) {
      const tiered = this.quickFirst(src, request, kernelKey);
      if (tiered) return tiered;
    }
    return this.load(src, request, kernelKey);
  }

  /**
   * A kernel missing from the cache, served by its quick build (tiered.ts) while the optimised build
   * compiles in the background; undefined where the quick build fails (the caller compiles the
   * optimised one, as without quick builds).
   */
  private quickFirst(src: KernelSource, request: ModuleRequest, kernelKey: string): TieredKernel | undefined {
    const quickBuild = quickRequest(request);
    let quick: CudaKernel;
    try {
      quick = this.load(src, quickBuild, `${this.runtime.cache().keyOf(quickBuild)}:${src.entry}`);
    } catch (e) {
      // An NVRTC older than the option (CUDA 12.8) says so once; any other failure is the optimised build's to report.
      if (e instanceof NvrtcError && e.status.includes('INVALID_OPTION')) this.runtime.quickBuilds = false;
      return undefined;
    }
    const [pending] = this.runtime.backgroundBuilds().start([request]);
    const tiered = new TieredKernel(quick, pending!, () => {
      this.tiered.delete(kernelKey);
      return this.load(src, request, kernelKey);
    }, () => this.calls, this.calls);
    this.tiered.set(kernelKey, tiered);
    return tiered;
  }

  /** The kernel of `request` (from the module cache: memory, disk, else compiled here), its module loaded once. */
  private load(src: KernelSource, request: ModuleRequest, kernelKey: string): CudaKernel {
    const known = this.kernels.get(kernelKey);
    if (known) return known;
    const cache = this.runtime.cache();
    const key = cache.keyOf(request);
    const image = cache.get(request);
    this.context.activate();
    let mod = this.modules.get(key);
    if (!mod) {
      const out: [CUmodule | null] = [null];
      this.context.check(this.context.api.cuModuleLoadData(out, image), 'cuModuleLoadData', src.name);
      mod = out[0] as CUmodule;
      this.modules.set(key, mod);
    }
    const fn: [CUfunction | null] = [null];
    this.context.check(this.context.api.cuModuleGetFunction(fn, mod, src.entry), 'cuModuleGetFunction', `'${src.entry}' in ${src.name}`);
    const kernel = new CudaKernel(this.context, src.entry, fn[0] as CUfunction, this.info.sharedPerBlockOptin);
    this.kernels.set(kernelKey, kernel);
    return kernel;
  }

  /** See GpuDevice.tensorMap; undefined where the driver lacks cuTensorMapEncodeTiled (set in the constructor). */
  readonly tensorMap?: (spec: TensorMapSpec) => Uint8Array;

  /** A new call begins: kernels that ran quick builds in an earlier call switch to their optimised builds at their next launch. */
  beginCall(): void {
    this.calls++;
  }

  /** Every kernel of this device on its optimised build now (waiting for those still compiling). */
  private upgradeAll(): void {
    for (const k of [...this.tiered.values()]) k.upgrade();
  }

  alloc(dtype: DeviceDType, length: number): CudaDeviceArray {
    if (!(dtype in ELEMENT_BYTES)) throw new MyriadError('DTYPE', `unknown device dtype ${String(dtype)}`, 'dtype');
    return new CudaDeviceArray(this.context, dtype, length);
  }

  /** Copies all of `host` to the start of `dst` (or a new array); `dst` must be at least as long. */
  upload(host: HostArray, dst?: DeviceArray): CudaDeviceArray {
    this.notCapturing('a copy from host memory');
    const dtype = hostDType(host);
    const target = dst ? ownArray(this.context, dst, 'dst') : this.alloc(dtype, host.length);
    if (target.dtype !== dtype) throw new MyriadError('DTYPE', `host ${dtype} into device ${target.dtype}`, 'dst');
    if (host.length > target.length) throw new MyriadError('BOUNDS', `${host.length} elements into an array of ${target.length}`, 'dst');
    if (host.length > 0) {
      this.context.activate();
      this.runtime.pinned().guard(host);
      // Pageable host memory: the driver has staged the bytes before the call returns, so the
      // host array may change right after, as the contract says.
      this.context.check(
        this.context.api.cuMemcpyHtoDAsync_v2(target.ptr, host, host.byteLength, this.context.stream),
        'cuMemcpyHtoDAsync_v2',
        `${host.byteLength} bytes`,
      );
    }
    return target;
  }

  /** Waits for the stream, then copies the first `dst.length` (default: all) elements of `src`. */
  download(src: DeviceArray, dst?: HostArray): HostArray {
    this.notCapturing('a copy to host memory');
    const source = ownArray(this.context, src, 'src');
    const target = dst ?? allocateHost(source.dtype, source.length);
    if (hostDType(target) !== source.dtype) throw new MyriadError('DTYPE', `device ${source.dtype} into host ${hostDType(target)}`, 'dst');
    if (target.length > source.length) throw new MyriadError('BOUNDS', `${target.length} elements from an array of ${source.length}`, 'dst');
    this.context.activate();
    if (target.length > 0) {
      this.runtime.pinned().guard(target);
      this.context.check(
        this.context.api.cuMemcpyDtoHAsync_v2(target, source.ptr, target.byteLength, this.context.stream),
        'cuMemcpyDtoHAsync_v2',
        `${target.byteLength} bytes`,
      );
    }
    this.synchronize();
    return target;
  }

  copy(src: DeviceArray, srcOffset: number, dst: DeviceArray, dstOffset: number, elements: number): void {
    const s = ownArray(this.context, src, 'src');
    const d = ownArray(this.context, dst, 'dst');
    if (s.dtype !== d.dtype) throw new MyriadError('DTYPE', `copy from ${s.dtype} to ${d.dtype}`, 'dst');
    checkLength(srcOffset, 'srcOffset');
    checkLength(dstOffset, 'dstOffset');
    checkLength(elements, 'elements');
    if (srcOffset + elements > s.length) throw new MyriadError('BOUNDS', `[${srcOffset}, ${srcOffset + elements}) outside ${s.length} elements`, 'src');
    if (dstOffset + elements > d.length) throw new MyriadError('BOUNDS', `[${dstOffset}, ${dstOffset + elements}) outside ${d.length} elements`, 'dst');
    if (elements === 0) return;
    this.context.activate();
    this.context.check(
      this.context.api.cuMemcpyDtoDAsync_v2(d.addressOf(dstOffset), s.addressOf(srcOffset), elements * ELEMENT_BYTES[s.dtype], this.context.stream),
      'cuMemcpyDtoDAsync_v2',
    );
  }

  fill(dst: DeviceArray, byte: number): void {
    const d = ownArray(this.context, dst, 'dst');
    if (!Number.isInteger(byte) || byte < 0 || byte > 255) throw new MyriadError('INVALID_ARGUMENT', `a byte is 0..255, got ${byte}`, 'byte');
    if (d.byteLength === 0) return;
    this.context.activate();
    this.context.check(this.context.api.cuMemsetD8Async(d.ptr, byte, d.byteLength, this.context.stream), 'cuMemsetD8Async');
  }

  view(array: DeviceArray, start: number, length: number, dtype?: DeviceDType): CudaDeviceArray {
    return ownArray(this.context, array, 'array').view(start, length, dtype);
  }

  pin(host: HostArray, now = false): boolean {
    this.context.activate();
    return this.runtime.pinned().pin(host, now);
  }

  uploadRange(host: HostArray, lo: number, hi: number, dst: DeviceArray, dstOffset: number): void {
    this.notCapturing('a copy from host memory');
    const piece = this.hostPiece(host, lo, hi);
    const d = this.rangeOf(dst, dstOffset, hi - lo, 'dst');
    if (piece.length === 0) return;
    this.context.check(
      this.context.api.cuMemcpyHtoDAsync_v2(d.addressOf(dstOffset), piece, piece.byteLength, this.uploadStream()),
      'cuMemcpyHtoDAsync_v2',
      `${piece.byteLength} bytes`,
    );
  }

  awaitUploads(): void {
    if (!this.copyStream) return;
    this.context.activate();
    if (!this.uploadsDone) {
      const out: [CUevent | null] = [null];
      this.context.check(this.context.api.cuEventCreate(out, CU_EVENT_DISABLE_TIMING), 'cuEventCreate');
      this.uploadsDone = out[0] as CUevent;
    }
    this.context.check(this.context.api.cuEventRecord(this.uploadsDone, this.copyStream), 'cuEventRecord');
    this.context.check(this.context.api.cuStreamWaitEvent(this.context.stream, this.uploadsDone, 0), 'cuStreamWaitEvent');
  }

  downloadRange(src: DeviceArray, srcOffset: number, host: HostArray, lo: number, hi: number): void {
    this.notCapturing('a copy to host memory');
    const piece = this.hostPiece(host, lo, hi);
    const s = this.rangeOf(src, srcOffset, hi - lo, 'src');
    if (piece.length === 0) return;
    // Pinned: enqueued behind the stream's work. Pageable: the driver waits for the stream first.
    this.context.check(
      this.context.api.cuMemcpyDtoHAsync_v2(piece, s.addressOf(srcOffset), piece.byteLength, this.context.stream),
      'cuMemcpyDtoHAsync_v2',
      `${piece.byteLength} bytes`,
    );
  }

  downloadBehind(src: DeviceArray, srcOffset: number, host: HostArray, lo: number, hi: number): void {
    this.notCapturing('a copy to host memory');
    const piece = this.hostPiece(host, lo, hi);
    const s = this.rangeOf(src, srcOffset, hi - lo, 'src');
    if (piece.length === 0) return;
    const api = this.context.api;
    const d = this.downloadStream();
    // The copy waits for the main stream's work so far (the kernels that wrote these elements), not for later work.
    this.context.check(api.cuEventRecord(d.after, this.context.stream), 'cuEventRecord');
    this.context.check(api.cuStreamWaitEvent(d.stream, d.after, 0), 'cuStreamWaitEvent');
    this.context.check(api.cuMemcpyDtoHAsync_v2(piece, s.addressOf(srcOffset), piece.byteLength, d.stream), 'cuMemcpyDtoHAsync_v2', `${piece.byteLength} bytes`);
  }

  awaitDownloads(): void {
    if (!this.downloads) return;
    this.context.activate();
    const api = this.context.api;
    this.context.check(api.cuEventRecord(this.downloads.done, this.downloads.stream), 'cuEventRecord');
    this.context.check(api.cuStreamWaitEvent(this.context.stream, this.downloads.done, 0), 'cuStreamWaitEvent');
  }

  private downloadStream(): { stream: CUstream; after: CUevent; done: CUevent } {
    if (!this.downloads) {
      const api = this.context.api;
      const stream: [CUstream | null] = [null];
      this.context.check(api.cuStreamCreate(stream, CU_STREAM_NON_BLOCKING), 'cuStreamCreate');
      const after: [CUevent | null] = [null];
      const done: [CUevent | null] = [null];
      this.context.check(api.cuEventCreate(after, CU_EVENT_DISABLE_TIMING), 'cuEventCreate');
      this.context.check(api.cuEventCreate(done, CU_EVENT_DISABLE_TIMING), 'cuEventCreate');
      this.downloads = { stream: stream[0] as CUstream, after: after[0] as CUevent, done: done[0] as CUevent };
    }
    return this.downloads;
  }

  async idle(): Promise<void> {
    const done = this.event() as CudaEvent;
    try {
      done.record();
      // Poll (every millisecond at most): the event loop keeps running while the GPU works.
      while (!done.query()) await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      done.dispose();
    }
  }

  /** host[lo, hi) as a view, checked, with stale pinned registrations over it dropped. */
  private hostPiece(host: HostArray, lo: number, hi: number): HostArray {
    hostDType(host);
    checkLength(lo, 'lo');
    checkLength(hi - lo, 'hi');
    if (hi > host.length) throw new MyriadError('BOUNDS', `[${lo}, ${hi}) outside ${host.length} elements`, 'host');
    this.context.activate();
    const piece = host.subarray(lo, hi) as HostArray;
    if (piece.length > 0) this.runtime.pinned().guard(piece);
    return piece;
  }

  private rangeOf(array: DeviceArray, offset: number, elements: number, argument: string): CudaDeviceArray {
    const a = ownArray(this.context, array, argument);
    checkLength(offset, `${argument}Offset`);
    if (offset + elements > a.length) throw new MyriadError('BOUNDS', `[${offset}, ${offset + elements}) outside ${a.length} elements`, argument);
    return a;
  }

  private uploadStream(): CUstream {
    if (!this.copyStream) {
      const out: [CUstream | null] = [null];
      this.context.check(this.context.api.cuStreamCreate(out, CU_STREAM_NON_BLOCKING), 'cuStreamCreate');
      this.copyStream = out[0] as CUstream;
    }
    return this.copyStream;
  }

  event(): GpuEvent {
    return new CudaEvent(this.context);
  }

  synchronize(): void {
    this.notCapturing('waiting for the stream');
    this.context.activate();
    this.context.check(this.context.api.cuStreamSynchronize(this.context.stream), 'cuStreamSynchronize');
  }

  side(fn: () => void): void {
    this.context.activate();
    const api = this.context.api;
    const l = this.lookaheadStreams();
    this.context.check(api.cuEventRecord(l.fork, this.context.mainStream), 'cuEventRecord');
    this.context.check(api.cuStreamWaitEvent(l.stream, l.fork, 0), 'cuStreamWaitEvent');
    this.context.onStream(l.stream, fn);
  }

  joinSide(): void {
    if (!this.lookahead) return;
    this.context.activate();
    const api = this.context.api;
    this.context.check(api.cuEventRecord(this.lookahead.join, this.lookahead.stream), 'cuEventRecord');
    this.context.check(api.cuStreamWaitEvent(this.context.mainStream, this.lookahead.join, 0), 'cuStreamWaitEvent');
  }

  private lookaheadStreams(): { stream: CUstream; fork: CUevent; join: CUevent } {
    if (!this.lookahead) {
      const api = this.context.api;
      const stream: [CUstream | null] = [null];
      this.context.check(api.cuStreamCreateWithPriority(stream, CU_STREAM_NON_BLOCKING, this.priorities.side), 'cuStreamCreateWithPriority');
      const fork: [CUevent | null] = [null], join: [CUevent | null] = [null];
      this.context.check(api.cuEventCreate(fork, CU_EVENT_DISABLE_TIMING), 'cuEventCreate');
      this.context.check(api.cuEventCreate(join, CU_EVENT_DISABLE_TIMING), 'cuEventCreate');
      this.lookahead = { stream: stream[0] as CUstream, fork: fork[0] as CUevent, join: join[0] as CUevent };
    }
    return this.lookahead;
  }

  /** Records what `fn` enqueues into a CUDA graph (runtime/graph.ts); nothing runs now. */
  capture(fn: () => void): DeviceGraph {
    this.notCapturing('a capture inside a capture');
    // A graph keeps the kernels it records: the optimised builds, loaded before recording starts.
    this.upgradeAll();
    this.capturing = true;
    // The workspace must not wait while recording, and must keep what the graph records.
    const workspace = Workspace.of(this);
    workspace.beginCapture();
    let graph: DeviceGraph | undefined;
    try {
      graph = captureGraph(this.context, this.context.api.graphs, fn);
    } finally {
      this.capturing = false;
      const release = workspace.endCapture();
      if (graph === undefined) release();
      else {
        const recorded = graph;
        graph = { launch: () => recorded.launch(), dispose: () => { recorded.dispose(); release(); } };
      }
    }
    return graph;
  }

  private notCapturing(what: string): void {
    if (this.capturing)
      throw new MyriadError('UNSUPPORTED', `${what} cannot be recorded in ctx.capture(): capture calls on device data only, after they have run once`, 'capture');
  }

  /** Device memory (free, total) in bytes, from cuMemGetInfo. */
  memoryInfo(): { free: number; total: number } {
    this.context.activate();
    const free: [number | bigint] = [0];
    const total: [number | bigint] = [0];
    this.context.check(this.context.api.cuMemGetInfo_v2(free, total), 'cuMemGetInfo_v2');
    return { free: Number(free[0]), total: Number(total[0]) };
  }

  /** Runs `release` in dispose(), after the streams are idle and while the context is still current. */
  onDispose(release: () => void): void {
    this.disposers.push(release);
  }

  /** Waits for the stream, frees every live array, unloads modules, releases the context. Idempotent. */
  dispose(): void {
    if (!this.context.alive) return;
    const api = this.context.api;
    this.context.activate();
    const sync = api.cuStreamSynchronize(this.context.mainStream);
    if (this.copyStream) api.cuStreamSynchronize(this.copyStream);
    if (this.downloads) api.cuStreamSynchronize(this.downloads.stream);
    if (this.lookahead) api.cuStreamSynchronize(this.lookahead.stream);
    for (const release of this.disposers.splice(0)) {
      try {
        release();
      } catch {
        // A library that cannot release its state leaks it; the device still goes.
      }
    }
    // Registrations go with the context that made them: forget them all while it is current.
    this.runtime.pinned().clear();
    this.context.close();
    for (const mod of this.modules.values()) api.cuModuleUnload(mod);
    this.modules.clear();
    for (const k of this.kernels.values()) k.release();
    this.kernels.clear();
    api.cuStreamDestroy_v2(this.context.mainStream);
    if (this.copyStream) api.cuStreamDestroy_v2(this.copyStream);
    if (this.uploadsDone) api.cuEventDestroy_v2(this.uploadsDone);
    if (this.downloads) {
      api.cuStreamDestroy_v2(this.downloads.stream);
      api.cuEventDestroy_v2(this.downloads.after);
      api.cuEventDestroy_v2(this.downloads.done);
    }
    if (this.lookahead) {
      api.cuStreamDestroy_v2(this.lookahead.stream);
      api.cuEventDestroy_v2(this.lookahead.fork);
      api.cuEventDestroy_v2(this.lookahead.join);
    }
    api.cuDevicePrimaryCtxRelease_v2(this.info.ordinal);
    checkCuda(api, sync, 'cuStreamSynchronize', 'in dispose()');
  }
}

class CudaEvent implements GpuEvent {
  private handle: CUevent | null;

  constructor(private readonly context: DeviceContext) {
    context.activate();
    const out: [CUevent | null] = [null];
    context.check(context.api.cuEventCreate(out, CU_EVENT_DEFAULT), 'cuEventCreate');
    this.handle = out[0];
  }

  private live(): CUevent {
    if (!this.handle) throw new MyriadError('DISPOSED', 'event used after dispose()');
    this.context.activate();
    return this.handle;
  }

  record(): void {
    this.context.check(this.context.api.cuEventRecord(this.live(), this.context.stream), 'cuEventRecord');
  }

  synchronize(): void {
    this.context.check(this.context.api.cuEventSynchronize(this.live()), 'cuEventSynchronize');
  }

  /** True when the work before the event has finished (throws the error of failed work). */
  query(): boolean {
    const result = this.context.api.cuEventQuery(this.live());
    if (result === CUDA_ERROR_NOT_READY) return false;
    this.context.check(result, 'cuEventQuery');
    return true;
  }

  elapsedSince(start: GpuEvent): number {
    if (!(start instanceof CudaEvent)) throw new MyriadError('INVALID_ARGUMENT', 'not an event of this runtime', 'start');
    const ms: [number] = [0];
    this.context.check(this.context.api.cuEventElapsedTime(ms, start.live(), this.live()), 'cuEventElapsedTime');
    return ms[0];
  }

  dispose(): void {
    if (!this.handle) return;
    if (this.context.alive) {
      this.context.activate();
      this.context.api.cuEventDestroy_v2(this.handle);
    }
    this.handle = null;
  }
}

/** Opens CUDA device `ordinal` (default 0). Throws MyriadError('BACKEND_UNAVAILABLE') with the reason. */
export function openDevice(ordinal = 0): CudaDevice {
  return CudaDevice.open(ordinal);
}

/** The module cache's request for `src` on the device `info` describes (its full option list and arch). */
export function moduleRequestFor(runtime: CudaRuntime, info: DeviceInfo, src: KernelSource): ModuleRequest {
  const options = compileOptions(targetOption(info.arch, runtime.compiler().supportedArchs), src.options ?? []);
  return { name: src.name, source: src.source, options, arch: info.arch };
}

/**
 * Starts compiling `sources` for the device `info` describes on the process's compile workers, as
 * one batch, before (or while) a context opens there: a device that then needs one of them waits
 * for its build (BuildStart.ahead) instead of compiling it again. Settles when the builds are in
 * the module cache (a failed one is left to the kernel's own load, which reports it).
 */
export function compileAhead(info: DeviceInfo, sources: readonly KernelSource[]): Promise<void> {
  const runtime = cudaRuntime();
  const cache = runtime.cache();
  const requests = sources.map((src) => moduleRequestFor(runtime, info, src)).filter((r) => !cache.has(r));
  if (requests.length === 0) return Promise.resolve();
  const builds = runtime.backgroundBuilds().start(requests, { pool: runtime.compilePool(), ahead: true });
  return Promise.all(builds.map((b) => b.stored())).then(() => undefined);
}

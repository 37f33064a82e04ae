/**
 * MultiDeviceBackend: one batched call spread over several GPUs of a host (KBLAS sections 7.3.2
 * and 7.4.2: the batch is split across devices, each device runs its part with the one-GPU
 * kernels). One device is a special case of the same code: a split into one part.
 *
 * A call is cut into parts, each a contiguous range of matrices on one device (split.ts):
 * - host batches: split by the devices' weights over as many GPUs as the crossover gives the call
 *   (crossover.ts); each part's ranges are uploaded to its device; every device gets its work before
 *   we wait on any; outputs come back into the caller's arrays (info/ipiv in original order) behind
 *   each chunk's kernels ('duplex') or only after every device has finished without error ('after-all');
 * - device-resident strided batches: each part's request written straight onto its shards and
 *   enqueued, one pass over the parts (resident.ts);
 * - sharded batches (ShardedArray, from `scatter`): the data decides the parts (each matrix runs
 *   where it lives); calls only enqueue, and `synchronize()` waits for every device;
 * - plain device memory of one GPU (from `upload`/`alloc`): one part on that GPU;
 * - ctx.capture() of resident calls: one CUDA graph a GPU, a replay one launch a GPU (capture.ts).
 * A device failure becomes a DeviceFailure naming the GPU(s) and what became of the outputs.
 */
import { storagesOf, type Batch } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import { MyriadError } from '../../core/errors.js';
import { DispatchingBackend, type OpName } from '../../core/ops.js';
import { isDeviceStorage, type DeviceStorage, type IntStorage, type Storage } from '../../core/storage.js';
import type { DeviceBackend, RouteTaken } from '../../core/device-backend.js';
import { cpuBackend } from '../../cpu/backend.js';
import { complexReferenceOf } from '../../cpu/complex/backend.js';
import { OP_SPECS, OUTPUTS, isComplexRequest } from '../../core/op-specs.js';
import { allocateHost, hostDType } from '../runtime/memory.js';
import type { DeviceArray, DeviceDType, DeviceGraph, GpuEvent } from '../runtime/types.js';
import { HostDeferral } from '../host/deferral.js';
import { checkHostOutputs, HostCall, type HostOutputs, type StagingTuning } from '../host/staging.js';
import { DeviceFailure, failureOf, onEveryLane, type Lane, type LaneFailure } from './lane.js';
import {
  INT_FIELDS, intsPerMatrix, isBatch, rebaseRequest, requestCount, sliceRequest, storageRanges, writtenSpans,
  type AnyStorage, type Placement, type Range, type Request,
} from '../host/request.js';
import { intBounds, isSharded, resolveLayout, runsOfBatch, runsOfInts, shardBounds, ShardedArray, type Shard, type ShardLayout } from './sharded.js';
import { checkWeights, modelWeights, splitBatch, type Part } from './split.js';
import { residentRequests } from './resident.js';
import { captureLanes, inLaneScopes, lanesCapturable, lanesCapture } from './capture.js';
import { checkSpread, gpusFor, weightsOnFastest, type Spread } from './crossover.js';
import { callMs, callWork } from '../model/call-time.js';
import { tuningFor } from '../model/tuning/index.js';

/** Host memory a request may hold. */
type HostArray = FloatArray | Int32Array;

export interface MultiDeviceOptions {
  /** Relative speed of each device (the share of a host batch it gets); default from the model. */
  weights?: readonly number[];
  /** How many GPUs a call on host arrays runs on (crossover.ts): 'auto' (default), 'all', or a number. */
  spread?: Spread;
  /** How host calls' outputs come back (host/staging.ts): 'duplex' (default) or 'after-all'. */
  hostOutputs?: HostOutputs;
}

export class MultiDeviceBackend extends DispatchingBackend<Storage, IntStorage> implements DeviceBackend {
  /** The route of the last call: the CPU reference where no lane holds its data, else the first lane's route (every lane routes its share alike). */
  lastRoute: RouteTaken | undefined;
  readonly name = 'cuda';
  /** Bytes copied host -> device and device -> host by this backend (staging, scatter, gather). */
  readonly transfers = { hostToDevice: 0, deviceToHost: 0 };
  #weights: number[];
  #spread: Spread;
  /** How host calls' outputs come back: 'duplex' (default) or 'after-all' (host/staging.ts HostOutputs). */
  get hostOutputs(): HostOutputs {
    return this.#hostOutputs;
  }
  set hostOutputs(h: HostOutputs) {
    this.#hostOutputs = checkHostOutputs(h);
  }
  #hostOutputs: HostOutputs = 'duplex';
  /** How each GPU's part of a host call is cut into chunks (undefined: the default; tests force small chunks). */
  stagingTuning: StagingTuning | undefined;
  /** How many GPUs got matrices of the last call on host arrays (the crossover's answer, or `spread`'s, at most the batch count). */
  lastSpread: number | undefined;
  #lastTimes: number[] = [];
  /** Inside deferHost(): host calls' completions, not waited for. */
  private readonly deferral = new HostDeferral();
  private readonly laneIndex = new Map<number, number>();
  /**
   * ctx.capture() on device data: one CUDA graph a GPU, replayed with one launch each (capture.ts).
   * Absent where a lane cannot record (fake devices, a driver without stream capture).
   */
  readonly capture?: (fn: () => void) => DeviceGraph;
  /** Whether every lane can record `op`'s work; absent with `capture`. */
  readonly capturable?: (op: OpName) => boolean;

  constructor(readonly lanes: readonly Lane[], readonly versions: string, options: MultiDeviceOptions = {}) {
    super();
    if (lanes.length === 0) throw new MyriadError('INVALID_ARGUMENT', 'at least one device is needed', 'devices');
    lanes.forEach((l, i) => {
      const o = l.device.info.ordinal;
      if (this.laneIndex.has(o)) throw new MyriadError('INVALID_ARGUMENT', `device ${o} is listed twice`, 'devices');
      this.laneIndex.set(o, i);
    });
    this.#weights = options.weights ? checkWeights(options.weights, lanes.length) : modelWeights(lanes.map((l) => l.device.info));
    this.#spread = checkSpread(options.spread ?? 'auto', lanes.length);
    if (options.hostOutputs !== undefined) this.hostOutputs = checkHostOutputs(options.hostOutputs);
    if (lanesCapture(lanes)) {
      this.capture = (fn) => captureLanes(this.lanes, fn);
      this.capturable = (op) => lanesCapturable(this.lanes, op);
    }
  }

  /** Runs `fn` (a capture's calls, its run and its recording) on routes a graph can record, on every lane. */
  captureScope<T>(fn: () => T): T {
    return inLaneScopes(this.lanes, fn);
  }

  /** The GPU ordinals, in lane order. */
  get ordinals(): number[] {
    return this.lanes.map((l) => l.device.info.ordinal);
  }
  get weights(): readonly number[] {
    return this.#weights;
  }
  set weights(w: readonly number[]) {
    this.#weights = checkWeights(w, this.lanes.length);
  }
  get spread(): Spread {
    return this.#spread;
  }
  set spread(s: Spread) {
    this.#spread = checkSpread(s, this.lanes.length);
  }
  /** Milliseconds per device (lane order) of the last `time()` call. */
  get lastDeviceTimes(): readonly number[] {
    return this.#lastTimes;
  }

  describe(): string {
    const gpus = this.lanes.map((l) => `${l.device.info.ordinal}: ${l.device.info.name} (${l.device.info.arch}, ${l.device.info.smCount} SMs)`).join(', ');
    return `cuda x${this.lanes.length}: ${gpus}; weights ${this.#weights.map((w) => w.toFixed(2)).join('/')}; ${this.versions}`;
  }

  /** Lane index of GPU `ordinal` (throws for a GPU this backend does not hold). */
  readonly laneOf = (ordinal: number): number => {
    const i = this.laneIndex.get(ordinal);
    if (i === undefined) throw new MyriadError('INVALID_ARGUMENT', `device memory of GPU ${ordinal} given to a context of GPUs ${this.ordinals.join(', ')}`, 'data');
    return i;
  };

  protected run(op: OpName, request: Request): void {
    const count = requestCount(request);
    if (count === 0) return;
    if (isComplexRequest(op, request)) {
      // Complex requests have no GPU kernel, and the staging and sharding count real elements:
      // host batches run on the CPU reference here, device batches are refused.
      for (const [name, kind] of Object.entries(OP_SPECS[op].args)) {
        const b = request[name] as Batch<Storage> | undefined;
        if ((kind === 'batch' || kind === 'batch?') && b !== undefined && storagesOf(b).some((s) => isDeviceStorage(s)))
          throw new MyriadError('UNSUPPORTED', `complex ${op} on device memory of a multi-GPU context is not supported yet: download it, or use a one-GPU context`, name);
        if (kind === 'ints' && isDeviceStorage(request[name]))
          throw new MyriadError('UNSUPPORTED', `complex ${op} on device memory of a multi-GPU context is not supported yet: download it, or use a one-GPU context`, name);
      }
      this.lastRoute = { op, route: 'cpu', gpu: false };
      complexReferenceOf(op)(request);
      return;
    }
    const parts = this.plan(op, request, count);
    if (parts === undefined) {
      this.lastRoute = { op, route: 'cpu', gpu: false };
      (cpuBackend[op] as unknown as (r: Request) => void)(request);
      return;
    }
    this.placePendingInts(request, parts);
    // Device-resident strided data: one pass over the parts, no staging (resident.ts).
    const resident = residentRequests(request, parts, this.lanes);
    if (resident) return this.runResident(op, request, count, parts, resident);
    const subs = parts.map((p) => sliceRequest(request, p.start, p.end));
    // Phase 1: every argument error is raised before any device has work.
    const plans = subs.map((sub, k) => this.placements(sub, this.lanes[parts[k]!.lane]!));
    const interleaved = interleavedStorages(subs);
    const duplex = this.hostOutputs === 'duplex';
    // Phase 2: stage host ranges (host/staging.ts: chunked, pinned) and enqueue on every device
    // before waiting on any.
    const calls: StagedCall[] = [];
    const touched = new Set<Lane>();
    const failures: LaneFailure[] = [];
    for (let k = 0; k < parts.length && failures.length === 0; k++) {
      const lane = this.lanes[parts[k]!.lane]!;
      touched.add(lane);
      try {
        const device = plans[k]!;
        const call = new HostCall(lane.device, op, subs[k]!, (r) => (lane.backend[op] as unknown as (r: Request) => void)(r), { placeDevice: (s) => device.get(s), duplex, atEnd: interleaved, ...(this.stagingTuning ? { tuning: this.stagingTuning } : {}) });
        calls.push({ part: k, lane, call });
        call.enqueueRuns();
        this.transfers.hostToDevice += call.bytes.up;
      } catch (e) {
        failures.push(failureOf(lane, e));
      }
    }
    this.lastRoute = (this.lanes[parts[0]!.lane]!.backend as { lastRoute?: RouteTaken }).lastRoute;
    const completion = this.completion(op, request, count, subs, calls, touched, failures, interleaved, duplex);
    if (this.deferral.active) this.deferral.defer(finishAsync(completion));
    else finishSync(completion);
  }

  /**
   * Enqueues each part's lane request, lane after lane, and returns: nothing is staged and nothing
   * waited for (the caller synchronizes). A lane that throws stops the enqueueing; the lanes that
   * had work are waited for and the failure names the GPU(s).
   */
  private runResident(op: OpName, request: Request, count: number, parts: readonly Part[], subs: readonly Request[]): void {
    let failure: LaneFailure | undefined;
    let k = 0;
    for (; k < parts.length; k++) {
      const lane = this.lanes[parts[k]!.lane]!;
      try {
        (lane.backend[op] as unknown as (r: Request) => void)(subs[k]!);
      } catch (e) {
        failure = failureOf(lane, e);
        break;
      }
    }
    this.lastRoute = (this.lanes[parts[0]!.lane]!.backend as { lastRoute?: RouteTaken }).lastRoute;
    if (failure === undefined) return;
    const touched = new Set(parts.slice(0, k + 1).map((p) => this.lanes[p.lane]!));
    const completion = this.completion(op, request, count, subs, [], touched, [failure], new Set(), false);
    if (this.deferral.active) this.deferral.defer(finishAsync(completion));
    else finishSync(completion);
  }

  /**
   * Runs `fn` with its host calls enqueued but not waited for (the *Async forms of a context);
   * `done` settles when they have all finished and written their outputs.
   */
  deferHost<T>(fn: () => T): { result: T; done: Promise<void> } {
    return this.deferral.run(fn);
  }


  /**
   * The rest of a call once everything is enqueued, as steps that yield the lanes to wait for
   * and receive their failures (waited for synchronously, or without blocking in deferHost).
   * 'after-all': outputs go back only after every device has finished its kernels without error
   * (two waits). 'duplex': the outputs left for the end are enqueued at once behind the per-chunk
   * ones, and one wait on every device ends the call.
   */
  private *completion(op: OpName, request: Request, count: number, subs: readonly Request[], calls: readonly StagedCall[], touched: Set<Lane>, failures: LaneFailure[], interleaved: ReadonlySet<AnyStorage>, duplex: boolean): Generator<Set<Lane>, void, LaneFailure[]> {
    try {
      const staging = calls.some((c) => c.call.stagesHost);
      if ((staging && !duplex) || failures.length > 0) failures.push(...(yield touched));
      // Duplex calls may have copied chunks back already (bytes down counted as they are enqueued).
      const early = (): boolean => calls.some((c) => c.call.bytes.down > 0);
      if (failures.length > 0) throw new DeviceFailure(failures, `${op} on ${count} matrices`, this.outputNote(op, request, failures, early()));
      if (!staging) return;
      const lanes = new Set(calls.map((c) => c.lane));
      const copies = this.writeBack(op, subs, calls, lanes, interleaved);
      if (copies.length === 0) copies.push(...(yield lanes));
      if (copies.length > 0) throw new DeviceFailure(copies, duplex ? `${op} on ${count} matrices` : `${op}: copying results back`, 'Host outputs may be partly written: treat them as invalid.');
    } finally {
      for (const c of calls) c.call.dispose();
    }
  }

  /**
   * The parts of a call: those its sharded data dictates (outputs first), else the one GPU whose
   * plain device memory it uses, else a split of host data by weight (undefined: no device has
   * a kernel for `op` and the data is on the host, so the CPU reference runs it directly).
   */
  private plan(op: OpName, request: Request, count: number): Part[] | undefined {
    const outputs = OUTPUTS[op];
    const order = [...outputs, ...Object.keys(request).filter((k) => !outputs.includes(k))];
    for (const key of order) {
      const v = request[key];
      const runs = isBatch(v) ? runsOfBatch(v, key, this.laneOf) : undefined;
      if (runs) return runs;
    }
    for (const key of order) {
      const v = request[key];
      const runs = INT_FIELDS.includes(key) && isSharded(v) ? runsOfInts(v, intsPerMatrix(request, key), count, key, this.laneOf) : undefined;
      if (runs) return runs;
    }
    const plain = new Set<number>();
    let onDevice = false;
    for (const s of storagesOfRequest(request)) {
      if (!isDeviceStorage(s)) continue;
      onDevice = true;
      if (!isSharded(s)) plain.add(s.device);
    }
    if (plain.size > 1)
      throw new MyriadError('INVALID_ARGUMENT', `one call uses device memory of GPUs ${[...plain].join(' and ')}; spread a batch over devices with scatter()`, 'data');
    if (plain.size === 1) return [{ lane: this.laneOf([...plain][0]!), start: 0, end: count }];
    if (!onDevice && !this.lanes.some((l) => l.hasKernel(op))) return undefined;
    const parts = splitBatch(count, this.hostWeights(op, request));
    // The GPUs that got matrices: a batch smaller than the spread leaves some without.
    this.lastSpread = parts.length;
    return parts;
  }

  /** The weights of a host call's split: on as many GPUs as the crossover (or `spread`) gives it. */
  private hostWeights(op: OpName, request: Request): readonly number[] {
    const lanes = this.#weights.filter((w) => w > 0).length;
    const spread = this.#spread;
    let gpus = lanes;
    if (spread === 'auto' && lanes > 1) {
      const info = this.lanes[this.#weights.indexOf(Math.max(...this.#weights))]!.device.info;
      const tuning = tuningFor(info.arch, 'multi');
      gpus = gpusFor(callMs(callWork(op, request), info, tuning), lanes, tuning.perExtraGpuMs);
    } else if (typeof spread === 'number') gpus = Math.min(spread, lanes);
    return gpus === lanes ? this.#weights : weightsOnFastest(this.#weights, gpus);
  }

  /** Where each device storage of a part goes on its lane (checked; host arrays are staged by HostCall). */
  private placements(sub: Request, lane: Lane): Map<AnyStorage, Placement> {
    const ordinal = lane.device.info.ordinal;
    const device = new Map<AnyStorage, Placement>();
    const host = new Map<HostArray, Range>();
    for (const [s, range] of storageRanges(sub)) {
      if (isSharded(s)) {
        const shard = s.shardOn(ordinal, range.lo, range.hi);
        if (!shard)
          throw new MyriadError('LAYOUT', `elements [${range.lo}, ${range.hi}) of a sharded array are not on GPU ${ordinal}, where the other operands of these matrices are`, 'data');
        device.set(s, { target: shard.array, base: shard.start });
      } else if (isDeviceStorage(s)) {
        if (s.device !== ordinal) throw new MyriadError('INVALID_ARGUMENT', `device memory of GPU ${s.device} in a part that runs on GPU ${ordinal}`, 'data');
        device.set(s, { target: s, base: 0 });
      } else {
        const h = s as HostArray;
        host.set(h, { lo: Math.min(range.lo, h.length), hi: Math.min(range.hi, h.length) });
      }
    }
    // A dry run of the rewrite catches misaligned info/ipiv before anything is enqueued.
    rebaseRequest(sub, (s) => device.get(s) ?? { target: s, base: host.get(s as HostArray)!.lo });
    return device;
  }

  /** Places not-yet-placed sharded int arrays (info, ipiv the context allocated) next to the parts. */
  private placePendingInts(request: Request, parts: readonly Part[]): void {
    for (const key of INT_FIELDS) {
      const v = request[key];
      if (!isSharded(v) || v.placed) continue;
      const bounds = intBounds(v.length, intsPerMatrix(request, key), parts);
      const shards = this.allocShards('int32', bounds, `${key} for ${parts.length} part(s)`);
      v.place(shards);
    }
  }

  private allocShards(dtype: DeviceDType, bounds: readonly { lane: number; start: number; end: number }[], what: string, fill?: HostArray): Shard[] {
    const shards: Shard[] = [];
    for (const b of bounds) {
      const lane = this.lanes[b.lane]!;
      try {
        const array = fill ? lane.device.upload(fill.subarray(b.start, b.end)) : lane.device.alloc(dtype, b.end - b.start);
        if (fill) this.transfers.hostToDevice += array.byteLength;
        shards.push({ start: b.start, end: b.end, ordinal: lane.device.info.ordinal, array });
      } catch (e) {
        for (const s of shards) s.array.dispose();
        throw new DeviceFailure([failureOf(lane, e)], what, 'Nothing was placed.');
      }
    }
    return shards;
  }

  /**
   * Enqueues the copies of host outputs back on every device at once: whole ranges, or only the
   * written elements where parts' ranges of one array interleave. Returns the failures so far.
   */
  private writeBack(op: OpName, subs: readonly Request[], calls: readonly StagedCall[], lanes: Set<Lane>, interleaved: ReadonlySet<AnyStorage>): LaneFailure[] {
    const fields = OUTPUTS[op];
    // Every GPU's asynchronous (pinned) copies are in flight before a pageable copy waits.
    const failures: LaneFailure[] = [];
    for (const which of ['pinned', 'pageable'] as const) {
      failures.push(...onEveryLane(lanes, (lane) => {
        for (const c of calls) {
          if (c.lane !== lane) continue;
          const spans = interleaved.size > 0 ? new Map([...writtenSpans(subs[c.part]!, fields)].filter(([s]) => interleaved.has(s))) : undefined;
          c.call.enqueueDownloads(spans, which);
        }
      }));
      if (failures.length > 0) break;
    }
    for (const c of calls) this.transfers.deviceToHost += c.call.bytes.down;
    return failures;
  }

  private outputNote(op: OpName, request: Request, failures: readonly LaneFailure[], early: boolean): string {
    const outs = OUTPUTS[op].flatMap((k) => (isBatch(request[k]) ? storagesOf(request[k] as Batch<AnyStorage>) : request[k] !== undefined ? [request[k]] : []));
    const onHost = outs.some((s) => !isDeviceStorage(s));
    const onDevice = outs.some((s) => isDeviceStorage(s));
    const gpus = failures.map((f) => f.ordinal).join(', ');
    return [
      onHost ? (early ? 'Host outputs may be partly written (the duplex pipeline copies each chunk back behind its kernels): treat them as invalid.' : 'No host output was written.') : '',
      onDevice ? `Device-resident outputs are incomplete (the parts on GPU ${gpus} did not run to the end); treat them as invalid.` : '',
    ].filter(Boolean).join(' ');
  }

  // Memory -------------------------------------------------------------------------------------

  /** Int32 memory for info/pivots: placed on the first call that uses it, next to its matrices. */
  allocInts(length: number): DeviceStorage {
    return new ShardedArray('int32', length);
  }
  /** Plain device memory on the first device (as on a one-GPU context). */
  upload(host: FloatArray | Int32Array): DeviceStorage {
    this.transfers.hostToDevice += host.byteLength;
    return this.lanes[0]!.device.upload(host);
  }
  alloc(dtype: DType | 'int32', length: number): DeviceStorage {
    return this.lanes[0]!.device.alloc(dtype, length);
  }

  /** Spreads whole matrices of a host array over the devices (by weight); see ShardLayout. */
  scatter(host: FloatArray | Int32Array, layout: ShardLayout, weights: readonly number[] = this.#weights): ShardedArray {
    return this.shardedLike(host, layout, weights, host);
  }
  /** Device memory laid out as `scatter` would place it, uninitialised. */
  allocSharded(dtype: DType | 'int32', length: number, layout: ShardLayout, weights: readonly number[] = this.#weights): ShardedArray {
    return this.shardedLike({ dtype, length }, layout, weights);
  }

  private shardedLike(like: HostArray | { dtype: DeviceDType; length: number }, layout: ShardLayout, weights: readonly number[], fill?: HostArray): ShardedArray {
    const dtype: DeviceDType = 'dtype' in like ? like.dtype : hostDType(like);
    const l = resolveLayout(like.length, layout);
    const parts = l.count > 0 ? splitBatch(l.count, checkWeights(weights, this.lanes.length)) : [{ lane: 0, start: 0, end: 0 }];
    return new ShardedArray(dtype, like.length, this.allocShards(dtype, shardBounds(like.length, l, parts), fill ? 'scatter' : 'allocSharded', fill));
  }

  download(device: DeviceStorage): FloatArray | Int32Array {
    if (!isSharded(device)) {
      const lane = this.lanes[this.laneOf(device.device)]!;
      const out = lane.device.download(device as DeviceArray) as FloatArray | Int32Array;
      this.transfers.deviceToHost += out.byteLength;
      return out;
    }
    const out = allocateHost(device.dtype, device.length) as FloatArray | Int32Array;
    const failures = onEveryLane(this.lanes, (lane) => {
      for (const s of device.shards) {
        if (s.ordinal !== lane.device.info.ordinal) continue;
        lane.device.download(s.array, out.subarray(s.start, s.end));
        this.transfers.deviceToHost += (s.end - s.start) * out.BYTES_PER_ELEMENT;
      }
    });
    if (failures.length > 0) throw new DeviceFailure(failures, 'gather', 'Nothing was returned.');
    return out;
  }
  /** Same as download: the whole logical array, from every device, in element order. */
  gather(device: ShardedArray): FloatArray | Int32Array {
    return this.download(device);
  }

  copy(src: DeviceStorage, dst: DeviceStorage): void {
    if (src.dtype !== dst.dtype || src.length !== dst.length)
      throw new MyriadError('SHAPE', `copy needs the same dtype and length (${src.dtype}[${src.length}] -> ${dst.dtype}[${dst.length}])`, 'dst');
    if (isSharded(src) !== isSharded(dst)) throw new MyriadError('INVALID_ARGUMENT', 'copy between sharded and plain device memory; gather or scatter instead', 'dst');
    if (!isSharded(src) || !isSharded(dst)) {
      if (src.device !== dst.device) throw new MyriadError('INVALID_ARGUMENT', `copy from GPU ${src.device} to GPU ${dst.device}`, 'dst');
      this.lanes[this.laneOf(src.device)]!.device.copy(src as DeviceArray, 0, dst as DeviceArray, 0, src.length);
      return;
    }
    if (!dst.placed) dst.place(this.allocShards(dst.dtype, src.shards.map((s) => ({ lane: this.laneOf(s.ordinal), start: s.start, end: s.end })), 'copy'));
    const same = src.shards.length === dst.shards.length && src.shards.every((s, i) => s.start === dst.shards[i]!.start && s.end === dst.shards[i]!.end && s.ordinal === dst.shards[i]!.ordinal);
    if (!same) throw new MyriadError('LAYOUT', 'copy between sharded arrays placed differently', 'dst');
    src.shards.forEach((s, i) => this.lanes[this.laneOf(s.ordinal)]!.device.copy(s.array, 0, dst.shards[i]!.array, 0, s.end - s.start));
  }

  // Time and waiting ---------------------------------------------------------------------------

  /** Events around `fn` on every device; the slowest device's milliseconds (each device's in lastDeviceTimes). */
  time(fn: () => void): number {
    const starts: GpuEvent[] = [];
    const ends: GpuEvent[] = [];
    try {
      for (const l of this.lanes) { const e = l.device.event(); starts.push(e); e.record(); }
      fn();
      for (const l of this.lanes) { const e = l.device.event(); ends.push(e); e.record(); }
      this.#lastTimes = ends.map((e, i) => { e.synchronize(); return e.elapsedSince(starts[i]!); });
      return Math.max(...this.#lastTimes);
    } finally {
      for (const e of [...starts, ...ends]) e.dispose();
    }
  }
  async synchronize(): Promise<void> {
    const failures = onEveryLane(this.lanes, (l) => l.device.synchronize());
    if (failures.length > 0) throw new DeviceFailure(failures, 'synchronize', 'Work enqueued on those GPUs did not complete: treat its outputs as invalid.');
  }
  dispose(): void {
    const failures = onEveryLane(this.lanes, (l) => l.device.dispose());
    if (failures.length > 0) throw new DeviceFailure(failures, 'dispose', '');
  }
}

/** Host storages whose ranges in two parts overlap (list batches out of order): their outputs come back exactly, at the end. */
function interleavedStorages(subs: readonly Request[]): Set<AnyStorage> {
  const ranges = new Map<AnyStorage, Range[]>();
  for (const sub of subs) {
    for (const [s, r] of storageRanges(sub)) if (!isDeviceStorage(s)) ranges.set(s, [...(ranges.get(s) ?? []), r]);
  }
  const interleaved = new Set<AnyStorage>();
  for (const [s, list] of ranges) {
    const sorted = [...list].sort((x, y) => x.lo - y.lo);
    if (sorted.some((r, i) => i > 0 && r.lo < sorted[i - 1]!.hi)) interleaved.add(s);
  }
  return interleaved;
}

/** One part's host call on its lane. */
interface StagedCall {
  readonly part: number;
  readonly lane: Lane;
  readonly call: HostCall;
}

/** Drives a completion, waiting on each lane with synchronize(). */
function finishSync(steps: Generator<Set<Lane>, void, LaneFailure[]>): void {
  for (let r = steps.next(); !r.done; ) r = steps.next(onEveryLane(r.value, (l) => l.device.synchronize()));
}

/** Drives a completion, waiting on each lane without blocking the event loop. */
async function finishAsync(steps: Generator<Set<Lane>, void, LaneFailure[]>): Promise<void> {
  for (let r = steps.next(); !r.done; ) {
    const failures: LaneFailure[] = [];
    await Promise.all([...r.value].map((lane) => lane.device.idle().catch((e: unknown) => { failures.push(failureOf(lane, e)); })));
    r = steps.next(failures);
  }
}

/** Every storage object a request references (batches and int fields). */
function storagesOfRequest(request: Request): AnyStorage[] {
  const out: AnyStorage[] = [];
  for (const [key, v] of Object.entries(request)) {
    if (isBatch(v)) out.push(...storagesOf(v));
    else if (INT_FIELDS.includes(key) && v !== undefined && v !== null) out.push(v as IntStorage);
  }
  return out;
}

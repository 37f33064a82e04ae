/**
 * The CUDA backend as a context sees it. Requests arrive validated and column-major (api/);
 * their batches may hold host arrays or device arrays:
 * - host arrays are uploaded (once per distinct array), the GPU kernel runs, and the outputs are
 *   downloaded back into the caller's arrays before the call returns;
 * - device arrays are used in place and the call only enqueues work (the fast path).
 * Each call takes the route router.ts chooses for it; where that is the CPU (an operation or a size
 * no GPU design takes yet) it runs on the fast CPU backend, over the worker pool, with copies, and
 * `lastRoute` says so.
 */
import { batchCount, isBatch, storagesOf, type Batch } from '../core/batch.js';
import type { DeviceVariableBatch, DeviceVariableOp, DeviceVariableRequest } from '../core/device-batch.js';
import type { DType, FloatArray } from '../core/dtype.js';
import { storageInfo } from '../core/dtype-table.js';
import { MyriadError } from '../core/errors.js';
import { DispatchingBackend, type OpName } from '../core/ops.js';
import { isDeviceStorage, type DeviceStorage, type IntStorage, type Storage } from '../core/storage.js';
import type { DeviceBackend, ModuleStats, RouteTaken, TallSkinnyQrResult, WarmKernels } from '../core/device-backend.js';
import { fastCpuBackend, hostComplexOp } from '../cpu-fast/backend.js';
import { OP_SPECS, OUTPUTS, isComplexRequest } from '../core/op-specs.js';
import { DEVICE_VARIABLE_ROUTES, capturableOp, choose, chooseArray, chooseComplex, ownRoute, routeTaken, runCandidate, type Candidate, type RouteForce } from './router.js';
import { qrTallSkinnyOn } from './host/qr-tall-skinny.js';
import { HostDeferral } from './host/deferral.js';
import { checkHostOutputs, HostCall, type HostCallOptions, type HostOutputs, type StagingTuning } from './host/staging.js';
import { complexView, realView } from './host/complex-view.js';
import { IntPool } from './runtime/int-pool.js';
import { PlanningDevice } from './runtime/planning-device.js';
import type { DeviceArray, DeviceInfo, GpuDevice, HostArray, KernelSource } from './runtime/types.js';

type Request = Record<string, unknown>;

/** Signatures remembered by prefetch; past this many a process stops prefetching (calls still compile). */
const PLANNED_MAX = 4096;

/**
 * The part of a request the kernels of a call depend on: the op, each strided batch's dtype,
 * shape, layout and count, the dtypes of the other arrays, the scalars and enums. Undefined (no
 * prefetch) for list and variable batches, whose shapes would cost a pass over every matrix.
 */
export function planSignature(op: OpName, request: Request): string | undefined {
  let s = op;
  for (const key in request) {
    const v = request[key];
    if (isBatch(v)) {
      if (v.kind !== 'strided') return undefined;
      const data = v.data as Storage;
      s += `|${key}:${isDeviceStorage(data) ? data.dtype : data.constructor.name}:${v.rows}x${v.cols}:${v.ld}:${v.stride}:${v.offset}:${v.count}:${v.order}`;
    } else if (ArrayBuffer.isView(v) || isDeviceStorage(v)) {
      s += `|${key}:${isDeviceStorage(v) ? v.dtype : v.constructor.name}`;
    } else if (v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      s += `|${key}=${String(v)}`;
    } else {
      return undefined;
    }
  }
  return s;
}
type Mapper = (s: Storage | IntStorage) => Storage | IntStorage;

/** Maps every storage of a request (batches, info, ipiv) through `f`, keeping the rest. */
function mapRequest(r: Request, f: Mapper): Request {
  const out: Request = {};
  for (const [key, value] of Object.entries(r)) out[key] = mapField(value, f);
  return out;
}

function mapField(value: unknown, f: Mapper): unknown {
  // Any typed array (the API has checked its type; one from another realm fails instanceof).
  if (ArrayBuffer.isView(value) || isDeviceStorage(value)) return f(value as Storage | IntStorage);
  if (!isBatch(value)) return value;
  const b = value as Batch<Storage>;
  switch (b.kind) {
    case 'strided': return { ...b, data: f(b.data) };
    case 'list': return { ...b, matrices: b.matrices.map((m) => ({ ...m, data: f(m.data) })) };
    case 'variable': return { ...b, matrices: b.matrices.map((m) => ({ ...m, data: f(m.data) })) };
    default: return value;
  }
}

/**
 * A host call's asynchronous form: enqueue its runs now, wait for them without blocking, then
 * copy the outputs back (pageable copies wait only for their own bytes now) and free the staging.
 */
async function finishLater(device: GpuDevice, call: HostCall): Promise<void> {
  try {
    call.enqueueRuns();
  } catch (e) {
    call.dispose();
    throw e;
  }
  try {
    await device.idle();
    call.enqueueDownloads();
    await device.idle();
  } finally {
    call.dispose();
  }
}

/** Every distinct storage object of the named fields of a request. */
function storagesIn(r: Request, fields: readonly string[]): Set<Storage | IntStorage> {
  const found = new Set<Storage | IntStorage>();
  for (const key of fields) mapField(r[key], (s) => { found.add(s); return s; });
  return found;
}

export class CudaBackend extends DispatchingBackend<Storage, IntStorage> implements DeviceBackend {
  readonly name = 'cuda';
  /** Inside deferHost(): host calls' completions, not waited for. */
  private readonly deferral = new HostDeferral();
  /** How host calls are cut into chunks (undefined: the default; tests force small chunks). */
  stagingTuning: StagingTuning | undefined;
  /**
   * How a host call's outputs come back (host/staging.ts): 'duplex' (default: each chunk's
   * page-locked outputs behind its kernels; on a device failure outputs may be partly written) or
   * 'after-all' (every output after every kernel: on a device failure, none is written).
   */
  get hostOutputs(): HostOutputs {
    return this.#hostOutputs;
  }
  set hostOutputs(h: HostOutputs) {
    this.#hostOutputs = checkHostOutputs(h);
  }
  #hostOutputs: HostOutputs = 'duplex';
  /** Small int32 arrays (info) without a device allocation per call; freed by dispose(). */
  readonly ints: IntPool;
  /** Signatures of the calls whose kernels were prefetched (prefetch). */
  private readonly planned = new Set<string>();
  /** The op and the field values of the last request prefetch saw (see sameAsLast). */
  private lastSeen: { readonly op: OpName; readonly keys: string[]; readonly values: unknown[] } | undefined;
  /** Candidates pinned by name per operation (tests, benchmarks): see router.ts. */
  force: RouteForce = {};
  /** The route of the last call that had matrices: its operation and candidate ('cpu': the fast CPU backend, with copies). */
  lastRoute: RouteTaken | undefined;
  /** Inside captureScope(): only routes a graph can record. */
  private recording = false;

  constructor(readonly device: GpuDevice, private readonly versions: string) {
    super();
    this.ints = new IntPool(device);
  }

  describe(): string {
    const i = this.device.info;
    return `cuda: ${i.name} (${i.arch}, ${i.smCount} SMs, ${(i.totalMemoryBytes / 2 ** 30).toFixed(0)} GiB), device ${i.ordinal}; ${this.versions}`;
  }

  protected run(op: OpName, request: Request): void {
    this.device.beginCall?.();
    // One pass over the request, allocating nothing: the first batch's count, and where the storages live.
    let count = -1;
    let onHost = false;
    for (const key in request) {
      const v = request[key];
      if (isBatch(v)) {
        if (count < 0) count = batchCount(v);
        if (v.kind === 'strided') onHost = this.isHost(v.data as Storage) || onHost;
        else {
          // Each distinct array once (a variable batch validated in this call: as its validation found them).
          for (const s of storagesOf(v)) onHost = this.isHost(s as Storage) || onHost;
        }
      } else if (ArrayBuffer.isView(v) || isDeviceStorage(v)) {
        onHost = this.isHost(v as Storage) || onHost;
      }
    }
    if (count <= 0) return;
    if (isComplexRequest(op, request)) return this.runComplex(op, request, onHost);
    const candidate = choose(op, request, this.device, this.force[op], this.recording);
    this.lastRoute = routeTaken(op, candidate);
    if (candidate.run === undefined) {
      // Planning (warm, prefetch): the CPU route compiles nothing, so there is nothing to plan.
      if (this.device instanceof PlanningDevice) return;
      return this.runOnCpu(op, request);
    }
    if (!onHost) {
      this.prefetch(op, candidate, request);
      runCandidate(candidate, this.device, request);
      return;
    }
    // Host arrays: the candidate is chosen again on each staged device request, so that a choice
    // that reads the device operands (TSM2's alignment and dtype) sees them. A vendor route's table
    // reads the call's count, so it is chosen once, on the whole call: where it was, every chunk runs
    // it; where it was not, no chunk may take one (`ownRoute`). So a host call runs what its
    // device-resident twin runs.
    const vendorRoute = candidate.capturable === false;
    const kernel = (r: Request): void => {
      const staged = vendorRoute ? candidate : ownRoute(op, r, this.device, this.force[op]);
      this.lastRoute = routeTaken(op, staged);
      if (staged.run === undefined) throw new MyriadError('UNSUPPORTED', `${op}: no GPU route for a staged request that had one on the host`, 'op');
      this.prefetch(op, staged, r);
      runCandidate(staged, this.device, r);
    };
    // Host arrays: staged through the link in chunks (host/staging.ts); outputs copied back last.
    this.stage(new HostCall(this.device, op, request, kernel, this.hostCallOptions()));
  }

  /**
   * A complex request: its complex candidate (router.ts COMPLEX_ROUTES) on the device, host data
   * staged as a real call's (seen as real batches of twice the rows: host/complex-view.ts); where
   * the candidate is the CPU, the fast CPU backend's complex kernel (the complex reference where it
   * has none) on host copies (whole arrays, so the interleaved pairs travel as they are), outputs
   * uploaded back, the route 'cpu'.
   */
  private runComplex(op: OpName, request: Request, onHost: boolean): void {
    const { candidate, taken } = chooseComplex(op, request, this.device, this.force[op], this.recording);
    this.lastRoute = taken;
    if (candidate.run === undefined) {
      if (this.recording) throw new MyriadError('UNSUPPORTED', `complex ${op} runs on the CPU and cannot be captured in a graph`, OP_SPECS[op].main);
      if (this.device instanceof PlanningDevice) return;
      return this.runOnCpu(op, request, hostComplexOp(fastCpuBackend.name, op) as (r: Request) => void);
    }
    const run = candidate.run as unknown as (dev: GpuDevice, r: Request) => void;
    if (!onHost) return run(this.device, request);
    const kernel = (staged: Request): void => run(this.device, complexView(staged, request));
    this.stage(new HostCall(this.device, op, realView(request), kernel, this.hostCallOptions()));
  }

  /**
   * A request on variableDevice batches (sizes and addresses on the device): its one route
   * (router.ts DEVICE_VARIABLE_ROUTES), after every array it names is checked to be this device's.
   * `force` may pin it ('vdevice'); any other name is an error, as for a route the op lacks.
   */
  runDeviceVariable(op: DeviceVariableOp, request: DeviceVariableRequest): void {
    this.device.beginCall?.();
    if (this.recording) throw new MyriadError('UNSUPPORTED', `${op} on variableDevice batches allocates its tables per call and cannot be captured`, 'a');
    const route = DEVICE_VARIABLE_ROUTES[op];
    const forced = this.force[op];
    if (forced !== undefined && forced !== route.taken.route)
      throw new MyriadError('ENUM', `${op} on variableDevice batches has no route '${forced}' (routes: ${route.taken.route})`, 'force');
    const r = request as unknown as Record<string, unknown>;
    for (const key of ['a', 'b', 'c'] as const) {
      const b = r[key] as DeviceVariableBatch | undefined;
      if (b === undefined) continue;
      for (const s of [b.rows, b.cols, b.ld, b.pointers]) if (s !== undefined) this.checkOwn(s);
    }
    this.checkOwn(request.info as DeviceStorage);
    if ('ipiv' in request) this.checkOwn(request.ipiv as DeviceStorage);
    this.lastRoute = route.taken;
    (route.run as (dev: GpuDevice, r: DeviceVariableRequest) => void)(this.device, request);
  }

  /** The device address of element `offset` of `data` (this device's memory). */
  deviceAddress(data: DeviceStorage, offset: number): bigint {
    return this.checkOwn(data).ptr + BigInt(offset * storageInfo(data.dtype).bytes);
  }

  private hostCallOptions(): HostCallOptions {
    return { ...(this.stagingTuning ? { tuning: this.stagingTuning } : {}), duplex: this.hostOutputs === 'duplex' };
  }

  /** Runs a staged host call: now, or deferred inside deferHost(). */
  private stage(call: HostCall): void {
    if (this.deferral.active) {
      this.deferral.defer(finishLater(this.device, call));
      return;
    }
    try {
      call.enqueueRuns();
      call.enqueueDownloads();
      this.device.synchronize();
    } finally {
      call.dispose();
    }
  }

  /** Whether the router sends the array-level qr of this stack to TSQR (router.ts ARRAY_ROUTES). */
  takesQrTallSkinny(m: number, n: number, count: number): boolean {
    return chooseArray('qr', { m, n, count }, this.device, this.force.qr).name === 'tsqr';
  }
  qrTallSkinny(a: FloatArray, m: number, n: number, count: number, wantQ: boolean): TallSkinnyQrResult {
    this.lastRoute = { op: 'qr', route: 'tsqr', gpu: true };
    return qrTallSkinnyOn(this.device, a, m, n, count, wantQ);
  }

  /**
   * A call's first time (by its shape: planSignature): the kernels it will need are planned on a
   * device that runs nothing (the same launcher, so the same planners and generators), and those
   * neither in memory nor on disk are compiled together on the compile workers (where two or more
   * are missing). The call itself then finds every kernel in the cache. Only a head start: any
   * failure here is left for the call to meet and report.
   */
  private prefetch<K extends OpName>(op: K, candidate: Candidate<K>, request: Request): void {
    if (this.device.prefetch === undefined || this.planned.size >= PLANNED_MAX) return;
    // A loop's calls repeat one request's batches and scalars: its signature (a string of a few
    // hundred characters, built and hashed: about 2 us of a call's 11-17 us on the host) once.
    if (this.sameAsLast(op, request)) return;
    const signature = planSignature(op, request);
    if (signature === undefined || this.planned.has(signature)) return;
    this.planned.add(signature);
    try {
      // The candidate the call chose (the planning device has the same info, so choose() again would agree).
      const planning = new PlanningDevice(this.device.info);
      runCandidate(candidate, planning, request);
      if (planning.sources.length >= 2) this.device.prefetch(planning.sources);
    } catch {
      // The call compiles what it needs itself, and throws what it meets.
    }
  }

  /**
   * Whether `request` holds the same values (the same batch objects, arrays and scalars, by identity)
   * under the same keys as the last request prefetch saw; remembers it for the next call either way.
   * A batch changed in place between two calls could be taken for the last one: that call only goes
   * without its head start, as a call whose signature is undefined does.
   */
  private sameAsLast(op: OpName, request: Request): boolean {
    const last = this.lastSeen;
    if (last !== undefined && last.op === op) {
      // Compared in place: a repeated call allocates nothing.
      let i = 0;
      let same = true;
      for (const key in request) {
        if (last.keys[i] !== key || last.values[i] !== request[key]) { same = false; break; }
        i++;
      }
      if (same && i === last.keys.length) return true;
    }
    const keys: string[] = [];
    const values: unknown[] = [];
    for (const key in request) {
      keys.push(key);
      values.push(request[key]);
    }
    this.lastSeen = { op, keys, values };
    return false;
  }

  /**
   * Compiles the kernels of the calls `record` makes on `planning` (a backend over a device that
   * runs nothing) into the module cache, all at once on the compile workers; loads nothing.
   */
  async warm(record: (planning: DeviceBackend) => void): Promise<WarmKernels> {
    const sources = this.plan(record);
    const report = this.device.prefetchAsync ? await this.device.prefetchAsync(sources) : undefined;
    return { sources: sources.map((s) => s.name), report };
  }

  /** The kernels the calls `record` makes would ask this device for, in order. */
  private plan(record: (planning: DeviceBackend) => void): KernelSource[] {
    return planKernels(this.device.info, record);
  }

  moduleStats(): ModuleStats | undefined {
    return this.device.moduleStats?.();
  }

  settleBuilds(): void {
    this.device.settleBuilds?.();
  }

  /**
   * Runs `fn` (calls on host data) without waiting for them: each host call is enqueued, and the
   * returned promise settles when all of them have finished and written their outputs.
   */
  deferHost<T>(fn: () => T): { result: T; done: Promise<void> } {
    return this.deferral.run(fn);
  }

  /**
   * The fast CPU backend (its kernels where it has them, else the reference's; over the worker
   * pool) on host copies of device data; outputs are uploaded back in place.
   */
  private runOnCpu(op: OpName, request: Request, onHost = fastCpuBackend[op] as unknown as (r: Request) => void): void {
    const copies = new Map<DeviceArray, FloatArray | Int32Array>();
    const toHost: Mapper = (s) => {
      if (!isDeviceStorage(s)) return s;
      const d = this.checkOwn(s);
      let h = copies.get(d);
      if (!h) { h = this.device.download(d) as FloatArray | Int32Array; copies.set(d, h); }
      return h;
    };
    const hostRequest = mapRequest(request, toHost);
    onHost(hostRequest);
    for (const s of storagesIn(request, OUTPUTS[op])) {
      if (isDeviceStorage(s)) this.device.upload(copies.get(s as DeviceArray)! as HostArray, s as DeviceArray);
    }
  }

  /** True for host memory; device memory must be this device's. */
  private isHost(s: Storage | IntStorage): boolean {
    if (!isDeviceStorage(s)) return true;
    this.checkOwn(s);
    return false;
  }

  private checkOwn(s: DeviceStorage): DeviceArray {
    if (s.device !== this.device.info.ordinal)
      throw new MyriadError('INVALID_ARGUMENT', `device memory of GPU ${s.device} given to a context of GPU ${this.device.info.ordinal}`, 'data');
    return s as DeviceArray;
  }

  // Memory and time ---------------------------------------------------------------------------
  /** From the pool of small int32 arrays (the info of device calls that pass none). */
  allocInts(length: number): DeviceStorage {
    return this.ints.take(length);
  }
  upload(host: FloatArray | Int32Array | BigInt64Array): DeviceStorage {
    return this.device.upload(host);
  }
  download(device: DeviceStorage): FloatArray | Int32Array {
    return this.device.download(this.checkOwn(device)) as FloatArray | Int32Array;
  }
  alloc(dtype: DType | 'int32', length: number): DeviceStorage {
    return this.device.alloc(dtype, length);
  }
  copy(src: DeviceStorage, dst: DeviceStorage): void {
    if (src.dtype !== dst.dtype || src.length !== dst.length)
      throw new MyriadError('SHAPE', `copy needs the same dtype and length (${src.dtype}[${src.length}] -> ${dst.dtype}[${dst.length}])`, 'dst');
    this.device.copy(this.checkOwn(src), 0, this.checkOwn(dst), 0, src.length);
  }
  time(fn: () => void): number {
    const start = this.device.event();
    const end = this.device.event();
    try {
      start.record();
      fn();
      end.record();
      end.synchronize();
      return end.elapsedSince(start);
    } finally {
      start.dispose();
      end.dispose();
    }
  }
  async synchronize(): Promise<void> {
    this.device.synchronize();
  }
  capture(fn: () => void): { launch(): void; dispose(): void } {
    if (!this.device.capture) throw new MyriadError('UNSUPPORTED', `${this.device.info.name} cannot record a capture`, 'capture');
    return this.device.capture(fn);
  }
  /**
   * Runs `fn` (a capture's calls: its first run and its recording, so that both take the same
   * routes) with only the routes a graph can record: the vendor candidates are passed over.
   */
  captureScope<T>(fn: () => T): T {
    const was = this.recording;
    this.recording = true;
    try {
      return fn();
    } finally {
      this.recording = was;
    }
  }
  /** Operations with a GPU route whose work a graph can record (the CPU route's copies it cannot). */
  capturable(op: OpName): boolean {
    return capturableOp(op);
  }
  dispose(): void {
    this.ints.dispose();
    this.device.dispose();
  }
}

/** The kernels the calls `record` makes would ask a device described by `info` for, in order (nothing runs). */
export function planKernels(info: DeviceInfo, record: (planning: DeviceBackend) => void): KernelSource[] {
  const device = new PlanningDevice(info);
  record(new CudaBackend(device, 'planning'));
  return device.sources;
}

/**
 * A context binds the public API to one backend. Host batches work everywhere: on a CUDA context
 * they are copied to the GPU and back for each call, and the call returns when the results are
 * in place. Device batches (from `ctx.upload` / `ctx.alloc`) are the fast path: calls on them are
 * only enqueued in stream order and return at once; `await ctx.synchronize()` waits for them, and
 * `ctx.download` copies results back. Per-matrix `info` (and `ipiv`) live where `a` lives.
 */
import { batchCount, storagesOf, uniformShape, withValidatedScans, type Batch } from '../core/batch.js';
import { isDeviceVariable, type DeviceVariableOp, type DeviceVariableRequest } from '../core/device-batch.js';
import type { DType, FloatArray } from '../core/dtype.js';
import { MyriadError, describeValue } from '../core/errors.js';
import type { Backend, OpName } from '../core/ops.js';
import { OP_SPECS, isComplexRequest } from '../core/op-specs.js';
import { isDeviceStorage, type DeviceStorage, type IntStorage, type Storage } from '../core/storage.js';
import { cpuBackend } from '../cpu/backend.js';
import { describeHostBackend, fastCpuBackend, hostComplexOp } from '../cpu-fast/backend.js';
import * as arrays from './array.js';
import * as ops from './array-ops.js';
import * as qrArrays from './array-qr.js';
import * as elementwise from './elementwise.js';
import { noOptions, type NDArray } from './array.js';
import {
  VALIDATORS, checkFlag, hostInts, type IntAllocator,
} from './prepare.js';
import { ContextOperations } from './operations.generated.js';
import { columnMajorCopy } from './rowmajor.js';
import { checkCall } from './check.js';
import { bridgeArgs } from './bridge.js';
import { isDeviceVariableRequest } from './prepare-vdevice.js';
import type { InfoOp } from '../core/info.js';
import { makePreparers, type PreparedCall } from './prepared.js';
import { CaptureRecorder, deviceRecording, Recording, type Captured } from './capture.js';
import type { DeviceBackend, RouteTaken } from '../core/device-backend.js';
import { parseWarmOp, planWarmCalls, warmShapes, type WarmOp, type WarmOptions, type WarmResult } from './warm.js';

export type BackendName = 'cpu' | 'cuda';

export type { DeviceBackend } from '../core/device-backend.js';

/** Integers live where the batch lives: device ints for a device `a`, host ints otherwise. */
export type IntsFor<S extends Storage> = S extends FloatArray ? Int32Array : IntStorage;
export interface InfoResult<S extends Storage> { info: IntsFor<S> }
export interface PivotResult<S extends Storage> extends InfoResult<S> { ipiv: IntsFor<S> }

/**
 * The API bound to one backend: every LAPACK-level call (and its *Async form), the array level,
 * prepared calls, captures and device memory. From `open()`; the top-level functions use `cpuContext`.
 */
export class Context extends ContextOperations {
  #disposed = false;
  /** Inside an *Async call: host-side steps that must wait for the device (row-major write-backs). */
  #afterDevice: (() => void)[] | undefined;
  /** Inside capture(): the recorder of the device arrays used (calls are checked against it). */
  #capture: CaptureRecorder | undefined;
  /** Inside ctx.capture()'s recording, on every backend (the CPU records nothing, but refuses what a GPU's capture refuses). */
  #capturing = false;
  /** Captures not yet disposed (freed by dispose()). */
  readonly #captures = new Set<Captured>();

  constructor(
    /** 'cpu' or 'cuda'. */
    readonly backend: BackendName,
    private readonly ops: Backend<Storage, IntStorage>,
    private readonly device?: DeviceBackend,
    /** What dispose() does to the device (default: dispose it); shared devices count their holders. */
    private readonly release: () => void = () => device?.dispose(),
  ) {
    super();
  }

  /** One line: the backend and, for CUDA, the GPU. */
  describe(): string {
    return this.device?.describe() ?? describeHostBackend(this.ops.name);
  }

  // -------------------------------------------------------------------------------------------
  // LAPACK level: BLAS/LAPACK names and semantics, in place, info per matrix. One method per
  // operation and its *Async form, generated from the op specs (operations.generated.ts), each
  // `call(op, args)`: the operation's validator (prepare.ts VALIDATORS), then `execute`.

  /**
   * Validates one call (the operation's VALIDATORS entry) and runs it, the scans of its variable
   * batches kept until it returns (core/batch.ts withValidatedScans: the backend asks for their
   * arrays again).
   */
  protected call(op: OpName, input: unknown): unknown {
    const validate = VALIDATORS[op] as (args: unknown, alloc: IntAllocator) => object;
    const args = bridgeArgs(input);
    return withValidatedScans(() => this.execute(op, validate(args, this.intsFor(args)), checkFlag(args)));
  }

  /**
   * Prepared calls (see prepared.ts): `const f = ctx.prepare.gemm(args)` validates once; `f()`
   * runs the call again, `f({ a, b, c })` on new storages that fit the prepared ones.
   */
  readonly prepare: Preparers = makePreparers({
    intsFor: (args) => this.intsFor(args),
    execute: (op, request, checked) => this.execute(op, request, checked),
    admit: (op, request) => { this.admit(op, request); },
  }) as Preparers;

  // -------------------------------------------------------------------------------------------
  // The same operations as promises: on a CUDA context, calls on host data are enqueued and the
  // event loop keeps running while the GPU works; the promise resolves when the outputs are in
  // place. Host inputs must stay unchanged until then (pinned copies read them asynchronously).
  // Device data: the promise resolves once the work is enqueued, as the synchronous call returns.
  // On the CPU (and on several GPUs) the call runs synchronously and the promise is already settled.
  // Every operation's *Async form is generated (operations.generated.ts) over deferredCall.

  // -------------------------------------------------------------------------------------------
  // Array level: stacks [..., m, n] in row-major order, new arrays out (see array.ts); an array whose
  // dtype is complex goes to array-complex.ts, a real one to array.ts (array-ops.ts chooses).

  /** numpy's matmul: [..., m, k] x [..., k, n] -> [..., m, n], batch dimensions broadcast; a 1-D a is a row, a 1-D b a column. */
  matmul<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): NDArray<T> { noOptions('matmul', none); return ops.matmul(this, a, b); }
  /** Cholesky factor L (lower, default) or U of SPD matrices [..., n, n]; throws NUMERICAL naming failed matrices. */
  cholesky<T extends FloatArray>(a: NDArray<T>, options?: arrays.CholeskyOptions): NDArray<T> { return ops.cholesky(this, a, options); }
  /** cholesky with per-matrix info instead of throwing (failed factors are NaN). */
  choleskyEx<T extends FloatArray>(a: NDArray<T>, options?: arrays.CholeskyOptions): arrays.WithInfo<{ factor: NDArray<T> }> { return ops.choleskyEx(this, a, options); }
  /** LU with partial pivoting: packed factors [..., m, n] and 0-based pivots; throws NUMERICAL for exactly singular matrices. */
  lu<T extends FloatArray>(a: NDArray<T>, ...none: never[]): arrays.LuResult<T> { noOptions('lu', none); return ops.lu(this, a); }
  /** lu with per-matrix info instead of throwing. */
  luEx<T extends FloatArray>(a: NDArray<T>, ...none: never[]): arrays.WithInfo<arrays.LuResult<T>> { noOptions('luEx', none); return ops.luEx(this, a); }
  /** X with A X = B (numpy 2's solve): b [..., n, k] broadcast against a, or one vector [n]; throws NUMERICAL for singular or NaN/Inf matrices. */
  solve<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): NDArray<T> { noOptions('solve', none); return ops.solve(this, a, b); }
  /** solve with per-matrix info instead of throwing (failed solutions are NaN). */
  solveEx<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): arrays.WithInfo<{ x: NDArray<T> }> { noOptions('solveEx', none); return ops.solveEx(this, a, b); }
  /** X with A X = B from A's Cholesky factor; b [..., n, k] or [..., n] (one vector per matrix). */
  choleskySolve<T extends FloatArray>(factor: NDArray<T>, b: NDArray<T>, options?: arrays.CholeskyOptions): NDArray<T> { return ops.choleskySolve(this, factor, b, options); }
  /** Inverses [..., n, n]: general (LU), or { assume: 'spd' } (Cholesky); throws NUMERICAL for failed matrices. */
  inv<T extends FloatArray>(a: NDArray<T>, options?: arrays.InvOptions): NDArray<T> { return ops.inv(this, a, options); }
  /** inv with per-matrix info instead of throwing. */
  invEx<T extends FloatArray>(a: NDArray<T>, options?: arrays.InvOptions): arrays.WithInfo<{ inverse: NDArray<T> }> { return ops.invEx(this, a, options); }
  /** X with op(A) X = B (left, default) or X op(A) = B, A triangular. */
  triangularSolve<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, options?: arrays.TriangularSolveOptions): NDArray<T> { return ops.triangularSolve(this, a, b, options); }
  /** Eigenvalues (ascending, real) and eigenvectors of symmetric or Hermitian matrices (numpy's eigh); throws NUMERICAL for NaN/Inf or no convergence. */
  eigh<T extends FloatArray>(a: NDArray<T>, options?: arrays.EighOptions): arrays.EighResult<T> { return ops.eigh(this, a, options); }
  /** eigh with per-matrix info instead of throwing. */
  eighEx<T extends FloatArray>(a: NDArray<T>, options?: arrays.EighOptions): arrays.WithInfo<arrays.EighResult<T>> { return ops.eighEx(this, a, options); }
  /** Eigenvalues only, ascending (numpy's eigvalsh). */
  eigvalsh<T extends FloatArray>(a: NDArray<T>, options?: arrays.EighOptions): NDArray<T> { return ops.eigvalsh(this, a, options); }
  /** eigvalsh with per-matrix info instead of throwing. */
  eigvalshEx<T extends FloatArray>(a: NDArray<T>, options?: arrays.EighOptions): arrays.WithInfo<{ values: NDArray<T> }> { return ops.eigvalshEx(this, a, options); }
  /** The thin SVD (numpy's svd(a, full_matrices=False)): u [..., m, k], s [..., k], vt [..., k, n]. */
  svd<T extends FloatArray>(a: NDArray<T>, ...none: never[]): arrays.SvdResult<T> { noOptions('svd', none); return ops.svd(this, a); }
  /** svd with per-matrix info instead of throwing. */
  svdEx<T extends FloatArray>(a: NDArray<T>, ...none: never[]): arrays.WithInfo<arrays.SvdResult<T>> { noOptions('svdEx', none); return ops.svdEx(this, a); }
  /** Singular values only, descending (numpy's svdvals). */
  svdvals<T extends FloatArray>(a: NDArray<T>, ...none: never[]): NDArray<T> { noOptions('svdvals', none); return ops.svdvals(this, a); }
  /** svdvals with per-matrix info instead of throwing. */
  svdvalsEx<T extends FloatArray>(a: NDArray<T>, ...none: never[]): arrays.WithInfo<{ values: NDArray<T> }> { noOptions('svdvalsEx', none); return ops.svdvalsEx(this, a); }
  /** numpy's linalg.qr: mode 'reduced' (default), 'complete' or 'r'. */
  qr<T extends FloatArray>(a: NDArray<T>, options?: qrArrays.QrOptions): qrArrays.QrResult<T> { return ops.qr(this, a, options); }
  /** Least squares (numpy's lstsq, full rank): a [..., m, n], b [..., m, nrhs] broadcast against a, or one vector [m]. */
  lstsq<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): qrArrays.LstsqResult<T> { noOptions('lstsq', none); return ops.lstsq(this, a, b); }
  /** lstsq with per-matrix info instead of throwing. */
  lstsqEx<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): arrays.WithInfo<qrArrays.LstsqResult<T>> { noOptions('lstsqEx', none); return ops.lstsqEx(this, a, b); }
  /** [..., m, n] -> [..., n, m] (numpy's matrix_transpose); on the host. */
  transpose<T extends FloatArray>(a: NDArray<T>, ...none: never[]): NDArray<T> { return elementwise.transpose(a, ...none); }
  /** a + b with numpy broadcasting (b may be a number); on the host. */
  add<T extends FloatArray>(a: NDArray<T>, b: NDArray<T> | number, ...none: never[]): NDArray<T> { return elementwise.add(a, b, ...none); }
  /** a - b with numpy broadcasting (b may be a number); on the host. */
  subtract<T extends FloatArray>(a: NDArray<T>, b: NDArray<T> | number, ...none: never[]): NDArray<T> { return elementwise.subtract(a, b, ...none); }
  /** alpha * a; on the host. */
  scale<T extends FloatArray>(a: NDArray<T>, alpha: number, ...none: never[]): NDArray<T> { return elementwise.scale(a, alpha, ...none); }
  /** a broadcast to `shape` (numpy's broadcast_to, as a writable copy); on the host. */
  broadcastTo<T extends FloatArray>(a: NDArray<T>, shape: readonly number[], ...none: never[]): NDArray<T> { return elementwise.broadcastTo(a, shape, ...none); }

  // -------------------------------------------------------------------------------------------
  // Device memory (CUDA contexts) and waiting

  /** Copies a host array to the device of this context (a CUDA context only); a BigInt64Array holds addresses (variableDevice pointers). */
  upload(host: FloatArray | Int32Array | BigInt64Array): DeviceStorage {
    return this.needDevice('upload').upload(host);
  }
  /**
   * The device address of element `offset` of a device array of this context, as a variableDevice
   * batch's `pointers` hold them (a kernel of the caller's may compute the rest from it).
   */
  deviceAddress(data: DeviceStorage, offset = 0): bigint {
    const device = this.needDevice('deviceAddress');
    if (!device.deviceAddress) throw new MyriadError('UNSUPPORTED', `${device.describe()} gives no device addresses`, 'data');
    if (!isDeviceStorage(data)) throw new MyriadError('INVALID_ARGUMENT', 'expected device memory of this context', 'data');
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > data.length)
      throw new MyriadError('BOUNDS', `expected an element offset in [0, ${data.length}], got ${offset}`, 'offset');
    return device.deviceAddress(data, offset);
  }
  /** Copies device memory back to a new host array, after the work enqueued before it. */
  download(device: DeviceStorage): FloatArray | Int32Array {
    return this.needDevice('download').download(device);
  }
  alloc(dtype: DType | 'int32', length: number): DeviceStorage {
    return this.needDevice('alloc').alloc(dtype, length);
  }
  /** Copies one device array into another of the same dtype and length, in stream order. */
  copy(src: DeviceStorage, dst: DeviceStorage): void {
    this.needDevice('copy').copy(src, dst);
  }
  /**
   * Milliseconds that `fn`'s work takes: CUDA events around it on a CUDA context (waiting for
   * the end), the host clock on the CPU.
   */
  time(fn: () => void): number {
    this.checkAlive();
    if (typeof fn !== 'function') throw new MyriadError('INVALID_ARGUMENT', `expected a function, got ${describeValue(fn)}`, 'fn');
    this.notCapturing('time');
    if (this.device) return this.device.time(fn);
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  }
  /**
   * Records a pipeline of calls on device data (see capture.ts): runs `fn` once now (its calls
   * do their work, and every kernel is compiled and loaded), then records the same calls as one
   * CUDA graph; `replay()` runs the recording again with one launch. Inside `fn`: calls on
   * device data in strided batches only, no waits, no host copies, no allocation. On the CPU,
   * `replay()` calls `fn` again.
   */
  capture(fn: () => void): Captured {
    this.checkAlive();
    if (this.#capturing) throw new MyriadError('UNSUPPORTED', 'a capture inside a capture', 'capture');
    if (typeof fn !== 'function') throw new MyriadError('INVALID_ARGUMENT', 'expected a function', 'fn');
    const device = this.device;
    if (device && (!device.capture || !device.capturable)) throw new MyriadError('UNSUPPORTED', `${device.describe()} cannot record a capture`, 'capture');
    const recorder = new CaptureRecorder();
    let captured: Captured;
    this.#capture = device ? recorder : undefined;
    this.#capturing = true;
    try {
      const alive = (): void => this.checkAlive();
      const record = (): Captured => {
        fn();
        return device ? deviceRecording(device.capture!(fn), recorder.arrays, alive) : new Recording(fn, () => {}, alive);
      };
      captured = device?.captureScope ? device.captureScope(record) : record();
    } finally {
      this.#capture = undefined;
      this.#capturing = false;
    }
    this.#captures.add(captured);
    return captured;
  }

  /** Resolves when all work enqueued so far has finished (at once on the CPU). */
  synchronize(): Promise<void> {
    this.notCapturing('synchronize'); // at once: a wait inside a capture must stop it
    return this.synchronizeAll();
  }
  private async synchronizeAll(): Promise<void> {
    this.checkAlive();
    if (this.device) await this.device.synchronize();
  }
  /**
   * Compiles, ahead of the first call, the kernels of `op` for each of `options.sizes` (n x n; the
   * calls `myriad bench` makes, api/warm.ts) into the module cache on disk, all at once on worker
   * threads; the first real call of such a shape (in this process or a later one) then loads them.
   * The kernels are planned by making the calls on a device that runs nothing, so they are
   * exactly the call's. On the CPU it does nothing and says so (`note`).
   */
  async warm(op: WarmOp, options: WarmOptions): Promise<WarmResult> {
    this.checkAlive();
    const t0 = performance.now();
    const which = parseWarmOp(op);
    const { dtype, shapes } = warmShapes(which, options);
    const base = { backend: this.backend, op: which, dtype, shapes, kernels: 0, cached: 0, compiled: 0, failed: 0, compileMs: 0, compiles: [] };
    if (!this.device?.warm) return { ...base, ms: performance.now() - t0, note: `the ${this.ops.name} backend compiles no kernels: nothing to warm` };
    const planned = await this.device.warm((planning) => {
      planWarmCalls(new Context(this.backend, planning, planning, () => {}), which, dtype, shapes, options);
    });
    const r = planned.report;
    return {
      ...base, kernels: r?.kernels ?? planned.sources.length, cached: r?.cached ?? 0, compiled: r?.compiled ?? 0, failed: r?.failed ?? 0,
      compileMs: r?.compileMs ?? 0, compiles: r?.compiles ?? [], ms: performance.now() - t0,
    };
  }

  /**
   * The route the last call with matrices took on this context's device: its operation, the
   * candidate that ran it (src/cuda/router.ts) and whether that was on the GPU (`route: 'cpu'`,
   * `gpu: false`: the CPU reference, with copies). undefined on the CPU and before the first call.
   */
  get lastRoute(): RouteTaken | undefined {
    return this.device?.lastRoute;
  }
  /** The accelerator behind a CUDA context (for benchmarks and vendor baselines); undefined on the CPU. */
  get deviceBackend(): DeviceBackend | undefined {
    return this.device;
  }
  get disposed(): boolean {
    return this.#disposed;
  }
  dispose(): void {
    if (this.#disposed) return;
    for (const c of this.#captures) c.dispose();
    this.#captures.clear();
    this.#disposed = true;
    this.release();
  }

  // -------------------------------------------------------------------------------------------

  /** Runs one synchronous call with its host completion deferred (see the *Async methods). */
  protected async deferredCall<T>(call: () => T): Promise<T> {
    const device = this.device;
    if (!device?.deferHost || this.#afterDevice) return call();
    const after: (() => void)[] = [];
    this.#afterDevice = after;
    let pending: { result: T; done: Promise<void> };
    try {
      pending = device.deferHost(call);
    } finally {
      this.#afterDevice = undefined;
    }
    await pending.done;
    for (const step of after) step();
    return pending.result;
  }

  /** Runs `step` now, or after the device work of the *Async call being enqueued. */
  private afterDevice(step: () => void): void {
    if (this.#afterDevice) this.#afterDevice.push(step);
    else step();
  }

  /** Checks that this context can take the request (alive; host memory only on the CPU), before anything is copied. */
  private admit<R extends object>(op: OpName, request: R): R {
    this.checkAlive();
    if (!this.device) checkHostOnly(request, op);
    return request;
  }

  /**
   * Runs one validated request: row-major host batches of the LU family and of the solves'
   * right-hand sides copied to column-major and written back after the device (the op spec's
   * `copies`), and the call's integers returned where it has them.
   */
  private execute(op: OpName, validated: object, checked = false): unknown {
    const request = validated as Record<string, unknown>;
    const spec = OP_SPECS[op];
    const copied = spec.copies;
    // variableDevice batches are column-major by construction: nothing to copy.
    if (copied === undefined || isDeviceVariableRequest(request)) {
      this.run(op, request as never);
    } else {
      this.admit(op, request);
      const r = { ...request };
      // An optional batch not given (gesvd's u, vt) stays absent.
      const copies = copied.map((field) => {
        if (request[field] === undefined) return undefined;
        const copy = columnMajorCopy(request[field] as Batch<Storage>, field);
        r[field] = copy.batch;
        return copy;
      });
      this.run(op, r as never);
      const readOnly = (field: string): boolean => spec.readOnly?.includes(field) === true
        || (spec.readOnlyWhen?.[field] !== undefined && request[spec.readOnlyWhen[field]![0]] === spec.readOnlyWhen[field]![1]);
      copied.forEach((field, i) => {
        const copy = copies[i];
        if (copy !== undefined && !readOnly(field)) this.afterDevice(() => copy.writeBack());
      });
    }
    if (request.info === undefined) return undefined;
    if (checked) this.afterDevice(() => checkCall(op as InfoOp, this.hostInfo(request.info as IntStorage), request));
    return spec.returns === 'pivots' ? { info: request.info, ipiv: request.ipiv } : { info: request.info };
  }

  private run<K extends OpName>(op: K, request: Parameters<Backend<Storage, IntStorage>[K]>[0]): void {
    this.admit(op, request);
    // Sizes on the device (variableDevice): no host-side shape to test, copy or stage.
    if (isDeviceVariableRequest(request)) return this.runDeviceVariable(op, request);
    // Complex requests: on the CPU the host backend's complex code (the fast backend's kernels where
    // it has them, else the complex reference, cpu/complex/). A CUDA context runs them through its
    // backend (the reference on copies of device data, lastRoute 'cpu'); no capture can record them.
    const complex = isComplexRequest(op, request);
    if (complex && this.#capture) throw new MyriadError('UNSUPPORTED', `complex ${op} runs on the CPU reference and cannot be captured`, OP_SPECS[op].main);
    if (this.#capture) this.#capture.admit(op, request as unknown as Record<string, unknown>, this.device!.capturable!(op));
    if (writesNothing(op, request as unknown as Record<string, unknown>)) return;
    if (complex && !this.device) return hostComplexOp(this.ops.name, op)(request);
    (this.ops[op] as (r: typeof request) => void)(request);
  }

  /** A request on variableDevice batches: only a device backend that reads them runs it, never a capture. */
  private runDeviceVariable(op: OpName, request: DeviceVariableRequest): void {
    if (this.#capture) throw new MyriadError('UNSUPPORTED', `${op} on variableDevice batches allocates its tables per call and cannot be captured`, 'a');
    const device = this.device;
    if (!device?.runDeviceVariable) throw new MyriadError('UNSUPPORTED', `${this.describe()} cannot run variableDevice batches (a CUDA context of one GPU can)`, 'a');
    device.runDeviceVariable(op as DeviceVariableOp, request);
  }

  /** Integers live where the batch lives; decided when first needed (after validation). */
  private intsFor(args: unknown): IntAllocator {
    return (n) => {
      this.checkAlive();
      const a = (args as { a?: Batch<Storage> }).a;
      if (this.device && a !== undefined && (isDeviceVariable(a) || storagesOf(a).some((s) => isDeviceStorage(s)))) return this.device.allocInts(n);
      const ints = hostInts(n);
      freshInts.add(ints);
      return ints;
    };
  }

  /** A call's info on the host (read back, after the call, where it is device memory). */
  private hostInfo(info: IntStorage): Int32Array {
    return isDeviceStorage(info) ? this.needDevice('check').download(info) as Int32Array : info;
  }

  private needDevice(what: string): DeviceBackend {
    this.checkAlive();
    if (what !== 'copy') this.notCapturing(what);
    if (!this.device) throw new MyriadError('UNSUPPORTED', `the CPU context has no device memory; open({ backend: 'cuda' }) for ${what}`, what);
    return this.device;
  }

  private notCapturing(what: string): void {
    if (this.#capturing) throw new MyriadError('UNSUPPORTED', `${what} inside ctx.capture(): allocate, upload and wait outside it`, what);
  }

  private checkAlive(): void {
    if (this.#disposed) throw new MyriadError('DISPOSED', 'this context was disposed');
  }
}

/** `ctx.prepare`: one preparer per operation, taking the arguments of that operation. */
export type Preparers = {
  readonly [K in OpName]: (args: Parameters<Context[K]>[0]) => PreparedCall<ReturnType<Context[K]>>;
};

/** A CPU context rejects device memory before anything is read. */
function checkHostOnly(request: object, op: string): void {
  for (const [key, value] of Object.entries(request)) {
    if (isDeviceStorage(value)) throw new MyriadError('INVALID_ARGUMENT', `device memory given to a CPU context (${op})`, key);
    if (isDeviceVariable(value))
      throw new MyriadError('UNSUPPORTED', `the CPU backend cannot read a variableDevice batch (sizes and addresses on a GPU): open({ backend: 'cuda' }), or give host-known sizes as variable([...]) (${op})`, key);
    if (typeof value === 'object' && value !== null && 'kind' in value && (value.kind === 'strided' || value.kind === 'list' || value.kind === 'variable')) {
      if (storagesOf(value as Batch<Storage>).some((s) => isDeviceStorage(s)))
        throw new MyriadError('INVALID_ARGUMENT', `device memory given to a CPU context (${op})`, key);
    }
  }
}

/**
 * Host integer arrays this module allocated for a call and no call has seen yet: all zero. The mark
 * is taken at the array's first call (writesNothing), since the caller may hand the array back
 * later with its codes (an info for 2^31 empty matrices is 8 GiB of zero pages: not touched).
 */
const freshInts = new WeakSet<object>();

/**
 * The matrices an operation writes (its spec's written batches; info and ipiv aside): every one
 * must be empty for a call to write nothing. gels writes B as well as A: B is max(m, n) x nrhs, so
 * an empty A (m or n = 0) can come with a non-empty B, which LAPACK's dgels sets to zero.
 */
function writtenBatches(op: OpName): readonly string[] {
  const spec = OP_SPECS[op];
  return spec.writes.filter((name) => (spec.args as Readonly<Record<string, string>>)[name] === 'batch');
}

/** Whether every matrix of a batch is empty (0 x n or m x 0); false for a variable batch of mixed shapes. */
function allEmpty(b: Batch<Storage>): boolean {
  if (b.kind !== 'variable') return b.rows * b.cols === 0;
  const shape = uniformShape(b);
  return shape !== undefined && shape.rows * shape.cols === 0;
}

/**
 * A call whose written matrices are all empty (0 x n, m x 0, any count; writtenBatches): nothing to
 * compute but info, which is 0 for every matrix. Host info is set here at memset speed; device
 * info goes to the backend as usual.
 */
function writesNothing(op: OpName, r: Record<string, unknown>): boolean {
  const info = r.info as IntStorage | undefined;
  if (info !== undefined && isDeviceStorage(info)) return false;
  const written = writtenBatches(op).map((name) => r[name] as Batch<Storage>);
  const empty = written.every(allEmpty);
  const fresh = info !== undefined && freshInts.delete(info);
  if (empty && info !== undefined && !fresh) info.fill(0, 0, batchCount(written[0]!));
  return empty;
}

/** A new CPU context: the caller's own (its dispose() affects no other context). */
export function newCpuContext(): Context {
  return new Context('cpu', fastCpuBackend as unknown as Backend<Storage, IntStorage>);
}

/** A new context on the reference backend (src/cpu/), the oracle: open({ backend: 'reference' }). */
export function newReferenceContext(): Context {
  return new Context('cpu', cpuBackend as unknown as Backend<Storage, IntStorage>);
}

/**
 * The CPU context behind the top-level functions, shared by the whole process: its dispose() is
 * a no-op (`open()` returns a context of the caller's own instead).
 */
class SharedCpuContext extends Context {
  override dispose(): void {}
}
/** The CPU context behind the top-level functions: the fast backend (src/cpu-fast/). */
export const cpuContext: Context = new SharedCpuContext('cpu', fastCpuBackend as unknown as Backend<Storage, IntStorage>);
/** The reference backend (src/cpu/), shared: the oracle the tests compare every backend with. */
export const referenceContext: Context = new SharedCpuContext('cpu', cpuBackend as unknown as Backend<Storage, IntStorage>);


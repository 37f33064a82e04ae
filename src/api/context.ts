/**
 * A context binds the public API to one backend. Host batches work everywhere: on a CUDA context
 * they are copied to the GPU and back for each call, and the call returns when the results are
 * in place. Device batches (from `ctx.upload` / `ctx.alloc`) are the fast path: calls on them are
 * only enqueued in stream order and return at once; `await ctx.synchronize()` waits for them, and
 * `ctx.download` copies results back. Per-matrix `info` (and `ipiv`) live where `a` lives.
 */
import { storagesOf, type Batch } from '../core/batch.js';
import type { DType, FloatArray } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { Backend, OpName } from '../core/ops.js';
import { isDeviceStorage, type DeviceStorage, type IntStorage, type Storage } from '../core/storage.js';
import { cpuBackend } from '../cpu/backend.js';
import { describeHostBackend, fastCpuBackend } from '../cpu-fast/backend.js';
import * as arrays from './array.js';
import {
  hostInts, prepareCholeskySolve, prepareFactor, prepareGemm, prepareGesv, prepareGetrf, prepareGetrs,
  prepareSyrk, prepareTrsm, prepareTrtri,
  type CholeskySolveArgs, type FactorArgs, type GemmArgs, type GesvArgs, type GetrfArgs, type GetrsArgs,
  type IntAllocator, type SyrkArgs, type TrmmArgs, type TrsmArgs, type TrtriArgs,
} from './prepare.js';
import { columnMajorCopy } from './rowmajor.js';

export type BackendName = 'cpu' | 'cuda';

/** What a context needs of an accelerator backend beyond the operations themselves. */
export interface DeviceBackend extends Backend<Storage, IntStorage> {
  /** Device int32 memory for info/pivots of device-resident batches. */
  allocInts(length: number): DeviceStorage;
  upload(host: FloatArray | Int32Array): DeviceStorage;
  download(device: DeviceStorage): FloatArray | Int32Array;
  alloc(dtype: DType | 'int32', length: number): DeviceStorage;
  /** Device-to-device copy of a whole array (same dtype and length). */
  copy(src: DeviceStorage, dst: DeviceStorage): void;
  /** Runs `fn` between two events on the stream and returns the elapsed milliseconds (waits). */
  time(fn: () => void): number;
  synchronize(): Promise<void>;
  describe(): string;
  dispose(): void;
}

/** Integers live where the batch lives: device ints for a device `a`, host ints otherwise. */
export type IntsFor<S extends Storage> = S extends FloatArray ? Int32Array : IntStorage;
export interface InfoResult<S extends Storage> { info: IntsFor<S> }
export interface PivotResult<S extends Storage> extends InfoResult<S> { ipiv: IntsFor<S> }

export class Context {
  #disposed = false;

  constructor(
    /** 'cpu' or 'cuda'. */
    readonly backend: BackendName,
    private readonly ops: Backend<Storage, IntStorage>,
    private readonly device?: DeviceBackend,
  ) {}

  /** One line: the backend and, for CUDA, the GPU. */
  describe(): string {
    return this.device?.describe() ?? describeHostBackend(this.ops.name);
  }

  // -------------------------------------------------------------------------------------------
  // LAPACK level: BLAS/LAPACK names and semantics, in place, info per matrix.

  /** C := alpha op(A) op(B) + beta C for every matrix. beta = 0 never reads C. */
  gemm<S extends Storage>(args: GemmArgs<S>): void {
    this.run('gemm', prepareGemm(args));
  }
  /** B := alpha op(A)^-1 B (side 'left') or alpha B op(A)^-1 ('right'), A triangular. */
  trsm<S extends Storage>(args: TrsmArgs<S>): void {
    this.run('trsm', prepareTrsm(args, 'trsm'));
  }
  /** B := alpha op(A) B (side 'left') or alpha B op(A) ('right'), A triangular. */
  trmm<S extends Storage>(args: TrmmArgs<S>): void {
    this.run('trmm', prepareTrsm(args, 'trmm'));
  }
  /** C := alpha A A^T + beta C (trans 'N') or alpha A^T A + beta C ('T'); only `uplo` of C is written. */
  syrk<S extends Storage>(args: SyrkArgs<S>): void {
    this.run('syrk', prepareSyrk(args));
  }
  /** Cholesky A = L L^T ('lower') or U^T U ('upper') in place. info[i] = k > 0: minor k not positive definite. */
  potrf<S extends Storage>(args: FactorArgs<S>): InfoResult<S> {
    const r = prepareFactor(args, 'potrf', this.intsFor(args.a));
    this.run('potrf', r);
    return { info: r.info as IntsFor<S> };
  }
  /** Solves A X = B in place of B, with A's Cholesky factor from potrf. */
  potrs<S extends Storage>(args: CholeskySolveArgs<S>): InfoResult<S> {
    return this.withColumnMajorRhs(args, (a) => {
      const r = prepareCholeskySolve(a, 'potrs', this.intsFor(args.a));
      this.run('potrs', r);
      return { info: r.info as IntsFor<S> };
    });
  }
  /** Factors A (potrf) and solves A X = B; B is left unchanged for a matrix with info > 0. */
  posv<S extends Storage>(args: CholeskySolveArgs<S>): InfoResult<S> {
    return this.withColumnMajorRhs(args, (a) => {
      const r = prepareCholeskySolve(a, 'posv', this.intsFor(args.a));
      this.run('posv', r);
      return { info: r.info as IntsFor<S> };
    });
  }
  /**
   * LU with partial pivoting, P A = L U, in place. ipiv is 0-based: row j was swapped with row
   * ipiv[i * min(m, n) + j] (LAPACK's ipiv minus one). info[i] = k > 0: U(k,k) is exactly zero.
   */
  getrf<S extends Storage>(args: GetrfArgs<S>): PivotResult<S> {
    const a = columnMajorCopy(args.a, 'a');
    const r = prepareGetrf({ ...args, a: a.batch }, this.intsFor(args.a));
    this.run('getrf', r);
    a.writeBack();
    return { info: r.info as IntsFor<S>, ipiv: r.ipiv as IntsFor<S> };
  }
  /** Solves op(A) X = B with the LU factors and pivots from getrf. */
  getrs<S extends Storage>(args: GetrsArgs<S>): InfoResult<S> {
    const a = columnMajorCopy(args.a, 'a');
    return this.withColumnMajorRhs({ ...args, a: a.batch }, (x) => {
      const r = prepareGetrs(x, this.intsFor(args.a));
      this.run('getrs', r);
      return { info: r.info as IntsFor<S> };
    });
  }
  /** Factors A (getrf) and solves A X = B; B is left unchanged for a matrix with info > 0. */
  gesv<S extends Storage>(args: GesvArgs<S>): PivotResult<S> {
    const a = columnMajorCopy(args.a, 'a');
    const out = this.withColumnMajorRhs({ ...args, a: a.batch }, (x) => {
      const r = prepareGesv(x, this.intsFor(args.a));
      this.run('gesv', r);
      return { info: r.info as IntsFor<S>, ipiv: r.ipiv as IntsFor<S> };
    });
    a.writeBack();
    return out;
  }
  /** Inverse of a triangular matrix in place. info[i] = k > 0: A(k,k) is exactly zero. */
  trtri<S extends Storage>(args: TrtriArgs<S>): InfoResult<S> {
    const r = prepareTrtri(args, this.intsFor(args.a));
    this.run('trtri', r);
    return { info: r.info as IntsFor<S> };
  }
  /** U U^T ('upper') or L^T L ('lower') into the same triangle. */
  lauum<S extends Storage>(args: FactorArgs<S>): InfoResult<S> {
    const r = prepareFactor(args, 'lauum', this.intsFor(args.a));
    this.run('lauum', r);
    return { info: r.info as IntsFor<S> };
  }
  /** Inverse of an SPD matrix from its Cholesky factor (trtri then lauum), into the `uplo` triangle. */
  potri<S extends Storage>(args: FactorArgs<S>): InfoResult<S> {
    const r = prepareFactor(args, 'potri', this.intsFor(args.a));
    this.run('potri', r);
    return { info: r.info as IntsFor<S> };
  }

  // -------------------------------------------------------------------------------------------
  // Array level: stacks [..., m, n] in row-major order, new arrays out (see array.ts).

  matmul(a: arrays.NDArray, b: arrays.NDArray): arrays.NDArray { return arrays.matmul(this, a, b); }
  cholesky(a: arrays.NDArray, options?: arrays.CholeskyOptions): arrays.NDArray { return arrays.cholesky(this, a, options); }
  choleskyEx(a: arrays.NDArray, options?: arrays.CholeskyOptions): arrays.WithInfo<{ factor: arrays.NDArray }> { return arrays.choleskyEx(this, a, options); }
  lu(a: arrays.NDArray): arrays.LuResult { return arrays.lu(this, a); }
  luEx(a: arrays.NDArray): arrays.WithInfo<arrays.LuResult> { return arrays.luEx(this, a); }
  solve(a: arrays.NDArray, b: arrays.NDArray): arrays.NDArray { return arrays.solve(this, a, b); }
  solveEx(a: arrays.NDArray, b: arrays.NDArray): arrays.WithInfo<{ x: arrays.NDArray }> { return arrays.solveEx(this, a, b); }
  choleskySolve(factor: arrays.NDArray, b: arrays.NDArray, options?: arrays.CholeskyOptions): arrays.NDArray { return arrays.choleskySolve(this, factor, b, options); }
  inv(a: arrays.NDArray): arrays.NDArray { return arrays.inv(this, a); }
  invEx(a: arrays.NDArray): arrays.WithInfo<{ inverse: arrays.NDArray }> { return arrays.invEx(this, a); }
  triangularSolve(a: arrays.NDArray, b: arrays.NDArray, options?: arrays.TriangularSolveOptions): arrays.NDArray { return arrays.triangularSolve(this, a, b, options); }

  // -------------------------------------------------------------------------------------------
  // Device memory (CUDA contexts) and waiting

  /** Copies a host array to the device of this context (a CUDA context only). */
  upload(host: FloatArray | Int32Array): DeviceStorage {
    return this.needDevice('upload').upload(host);
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
    if (this.device) return this.device.time(fn);
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  }
  /** Resolves when all work enqueued so far has finished (at once on the CPU). */
  async synchronize(): Promise<void> {
    this.checkAlive();
    if (this.device) await this.device.synchronize();
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
    this.#disposed = true;
    this.device?.dispose();
  }

  // -------------------------------------------------------------------------------------------

  private run<K extends OpName>(op: K, request: Parameters<Backend<Storage, IntStorage>[K]>[0]): void {
    this.checkAlive();
    if (!this.device) checkHostOnly(request as object, op);
    (this.ops[op] as (r: typeof request) => void)(request);
  }

  private intsFor(a: Batch<Storage> | undefined): IntAllocator {
    const onDevice = a !== undefined && a !== null && typeof a === 'object' && 'kind' in a &&
      storagesOf(a).some((s) => isDeviceStorage(s));
    if (!onDevice || !this.device) return hostInts;
    const device = this.device;
    return (n) => device.allocInts(n);
  }

  /** Runs `fn` on args whose B is column-major (copying a row-major host B and writing it back). */
  private withColumnMajorRhs<T, A extends { b: Batch<Storage> }>(args: A, fn: (a: A) => T): T {
    if (typeof args !== 'object' || args === null) throw new MyriadError('INVALID_ARGUMENT', 'expected an object', 'args');
    if (args.b === undefined || args.b === null) throw new MyriadError('INVALID_ARGUMENT', 'is required', 'b');
    const b = columnMajorCopy(args.b, 'b');
    const out = fn({ ...args, b: b.batch });
    b.writeBack();
    return out;
  }

  private needDevice(what: string): DeviceBackend {
    this.checkAlive();
    if (!this.device) throw new MyriadError('UNSUPPORTED', `the CPU context has no device memory; open({ backend: 'cuda' }) for ${what}`, what);
    return this.device;
  }

  private checkAlive(): void {
    if (this.#disposed) throw new MyriadError('DISPOSED', 'this context was disposed');
  }
}

/** A CPU context rejects device memory before anything is read. */
function checkHostOnly(request: object, op: string): void {
  for (const [key, value] of Object.entries(request)) {
    if (isDeviceStorage(value)) throw new MyriadError('INVALID_ARGUMENT', `device memory given to a CPU context (${op})`, key);
    if (typeof value === 'object' && value !== null && 'kind' in value && (value.kind === 'strided' || value.kind === 'list' || value.kind === 'variable')) {
      if (storagesOf(value as Batch<Storage>).some((s) => isDeviceStorage(s)))
        throw new MyriadError('INVALID_ARGUMENT', `device memory given to a CPU context (${op})`, key);
    }
  }
}

/** The CPU context behind the top-level functions: the fast backend (src/cpu-fast/). */
export const cpuContext = new Context('cpu', fastCpuBackend as unknown as Backend<Storage, IntStorage>);
/** The reference backend (src/cpu/), the oracle: open({ backend: 'reference' }). */
export const referenceContext = new Context('cpu', cpuBackend as unknown as Backend<Storage, IntStorage>);


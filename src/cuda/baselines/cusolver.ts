/**
 * cuSOLVER dense (libcusolver) for benchmarks and as a test oracle: batched Cholesky
 * (cusolverDn?potrfBatched) and solve (cusolverDn?potrsBatched). Checks before native calls.
 */
import koffi from 'koffi';
import { MyriadError } from '../../core/errors.js';
import type { DType } from '../../core/dtype.js';
import type { Uplo } from '../../core/enums.js';
import type { CudaDevice } from '../runtime/device.js';
import { VendorError } from '../runtime/errors.js';
import { bindAll, optionalFunc } from '../runtime/ffi-cuda.js';
import { loadLibrary, LIBCUSOLVER } from '../runtime/libraries.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { cudaDevice } from './cublas.js';
import { checkInts, type BatchPointers } from './pointers.js';

type Handle = { readonly __cusolver: 'cusolverDnHandle_t' };
type Fn = (...args: unknown[]) => number;

koffi.pointer('cusolverDnHandle_t', koffi.opaque('cusolverDnContext'));

const POTRF = (t: string) =>
  `int cusolverDn${t}potrfBatched(cusolverDnHandle_t handle, int uplo, int n, CUdeviceptr Aarray, int lda, CUdeviceptr infoArray, int batchSize)`;
const POTRS = (t: string) =>
  `int cusolverDn${t}potrsBatched(cusolverDnHandle_t handle, int uplo, int n, int nrhs, CUdeviceptr Aarray, int lda, ` +
  `CUdeviceptr Barray, int ldb, CUdeviceptr info, int batchSize)`;

const PROTOTYPES = [
  'int cusolverDnCreate(_Out_ cusolverDnHandle_t *handle)',
  'int cusolverDnDestroy(cusolverDnHandle_t handle)',
  'int cusolverDnSetStream(cusolverDnHandle_t handle, CUstream streamId)',
  POTRF('D'), POTRF('S'), POTRS('D'), POTRS('S'),
];

const STATUS: Readonly<Record<number, string>> = {
  0: 'CUSOLVER_STATUS_SUCCESS', 1: 'CUSOLVER_STATUS_NOT_INITIALIZED', 2: 'CUSOLVER_STATUS_ALLOC_FAILED',
  3: 'CUSOLVER_STATUS_INVALID_VALUE', 4: 'CUSOLVER_STATUS_ARCH_MISMATCH', 5: 'CUSOLVER_STATUS_MAPPING_ERROR',
  6: 'CUSOLVER_STATUS_EXECUTION_FAILED', 7: 'CUSOLVER_STATUS_INTERNAL_ERROR', 8: 'CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED',
  9: 'CUSOLVER_STATUS_NOT_SUPPORTED', 10: 'CUSOLVER_STATUS_ZERO_PIVOT', 11: 'CUSOLVER_STATUS_INVALID_LICENSE',
};

let api: (Record<string, Fn> & { path: string; version: number }) | undefined;

function cusolverApi(): NonNullable<typeof api> {
  if (api) return api;
  const { lib, path } = loadLibrary(LIBCUSOLVER);
  const fns = bindAll(lib, PROTOTYPES) as Record<string, Fn>;
  const getVersion = optionalFunc(lib, 'int cusolverGetVersion(_Out_ int *version)');
  const v: [number] = [0];
  const version = getVersion && getVersion(v) === 0 ? v[0] : 0;
  api = Object.assign(fns, { path, version });
  return api;
}

function check(status: number, call: string): void {
  if (status !== 0) throw new VendorError(STATUS[status] ?? `CUSOLVER_STATUS_${status}`, status, call);
}

/** cublasFillMode_t: LOWER = 0, UPPER = 1. */
const FILL = (u: Uplo): number => (u === 'lower' ? 0 : 1);
const PREFIX = (dtype: DType): 'D' | 'S' => (dtype === 'float64' ? 'D' : 'S');

export class Cusolver {
  readonly path: string;
  readonly version: number;
  private handle: Handle | null;
  private readonly dev: CudaDevice;
  private readonly api: NonNullable<typeof api>;

  /** Creates a handle on `dev`'s context, bound to `dev`'s stream. */
  constructor(dev: GpuDevice) {
    this.dev = cudaDevice(dev);
    this.api = cusolverApi();
    this.path = this.api.path;
    this.version = this.api.version;
    this.dev.activate();
    const out: [Handle | null] = [null];
    check(this.api['cusolverDnCreate']!(out), 'cusolverDnCreate');
    this.handle = out[0];
    check(this.api['cusolverDnSetStream']!(this.handle, this.dev.streamHandle), 'cusolverDnSetStream');
  }

  private call(name: string, ...args: unknown[]): void {
    if (!this.handle) throw new MyriadError('DISPOSED', 'cuSOLVER handle used after dispose()');
    this.dev.activate();
    check(this.api[name]!(this.handle, ...args), name);
  }

  /** Cholesky of `count` n x n SPD matrices in place; `info` (int32, one per matrix) as LAPACK's. */
  potrfBatched(dtype: DType, uplo: Uplo, n: number, A: BatchPointers, lda: number, info: DeviceArray, count: number): void {
    A.checkFits(n, n, lda, count, 'A');
    if (A.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${A.source.dtype}`, 'A');
    checkInts(info, count, 'info');
    if (count === 0) return;
    this.call(`cusolverDn${PREFIX(dtype)}potrfBatched`, FILL(uplo), n, A.pointers.ptr, lda, info.ptr, count);
  }

  /**
   * Solves A_i X_i = B_i with potrf's factors. cuSOLVER supports nrhs = 1 only; `info` (int32,
   * one element) reports an invalid argument, as cuSOLVER's own.
   */
  potrsBatched(
    dtype: DType, uplo: Uplo, n: number, nrhs: number, A: BatchPointers, lda: number, B: BatchPointers, ldb: number,
    info: DeviceArray, count: number,
  ): void {
    if (nrhs !== 1) throw new MyriadError('UNSUPPORTED', `cusolverDnXpotrsBatched solves one right-hand side, got nrhs = ${nrhs}`, 'nrhs');
    A.checkFits(n, n, lda, count, 'A');
    B.checkFits(n, nrhs, ldb, count, 'B');
    for (const [p, name] of [[A, 'A'], [B, 'B']] as const) {
      if (p.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${p.source.dtype}`, name);
    }
    checkInts(info, 1, 'info');
    if (count === 0) return;
    this.call(`cusolverDn${PREFIX(dtype)}potrsBatched`, FILL(uplo), n, nrhs, A.pointers.ptr, lda, B.pointers.ptr, ldb, info.ptr, count);
  }

  dispose(): void {
    if (!this.handle) return;
    if (this.dev.context.alive) {
      this.dev.activate();
      this.api['cusolverDnDestroy']!(this.handle);
    }
    this.handle = null;
  }
}

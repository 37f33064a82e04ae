/**
 * cuSOLVER dense (libcusolver) for benchmarks and as a test oracle: batched Cholesky
 * (cusolverDn?potrfBatched) and solve (cusolverDn?potrsBatched); Jacobi eigenvalues and SVD of
 * matrices up to 32 x 32 (cusolverDn?syevjBatched, cusolverDn?gesvdjBatched); beyond 32, the
 * divide-and-conquer eigensolver one matrix per call (cusolverDn?syevd: the vendor's batched Jacobi
 * stops at 32) and the approximate strided-batched SVD (cusolverDn?gesvdaStridedBatched). Checks
 * before native calls.
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
koffi.pointer('syevjInfo_t', koffi.opaque('syevjInfo'));
koffi.pointer('gesvdjInfo_t', koffi.opaque('gesvdjInfo'));
type Params = { readonly __cusolver: 'syevjInfo_t' | 'gesvdjInfo_t' };

const POTRF = (t: string) =>
  `int cusolverDn${t}potrfBatched(cusolverDnHandle_t handle, int uplo, int n, CUdeviceptr Aarray, int lda, CUdeviceptr infoArray, int batchSize)`;
const POTRS = (t: string) =>
  `int cusolverDn${t}potrsBatched(cusolverDnHandle_t handle, int uplo, int n, int nrhs, CUdeviceptr Aarray, int lda, ` +
  `CUdeviceptr Barray, int ldb, CUdeviceptr info, int batchSize)`;

const SYEVJ_SIZE = (t: string) =>
  `int cusolverDn${t}syevjBatched_bufferSize(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr W, _Out_ int *lwork, syevjInfo_t params, int batchSize)';
const SYEVJ = (t: string) =>
  `int cusolverDn${t}syevjBatched(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr W, CUdeviceptr work, int lwork, CUdeviceptr info, syevjInfo_t params, int batchSize)';
const GESVDJ_SIZE = (t: string) =>
  `int cusolverDn${t}gesvdjBatched_bufferSize(cusolverDnHandle_t handle, int jobz, int m, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr S, CUdeviceptr U, int ldu, CUdeviceptr V, int ldv, _Out_ int *lwork, gesvdjInfo_t params, int batchSize)';
const GESVDJ = (t: string) =>
  `int cusolverDn${t}gesvdjBatched(cusolverDnHandle_t handle, int jobz, int m, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr S, CUdeviceptr U, int ldu, CUdeviceptr V, int ldv, CUdeviceptr work, int lwork, CUdeviceptr info, gesvdjInfo_t params, int batchSize)';

const SYEVD_SIZE = (t: string) =>
  `int cusolverDn${t}syevd_bufferSize(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, CUdeviceptr W, _Out_ int *lwork)`;
const SYEVD = (t: string) =>
  `int cusolverDn${t}syevd(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, CUdeviceptr W, CUdeviceptr work, int lwork, CUdeviceptr info)`;
const GESVDA_SIZE = (t: string) =>
  `int cusolverDn${t}gesvdaStridedBatched_bufferSize(cusolverDnHandle_t handle, int jobz, int rank, int m, int n, CUdeviceptr A, int lda, ` +
  'long long strideA, CUdeviceptr S, long long strideS, CUdeviceptr U, int ldu, long long strideU, CUdeviceptr V, int ldv, long long strideV, ' +
  '_Out_ int *lwork, int batchSize)';
const GESVDA = (t: string) =>
  `int cusolverDn${t}gesvdaStridedBatched(cusolverDnHandle_t handle, int jobz, int rank, int m, int n, CUdeviceptr A, int lda, ` +
  'long long strideA, CUdeviceptr S, long long strideS, CUdeviceptr U, int ldu, long long strideU, CUdeviceptr V, int ldv, long long strideV, ' +
  'CUdeviceptr work, int lwork, CUdeviceptr info, double *hRnrmF, int batchSize)';

const PROTOTYPES = [
  'int cusolverDnCreateSyevjInfo(_Out_ syevjInfo_t *info)',
  'int cusolverDnDestroySyevjInfo(syevjInfo_t info)',
  'int cusolverDnCreateGesvdjInfo(_Out_ gesvdjInfo_t *info)',
  'int cusolverDnDestroyGesvdjInfo(gesvdjInfo_t info)',
  SYEVJ_SIZE('D'), SYEVJ_SIZE('S'), SYEVJ('D'), SYEVJ('S'), GESVDJ_SIZE('D'), GESVDJ_SIZE('S'), GESVDJ('D'), GESVDJ('S'),
  'int cusolverDnCreate(_Out_ cusolverDnHandle_t *handle)',
  'int cusolverDnDestroy(cusolverDnHandle_t handle)',
  'int cusolverDnSetStream(cusolverDnHandle_t handle, CUstream streamId)',
  POTRF('D'), POTRF('S'), POTRS('D'), POTRS('S'),
  SYEVD_SIZE('D'), SYEVD_SIZE('S'), SYEVD('D'), SYEVD('S'), GESVDA_SIZE('D'), GESVDA_SIZE('S'), GESVDA('D'), GESVDA('S'),
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

  /**
   * cusolverDn?syevjBatched (n <= 32, default tolerance and sweeps) on `count` densely packed
   * n x n matrices A (overwritten by the eigenvectors) and W (n per matrix): the call, with its
   * parameters and workspace made here, once (not in the timed call).
   */
  syevjBatched(dtype: DType, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number): { run(): void; dispose(): void } {
    this.checkDense(dtype, A, n * n * count, 'A');
    this.checkDense(dtype, W, n * count, 'W');
    checkInts(info, count, 'info');
    const t = PREFIX(dtype);
    const params = this.create('cusolverDnCreateSyevjInfo');
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}syevjBatched_bufferSize`, 1, 0, n, A.ptr, n, W.ptr, lwork, params, count);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    return {
      run: () => this.call(`cusolverDn${t}syevjBatched`, 1, 0, n, A.ptr, n, W.ptr, work.ptr, lwork[0], info.ptr, params, count),
      dispose: () => { work.dispose(); this.api['cusolverDnDestroySyevjInfo']!(params); },
    };
  }

  /**
   * cusolverDn?gesvdjBatched (m, n <= 32) on densely packed m x n matrices A (overwritten): S
   * (min(m, n) per matrix), U (m x m) and V (n x n, not transposed), as syevjBatched.
   */
  gesvdjBatched(dtype: DType, m: number, n: number, A: DeviceArray, S: DeviceArray, U: DeviceArray, V: DeviceArray, info: DeviceArray, count: number): { run(): void; dispose(): void } {
    this.checkDense(dtype, A, m * n * count, 'A');
    this.checkDense(dtype, S, Math.min(m, n) * count, 'S');
    this.checkDense(dtype, U, m * m * count, 'U');
    this.checkDense(dtype, V, n * n * count, 'V');
    checkInts(info, count, 'info');
    const t = PREFIX(dtype);
    const params = this.create('cusolverDnCreateGesvdjInfo');
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}gesvdjBatched_bufferSize`, 1, m, n, A.ptr, m, S.ptr, U.ptr, m, V.ptr, n, lwork, params, count);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    return {
      run: () => this.call(`cusolverDn${t}gesvdjBatched`, 1, m, n, A.ptr, m, S.ptr, U.ptr, m, V.ptr, n, work.ptr, lwork[0], info.ptr, params, count),
      dispose: () => { work.dispose(); this.api['cusolverDnDestroyGesvdjInfo']!(params); },
    };
  }

  /**
   * cusolverDn?syevd (eigenvalues and vectors, lower) on each of `count` densely packed n x n
   * matrices A in turn (what users of the vendor do beyond syevjBatched's n <= 32): W (n per
   * matrix), info (one per matrix); one workspace, sized once (not in the timed call).
   */
  syevdLoop(dtype: DType, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number): { run(): void; dispose(): void } {
    this.checkDense(dtype, A, n * n * count, 'A');
    this.checkDense(dtype, W, n * count, 'W');
    checkInts(info, count, 'info');
    const t = PREFIX(dtype);
    const el = BigInt(dtype === 'float64' ? 8 : 4);
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}syevd_bufferSize`, 1, 0, n, A.ptr, n, W.ptr, lwork);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    return {
      run: () => {
        for (let i = 0; i < count; i++) {
          this.call(`cusolverDn${t}syevd`, 1, 0, n, A.ptr + BigInt(i * n * n) * el, n, W.ptr + BigInt(i * n) * el, work.ptr, lwork[0], info.ptr + BigInt(4 * i));
        }
      },
      dispose: () => work.dispose(),
    };
  }

  /**
   * cusolverDn?gesvdaStridedBatched (rank n, vectors; m >= n) on densely packed m x n matrices A
   * (read only): S (n per matrix), U (m x n), V (n x n, not transposed), info (one per matrix).
   * The call writes each matrix's residual norm to host memory, so it returns synchronised.
   */
  gesvdaStridedBatched(dtype: DType, m: number, n: number, A: DeviceArray, S: DeviceArray, U: DeviceArray, V: DeviceArray, info: DeviceArray, count: number): { run(): void; dispose(): void } {
    if (m < n) throw new MyriadError('UNSUPPORTED', `gesvdaStridedBatched takes m >= n, got ${m} x ${n}`, 'A');
    this.checkDense(dtype, A, m * n * count, 'A');
    this.checkDense(dtype, S, n * count, 'S');
    this.checkDense(dtype, U, m * n * count, 'U');
    this.checkDense(dtype, V, n * n * count, 'V');
    checkInts(info, count, 'info');
    const t = PREFIX(dtype);
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}gesvdaStridedBatched_bufferSize`, 1, n, m, n, A.ptr, m, m * n, S.ptr, n, U.ptr, m, m * n, V.ptr, n, n * n, lwork, count);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    const residuals = new Float64Array(count);
    return {
      run: () => this.call(`cusolverDn${t}gesvdaStridedBatched`, 1, n, m, n, A.ptr, m, m * n, S.ptr, n, U.ptr, m, m * n, V.ptr, n, n * n,
        work.ptr, lwork[0], info.ptr, residuals, count),
      dispose: () => work.dispose(),
    };
  }

  private checkDense(dtype: DType, x: DeviceArray, length: number, name: string): void {
    if (x.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${x.dtype}`, name);
    if (x.length < length) throw new MyriadError('BOUNDS', `holds ${x.length} elements but ${length} are needed`, name);
  }

  private create(fn: string): Params {
    const out: [Params | null] = [null];
    this.dev.activate();
    check(this.api[fn]!(out), fn);
    return out[0]!;
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

/**
 * cuSOLVER dense (libcusolver) for benchmarks and as a test oracle: batched Cholesky
 * (cusolverDn?potrfBatched) and solve (cusolverDn?potrsBatched), real and complex (z, c); Jacobi eigenvalues and SVD of
 * matrices up to 32 x 32 (cusolverDn?syevjBatched, cusolverDn?gesvdjBatched; complex:
 * cusolverDn{Z,C}heevjBatched, cusolverDn{Z,C}gesvdjBatched, bound where the library has them); the single-matrix
 * (whole-GPU) Cholesky and LU with their solves (cusolverDn?potrf/potrs, cusolverDn?getrf/getrs),
 * looped over a batch of large matrices; Q of one matrix's Householder reflectors
 * (cusolverDn?orgqr) and its product with C (cusolverDn?ormqr), which have no batched form, looped
 * over the matrices; the QR of one tall matrix (cusolverDn?geqrf + orgqr, the TSQR benchmark's
 * vendor); beyond 32, the divide-and-conquer eigensolver one matrix per call
 * (cusolverDn?syevd: the vendor's batched Jacobi stops at 32), the dense SVD one matrix per call
 * (cusolverDn?gesvd) and the approximate strided-batched SVD (cusolverDn?gesvdaStridedBatched); where the library has it (cuSOLVER 11.7, CUDA 12.6 on), the
 * batched eigensolver of any n (cusolverDnXsyevBatched). Checks before native calls.
 */
import koffi from 'koffi';
import { MyriadError } from '../../core/errors.js';
import type { ComplexDType, DType } from '../../core/dtype.js';
import { complexInfo, dtypeInfo } from '../../core/dtype-table.js';
import type { Side, Uplo } from '../../core/enums.js';
import type { Op } from '../../core/ops.js';
import type { CudaDevice } from '../runtime/device.js';
import { VendorError } from '../runtime/errors.js';
import { bindAll, bindOptional, optionalFunc } from '../runtime/ffi-cuda.js';
import { loadLibrary, missingOnce, LIBCUSOLVER } from '../runtime/libraries.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { cudaDevice } from './cublas.js';
import { checkComplexFits, checkInts, type BatchPointers } from './pointers.js';

type Handle = { readonly __cusolver: 'cusolverDnHandle_t' };
type Fn = (...args: unknown[]) => number;

koffi.pointer('cusolverDnHandle_t', koffi.opaque('cusolverDnContext'));
koffi.pointer('syevjInfo_t', koffi.opaque('syevjInfo'));
koffi.pointer('gesvdjInfo_t', koffi.opaque('gesvdjInfo'));
koffi.pointer('cusolverDnParams_t', koffi.opaque('cusolverDnParams'));
type DnParams = { readonly __cusolver: 'cusolverDnParams_t' };
type Params = { readonly __cusolver: 'syevjInfo_t' | 'gesvdjInfo_t' };

const POTRF = (t: string) =>
  `int cusolverDn${t}potrfBatched(cusolverDnHandle_t handle, int uplo, int n, CUdeviceptr Aarray, int lda, CUdeviceptr infoArray, int batchSize)`;
const POTRS = (t: string) =>
  `int cusolverDn${t}potrsBatched(cusolverDnHandle_t handle, int uplo, int n, int nrhs, CUdeviceptr Aarray, int lda, ` +
  `CUdeviceptr Barray, int ldb, CUdeviceptr info, int batchSize)`;

/**
 * The complex batched Cholesky and solve, as the real ones (POTRF, POTRS above):
 * cusolverDn{Z,C}potrfBatched(handle, cublasFillMode_t uplo, int n, T *Aarray[], int lda,
 * int *infoArray, int batchSize) and cusolverDn{Z,C}potrsBatched(handle, uplo, int n, int nrhs
 * (1 only), T *Aarray[], int lda, T *Barray[], int ldb, int *info (device, one), int batchSize);
 * T cuDoubleComplex (Z) or cuFloatComplex (C), A Hermitian. Bound where the library has them.
 */
export const COMPLEX_CHOLESKY_PROTOTYPES: readonly string[] = [POTRF('Z'), POTRF('C'), POTRS('Z'), POTRS('C')];

/** `routine` syevj (real: D, S) or heevj (complex: Z, C), whose parameters are the same. */
const SYEVJ_SIZE = (t: string, routine = 'syevj') =>
  `int cusolverDn${t}${routine}Batched_bufferSize(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr W, _Out_ int *lwork, syevjInfo_t params, int batchSize)';
const SYEVJ = (t: string, routine = 'syevj') =>
  `int cusolverDn${t}${routine}Batched(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr W, CUdeviceptr work, int lwork, CUdeviceptr info, syevjInfo_t params, int batchSize)';
const GESVDJ_SIZE = (t: string) =>
  `int cusolverDn${t}gesvdjBatched_bufferSize(cusolverDnHandle_t handle, int jobz, int m, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr S, CUdeviceptr U, int ldu, CUdeviceptr V, int ldv, _Out_ int *lwork, gesvdjInfo_t params, int batchSize)';
const GESVDJ = (t: string) =>
  `int cusolverDn${t}gesvdjBatched(cusolverDnHandle_t handle, int jobz, int m, int n, CUdeviceptr A, int lda, ` +
  'CUdeviceptr S, CUdeviceptr U, int ldu, CUdeviceptr V, int ldv, CUdeviceptr work, int lwork, CUdeviceptr info, gesvdjInfo_t params, int batchSize)';

/**
 * The complex batched Jacobi routines (n <= 32), as the real ones (SYEVJ, GESVDJ above) with T
 * cuDoubleComplex (Z) or cuFloatComplex (C) and R double or float:
 * cusolverDn{Z,C}heevjBatched(_bufferSize)(handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
 * T *A, int lda, R *W, [int *lwork | T *work, int lwork, int *info], syevjInfo_t params, int batchSize)
 * and cusolverDn{Z,C}gesvdjBatched(_bufferSize)(handle, jobz, int m, int n, T *A, int lda, R *S, T *U,
 * int ldu, T *V, int ldv, [int *lwork | T *work, int lwork, int *info], gesvdjInfo_t params, int batchSize);
 * lwork counts complex elements. Bound where the library has them.
 */
export const COMPLEX_JACOBI_PROTOTYPES: readonly string[] = [
  SYEVJ_SIZE('Z', 'heevj'), SYEVJ_SIZE('C', 'heevj'), SYEVJ('Z', 'heevj'), SYEVJ('C', 'heevj'),
  GESVDJ_SIZE('Z'), GESVDJ_SIZE('C'), GESVDJ('Z'), GESVDJ('C'),
];

/** The largest order cuSOLVER's batched Jacobi routines take (syevj, heevj, gesvdj: m, n <= 32). */
export const VENDOR_JACOBI_MAX = 32;

// The legacy single-matrix API (cusolverDn?potrf ...): the routines PyTorch's torch.linalg uses for one matrix.
const DENSE = (t: string) => [
  `int cusolverDn${t}potrf_bufferSize(cusolverDnHandle_t handle, int uplo, int n, CUdeviceptr A, int lda, _Out_ int *lwork)`,
  `int cusolverDn${t}potrf(cusolverDnHandle_t handle, int uplo, int n, CUdeviceptr A, int lda, CUdeviceptr work, int lwork, CUdeviceptr info)`,
  `int cusolverDn${t}potrs(cusolverDnHandle_t handle, int uplo, int n, int nrhs, CUdeviceptr A, int lda, CUdeviceptr B, int ldb, CUdeviceptr info)`,
  `int cusolverDn${t}getrf_bufferSize(cusolverDnHandle_t handle, int m, int n, CUdeviceptr A, int lda, _Out_ int *lwork)`,
  `int cusolverDn${t}getrf(cusolverDnHandle_t handle, int m, int n, CUdeviceptr A, int lda, CUdeviceptr work, CUdeviceptr ipiv, CUdeviceptr info)`,
  `int cusolverDn${t}getrs(cusolverDnHandle_t handle, int trans, int n, int nrhs, CUdeviceptr A, int lda, CUdeviceptr ipiv, CUdeviceptr B, int ldb, CUdeviceptr info)`,
];
const ORGQR_SIZE = (t: string) =>
  `int cusolverDn${t}orgqr_bufferSize(cusolverDnHandle_t handle, int m, int n, int k, CUdeviceptr A, int lda, CUdeviceptr tau, _Out_ int *lwork)`;
const ORGQR = (t: string) =>
  `int cusolverDn${t}orgqr(cusolverDnHandle_t handle, int m, int n, int k, CUdeviceptr A, int lda, CUdeviceptr tau, CUdeviceptr work, int lwork, CUdeviceptr info)`;
const GEQRF_SIZE = (t: string) =>
  `int cusolverDn${t}geqrf_bufferSize(cusolverDnHandle_t handle, int m, int n, CUdeviceptr A, int lda, _Out_ int *lwork)`;
const GEQRF = (t: string) =>
  `int cusolverDn${t}geqrf(cusolverDnHandle_t handle, int m, int n, CUdeviceptr A, int lda, CUdeviceptr tau, CUdeviceptr work, int lwork, CUdeviceptr info)`;
const ORMQR_SIZE = (t: string) =>
  `int cusolverDn${t}ormqr_bufferSize(cusolverDnHandle_t handle, int side, int trans, int m, int n, int k, CUdeviceptr A, int lda, ` +
  'CUdeviceptr tau, CUdeviceptr C, int ldc, _Out_ int *lwork)';
const ORMQR = (t: string) =>
  `int cusolverDn${t}ormqr(cusolverDnHandle_t handle, int side, int trans, int m, int n, int k, CUdeviceptr A, int lda, ` +
  'CUdeviceptr tau, CUdeviceptr C, int ldc, CUdeviceptr work, int lwork, CUdeviceptr devInfo)';
const SYEVD_SIZE = (t: string) =>
  `int cusolverDn${t}syevd_bufferSize(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, CUdeviceptr W, _Out_ int *lwork)`;
const SYEVD = (t: string) =>
  `int cusolverDn${t}syevd(cusolverDnHandle_t handle, int jobz, int uplo, int n, CUdeviceptr A, int lda, CUdeviceptr W, CUdeviceptr work, int lwork, CUdeviceptr info)`;
/**
 * The dense SVD of one matrix (m >= n only): cusolverDn?gesvd_bufferSize(handle, int m, int n, int *lwork) and
 * cusolverDn?gesvd(handle, signed char jobu, signed char jobvt, int m, int n, T *A (destroyed), int lda, T *S,
 * T *U, int ldu, T *VT, int ldvt, T *work, int lwork, T *rwork (min(m, n) - 1: the unconverged superdiagonal),
 * int *devInfo); jobu / jobvt 'A', 'S', 'O' or 'N' as LAPACK's ASCII letters.
 */
const GESVD_SIZE = (t: string) => `int cusolverDn${t}gesvd_bufferSize(cusolverDnHandle_t handle, int m, int n, _Out_ int *lwork)`;
const GESVD = (t: string) =>
  `int cusolverDn${t}gesvd(cusolverDnHandle_t handle, int8_t jobu, int8_t jobvt, int m, int n, CUdeviceptr A, int lda, CUdeviceptr S, ` +
  'CUdeviceptr U, int ldu, CUdeviceptr VT, int ldvt, CUdeviceptr work, int lwork, CUdeviceptr rwork, CUdeviceptr info)';
const GESVDA_SIZE = (t: string) =>
  `int cusolverDn${t}gesvdaStridedBatched_bufferSize(cusolverDnHandle_t handle, int jobz, int rank, int m, int n, CUdeviceptr A, int lda, ` +
  'long long strideA, CUdeviceptr S, long long strideS, CUdeviceptr U, int ldu, long long strideU, CUdeviceptr V, int ldv, long long strideV, ' +
  '_Out_ int *lwork, int batchSize)';
const GESVDA = (t: string) =>
  `int cusolverDn${t}gesvdaStridedBatched(cusolverDnHandle_t handle, int jobz, int rank, int m, int n, CUdeviceptr A, int lda, ` +
  'long long strideA, CUdeviceptr S, long long strideS, CUdeviceptr U, int ldu, long long strideU, CUdeviceptr V, int ldv, long long strideV, ' +
  'CUdeviceptr work, int lwork, CUdeviceptr info, double *hRnrmF, int batchSize)';

const PROTOTYPES = [
  ...DENSE('D'), ...DENSE('S'),
  'int cusolverDnCreateSyevjInfo(_Out_ syevjInfo_t *info)',
  'int cusolverDnDestroySyevjInfo(syevjInfo_t info)',
  'int cusolverDnCreateGesvdjInfo(_Out_ gesvdjInfo_t *info)',
  'int cusolverDnDestroyGesvdjInfo(gesvdjInfo_t info)',
  SYEVJ_SIZE('D'), SYEVJ_SIZE('S'), SYEVJ('D'), SYEVJ('S'), GESVDJ_SIZE('D'), GESVDJ_SIZE('S'), GESVDJ('D'), GESVDJ('S'),
  'int cusolverDnCreate(_Out_ cusolverDnHandle_t *handle)',
  'int cusolverDnDestroy(cusolverDnHandle_t handle)',
  'int cusolverDnSetStream(cusolverDnHandle_t handle, CUstream streamId)',
  POTRF('D'), POTRF('S'), POTRS('D'), POTRS('S'), ORGQR_SIZE('D'), ORGQR_SIZE('S'), ORGQR('D'), ORGQR('S'),
  ORMQR_SIZE('D'), ORMQR_SIZE('S'), ORMQR('D'), ORMQR('S'), GEQRF_SIZE('D'), GEQRF_SIZE('S'), GEQRF('D'), GEQRF('S'),
  SYEVD_SIZE('D'), SYEVD_SIZE('S'), SYEVD('D'), SYEVD('S'), GESVD_SIZE('D'), GESVD_SIZE('S'), GESVD('D'), GESVD('S'), GESVDA_SIZE('D'), GESVDA_SIZE('S'), GESVDA('D'), GESVDA('S'),
];

/** The 64-bit API's batched eigensolver (any n), bound only where the library has it. */
const XSYEV_BATCHED = [
  'int cusolverDnCreateParams(_Out_ cusolverDnParams_t *params)',
  'int cusolverDnDestroyParams(cusolverDnParams_t params)',
  'int cusolverDnXsyevBatched_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params, int jobz, int uplo, int64_t n, ' +
    'int dataTypeA, CUdeviceptr A, int64_t lda, int dataTypeW, CUdeviceptr W, int computeType, _Out_ size_t *workDevice, ' +
    '_Out_ size_t *workHost, int64_t batchSize)',
  'int cusolverDnXsyevBatched(cusolverDnHandle_t handle, cusolverDnParams_t params, int jobz, int uplo, int64_t n, ' +
    'int dataTypeA, CUdeviceptr A, int64_t lda, int dataTypeW, CUdeviceptr W, int computeType, CUdeviceptr bufferOnDevice, ' +
    'size_t workDevice, void *bufferOnHost, size_t workHost, CUdeviceptr info, int64_t batchSize)',
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
  const fns = { ...bindAll(lib, PROTOTYPES), ...bindOptional(lib, [...XSYEV_BATCHED, ...COMPLEX_CHOLESKY_PROTOTYPES, ...COMPLEX_JACOBI_PROTOTYPES]) } as Record<string, Fn>;
  const getVersion = optionalFunc(lib, 'int cusolverGetVersion(_Out_ int *version)');
  const v: [number] = [0];
  const version = getVersion && getVersion(v) === 0 ? v[0] : 0;
  api = Object.assign(fns, { path, version });
  return api;
}

/** Why libcusolver cannot be used here (not found, or a routine missing), or undefined where it loads; tried once. */
export const cusolverMissing = missingOnce(() => cusolverApi());

/** Whether the cuSOLVER here has cusolverDn{Z,C}potrfBatched for `dtype` (bound optionally; false where the library does not load). */
export function cusolverHasComplexPotrfBatched(dtype: ComplexDType): boolean {
  return cusolverMissing() === undefined && cusolverApi()[`cusolverDn${COMPLEX_PREFIX(dtype)}potrfBatched`] !== undefined;
}

/** Whether the cuSOLVER here has cusolverDnXsyevBatched (false where it does not load). */
export function cusolverHasSyevBatched(): boolean {
  return cusolverMissing() === undefined && cusolverApi()['cusolverDnXsyevBatched'] !== undefined;
}

function check(status: number, call: string): void {
  if (status !== 0) throw new VendorError(STATUS[status] ?? `CUSOLVER_STATUS_${status}`, status, call);
}

/** Throws unless every size is an int32 >= 0 and the orders (all but `count`) at most VENDOR_JACOBI_MAX. */
function checkJacobiSizes(routine: string, sizes: readonly [number, string][]): void {
  for (const [v, name] of sizes) {
    if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `must be an int32 >= 0, got ${v}`, name);
    if (name !== 'count' && v > VENDOR_JACOBI_MAX) throw new MyriadError('UNSUPPORTED', `${routine} takes orders up to ${VENDOR_JACOBI_MAX}, got ${name} = ${v}`, name);
  }
}

/** cublasFillMode_t: LOWER = 0, UPPER = 1. */
const FILL = (u: Uplo): number => (u === 'lower' ? 0 : 1);
/** The routine's precision letter (cusolverDnDpotrfBatched, cusolverDnSpotrfBatched). */
const PREFIX = (dtype: DType): string => dtypeInfo(dtype).letter.toUpperCase();
/** The complex routine's precision letter (cusolverDnZpotrfBatched, cusolverDnCpotrfBatched). */
const COMPLEX_PREFIX = (dtype: ComplexDType): string => complexInfo(dtype).letter.toUpperCase();
/** cublasSideMode_t: LEFT = 0, RIGHT = 1; cublasOperation_t: N = 0, T = 1. */
const SIDE = (s: Side): number => (s === 'left' ? 0 : 1);
const OPERATION = (t: Op): number => (t === 'N' ? 0 : 1);

export class Cusolver {
  readonly path: string;
  readonly version: number;
  private handle: Handle | null;
  protected readonly dev: CudaDevice;
  protected readonly api: NonNullable<typeof api>;
  /** The stream the handle is bound to (the device's stream when it was last called). */
  private stream: unknown;

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
    this.stream = this.dev.streamHandle;
  }

  /** Calls routine `name` with the handle first, on the device's stream (the handle follows it where it changed). */
  protected call(name: string, ...args: unknown[]): void {
    if (!this.handle) throw new MyriadError('DISPOSED', 'cuSOLVER handle used after dispose()');
    this.dev.activate();
    const stream = this.dev.streamHandle;
    if (stream !== this.stream) {
      check(this.api['cusolverDnSetStream']!(this.handle, stream), 'cusolverDnSetStream');
      this.stream = stream;
    }
    check(this.api[name]!(this.handle, ...args), name);
  }

  /** Calls routine `name`, which takes no handle (cusolverDnCreateParams ...), in the device's context. */
  protected callPlain(name: string, ...args: unknown[]): void {
    this.dev.activate();
    check(this.api[name]!(...args), name);
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
   * Complex Cholesky (A = L L^H for 'lower') of `count` n x n Hermitian positive definite matrices
   * in place (cusolverDn{Z,C}potrfBatched): A's pointers address pairs in an array of the parts'
   * dtype (lda in complex elements); `info` (int32, one per matrix) as LAPACK's.
   */
  complexPotrfBatched(dtype: ComplexDType, uplo: Uplo, n: number, A: BatchPointers, lda: number, info: DeviceArray, count: number): void {
    checkComplexFits(A, dtype, n, n, lda, count, 'A');
    checkInts(info, count, 'info');
    if (count === 0 || n === 0) return;
    this.callComplex(`cusolverDn${COMPLEX_PREFIX(dtype)}potrfBatched`, FILL(uplo), n, A.pointers.ptr, lda, info.ptr, count);
  }

  /**
   * Solves A_i X_i = B_i with complexPotrfBatched's factors (cusolverDn{Z,C}potrsBatched). cuSOLVER
   * takes nrhs = 1 only; `info` (int32, one element, device) reports an invalid argument.
   */
  complexPotrsBatched(
    dtype: ComplexDType, uplo: Uplo, n: number, nrhs: number, A: BatchPointers, lda: number, B: BatchPointers, ldb: number,
    info: DeviceArray, count: number,
  ): void {
    if (nrhs !== 1) throw new MyriadError('UNSUPPORTED', `cusolverDn${COMPLEX_PREFIX(dtype)}potrsBatched solves one right-hand side, got nrhs = ${nrhs}`, 'nrhs');
    checkComplexFits(A, dtype, n, n, lda, count, 'A');
    checkComplexFits(B, dtype, n, nrhs, ldb, count, 'B');
    checkInts(info, 1, 'info');
    if (count === 0 || n === 0) return;
    this.callComplex(`cusolverDn${COMPLEX_PREFIX(dtype)}potrsBatched`, FILL(uplo), n, nrhs, A.pointers.ptr, lda, B.pointers.ptr, ldb, info.ptr, count);
  }

  /** `call` for a routine bound where the library has it: NOT_SUPPORTED (a row's note, not a crash) where it does not. */
  protected callComplex(name: string, ...args: unknown[]): void {
    if (this.api[name] === undefined) throw new VendorError('CUSOLVER_STATUS_NOT_SUPPORTED', 9, `${name} (not in this cuSOLVER)`);
    this.call(name, ...args);
  }

  /**
   * cusolverDn?syevjBatched (n <= 32, default tolerance and sweeps) on `count` densely packed
   * n x n matrices A (overwritten: by the eigenvectors where `vectors`) and W (n per matrix): the
   * call, with its parameters and workspace made here, once (not in the timed call).
   */
  syevjBatched(dtype: DType, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number, vectors = true): { run(): void; dispose(): void } {
    this.checkDense(dtype, A, n * n * count, 'A');
    this.checkDense(dtype, W, n * count, 'W');
    checkInts(info, count, 'info');
    const t = PREFIX(dtype);
    const jobz = vectors ? 1 : 0;   // CUSOLVER_EIG_MODE_VECTOR / NOVECTOR
    const params = this.create('cusolverDnCreateSyevjInfo');
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}syevjBatched_bufferSize`, jobz, 0, n, A.ptr, n, W.ptr, lwork, params, count);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    return {
      run: () => this.call(`cusolverDn${t}syevjBatched`, jobz, 0, n, A.ptr, n, W.ptr, work.ptr, lwork[0], info.ptr, params, count),
      dispose: () => { work.dispose(); this.api['cusolverDnDestroySyevjInfo']!(params); },
    };
  }

  /**
   * cusolverDn?ormqr on `count` densely packed matrices (A: r x k reflectors, r = m on the left, n on
   * the right; tau: k; C: m x n, overwritten), one call per matrix (cuSOLVER has no batched ormqr);
   * the workspace sized and made here, once. `info` (int32, one element) is shared by the calls.
   */
  ormqrLooped(
    dtype: DType, side: Side, trans: Op, m: number, n: number, k: number, A: DeviceArray, tau: DeviceArray, C: DeviceArray,
    info: DeviceArray, count: number,
  ): { run(): void; dispose(): void } {
    const r = side === 'left' ? m : n;
    this.checkDense(dtype, A, r * k * count, 'A');
    this.checkDense(dtype, tau, k * count, 'tau');
    this.checkDense(dtype, C, m * n * count, 'C');
    checkInts(info, 1, 'info');
    const t = PREFIX(dtype);
    const bytes = BigInt(dtypeInfo(dtype).bytes);
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}ormqr_bufferSize`, SIDE(side), OPERATION(trans), m, n, k, A.ptr, r, tau.ptr, C.ptr, m, lwork);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    return {
      run: () => {
        for (let i = 0; i < count; i++) {
          this.call(`cusolverDn${t}ormqr`, SIDE(side), OPERATION(trans), m, n, k, A.ptr + BigInt(i * r * k) * bytes, r,
            tau.ptr + BigInt(i * k) * bytes, C.ptr + BigInt(i * m * n) * bytes, m, work.ptr, lwork[0], info.ptr);
        }
      },
      dispose: () => work.dispose(),
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
   * cusolverDn{Z,C}heevjBatched (n <= 32; eigenvalues and vectors, lower; default tolerance and
   * sweeps) on `count` densely packed n x n Hermitian matrices A, pairs in an array of the parts'
   * dtype (overwritten by the eigenvectors), W real (n per matrix), info (one per matrix): the
   * call, with its parameters and workspace made here, once (not in the timed call). Every check
   * before a native call; a library without the routine: NOT_SUPPORTED.
   */
  complexHeevjBatched(dtype: ComplexDType, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number): { run(): void; dispose(): void } {
    const name = `cusolverDn${COMPLEX_PREFIX(dtype)}heevjBatched`;
    checkJacobiSizes(name, [[n, 'n'], [count, 'count']]);
    this.checkComplexDense(dtype, A, n * n * count, 'A');
    this.checkDense(complexInfo(dtype).real, W, n * count, 'W');
    checkInts(info, count, 'info');
    if (n === 0 || count === 0) return { run: () => {}, dispose: () => {} };
    return this.complexJacobi(dtype, name, 'SyevjInfo',
      (lwork, params) => [1, 0, n, A.ptr, n, W.ptr, lwork, params, count],
      (work, lwork, params) => [1, 0, n, A.ptr, n, W.ptr, work, lwork, info.ptr, params, count]);
  }

  /**
   * cusolverDn{Z,C}gesvdjBatched (m, n <= 32; U and V; default tolerance and sweeps) on `count`
   * densely packed m x n complex matrices A (pairs in an array of the parts' dtype; destroyed): S
   * real (min(m, n) per matrix), U (m x m), V (n x n, not V^H), info (one per matrix), as
   * complexHeevjBatched.
   */
  complexGesvdjBatched(
    dtype: ComplexDType, m: number, n: number, A: DeviceArray, S: DeviceArray, U: DeviceArray, V: DeviceArray, info: DeviceArray, count: number,
  ): { run(): void; dispose(): void } {
    const name = `cusolverDn${COMPLEX_PREFIX(dtype)}gesvdjBatched`;
    checkJacobiSizes(name, [[m, 'm'], [n, 'n'], [count, 'count']]);
    this.checkComplexDense(dtype, A, m * n * count, 'A');
    this.checkDense(complexInfo(dtype).real, S, Math.min(m, n) * count, 'S');
    this.checkComplexDense(dtype, U, m * m * count, 'U');
    this.checkComplexDense(dtype, V, n * n * count, 'V');
    checkInts(info, count, 'info');
    if (m === 0 || n === 0 || count === 0) return { run: () => {}, dispose: () => {} };
    return this.complexJacobi(dtype, name, 'GesvdjInfo',
      (lwork, params) => [1, m, n, A.ptr, m, S.ptr, U.ptr, m, V.ptr, n, lwork, params, count],
      (work, lwork, params) => [1, m, n, A.ptr, m, S.ptr, U.ptr, m, V.ptr, n, work, lwork, info.ptr, params, count]);
  }

  /**
   * The complex Jacobi routine `name` (and `name`_bufferSize), its arguments after the handle from
   * `sizeArgs` and `runArgs`: the parameters (`info`: SyevjInfo or GesvdjInfo) and the workspace
   * made here; lwork counts complex elements, two floats of the parts' dtype each.
   */
  private complexJacobi(
    dtype: ComplexDType, name: string, info: 'SyevjInfo' | 'GesvdjInfo',
    sizeArgs: (lwork: [number], params: Params) => unknown[], runArgs: (work: bigint, lwork: number, params: Params) => unknown[],
  ): { run(): void; dispose(): void } {
    if (this.api[name] === undefined || this.api[`${name}_bufferSize`] === undefined) {
      throw new VendorError('CUSOLVER_STATUS_NOT_SUPPORTED', 9, `${name} (not in this cuSOLVER)`);
    }
    const params = this.create(`cusolverDnCreate${info}`);
    const destroy = (): void => { this.api[`cusolverDnDestroy${info}`]!(params); };
    let work: DeviceArray;
    const lwork: [number] = [0];
    try {
      this.call(`${name}_bufferSize`, ...sizeArgs(lwork, params));
      work = this.dev.alloc(complexInfo(dtype).real, 2 * Math.max(1, lwork[0]));
    } catch (e) {
      destroy();
      throw e;
    }
    return {
      run: () => this.call(name, ...runArgs(work.ptr, lwork[0], params)),
      dispose: () => { work.dispose(); destroy(); },
    };
  }

  /**
   * The single-matrix routines on each of `count` densely packed n x n matrices of A in turn (and
   * B, n x nrhs each, for the solves): `factor` is potrf ('lower') or getrf, `solve` adds potrs or
   * getrs (no transpose) after it. Workspace, pivots and info are made here, once, not in the
   * timed call; info is one int32 per matrix.
   */
  dense(
    dtype: DType, op: 'potrf' | 'getrf', n: number, A: DeviceArray, count: number, solve?: { B: DeviceArray; nrhs: number },
  ): { run(): void; dispose(): void } {
    this.checkDense(dtype, A, n * n * count, 'A');
    if (solve) this.checkDense(dtype, solve.B, n * solve.nrhs * count, 'B');
    const t = PREFIX(dtype);
    const bytes = dtypeInfo(dtype).bytes;
    const lwork: [number] = [0];
    if (op === 'potrf') this.call(`cusolverDn${t}potrf_bufferSize`, FILL('lower'), n, A.ptr, n, lwork);
    else this.call(`cusolverDn${t}getrf_bufferSize`, n, n, A.ptr, n, lwork);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    const info = this.dev.alloc('int32', Math.max(1, count));
    const ipiv = this.dev.alloc('int32', Math.max(1, n * count));
    const matrix = (i: number): bigint => A.ptr + BigInt(i * n * n * bytes);
    const rhs = (i: number): bigint => solve!.B.ptr + BigInt(i * n * solve!.nrhs * bytes);
    const infoOf = (i: number): bigint => info.ptr + BigInt(4 * i);
    const pivotsOf = (i: number): bigint => ipiv.ptr + BigInt(4 * n * i);
    return {
      run: () => {
        for (let i = 0; i < count; i++) {
          if (op === 'potrf') {
            this.call(`cusolverDn${t}potrf`, FILL('lower'), n, matrix(i), n, work.ptr, lwork[0], infoOf(i));
            if (solve) this.call(`cusolverDn${t}potrs`, FILL('lower'), n, solve.nrhs, matrix(i), n, rhs(i), n, infoOf(i));
          } else {
            this.call(`cusolverDn${t}getrf`, n, n, matrix(i), n, work.ptr, pivotsOf(i), infoOf(i));
            if (solve) this.call(`cusolverDn${t}getrs`, 0, n, solve.nrhs, matrix(i), n, pivotsOf(i), rhs(i), n, infoOf(i));
          }
        }
      },
      dispose: () => { work.dispose(); info.dispose(); ipiv.dispose(); },
    };
  }

  /**
   * cusolverDn?orgqr (one matrix per call) over `count` m x n matrices of A (ld m, `strideA` apart,
   * k reflectors each, tau k per matrix, `strideTau` apart): Q over each A. cuSOLVER has no batched
   * orgqr; this is the loop a user would write. Workspace and info made here, once.
   */
  orgqrLooped(dtype: DType, m: number, n: number, k: number, A: DeviceArray, strideA: number, tau: DeviceArray, strideTau: number, count: number): { run(): void; dispose(): void } {
    for (const [v, name] of [[m, 'm'], [n, 'n'], [k, 'k'], [count, 'count'], [strideA, 'strideA'], [strideTau, 'strideTau']] as const) {
      if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `must be an int32 >= 0, got ${v}`, name);
    }
    if (!(m >= n && n >= k)) throw new MyriadError('INVALID_ARGUMENT', `orgqr needs m >= n >= k, got ${m}, ${n}, ${k}`, 'k');
    if (strideA < m * n || strideTau < k) throw new MyriadError('LAYOUT', 'matrices overlap', 'strideA');
    this.checkDense(dtype, A, count === 0 ? 0 : (count - 1) * strideA + m * n, 'A');
    this.checkDense(dtype, tau, count === 0 ? 0 : (count - 1) * strideTau + k, 'tau');
    const t = PREFIX(dtype);
    const bytes = BigInt(dtypeInfo(dtype).bytes);
    const lwork: [number] = [0];
    if (count > 0 && n > 0) this.call(`cusolverDn${t}orgqr_bufferSize`, m, n, k, A.ptr, Math.max(1, m), tau.ptr, lwork);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    const info = this.dev.alloc('int32', 1);
    return {
      run: () => {
        if (n === 0) return;
        for (let i = 0; i < count; i++) {
          this.call(`cusolverDn${t}orgqr`, m, n, k, A.ptr + BigInt(i * strideA) * bytes, Math.max(1, m), tau.ptr + BigInt(i * strideTau) * bytes, work.ptr, lwork[0], info.ptr);
        }
      },
      dispose: () => { work.dispose(); info.dispose(); },
    };
  }

  /**
   * cusolverDn?geqrf then cusolverDn?orgqr on one m x n matrix A (m >= n, leading dimension lda):
   * the reduced Q over A, the vendor's QR of one tall matrix (geqrf leaves R in A's upper
   * triangle, which orgqr then overwrites: the pair is what a user runs for Q and R, less the copy
   * of R). Workspace (the larger of the two), tau and info made here, once.
   */
  geqrfOrgqr(dtype: DType, m: number, n: number, A: DeviceArray, lda: number): { run(): void; dispose(): void } {
    for (const [v, name] of [[m, 'm'], [n, 'n'], [lda, 'lda']] as const) {
      if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `must be an int32 >= 0, got ${v}`, name);
    }
    if (m < n) throw new MyriadError('INVALID_ARGUMENT', `geqrf + orgqr needs m >= n, got ${m} x ${n}`, 'm');
    if (lda < Math.max(1, m)) throw new MyriadError('INVALID_ARGUMENT', `lda = ${lda} is less than m = ${m}`, 'lda');
    this.checkDense(dtype, A, n === 0 ? 0 : lda * (n - 1) + m, 'A');
    const t = PREFIX(dtype);
    const tau = this.dev.alloc(dtype, Math.max(1, n));
    const info = this.dev.alloc('int32', 1);
    const lq: [number] = [0], lo: [number] = [0];
    if (n > 0) {
      this.call(`cusolverDn${t}geqrf_bufferSize`, m, n, A.ptr, lda, lq);
      this.call(`cusolverDn${t}orgqr_bufferSize`, m, n, n, A.ptr, lda, tau.ptr, lo);
    }
    const lwork = Math.max(1, lq[0], lo[0]);
    const work = this.dev.alloc(dtype, lwork);
    return {
      run: () => {
        if (n === 0) return;
        this.call(`cusolverDn${t}geqrf`, m, n, A.ptr, lda, tau.ptr, work.ptr, lwork, info.ptr);
        this.call(`cusolverDn${t}orgqr`, m, n, n, A.ptr, lda, tau.ptr, work.ptr, lwork, info.ptr);
      },
      dispose: () => { work.dispose(); tau.dispose(); info.dispose(); },
    };
  }

  /**
   * cusolverDn?getrf on one m x n matrix A (leading dimension lda, overwritten by L and U):
   * `ipiv` (int32, min(m, n), 1-based as LAPACK) and `info` (int32, one); the workspace is made
   * here, once (not in the timed call).
   */
  getrf(dtype: DType, m: number, n: number, A: DeviceArray, lda: number, ipiv: DeviceArray, info: DeviceArray): { run(): void; dispose(): void } {
    if (lda < Math.max(1, m)) throw new MyriadError('INVALID_ARGUMENT', `lda = ${lda} is less than m = ${m}`, 'lda');
    this.checkDense(dtype, A, n === 0 ? 0 : lda * (n - 1) + m, 'A');
    checkInts(ipiv, Math.min(m, n), 'ipiv');
    checkInts(info, 1, 'info');
    const t = PREFIX(dtype);
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}getrf_bufferSize`, m, n, A.ptr, lda, lwork);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    return {
      run: () => this.call(`cusolverDn${t}getrf`, m, n, A.ptr, lda, work.ptr, ipiv.ptr, info.ptr),
      dispose: () => work.dispose(),
    };
  }

  /**
   * cusolverDn?syevd (eigenvalues, and vectors where `vectors`; lower) on each of `count` densely
   * packed n x n matrices A in turn (what users of the vendor do beyond syevjBatched's n <= 32): W
   * (n per matrix), info (one per matrix); one workspace, sized once (not in the timed call).
   */
  syevdLoop(dtype: DType, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number, vectors = true): { run(): void; dispose(): void } {
    this.checkDense(dtype, A, n * n * count, 'A');
    this.checkDense(dtype, W, n * count, 'W');
    checkInts(info, count, 'info');
    const t = PREFIX(dtype);
    const jobz = vectors ? 1 : 0;   // CUSOLVER_EIG_MODE_VECTOR / NOVECTOR
    const el = BigInt(dtypeInfo(dtype).bytes);
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}syevd_bufferSize`, jobz, 0, n, A.ptr, n, W.ptr, lwork);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    return {
      run: () => {
        for (let i = 0; i < count; i++) {
          this.call(`cusolverDn${t}syevd`, jobz, 0, n, A.ptr + BigInt(i * n * n) * el, n, W.ptr + BigInt(i * n) * el, work.ptr, lwork[0], info.ptr + BigInt(4 * i));
        }
      },
      dispose: () => work.dispose(),
    };
  }

  /**
   * cusolverDn?gesvd (jobu = jobvt = 'S': the thin U and VT) on each of `count` densely packed m x n
   * matrices A in turn (m >= n; A destroyed): S (n per matrix), U (m x n), VT (n x n), info (one
   * per matrix); one workspace, sized once (not in the timed call). The vendor's dense SVD of one
   * matrix, what users of the vendor run beyond gesvdjBatched's 32.
   */
  gesvdLoop(dtype: DType, m: number, n: number, A: DeviceArray, S: DeviceArray, U: DeviceArray, VT: DeviceArray, info: DeviceArray, count: number): { run(): void; dispose(): void } {
    if (m < n) throw new MyriadError('UNSUPPORTED', `cusolverDn?gesvd takes m >= n, got ${m} x ${n}`, 'A');
    this.checkDense(dtype, A, m * n * count, 'A');
    this.checkDense(dtype, S, n * count, 'S');
    this.checkDense(dtype, U, m * n * count, 'U');
    this.checkDense(dtype, VT, n * n * count, 'VT');
    checkInts(info, count, 'info');
    const t = PREFIX(dtype);
    const el = BigInt(dtypeInfo(dtype).bytes);
    const lwork: [number] = [0];
    this.call(`cusolverDn${t}gesvd_bufferSize`, m, n, lwork);
    const work = this.dev.alloc(dtype, Math.max(1, lwork[0]));
    const rwork = this.dev.alloc(dtype, Math.max(1, n));
    const thin = 'S'.charCodeAt(0);   // jobu = jobvt = 'S'
    return {
      run: () => {
        for (let i = 0; i < count; i++) {
          const [a, s, u, vt] = [A.ptr + BigInt(i * m * n) * el, S.ptr + BigInt(i * n) * el, U.ptr + BigInt(i * m * n) * el, VT.ptr + BigInt(i * n * n) * el];
          this.call(`cusolverDn${t}gesvd`, thin, thin, m, n, a, m, s, u, m, vt, n, work.ptr, lwork[0], rwork.ptr, info.ptr + BigInt(4 * i));
        }
      },
      dispose: () => { work.dispose(); rwork.dispose(); },
    };
  }

  /** Whether this cuSOLVER has cusolverDnXsyevBatched (11.7, CUDA 12.6 on). */
  get hasSyevBatched(): boolean {
    return this.api['cusolverDnXsyevBatched'] !== undefined;
  }

  /**
   * cusolverDnXsyevBatched (eigenvalues and, unless `vectors` is false, vectors; lower; any n) on
   * `count` densely packed n x n matrices A: W (n per matrix), info (one per matrix); workspace sized
   * once (not in the timed call).
   */
  syevBatched(dtype: DType, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number, vectors = true): { run(): void; dispose(): void } {
    this.checkDense(dtype, A, n * n * count, 'A');
    this.checkDense(dtype, W, n * count, 'W');
    const type = dtypeInfo(dtype).cuda.dataType;
    return this.xsyevBatched(type, type, n, A, W, info, count, vectors);
  }

  /**
   * cusolverDnXsyevBatched on `count` densely packed n x n Hermitian matrices (complex128 or
   * complex64 pairs in an array of the parts' dtype; lower), W real of the parts' dtype: the
   * vendor's batched Hermitian eigensolver of any n, as syevBatched.
   */
  complexSyevBatched(dtype: ComplexDType, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number, vectors = true): { run(): void; dispose(): void } {
    this.checkComplexDense(dtype, A, n * n * count, 'A');
    const real = complexInfo(dtype).real;
    this.checkDense(real, W, n * count, 'W');
    return this.xsyevBatched(complexInfo(dtype).spelling.dataType, dtypeInfo(real).cuda.dataType, n, A, W, info, count, vectors);
  }

  /** cusolverDnXsyevBatched with A of CUDA data type `typeA` (also the compute type) and W of `typeW`. */
  private xsyevBatched(typeA: number, typeW: number, n: number, A: DeviceArray, W: DeviceArray, info: DeviceArray, count: number, vectors: boolean): { run(): void; dispose(): void } {
    if (!this.hasSyevBatched) throw new VendorError('CUSOLVER_STATUS_NOT_SUPPORTED', 9, 'cusolverDnXsyevBatched (not in this cuSOLVER)');
    checkInts(info, count, 'info');
    const params: [DnParams | null] = [null];
    this.dev.activate();
    check(this.api['cusolverDnCreateParams']!(params), 'cusolverDnCreateParams');
    const p = params[0]!;
    const device: [number | bigint] = [0], host: [number | bigint] = [0];
    const jobz = vectors ? 1 : 0;   // CUSOLVER_EIG_MODE_VECTOR / NOVECTOR
    try {
      this.call('cusolverDnXsyevBatched_bufferSize', p, jobz, 0, n, typeA, A.ptr, n, typeW, W.ptr, typeA, device, host, count);
    } catch (e) {
      this.api['cusolverDnDestroyParams']!(p);
      throw e;
    }
    const deviceBytes = Number(device[0]), hostBytes = Number(host[0]);
    const work = this.dev.alloc('float64', Math.max(1, Math.ceil(deviceBytes / 8)));
    const hostWork = hostBytes > 0 ? Buffer.alloc(hostBytes) : null;
    return {
      run: () => this.call('cusolverDnXsyevBatched', p, jobz, 0, n, typeA, A.ptr, n, typeW, W.ptr, typeA, work.ptr, deviceBytes, hostWork, hostBytes, info.ptr, count),
      dispose: () => {
        work.dispose();
        if (this.dev.context.alive) { this.dev.activate(); this.api['cusolverDnDestroyParams']!(p); }
      },
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

  /** Throws unless `x` holds `elements` complex elements: interleaved pairs in an array of the parts' dtype, aligned to a pair. */
  private checkComplexDense(dtype: ComplexDType, x: DeviceArray, elements: number, name: string): void {
    const { real, bytes, spelling } = complexInfo(dtype);
    if (x.dtype !== real) throw new MyriadError('DTYPE', `${dtype} pairs live in a ${real} array, got ${x.dtype}`, name);
    if (x.ptr % BigInt(bytes) !== 0n) throw new MyriadError('LAYOUT', `the array's address is not aligned to a ${bytes}-byte ${spelling.cuda}`, name);
    if (x.length < 2 * elements) throw new MyriadError('BOUNDS', `holds ${x.length} floats but ${2 * elements} are needed (${elements} complex elements)`, name);
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

/**
 * cuBLAS (libcublas) for benchmarks and as a test oracle: strided-batched and single GEMM,
 * batched LU (getrf), solve (getrs) and inverse (getri), batched inverse of n <= 32 (matinv),
 * batched triangular solve (trsm), batched Householder QR (geqrf), batched least squares (gels, m >= n);
 * complex (z, c) batched LU, solve and triangular solve on interleaved pairs. Column-major, pointer mode host (alpha/beta on the host).
 * Every call checks shapes and bounds before it reaches native code.
 */
import koffi from 'koffi';
import { MyriadError } from '../../core/errors.js';
import { allocate, type ComplexDType, type DType, type FloatArray } from '../../core/dtype.js';
import { complexInfo, dtypeInfo } from '../../core/dtype-table.js';
import type { ComplexOp, ComplexScalar } from '../../core/op-specs.js';
import type { Diag, Side, Trans, Uplo } from '../../core/enums.js';
import { CudaDevice } from '../runtime/device.js';
import { VendorError } from '../runtime/errors.js';
import { bindAll, bindOptional, optionalFunc } from '../runtime/ffi-cuda.js';
import { loadLibrary, missingOnce, LIBCUBLAS } from '../runtime/libraries.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { checkComplexFits, checkInts, checkStrided, type BatchPointers } from './pointers.js';

type Handle = { readonly __cublas: 'cublasHandle_t' };
type Fn = (...args: unknown[]) => number;

koffi.pointer('cublasHandle_t', koffi.opaque('cublasContext'));

const GEMM = (t: string, s: string) =>
  `int cublas${t}gemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n, int k, const ${s} *alpha, ` +
  `CUdeviceptr A, int lda, CUdeviceptr B, int ldb, const ${s} *beta, CUdeviceptr C, int ldc)`;
const GEMM_STRIDED = (t: string, s: string) =>
  `int cublas${t}gemmStridedBatched(cublasHandle_t handle, int transa, int transb, int m, int n, int k, const ${s} *alpha, ` +
  `CUdeviceptr A, int lda, long long strideA, CUdeviceptr B, int ldb, long long strideB, const ${s} *beta, ` +
  `CUdeviceptr C, int ldc, long long strideC, int batchCount)`;
const GEMM_BATCHED = (t: string, s: string) =>
  `int cublas${t}gemmBatched(cublasHandle_t handle, int transa, int transb, int m, int n, int k, const ${s} *alpha, ` +
  `CUdeviceptr Aarray, int lda, CUdeviceptr Barray, int ldb, const ${s} *beta, CUdeviceptr Carray, int ldc, int batchCount)`;
const GETRF = (t: string) =>
  `int cublas${t}getrfBatched(cublasHandle_t handle, int n, CUdeviceptr Aarray, int lda, CUdeviceptr PivotArray, CUdeviceptr infoArray, int batchSize)`;
const GETRS = (t: string) =>
  `int cublas${t}getrsBatched(cublasHandle_t handle, int trans, int n, int nrhs, CUdeviceptr Aarray, int lda, CUdeviceptr devIpiv, ` +
  `CUdeviceptr Barray, int ldb, _Out_ int *info, int batchSize)`;

const GETRI = (t: string) =>
  `int cublas${t}getriBatched(cublasHandle_t handle, int n, CUdeviceptr Aarray, int lda, CUdeviceptr PivotArray, ` +
  `CUdeviceptr Carray, int ldc, CUdeviceptr infoArray, int batchSize)`;
const MATINV = (t: string) =>
  `int cublas${t}matinvBatched(cublasHandle_t handle, int n, CUdeviceptr A, int lda, CUdeviceptr Ainv, int lda_inv, CUdeviceptr info, int batchSize)`;

const TRSM = (t: string, s: string) =>
  `int cublas${t}trsmBatched(cublasHandle_t handle, int side, int uplo, int trans, int diag, int m, int n, const ${s} *alpha, ` +
  `CUdeviceptr Aarray, int lda, CUdeviceptr Barray, int ldb, int batchCount)`;

const GEQRF = (t: string) =>
  `int cublas${t}geqrfBatched(cublasHandle_t handle, int m, int n, CUdeviceptr Aarray, int lda, CUdeviceptr TauArray, _Out_ int *info, int batchSize)`;

const GELS = (t: string) =>
  `int cublas${t}gelsBatched(cublasHandle_t handle, int trans, int m, int n, int nrhs, CUdeviceptr Aarray, int lda, ` +
  `CUdeviceptr Carray, int ldc, _Out_ int *info, CUdeviceptr devInfoArray, int batchSize)`;

// Complex (cuDoubleComplex / cuFloatComplex, interleaved pairs): alpha and beta point at a pair of the part type.
const COMPLEX_GEMMS = (t: string, s: string): string[] => [GEMM(t, s), GEMM_STRIDED(t, s), GEMM_BATCHED(t, s)];

/**
 * The complex batched LU, solve and triangular solve, as the real ones (GETRF, GETRS, TRSM above):
 * cublas{Z,C}getrfBatched(handle, int n, T *const Aarray[], int lda, int *PivotArray, int *infoArray,
 * int batchSize), cublas{Z,C}getrsBatched(handle, cublasOperation_t trans, int n, int nrhs,
 * const T *const Aarray[], int lda, const int *devIpiv, T *const Barray[], int ldb, int *info (host),
 * int batchSize), cublas{Z,C}trsmBatched(handle, side, uplo, trans, diag, int m, int n, const T *alpha
 * (host: a pair of the part type), const T *const A[], int lda, T *const B[], int ldb, int batchCount);
 * T cuDoubleComplex (Z) or cuFloatComplex (C). Bound where the library has them (a missing one
 * costs its benchmark row alone).
 */
export const COMPLEX_SOLVE_PROTOTYPES: readonly string[] = [
  GETRF('Z'), GETRF('C'), GETRS('Z'), GETRS('C'), TRSM('Z', 'double'), TRSM('C', 'float'), GEQRF('Z'), GEQRF('C'),
];

/**
 * Grouped batched GEMM (cuBLAS 12.5 on): groups of products, one shape per group, in one call.
 * The shape, leading dimension, transpose and scalar arrays are host arrays of group_count entries;
 * Aarray, Barray and Carray device arrays of one address per product, group after group.
 */
const GEMM_GROUPED = (t: string, s: string) =>
  `int cublas${t}gemmGroupedBatched(cublasHandle_t handle, const int *transa_array, const int *transb_array, ` +
  `const int *m_array, const int *n_array, const int *k_array, const ${s} *alpha_array, CUdeviceptr Aarray, const int *lda_array, ` +
  `CUdeviceptr Barray, const int *ldb_array, const ${s} *beta_array, CUdeviceptr Carray, const int *ldc_array, ` +
  'int group_count, const int *group_size)';

const PROTOTYPES = [
  'int cublasCreate_v2(_Out_ cublasHandle_t *handle)',
  'int cublasDestroy_v2(cublasHandle_t handle)',
  'int cublasSetStream_v2(cublasHandle_t handle, CUstream streamId)',
  'int cublasGetVersion_v2(cublasHandle_t handle, _Out_ int *version)',
  GEMM('D', 'double'), GEMM('S', 'float'),
  GEMM_STRIDED('D', 'double'), GEMM_STRIDED('S', 'float'), GEMM_BATCHED('D', 'double'), GEMM_BATCHED('S', 'float'),
  GETRF('D'), GETRF('S'), GETRS('D'), GETRS('S'), GETRI('D'), GETRI('S'), MATINV('D'), MATINV('S'),
  TRSM('D', 'double'), TRSM('S', 'float'), GEQRF('D'), GEQRF('S'), GELS('D'), GELS('S'),
  ...COMPLEX_GEMMS('Z', 'double'), ...COMPLEX_GEMMS('C', 'float'),
];

const STATUS: Readonly<Record<number, string>> = {
  0: 'CUBLAS_STATUS_SUCCESS', 1: 'CUBLAS_STATUS_NOT_INITIALIZED', 3: 'CUBLAS_STATUS_ALLOC_FAILED',
  7: 'CUBLAS_STATUS_INVALID_VALUE', 8: 'CUBLAS_STATUS_ARCH_MISMATCH', 11: 'CUBLAS_STATUS_MAPPING_ERROR',
  13: 'CUBLAS_STATUS_EXECUTION_FAILED', 14: 'CUBLAS_STATUS_INTERNAL_ERROR', 15: 'CUBLAS_STATUS_NOT_SUPPORTED',
  16: 'CUBLAS_STATUS_LICENSE_ERROR',
};

let api: (Record<string, Fn> & { path: string; statusName: ((s: number) => string) | undefined }) | undefined;

function cublasApi(): NonNullable<typeof api> {
  if (api) return api;
  const { lib, path } = loadLibrary(LIBCUBLAS);
  const fns = { ...bindAll(lib, PROTOTYPES), ...bindOptional(lib, [GEMM_GROUPED('D', 'double'), GEMM_GROUPED('S', 'float'), ...COMPLEX_SOLVE_PROTOTYPES]) } as Record<string, Fn>;
  const statusName = optionalFunc(lib, 'const char *cublasGetStatusName(int status)') as ((s: number) => string) | undefined;
  api = Object.assign(fns, { path, statusName });
  return api;
}

/** Why libcublas cannot be used here (not found, or a routine missing), or undefined where it loads; tried once. */
export const cublasMissing = missingOnce(() => cublasApi());

/** Whether the cuBLAS here has cublas?gemmGroupedBatched (12.5 on; false where it does not load). */
export function cublasHasGrouped(): boolean {
  return cublasMissing() === undefined && cublasApi()['cublasDgemmGroupedBatched'] !== undefined && cublasApi()['cublasSgemmGroupedBatched'] !== undefined;
}

function check(status: number, call: string): void {
  if (status === 0) return;
  const name = STATUS[status] ?? cublasApi().statusName?.(status) ?? `CUBLAS_STATUS_${status}`;
  throw new VendorError(name, status, call);
}

const OP = (t: Trans): number => (t === 'N' ? 0 : 1);
/** cublasOperation_t with the conjugate transpose: N = 0, T = 1, C = 2. */
const COMPLEX_OP = (t: ComplexOp): number => (t === 'N' ? 0 : t === 'T' ? 1 : 2);
/** The complex routine's precision letter (cublasZgetrfBatched, cublasCgetrfBatched). */
const COMPLEX_PREFIX = (dtype: ComplexDType): string => complexInfo(dtype).letter.toUpperCase();
/** The routine's precision letter (cublasDgemm, cublasSgemm). */
const PREFIX = (dtype: DType): string => dtypeInfo(dtype).letter.toUpperCase();
/** A host scalar of `dtype` (alpha, beta: cuBLAS reads them through a pointer). */
function scalar(dtype: DType, v: number): FloatArray {
  const s = allocate(dtype, 1);
  s[0] = v;
  return s;
}

/** The device as the runtime implements it: vendor calls need its context current. */
export function cudaDevice(dev: GpuDevice): CudaDevice {
  if (!(dev instanceof CudaDevice)) throw new MyriadError('INVALID_ARGUMENT', 'vendor libraries need a device from openDevice()', 'dev');
  return dev;
}

export class Cublas {
  readonly path: string;
  readonly version: number;
  private handle: Handle | null;
  protected readonly dev: CudaDevice;
  private readonly api: NonNullable<typeof api>;
  /** The stream the handle is bound to (the device's stream when it was last called). */
  private stream: unknown;

  /** Creates a handle on `dev`'s context, bound to `dev`'s stream. */
  constructor(dev: GpuDevice) {
    this.dev = cudaDevice(dev);
    this.api = cublasApi();
    this.path = this.api.path;
    this.dev.activate();
    const out: [Handle | null] = [null];
    check(this.api['cublasCreate_v2']!(out), 'cublasCreate_v2');
    this.handle = out[0];
    check(this.api['cublasSetStream_v2']!(this.handle, this.dev.streamHandle), 'cublasSetStream_v2');
    this.stream = this.dev.streamHandle;
    const v: [number] = [0];
    check(this.api['cublasGetVersion_v2']!(this.handle, v), 'cublasGetVersion_v2');
    this.version = v[0];
  }

  /**
   * Calls routine `name` with the handle first, on the device's stream (the handle follows it
   * where it changed: cublasSetStream also returns the handle to cuBLAS's own workspace).
   */
  protected call(name: string, ...args: unknown[]): void {
    if (!this.handle) throw new MyriadError('DISPOSED', 'cuBLAS handle used after dispose()');
    this.dev.activate();
    const stream = this.dev.streamHandle;
    if (stream !== this.stream) {
      check(this.api['cublasSetStream_v2']!(this.handle, stream), 'cublasSetStream_v2');
      this.stream = stream;
    }
    check(this.api[name]!(this.handle, ...args), name);
  }

  /** C_i = alpha op(A_i) op(B_i) + beta C_i for i < count (cublas?gemmStridedBatched). */
  gemmStridedBatched(
    dtype: DType, transA: Trans, transB: Trans, m: number, n: number, k: number,
    alpha: number, A: DeviceArray, lda: number, strideA: number,
    B: DeviceArray, ldb: number, strideB: number,
    beta: number, C: DeviceArray, ldc: number, strideC: number, count: number,
  ): void {
    checkGemm(dtype, transA, transB, m, n, k, A, lda, strideA, B, ldb, strideB, C, ldc, strideC, count);
    if (count === 0 || m === 0 || n === 0) return;
    this.call(`cublas${PREFIX(dtype)}gemmStridedBatched`, OP(transA), OP(transB), m, n, k, scalar(dtype, alpha),
      A.ptr, lda, strideA, B.ptr, ldb, strideB, scalar(dtype, beta), C.ptr, ldc, strideC, count);
  }

  /** C = alpha op(A) op(B) + beta C (cublas?gemm_v2). */
  gemm(
    dtype: DType, transA: Trans, transB: Trans, m: number, n: number, k: number,
    alpha: number, A: DeviceArray, lda: number, B: DeviceArray, ldb: number, beta: number, C: DeviceArray, ldc: number,
  ): void {
    checkGemm(dtype, transA, transB, m, n, k, A, lda, 0, B, ldb, 0, C, ldc, 0, 1);
    if (m === 0 || n === 0) return;
    this.call(`cublas${PREFIX(dtype)}gemm_v2`, OP(transA), OP(transB), m, n, k, scalar(dtype, alpha),
      A.ptr, lda, B.ptr, ldb, scalar(dtype, beta), C.ptr, ldc);
  }

  /**
   * LU with partial pivoting of `count` n x n matrices (cublas?getrfBatched). `pivots` (int32,
   * n per matrix, 1-based as LAPACK) may be null for no pivoting; `info` (int32, one per matrix).
   */
  getrfBatched(dtype: DType, n: number, A: BatchPointers, lda: number, pivots: DeviceArray | null, info: DeviceArray, count: number): void {
    A.checkFits(n, n, lda, count, 'A');
    if (A.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${A.source.dtype}`, 'A');
    if (pivots) checkInts(pivots, n * count, 'pivots');
    checkInts(info, count, 'info');
    if (count === 0) return;
    this.call(`cublas${PREFIX(dtype)}getrfBatched`, n, A.pointers.ptr, lda, pivots ? pivots.ptr : 0n, info.ptr, count);
  }

  /** Solves op(A_i) X = B_i with getrf's factors (cublas?getrsBatched); returns cuBLAS's host info (argument check). */
  getrsBatched(
    dtype: DType, trans: Trans, n: number, nrhs: number, A: BatchPointers, lda: number, pivots: DeviceArray,
    B: BatchPointers, ldb: number, count: number,
  ): number {
    A.checkFits(n, n, lda, count, 'A');
    B.checkFits(n, nrhs, ldb, count, 'B');
    for (const [p, name] of [[A, 'A'], [B, 'B']] as const) {
      if (p.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${p.source.dtype}`, name);
    }
    checkInts(pivots, n * count, 'pivots');
    const info: [number] = [0];
    if (count === 0) return 0;
    this.call(`cublas${PREFIX(dtype)}getrsBatched`, OP(trans), n, nrhs, A.pointers.ptr, lda, pivots.ptr, B.pointers.ptr, ldb, info, count);
    return info[0];
  }

  /** C_i := inv(A_i) from getrf's factors and pivots (cublas?getriBatched; out of place). */
  getriBatched(dtype: DType, n: number, A: BatchPointers, lda: number, pivots: DeviceArray, C: BatchPointers, ldc: number, info: DeviceArray, count: number): void {
    A.checkFits(n, n, lda, count, 'A');
    C.checkFits(n, n, ldc, count, 'C');
    for (const [p, name] of [[A, 'A'], [C, 'C']] as const) {
      if (p.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${p.source.dtype}`, name);
    }
    checkInts(pivots, n * count, 'pivots');
    checkInts(info, count, 'info');
    if (count === 0) return;
    this.call(`cublas${PREFIX(dtype)}getriBatched`, n, A.pointers.ptr, lda, pivots.ptr, C.pointers.ptr, ldc, info.ptr, count);
  }

  /** Ainv_i := inv(A_i) for n <= 32 (cublas?matinvBatched: LU and inverse in one call, out of place). */
  matinvBatched(dtype: DType, n: number, A: BatchPointers, lda: number, Ainv: BatchPointers, ldaInv: number, info: DeviceArray, count: number): void {
    if (n > 32) throw new MyriadError('INVALID_ARGUMENT', `cuBLAS matinvBatched takes n <= 32, got ${n}`, 'n');
    A.checkFits(n, n, lda, count, 'A');
    Ainv.checkFits(n, n, ldaInv, count, 'Ainv');
    for (const [p, name] of [[A, 'A'], [Ainv, 'Ainv']] as const) {
      if (p.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${p.source.dtype}`, name);
    }
    checkInts(info, count, 'info');
    if (count === 0) return;
    this.call(`cublas${PREFIX(dtype)}matinvBatched`, n, A.pointers.ptr, lda, Ainv.pointers.ptr, ldaInv, info.ptr, count);
  }

  /**
   * B_i := alpha op(A_i)^-1 B_i (side left, A m x m) or alpha B_i op(A_i)^-1 (right, A n x n), B_i m x n
   * (cublas?trsmBatched; cuBLAS enums: side left 0 / right 1, fill lower 0 / upper 1, diag non-unit 0 / unit 1).
   */
  trsmBatched(
    dtype: DType, side: Side, uplo: Uplo, trans: Trans, diag: Diag, m: number, n: number, alpha: number,
    A: BatchPointers, lda: number, B: BatchPointers, ldb: number, count: number,
  ): void {
    const t = side === 'left' ? m : n;
    A.checkFits(t, t, lda, count, 'A');
    B.checkFits(m, n, ldb, count, 'B');
    for (const [p, name] of [[A, 'A'], [B, 'B']] as const) {
      if (p.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${p.source.dtype}`, name);
    }
    if (count === 0 || m === 0 || n === 0) return;
    this.call(`cublas${PREFIX(dtype)}trsmBatched`, side === 'left' ? 0 : 1, uplo === 'lower' ? 0 : 1, OP(trans), diag === 'unit' ? 1 : 0,
      m, n, scalar(dtype, alpha), A.pointers.ptr, lda, B.pointers.ptr, ldb, count);
  }

  /**
   * Householder QR of `count` m x n matrices in place (cublas?geqrfBatched): R and the reflectors
   * over A_i, min(m, n) scalars in Tau_i (a pointer per matrix). Returns cuBLAS's host info (an
   * argument check; the factorisation has no failure).
   */
  geqrfBatched(dtype: DType, m: number, n: number, A: BatchPointers, lda: number, Tau: BatchPointers, count: number): number {
    for (const [v, name] of [[m, 'm'], [n, 'n'], [count, 'count']] as const) {
      if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `must be an int32 >= 0, got ${v}`, name);
    }
    const k = Math.min(m, n);
    A.checkFits(m, n, lda, count, 'A');
    Tau.checkFits(k, 1, Math.max(1, k), count, 'Tau');
    for (const [p, name] of [[A, 'A'], [Tau, 'Tau']] as const) {
      if (p.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${p.source.dtype}`, name);
    }
    const info: [number] = [0];
    if (count === 0 || k === 0) return 0;
    this.call(`cublas${PREFIX(dtype)}geqrfBatched`, m, n, A.pointers.ptr, lda, Tau.pointers.ptr, info, count);
    return info[0];
  }

  /**
   * Least squares min ||A_i X - C_i|| of `count` m x n matrices, m >= n only (cublas?gelsBatched,
   * trans 'N'): A_i overwritten by its QR, X in the first n rows of C_i (ldc >= m), devInfo one int
   * per matrix (j + 1 where R(j, j) is zero). Returns cuBLAS's host info (an argument check).
   */
  gelsBatched(
    dtype: DType, m: number, n: number, nrhs: number, A: BatchPointers, lda: number, C: BatchPointers, ldc: number,
    devInfo: DeviceArray, count: number,
  ): number {
    for (const [v, name] of [[m, 'm'], [n, 'n'], [nrhs, 'nrhs'], [count, 'count']] as const) {
      if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `must be an int32 >= 0, got ${v}`, name);
    }
    if (m < n) throw new MyriadError('INVALID_ARGUMENT', `cuBLAS gelsBatched takes m >= n, got ${m} x ${n}`, 'm');
    A.checkFits(m, n, lda, count, 'A');
    C.checkFits(m, nrhs, ldc, count, 'C');
    for (const [p, name] of [[A, 'A'], [C, 'C']] as const) {
      if (p.source.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${p.source.dtype}`, name);
    }
    checkInts(devInfo, count, 'devInfo');
    const info: [number] = [0];
    if (count === 0) return 0;
    this.call(`cublas${PREFIX(dtype)}gelsBatched`, 0, m, n, nrhs, A.pointers.ptr, lda, C.pointers.ptr, ldc, info, devInfo.ptr, count);
    return info[0];
  }

  /**
   * Complex Householder QR of `count` m x n matrices in place (cublas{Z,C}geqrfBatched), as
   * geqrfBatched: A's and Tau's pointers address pairs in arrays of the parts' dtype. Returns
   * cuBLAS's host info.
   */
  complexGeqrfBatched(dtype: ComplexDType, m: number, n: number, A: BatchPointers, lda: number, Tau: BatchPointers, count: number): number {
    const k = Math.min(m, n);
    checkComplexFits(A, dtype, m, n, lda, count, 'A');
    checkComplexFits(Tau, dtype, k, 1, Math.max(1, k), count, 'Tau');
    const info: [number] = [0];
    if (count === 0 || k === 0) return 0;
    this.callComplex(`cublas${COMPLEX_PREFIX(dtype)}geqrfBatched`, m, n, A.pointers.ptr, lda, Tau.pointers.ptr, info, count);
    return info[0];
  }

  /**
   * Complex LU with partial pivoting of `count` n x n matrices (cublas{Z,C}getrfBatched): A's
   * pointers address pairs in an array of the parts' dtype (lda in complex elements); `pivots`
   * (int32, n per matrix, 1-based as LAPACK) and `info` (int32, one per matrix) device arrays.
   */
  complexGetrfBatched(dtype: ComplexDType, n: number, A: BatchPointers, lda: number, pivots: DeviceArray, info: DeviceArray, count: number): void {
    checkComplexFits(A, dtype, n, n, lda, count, 'A');
    checkInts(pivots, n * count, 'pivots');
    checkInts(info, count, 'info');
    if (count === 0 || n === 0) return;
    this.callComplex(`cublas${COMPLEX_PREFIX(dtype)}getrfBatched`, n, A.pointers.ptr, lda, pivots.ptr, info.ptr, count);
  }

  /**
   * Solves op(A_i) X = B_i with complexGetrfBatched's factors and pivots (cublas{Z,C}getrsBatched,
   * op N, T or C); returns cuBLAS's host info (< 0: argument -info was wrong).
   */
  complexGetrsBatched(
    dtype: ComplexDType, trans: ComplexOp, n: number, nrhs: number, A: BatchPointers, lda: number, pivots: DeviceArray,
    B: BatchPointers, ldb: number, count: number,
  ): number {
    checkComplexFits(A, dtype, n, n, lda, count, 'A');
    checkComplexFits(B, dtype, n, nrhs, ldb, count, 'B');
    checkInts(pivots, n * count, 'pivots');
    const info: [number] = [0];
    if (count === 0 || n === 0 || nrhs === 0) return 0;
    this.callComplex(`cublas${COMPLEX_PREFIX(dtype)}getrsBatched`, COMPLEX_OP(trans), n, nrhs, A.pointers.ptr, lda, pivots.ptr, B.pointers.ptr, ldb, info, count);
    return info[0];
  }

  /**
   * B_i := alpha op(A_i)^-1 B_i (side left, A m x m) or alpha B_i op(A_i)^-1 (right, A n x n), B_i m x n,
   * complex (cublas{Z,C}trsmBatched; op N, T or C; alpha a complex scalar passed as a host pair).
   */
  complexTrsmBatched(
    dtype: ComplexDType, side: Side, uplo: Uplo, trans: ComplexOp, diag: Diag, m: number, n: number, alpha: ComplexScalar,
    A: BatchPointers, lda: number, B: BatchPointers, ldb: number, count: number,
  ): void {
    const t = side === 'left' ? m : n;
    checkComplexFits(A, dtype, t, t, lda, count, 'A');
    checkComplexFits(B, dtype, m, n, ldb, count, 'B');
    if (count === 0 || m === 0 || n === 0) return;
    const pair = allocate(complexInfo(dtype).real, 2);
    pair[0] = alpha[0];
    pair[1] = alpha[1];
    this.callComplex(`cublas${COMPLEX_PREFIX(dtype)}trsmBatched`, side === 'left' ? 0 : 1, uplo === 'lower' ? 0 : 1, COMPLEX_OP(trans), diag === 'unit' ? 1 : 0,
      m, n, pair, A.pointers.ptr, lda, B.pointers.ptr, ldb, count);
  }

  /** `call` for a routine bound where the library has it: NOT_SUPPORTED (a row's note, not a crash) where it does not. */
  private callComplex(name: string, ...args: unknown[]): void {
    if (this.api[name] === undefined) throw new VendorError('CUBLAS_STATUS_NOT_SUPPORTED', 15, `${name} (not in this cuBLAS)`);
    this.call(name, ...args);
  }

  dispose(): void {
    if (!this.handle) return;
    if (this.dev.context.alive) {
      this.dev.activate();
      this.api['cublasDestroy_v2']!(this.handle);
    }
    this.handle = null;
  }
}

function checkGemm(
  dtype: DType, transA: Trans, transB: Trans, m: number, n: number, k: number,
  A: DeviceArray, lda: number, strideA: number, B: DeviceArray, ldb: number, strideB: number,
  C: DeviceArray, ldc: number, strideC: number, count: number,
): void {
  for (const [v, name] of [[m, 'm'], [n, 'n'], [k, 'k'], [count, 'count']] as const) {
    if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `must be an int32 >= 0, got ${v}`, name);
  }
  const [ar, ac] = transA === 'N' ? [m, k] : [k, m];
  const [br, bc] = transB === 'N' ? [k, n] : [n, k];
  checkStrided(A, dtype, ar, ac, lda, strideA, count, 0, 'A');
  checkStrided(B, dtype, br, bc, ldb, strideB, count, 0, 'B');
  checkStrided(C, dtype, m, n, ldc, strideC, count, 0, 'C');
}

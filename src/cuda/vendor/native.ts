/**
 * The vendor routines the routes call, on raw device addresses, through one cuBLAS and one
 * cuSOLVER handle per device: made on first use, bound to the device's stream (so a vendor call is
 * ordered with the own kernels before and after it), destroyed when the device is disposed. The
 * candidates (this folder) check every matrix against its buffer before they get here; the API
 * has validated the request before that.
 *
 * A missing library costs nothing but its routes: `vendorUsable` says false, nothing throws.
 */
import { allocate, type DType, type FloatArray } from '../../core/dtype.js';
import { complexInfo, complexOf, dtypeInfo, isDType } from '../../core/dtype-table.js';
import type { Diag, Side, Uplo } from '../../core/enums.js';
import { MyriadError } from '../../core/errors.js';
import type { Op } from '../../core/ops.js';
import type { ComplexOp, ComplexScalar } from '../../core/op-specs.js';
import { Cublas, cublasMissing } from '../baselines/cublas.js';
import { Cusolver, cusolverHasSyevBatched, cusolverMissing } from '../baselines/cusolver.js';
import { CudaDevice } from '../runtime/device.js';
import { PlanningDevice } from '../runtime/planning-device.js';
import type { GpuDevice } from '../runtime/types.js';

/** cublasOperation_t: N = 0, T = 1. */
const OP = (t: Op): number => (t === 'N' ? 0 : 1);
/** cublasFillMode_t: LOWER = 0, UPPER = 1. */
const FILL = (u: Uplo): number => (u === 'lower' ? 0 : 1);
/** The routine's precision letter (cublasDgemm, cusolverDnSpotrf). */
const LETTER = (dtype: DType): string => dtypeInfo(dtype).letter.toUpperCase();
/** cublasSideMode_t: LEFT = 0, RIGHT = 1. */
const SIDE = (s: Side): number => (s === 'left' ? 0 : 1);
/** gesvd's jobu / jobvt: 'S' (the thin factor) or 'N' (none), as LAPACK's ASCII letters. */
const JOB = (want: boolean): number => (want ? 'S' : 'N').charCodeAt(0);
/** cublasDiagType_t: NON_UNIT = 0, UNIT = 1. */
const DIAG = (d: Diag): number => (d === 'unit' ? 1 : 0);

/**
 * The most matrices one batched solve call is given: larger batches are split into calls of this
 * many (a grid dimension of 65535 blocks is the hardware's limit, and the vendor's kernels are not
 * documented to split a batch beyond it themselves; the split costs a call per 65535 matrices).
 */
export const VENDOR_BATCH_MAX = 65535;

/** [start, size) of each call of a batch of `count` split into calls of at most VENDOR_BATCH_MAX (exported for the tests). */
export function vendorChunks(count: number): [number, number][] {
  const out: [number, number][] = [];
  for (let start = 0; start < count; start += VENDOR_BATCH_MAX) out.push([start, Math.min(VENDOR_BATCH_MAX, count - start)]);
  return out;
}
/** The address of entry `start` of an array of 8-byte matrix addresses. */
const entry = (pointers: bigint, start: number): bigint => pointers + BigInt(8 * start);

/**
 * The checks of the batched solves' arguments before the native call (a wrong one there can take
 * the process down, or poison the context): a real dtype, sizes that are int32s of at least 1
 * (the routes make no call for an empty problem), leading dimensions of at least max(1, rows) in
 * int32, non-null device addresses. Exported for the tests.
 */
export function checkVendorArguments(
  call: string, dtype: DType, sizes: Readonly<Record<string, number>>, lds: readonly (readonly [string, number, number])[],
  pointers: Readonly<Record<string, bigint>>,
): void {
  if (!isDType(dtype)) throw new MyriadError('DTYPE', `${call} takes a real dtype, got ${String(dtype)}`, 'dtype');
  for (const [name, v] of Object.entries(sizes)) {
    if (!Number.isSafeInteger(v) || v < 1 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `${call}: ${name} must be an int32 >= 1, got ${v}`, name);
  }
  for (const [name, ld, rows] of lds) {
    if (!Number.isSafeInteger(ld) || ld < Math.max(1, rows) || ld >= 2 ** 31) throw new MyriadError('LAYOUT', `${call}: ${name} = ${ld} with ${rows} rows`, name);
  }
  for (const [name, p] of Object.entries(pointers)) if (p === 0n) throw new MyriadError('INVALID_ARGUMENT', `${call}: ${name} is a null device address`, name);
}

/** A host scalar of `dtype` (alpha, beta: pointer mode host). */
function scalar(dtype: DType, v: number): FloatArray {
  const s = allocate(dtype, 1);
  s[0] = v;
  return s;
}

/** cusolverDnXsyevBatched's data types of A (also the compute type) and W: the complex type of `dtype`'s pairs where `complex`, W real. */
const syevTypes = (dtype: DType, complex: boolean): [number, number] =>
  [complex ? complexInfo(complexOf(dtype)).spelling.dataType : dtypeInfo(dtype).cuda.dataType, dtypeInfo(dtype).cuda.dataType];
/** cublasOperation_t with the conjugate transpose: N = 0, T = 1, C = 2. */
const COMPLEX_OP = (t: ComplexOp): number => (t === 'N' ? 0 : t === 'T' ? 1 : 2);
/** The complex routine's letter (cublasZgemm, cublasCgemm) by the parts' dtype. */
const COMPLEX_LETTER = (dtype: DType): string => complexInfo(complexOf(dtype)).letter.toUpperCase();
/** A host complex scalar: the pair (re, im) of `dtype` that cuBLAS reads through a pointer. */
function pair(dtype: DType, v: ComplexScalar): FloatArray {
  const s = allocate(dtype, 2);
  s[0] = v[0];
  s[1] = v[1];
  return s;
}

/** cuBLAS on raw addresses. */
export class VendorBlas extends Cublas {
  /**
   * Complex C = alpha op(A) op(B) + beta C (cublas{Z,C}gemm_v2, StridedBatched, Batched by `form`):
   * `dtype` the parts' type, ld and strides in complex elements, addresses of pairs.
   */
  complexGemmAt(form: 'one' | 'strided' | 'pointers', dtype: DType, transA: ComplexOp, transB: ComplexOp, m: number, n: number, k: number,
    alpha: ComplexScalar, a: bigint, lda: number, strideA: number, b: bigint, ldb: number, strideB: number,
    beta: ComplexScalar, c: bigint, ldc: number, strideC: number, count: number): void {
    const name = `cublas${COMPLEX_LETTER(dtype)}gemm${form === 'one' ? '_v2' : form === 'strided' ? 'StridedBatched' : 'Batched'}`;
    const [ta, tb, al, be] = [COMPLEX_OP(transA), COMPLEX_OP(transB), pair(dtype, alpha), pair(dtype, beta)];
    if (form === 'strided') this.call(name, ta, tb, m, n, k, al, a, lda, strideA, b, ldb, strideB, be, c, ldc, strideC, count);
    else if (form === 'one') this.call(name, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
    else this.call(name, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc, count);
  }

  /** C = alpha op(A) op(B) + beta C, one matrix (cublas?gemm_v2). */
  gemmAt(dtype: DType, transA: Op, transB: Op, m: number, n: number, k: number, alpha: number, a: bigint, lda: number,
    b: bigint, ldb: number, beta: number, c: bigint, ldc: number): void {
    this.call(`cublas${LETTER(dtype)}gemm_v2`, OP(transA), OP(transB), m, n, k, scalar(dtype, alpha), a, lda, b, ldb, scalar(dtype, beta), c, ldc);
  }

  /** The same on `count` matrices `stride` elements apart (cublas?gemmStridedBatched). */
  gemmStridedAt(dtype: DType, transA: Op, transB: Op, m: number, n: number, k: number, alpha: number,
    a: bigint, lda: number, strideA: number, b: bigint, ldb: number, strideB: number,
    beta: number, c: bigint, ldc: number, strideC: number, count: number): void {
    this.call(`cublas${LETTER(dtype)}gemmStridedBatched`, OP(transA), OP(transB), m, n, k, scalar(dtype, alpha),
      a, lda, strideA, b, ldb, strideB, scalar(dtype, beta), c, ldc, strideC, count);
  }

  /** The same on `count` matrices given by device arrays of pointers (cublas?gemmBatched). */
  gemmPointersAt(dtype: DType, transA: Op, transB: Op, m: number, n: number, k: number, alpha: number,
    a: bigint, lda: number, b: bigint, ldb: number, beta: number, c: bigint, ldc: number, count: number): void {
    this.call(`cublas${LETTER(dtype)}gemmBatched`, OP(transA), OP(transB), m, n, k, scalar(dtype, alpha), a, lda, b, ldb, scalar(dtype, beta), c, ldc, count);
  }

  /**
   * B_i := alpha op(A_i)^-1 B_i (side left, A_i m x m) or alpha B_i op(A_i)^-1 (right, A_i n x n),
   * B_i m x n, on `count` matrices given by device arrays of pointers `a` and `b`
   * (cublas?trsmBatched: handle, side, uplo, trans, diag, m, n, const T *alpha, const T *const A[],
   * lda, T *const B[], ldb, batchCount).
   */
  trsmPointersAt(dtype: DType, side: Side, uplo: Uplo, trans: Op, diag: Diag, m: number, n: number, alpha: number,
    a: bigint, lda: number, b: bigint, ldb: number, count: number): void {
    checkVendorArguments('cublas?trsmBatched', dtype, { m, n, count }, [['lda', lda, side === 'left' ? m : n], ['ldb', ldb, m]], { a, b });
    const call = `cublas${LETTER(dtype)}trsmBatched`;
    const s = scalar(dtype, alpha);
    for (const [start, size] of vendorChunks(count)) this.call(call, SIDE(side), FILL(uplo), OP(trans), DIAG(diag), m, n, s, entry(a, start), lda, entry(b, start), ldb, size);
  }

  /**
   * The complex trsm (cublas{Z,C}trsmBatched) on device arrays of pointers to pairs: `dtype` the
   * parts' type, op 'N', 'T' or 'C', alpha a complex scalar (a host pair), ld in complex elements.
   */
  complexTrsmPointersAt(dtype: DType, side: Side, uplo: Uplo, trans: ComplexOp, diag: Diag, m: number, n: number, alpha: ComplexScalar,
    a: bigint, lda: number, b: bigint, ldb: number, count: number): void {
    checkVendorArguments('cublas{Z,C}trsmBatched', dtype, { m, n, count }, [['lda', lda, side === 'left' ? m : n], ['ldb', ldb, m]], { a, b });
    const call = `cublas${COMPLEX_LETTER(dtype)}trsmBatched`;
    const s = pair(dtype, alpha);
    for (const [start, size] of vendorChunks(count)) this.call(call, SIDE(side), FILL(uplo), COMPLEX_OP(trans), DIAG(diag), m, n, s, entry(a, start), lda, entry(b, start), ldb, size);
  }

  /**
   * LU with partial pivoting in place of `count` n x n matrices given by the device array of
   * pointers `a`: n LAPACK (1-based) pivots per matrix packed in `pivots`, the info of each matrix
   * into the int32 array at `info` (cublas?getrfBatched: handle, n, T *const Aarray[], lda,
   * int *PivotArray, int *infoArray, batchSize).
   */
  getrfPointersAt(dtype: DType, n: number, a: bigint, lda: number, pivots: bigint, info: bigint, count: number): void {
    checkVendorArguments('cublas?getrfBatched', dtype, { n, count }, [['lda', lda, n]], { a, pivots, info });
    const call = `cublas${LETTER(dtype)}getrfBatched`;
    for (const [start, size] of vendorChunks(count)) this.call(call, n, entry(a, start), lda, pivots + BigInt(4 * n * start), info + BigInt(4 * start), size);
  }

  /**
   * Solves op(A_i) X_i = B_i in place of B_i (n x nrhs) with getrf's factors over A_i and LAPACK's
   * 1-based pivots, n per matrix packed in `pivots` (cublas?getrsBatched: handle, trans, n, nrhs,
   * const T *const Aarray[], lda, const int *devIpiv, T *const Barray[], ldb, int *info (host),
   * batchSize). cuBLAS's info is one host int, < 0 for a wrong argument: an error here.
   */
  getrsPointersAt(dtype: DType, trans: Op, n: number, nrhs: number, a: bigint, lda: number, pivots: bigint, b: bigint, ldb: number, count: number): void {
    checkVendorArguments('cublas?getrsBatched', dtype, { n, nrhs, count }, [['lda', lda, n], ['ldb', ldb, n]], { a, pivots, b });
    const call = `cublas${LETTER(dtype)}getrsBatched`;
    for (const [start, size] of vendorChunks(count)) {
      const info: [number] = [0];
      this.call(call, OP(trans), n, nrhs, entry(a, start), lda, pivots + BigInt(4 * n * start), entry(b, start), ldb, info, size);
      if (info[0] !== 0) throw new MyriadError('INVALID_ARGUMENT', `${call} rejected argument ${-info[0]} (info ${info[0]})`, 'vendor');
    }
  }

  /**
   * Groups of products in one call (cublas?gemmGroupedBatched; `cublasHasGrouped()` says whether
   * the library has it): group g has shape m[g], n[g], k[g], leading dimensions lda[g], ldb[g],
   * ldc[g] and size[g] products, whose addresses are consecutive entries of the device pointer
   * arrays a, b, c (group after group). One transpose pair and one alpha, beta for every group.
   */
  gemmGroupedAt(dtype: DType, transA: Op, transB: Op, alpha: number, beta: number, g: GemmGroups, a: bigint, b: bigint, c: bigint): void {
    const groups = g.size.length;
    const fill = (v: number): Int32Array => new Int32Array(groups).fill(v);
    const scalars = (v: number): FloatArray => allocate(dtype, groups).fill(v);
    this.call(`cublas${LETTER(dtype)}gemmGroupedBatched`, fill(OP(transA)), fill(OP(transB)), g.m, g.n, g.k, scalars(alpha), a, g.lda,
      b, g.ldb, scalars(beta), c, g.ldc, groups, g.size);
  }
}

/** The host arrays of a grouped GEMM, one entry per group. */
export interface GemmGroups {
  readonly m: Int32Array; readonly n: Int32Array; readonly k: Int32Array;
  readonly lda: Int32Array; readonly ldb: Int32Array; readonly ldc: Int32Array;
  readonly size: Int32Array;
}

/** cuSOLVER dense on raw addresses; workspace sizes asked once per shape. */
export class VendorSolver extends Cusolver {
  private readonly sizes = new Map<string, number>();
  /** Buffer-size queries the library refused (the size out of its int range). */
  private readonly refused = new Map<string, true>();
  private params: unknown = null;
  private hostWork: Buffer | null = null;
  /** Host workspaces grown out of, kept while the handle lives (a call enqueued earlier may still read one). */
  private readonly retiredHostWork: Buffer[] = [];

  /** Elements of workspace cusolverDn?potrf needs for an n x n matrix with leading dimension lda. */
  potrfWorkAt(dtype: DType, uplo: Uplo, n: number, a: bigint, lda: number): number {
    return this.size(`potrf ${dtype} ${uplo} ${n} ${lda}`, (out) => this.call(`cusolverDn${LETTER(dtype)}potrf_bufferSize`, FILL(uplo), n, a, lda, out));
  }

  /** Cholesky of one matrix in place; LAPACK's info into the int at `info` (cusolverDn?potrf). */
  potrfAt(dtype: DType, uplo: Uplo, n: number, a: bigint, lda: number, work: bigint, lwork: number, info: bigint): void {
    this.call(`cusolverDn${LETTER(dtype)}potrf`, FILL(uplo), n, a, lda, work, lwork, info);
  }

  /**
   * Cholesky in place of `count` n x n matrices whose addresses are the device pointer array
   * `pointers`, LAPACK's info per matrix into the int32 array at `info` (cusolverDn?potrfBatched),
   * split into calls of at most VENDOR_BATCH_MAX matrices.
   */
  potrfBatchedAt(dtype: DType, uplo: Uplo, n: number, pointers: bigint, lda: number, info: bigint, count: number): void {
    checkVendorArguments('cusolverDn?potrfBatched', dtype, { n, count }, [['lda', lda, n]], { pointers, info });
    const call = `cusolverDn${LETTER(dtype)}potrfBatched`;
    for (const [start, size] of vendorChunks(count)) this.call(call, FILL(uplo), n, entry(pointers, start), lda, info + BigInt(4 * start), size);
  }

  /**
   * Complex Cholesky in place of `count` n x n Hermitian matrices (A = L L^H, or U^H U) given by the
   * device array of pointers `a` (addresses of pairs; `dtype` the parts' type, lda in complex
   * elements), LAPACK's info per matrix into the int32 array at `info` (cusolverDn{Z,C}potrfBatched:
   * handle, uplo, n, T *Aarray[], lda, int *infoArray, batchSize). Each matrix is factored alone, its
   * `uplo` triangle the only one read or written. Split into calls of at most VENDOR_BATCH_MAX
   * matrices; NOT_SUPPORTED where this cuSOLVER lacks the routine (it is bound optionally).
   */
  complexPotrfPointersAt(dtype: DType, uplo: Uplo, n: number, a: bigint, lda: number, info: bigint, count: number): void {
    checkVendorArguments('cusolverDn{Z,C}potrfBatched', dtype, { n, count }, [['lda', lda, n]], { a, info });
    const call = `cusolverDn${COMPLEX_LETTER(dtype)}potrfBatched`;
    for (const [start, size] of vendorChunks(count)) this.callComplex(call, FILL(uplo), n, entry(a, start), lda, info + BigInt(4 * start), size);
  }

  /** Elements of workspace cusolverDn?getrf needs for an m x n matrix. */
  getrfWorkAt(dtype: DType, m: number, n: number, a: bigint, lda: number): number {
    return this.size(`getrf ${dtype} ${m} ${n} ${lda}`, (out) => this.call(`cusolverDn${LETTER(dtype)}getrf_bufferSize`, m, n, a, lda, out));
  }

  /** LU with partial pivoting of one m x n matrix in place: min(m, n) 1-based pivots, LAPACK's info (cusolverDn?getrf). */
  getrfAt(dtype: DType, m: number, n: number, a: bigint, lda: number, work: bigint, pivots: bigint, info: bigint): void {
    this.call(`cusolverDn${LETTER(dtype)}getrf`, m, n, a, lda, work, pivots, info);
  }

  /** Elements of workspace cusolverDn?syevd needs for one n x n matrix (lower, leading dimension n). */
  syevdWorkAt(dtype: DType, vectors: boolean, n: number, a: bigint, w: bigint): number {
    checkVendorArguments('cusolverDn?syevd_bufferSize', dtype, { n }, [], { a, w });
    return this.size(`syevd ${dtype} ${vectors} ${n}`, (out) => this.call(`cusolverDn${LETTER(dtype)}syevd_bufferSize`, vectors ? 1 : 0, FILL('lower'), n, a, n, w, out));
  }

  /**
   * The eigenvalues (ascending, into `w`) and, with `vectors`, the eigenvectors (over `a`) of one
   * dense symmetric n x n matrix, its lower triangle read (cusolverDn?syevd, divide and conquer on the
   * whole GPU); LAPACK's info into the int at `info` (> 0: not converged).
   */
  syevdAt(dtype: DType, vectors: boolean, n: number, a: bigint, w: bigint, work: bigint, lwork: number, info: bigint): void {
    checkVendorArguments('cusolverDn?syevd', dtype, { n, lwork }, [], { a, w, work, info });
    this.call(`cusolverDn${LETTER(dtype)}syevd`, vectors ? 1 : 0, FILL('lower'), n, a, n, w, work, lwork, info);
  }

  /** Elements of workspace cusolverDn?gesvd needs for one m x n matrix (m >= n). */
  gesvdWorkAt(dtype: DType, m: number, n: number): number {
    checkVendorArguments('cusolverDn?gesvd_bufferSize', dtype, { m, n }, [], {});
    if (m < n) throw new MyriadError('INVALID_ARGUMENT', `cusolverDn?gesvd takes m >= n, got ${m} x ${n}`, 'm');
    return this.size(`gesvd ${dtype} ${m} ${n}`, (out) => this.call(`cusolverDn${LETTER(dtype)}gesvd_bufferSize`, m, n, out));
  }

  /**
   * The SVD of one dense m x n matrix (m >= n, leading dimension m; destroyed): the singular values
   * descending into `s` (n), with `wantU` the thin U (m x n, ld m) into `u`, with `wantVt` VT (n x n,
   * ld n) into `vt` (jobu, jobvt 'S' or 'N'; an unwanted factor's address is not read); `rwork` n
   * elements; LAPACK's info into the int at `info` (> 0: superdiagonals that did not converge).
   */
  gesvdAt(dtype: DType, m: number, n: number, a: bigint, s: bigint, wantU: boolean, u: bigint, wantVt: boolean, vt: bigint,
    work: bigint, lwork: number, rwork: bigint, info: bigint): void {
    checkVendorArguments('cusolverDn?gesvd', dtype, { m, n, lwork }, [], { a, s, work, rwork, info, ...(wantU ? { u } : {}), ...(wantVt ? { vt } : {}) });
    if (m < n) throw new MyriadError('INVALID_ARGUMENT', `cusolverDn?gesvd takes m >= n, got ${m} x ${n}`, 'm');
    this.call(`cusolverDn${LETTER(dtype)}gesvd`, JOB(wantU), JOB(wantVt), m, n, a, m, s, u, m, vt, n, work, lwork, rwork, info);
  }

  /**
   * Bytes of device workspace cusolverDnXsyevBatched needs for `count` densely packed n x n matrices
   * (lower); `complex`: Hermitian matrices of pairs of `dtype` (the complex data type, W real).
   */
  syevBatchedWorkAt(dtype: DType, vectors: boolean, n: number, a: bigint, w: bigint, count: number, complex = false): number {
    const [typeA, typeW] = syevTypes(dtype, complex);
    const key = `syev ${dtype} ${complex} ${vectors} ${n} ${count}`;
    let bytes = this.sizes.get(key);
    if (bytes === undefined) {
      const device: [number | bigint] = [0], host: [number | bigint] = [0];
      this.call('cusolverDnXsyevBatched_bufferSize', this.dnParams(), vectors ? 1 : 0, 0, n, typeA, a, n, typeW, w, typeA, device, host, count);
      bytes = Number(device[0]);
      const hostBytes = Number(host[0]);
      if (hostBytes > (this.hostWork?.length ?? 0)) {
        if (this.hostWork !== null) this.retiredHostWork.push(this.hostWork);
        this.hostWork = Buffer.alloc(hostBytes);
      }
      this.sizes.set(key, bytes);
    }
    return bytes;
  }

  /**
   * Eigenvalues (ascending, n per matrix into `w`) and, with `vectors`, eigenvectors over `a` of
   * `count` densely packed symmetric n x n matrices (lower triangle read); one info per matrix,
   * > 0 where it did not converge (cusolverDnXsyevBatched); `complex` as syevBatchedWorkAt.
   */
  syevBatchedAt(dtype: DType, vectors: boolean, n: number, a: bigint, w: bigint, work: bigint, workBytes: number, info: bigint, count: number, complex = false): void {
    const [typeA, typeW] = syevTypes(dtype, complex);
    const host = this.hostWork;
    this.call('cusolverDnXsyevBatched', this.dnParams(), vectors ? 1 : 0, 0, n, typeA, a, n, typeW, w, typeA, work, workBytes,
      host, host?.length ?? 0, info, count);
  }

  override dispose(): void {
    if (this.params !== null && this.dev.context.alive) this.callPlain('cusolverDnDestroyParams', this.params);
    this.params = null;
    super.dispose();
  }

  private dnParams(): unknown {
    if (this.params === null) {
      const out: [unknown] = [null];
      this.callPlain('cusolverDnCreateParams', out);
      this.params = out[0];
    }
    return this.params;
  }

  /**
   * Whether cusolverDn?syevd's workspace for order n counts in its 32-bit lwork: the library's own
   * buffer-size query (it reads no matrix; the addresses are not dereferenced), its refusal meaning
   * no (on CUDA 13.0 syevd refuses from n = 23155, below the dense copy's int32 bound). Cached.
   */
  syevdWorkFits(dtype: DType, vectors: boolean, n: number): boolean {
    return this.fits(`syevd ${dtype} ${vectors} ${n}`, (out) => this.call(`cusolverDn${LETTER(dtype)}syevd_bufferSize`, vectors ? 1 : 0, FILL('lower'), n, 0n, n, 0n, out));
  }

  /** As syevdWorkFits, for cusolverDn?gesvd of an m x n matrix, m >= n (it refuses, for example, 100000 x 6633). */
  gesvdWorkFits(dtype: DType, m: number, n: number): boolean {
    return this.fits(`gesvd ${dtype} ${m} ${n}`, (out) => this.call(`cusolverDn${LETTER(dtype)}gesvd_bufferSize`, m, n, out));
  }

  /** Whether a buffer-size query succeeds (its size cached as `size` keeps it); a refusal is cached too. */
  private fits(key: string, ask: (out: [number]) => void): boolean {
    if (this.sizes.has(key)) return true;
    const known = this.refused.get(key);
    if (known !== undefined) return false;
    try {
      this.size(key, ask);
      return true;
    } catch {
      this.refused.set(key, true);
      return false;
    }
  }

  private size(key: string, ask: (out: [number]) => void): number {
    let n = this.sizes.get(key);
    if (n === undefined) {
      const out: [number] = [0];
      ask(out);
      n = Math.max(1, out[0]);
      this.sizes.set(key, n);
    }
    return n;
  }
}

export type VendorLibrary = 'cublas' | 'cusolver' | 'syevBatched';

/**
 * Whether `dev` can run a vendor route that needs `library`: a CUDA device (or the planning
 * device that stands in for one) on a machine where the library loads. Other devices (the fakes
 * of the tests) never take a vendor route.
 */
export function vendorUsable(dev: GpuDevice, library: VendorLibrary): boolean {
  if (!(dev instanceof CudaDevice) && !(dev instanceof PlanningDevice)) return false;
  switch (library) {
    case 'cublas': return cublasMissing() === undefined;
    case 'cusolver': return cusolverMissing() === undefined;
    case 'syevBatched': return cusolverHasSyevBatched();
  }
}

const blas = new WeakMap<GpuDevice, VendorBlas>();
const solvers = new WeakMap<GpuDevice, VendorSolver>();

/** The device's cuBLAS handle, made on first use; undefined on a device that runs nothing (planning). */
export function vendorBlas(dev: GpuDevice): VendorBlas | undefined {
  if (!(dev instanceof CudaDevice)) return undefined;
  let h = blas.get(dev);
  if (h === undefined) {
    const made = new VendorBlas(dev);
    dev.onDispose(() => made.dispose());
    blas.set(dev, (h = made));
  }
  return h;
}

/** The device's cuSOLVER handle, made on first use; undefined on a device that runs nothing (planning). */
export function vendorSolver(dev: GpuDevice): VendorSolver | undefined {
  if (!(dev instanceof CudaDevice)) return undefined;
  let h = solvers.get(dev);
  if (h === undefined) {
    const made = new VendorSolver(dev);
    dev.onDispose(() => made.dispose());
    solvers.set(dev, (h = made));
  }
  return h;
}

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
import { complexInfo, complexOf, dtypeInfo } from '../../core/dtype-table.js';
import type { Uplo } from '../../core/enums.js';
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

/** A host scalar of `dtype` (alpha, beta: pointer mode host). */
function scalar(dtype: DType, v: number): FloatArray {
  const s = allocate(dtype, 1);
  s[0] = v;
  return s;
}

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

}

/** cuSOLVER dense on raw addresses; workspace sizes asked once per shape. */
export class VendorSolver extends Cusolver {
  private readonly sizes = new Map<string, number>();
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

  /** Elements of workspace cusolverDn?getrf needs for an m x n matrix. */
  getrfWorkAt(dtype: DType, m: number, n: number, a: bigint, lda: number): number {
    return this.size(`getrf ${dtype} ${m} ${n} ${lda}`, (out) => this.call(`cusolverDn${LETTER(dtype)}getrf_bufferSize`, m, n, a, lda, out));
  }

  /** LU with partial pivoting of one m x n matrix in place: min(m, n) 1-based pivots, LAPACK's info (cusolverDn?getrf). */
  getrfAt(dtype: DType, m: number, n: number, a: bigint, lda: number, work: bigint, pivots: bigint, info: bigint): void {
    this.call(`cusolverDn${LETTER(dtype)}getrf`, m, n, a, lda, work, pivots, info);
  }

  /** Bytes of device workspace cusolverDnXsyevBatched needs for `count` densely packed n x n matrices (lower). */
  syevBatchedWorkAt(dtype: DType, vectors: boolean, n: number, a: bigint, w: bigint, count: number): number {
    const type = dtypeInfo(dtype).cuda.dataType;
    const key = `syev ${dtype} ${vectors} ${n} ${count}`;
    let bytes = this.sizes.get(key);
    if (bytes === undefined) {
      const device: [number | bigint] = [0], host: [number | bigint] = [0];
      this.call('cusolverDnXsyevBatched_bufferSize', this.dnParams(), vectors ? 1 : 0, 0, n, type, a, n, type, w, type, device, host, count);
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
   * > 0 where it did not converge (cusolverDnXsyevBatched).
   */
  syevBatchedAt(dtype: DType, vectors: boolean, n: number, a: bigint, w: bigint, work: bigint, workBytes: number, info: bigint, count: number): void {
    const type = dtypeInfo(dtype).cuda.dataType;
    const host = this.hostWork;
    this.call('cusolverDnXsyevBatched', this.dnParams(), vectors ? 1 : 0, 0, n, type, a, n, type, w, type, work, workBytes,
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

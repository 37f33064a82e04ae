/**
 * The operations a backend implements, as fully validated, column-major requests.
 *
 * The public API (src/api/) checks every argument, maps row-major batches to column-major ones,
 * and only then builds one of these. A backend may therefore trust: enums are parsed, shapes
 * agree, every matrix lies inside its buffer, outputs do not overlap, all batches hold
 * `count` matrices of one dtype, and every batch has order 'col'.
 *
 * Dimensions come from the batches (as in BLAS, but not passed separately):
 * gemm: C is m x n, op(A) is m x k, op(B) is k x n.
 *
 * Per-matrix integers: `info[i]` is the status of matrix i (LAPACK's meaning). Pivots of matrix i
 * are `ipiv[i * pivotStride + j]`, j < min(rows, cols), 0-based: row j was swapped with row
 * ipiv[...] (LAPACK's ipiv minus one). `pivotStride` is min(rows, cols) for uniform batches and
 * the largest min(rows, cols) of a variable batch.
 */
import type { Batch } from './batch.js';
import type { Diag, Side, Uplo } from './enums.js';
import type { IntStorage, Storage } from './storage.js';
import { OP_NAMES } from './op-specs.js';

export type Op = 'N' | 'T';

export interface GemmRequest<S = Storage> {
  transA: Op; transB: Op; alpha: number; a: Batch<S>; b: Batch<S>; beta: number; c: Batch<S>;
}
/** side 'left': B := alpha op(A)^-1 B; 'right': B := alpha B op(A)^-1. A is triangular. */
export interface TrsmRequest<S = Storage> {
  side: Side; uplo: Uplo; transA: Op; diag: Diag; alpha: number; a: Batch<S>; b: Batch<S>;
}
/** side 'left': B := alpha op(A) B; 'right': B := alpha B op(A). */
export type TrmmRequest<S = Storage> = TrsmRequest<S>;
/** trans 'N': C := alpha A A^T + beta C (A n x k); 'T': C := alpha A^T A + beta C (A k x n). Only `uplo` of C is written. */
export interface SyrkRequest<S = Storage> {
  uplo: Uplo; trans: Op; alpha: number; a: Batch<S>; beta: number; c: Batch<S>;
}
export interface InfoTarget<I = IntStorage> { info: I }
export interface PotrfRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { uplo: Uplo; a: Batch<S> }
/** Solves A X = B with A's Cholesky factor from potrf. info is 0 (LAPACK's potrs has no failure). */
export interface PotrsRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { uplo: Uplo; a: Batch<S>; b: Batch<S> }
export type PosvRequest<S = Storage, I = IntStorage> = PotrsRequest<S, I>;
export interface GetrfRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { a: Batch<S>; ipiv: I; pivotStride: number }
export interface GetrsRequest<S = Storage, I = IntStorage> extends InfoTarget<I> {
  trans: Op; a: Batch<S>; ipiv: I; pivotStride: number; b: Batch<S>;
}
/**
 * The inverse of A from its LU factors and pivots (getrf's output), as LAPACK's dgetri: A (n x n)
 * is overwritten by inv(A). info = k > 0 where U(k,k) is exactly zero (A then left unchanged).
 */
export interface GetriRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { a: Batch<S>; ipiv: I; pivotStride: number }
export interface GesvRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { a: Batch<S>; ipiv: I; pivotStride: number; b: Batch<S> }
export interface TrtriRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { uplo: Uplo; diag: Diag; a: Batch<S> }
export interface LauumRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { uplo: Uplo; a: Batch<S> }
export type PotriRequest<S = Storage, I = IntStorage> = LauumRequest<S, I>;
/**
 * Symmetric eigendecomposition: only the `uplo` triangle of A (n x n) is read; w (n x 1 per
 * matrix) receives the eigenvalues in ascending order; jobz 'vectors' overwrites all of A with
 * the orthonormal eigenvectors (column j belongs to w[j]), 'values' leaves A unchanged.
 * info: 0, n + 1 where the Jacobi sweeps did not converge, n + 2 where A held NaN or Inf
 * (w, and A with 'vectors', then hold NaN).
 */
export interface SyevRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { jobz: Job; uplo: Uplo; a: Batch<S>; w: Batch<S> }
/**
 * Thin SVD A = U diag(s) VT of A (m x n), k = min(m, n): s (k x 1 per matrix) descending, u
 * (m x k) when present, vt (k x n) when present. A is read only. info: 0, k + 1 where the sweeps
 * did not converge, k + 2 where A held NaN or Inf (s, u and vt then hold NaN).
 */
export interface GesvdRequest<S = Storage, I = IntStorage> extends InfoTarget<I> {
  a: Batch<S>; s: Batch<S>; u?: Batch<S> | undefined; vt?: Batch<S> | undefined;
}
/**
 * Householder QR of A (m x n), k = min(m, n), as LAPACK's geqrf: R over the upper triangle, the
 * reflectors' vectors below the diagonal (v_j(j) = 1 implied), their scalars in tau (k x 1 per
 * matrix). info is always 0 (LAPACK's geqrf has no failure; kept for the info convention).
 */
export interface GeqrfRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { a: Batch<S>; tau: Batch<S> }
/** The first n columns of Q = H(0) ... H(k-1) over A (m x n, m >= n >= k), from geqrf's reflectors; k = tau's rows. */
export interface OrgqrRequest<S = Storage> { a: Batch<S>; tau: Batch<S> }
/**
 * C (m x n) := op(Q) C (side 'left') or C op(Q) (side 'right'), op(Q) = Q ('N') or Q^T ('T'),
 * Q = H(0) H(1) ... H(k-1) from geqrf's reflectors, as LAPACK's dormqr: A holds them in its first
 * k columns (A is m x ka for side 'left', n x ka for 'right', k <= ka, k <= its rows; only the
 * part below the diagonal is read), tau their scalars (k x 1 per matrix; k = tau's rows).
 */
export interface OrmqrRequest<S = Storage> { side: Side; trans: Op; a: Batch<S>; tau: Batch<S>; c: Batch<S> }
/**
 * Least squares (m >= n: min ||A X - B||) or minimum norm (m < n) solution, as LAPACK's gels
 * (trans 'N'): B is max(m, n) x nrhs, X lands in its first n rows; A is overwritten by its QR
 * (m >= n) or by the transpose of the QR of A^T (m < n). info = j + 1 where R(j, j) is exactly zero.
 */
export interface GelsRequest<S = Storage, I = IntStorage> extends InfoTarget<I> { a: Batch<S>; b: Batch<S> }
/** Whether syev computes eigenvectors. */
export type Job = 'values' | 'vectors';
/** The inverse of an SPD matrix in one call: potrf, then potri; info > 0 as potrf's (the matrix then left as potrf leaves it). */
export type PotiRequest<S = Storage, I = IntStorage> = LauumRequest<S, I>;

/**
 * Every operation's request, by name: the one list the operation names come from (OpName), and
 * what a backend implements. A new operation adds its request here and its entry in op-specs.ts.
 */
export interface Requests<S = Storage, I = IntStorage> {
  gemm: GemmRequest<S>;
  trsm: TrsmRequest<S>;
  trmm: TrmmRequest<S>;
  syrk: SyrkRequest<S>;
  potrf: PotrfRequest<S, I>;
  potrs: PotrsRequest<S, I>;
  posv: PosvRequest<S, I>;
  getrf: GetrfRequest<S, I>;
  getrs: GetrsRequest<S, I>;
  gesv: GesvRequest<S, I>;
  trtri: TrtriRequest<S, I>;
  lauum: LauumRequest<S, I>;
  potri: PotriRequest<S, I>;
  syev: SyevRequest<S, I>;
  gesvd: GesvdRequest<S, I>;
  poti: PotiRequest<S, I>;
  geqrf: GeqrfRequest<S, I>;
  orgqr: OrgqrRequest<S>;
  ormqr: OrmqrRequest<S>;
  gels: GelsRequest<S, I>;
  getri: GetriRequest<S, I>;
}

/** The operations of a backend, one method per request. */
export type Operations<S = Storage, I = IntStorage> = { readonly [K in keyof Requests]: (r: Requests<S, I>[K]) => void };

/**
 * One backend: every operation, synchronous from the caller's point of view on the host (CPU),
 * or enqueued in stream order (CUDA: the context waits where the user asks it to).
 */
export type Backend<S = Storage, I = IntStorage> = Operations<S, I> & { readonly name: string };

export type OpName = keyof Requests;
export { OP_NAMES, OP_SPECS } from './op-specs.js';

/**
 * A backend that dispatches every operation by name to one `run(op, request)`: the CUDA backends
 * (one GPU, several GPUs) stage, split or fall back the same way for every operation.
 */
export abstract class DispatchingBackend<S = Storage, I = IntStorage> {
  abstract readonly name: string;
  protected abstract run(op: OpName, request: Record<string, unknown>): void;

  constructor() {
    const self = this as unknown as Record<OpName, (request: Record<string, unknown>) => void>;
    for (const name of OP_NAMES) self[name] = (request) => this.run(name, request);
  }
}
// The methods the constructor installs, one per operation.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface DispatchingBackend<S = Storage, I = IntStorage> extends Operations<S, I> {}

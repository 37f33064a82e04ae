/**
 * myriad: batched linear algebra for very many small matrices, and tall-and-skinny shapes.
 *
 * Two levels:
 * - LAPACK level (`gemm`, `potrf`, `getrf`, ...): BLAS/LAPACK names and semantics on batches
 *   described by `strided`, `list` or `variable`; in place; per-matrix `info`.
 * - Array level (`matmul`, `cholesky`, `solve`, ...): row-major stacks [..., m, n], new arrays.
 * The top-level functions run on the CPU; `open()` returns a context for the best backend.
 *
 * The bridge: every LAPACK-level call takes an `NDArray` (row-major [..., rows, cols]) wherever
 * it takes a batch, and `asArray(batch)` turns a batch back into a stack (see api/bridge.ts).
 * Failure is per matrix in `info` (codes: core/info.ts); `{ check: true }` or `assertInfo` throws.
 */
import { cpuContext, type InfoResult, type PivotResult } from './api/context.js';
import type { Storage } from './core/storage.js';
import type { FloatArray } from './core/dtype.js';
import type {
  CholeskyOptions, EighOptions, EighResult, InvOptions, LuResult, NDArray, SvdResult, TriangularSolveOptions, WithInfo,
} from './api/array.js';
import type { LstsqResult, QrOptions, QrResult } from './api/array-qr.js';
import type {
  CholeskySolveArgs, FactorArgs, GelsArgs, GemmArgs, GeqrfArgs, GesvArgs, GesvdArgs, GetrfArgs, GetrsArgs, OrgqrArgs, OrmqrArgs,
  SyevArgs, SyrkArgs, TrmmArgs, TrsmArgs, TrtriArgs, GetriArgs,
} from './api/prepare.js';

export * from './core/index.js';
export { Context, cpuContext, type BackendName, type InfoResult, type PivotResult, type IntsFor, type Preparers } from './api/context.js';
export type { PreparedCall, PreparedStorages } from './api/prepared.js';
export type { Captured } from './api/capture.js';
export { open, type OpenOptions } from './api/open.js';
export { probeBackends, type BackendChoice, type BackendStatus } from './api/backends.js';
export { ShardedArray, DeviceFailure, type DeviceSelection, type ShardLayout } from './cuda/multi/index.js';
export { MultiDeviceContext } from './api/multi-context.js';
export { openMultiDevice } from './api/multi-open.js';
export { cpuThreads, setCpuThreads } from './cpu-fast/index.js';
export { CudaError, NvrtcError, VendorError } from './cuda/runtime/index.js';
export { ndarray, type NDArray, type LuResult, type WithInfo, type CholeskyOptions, type InvOptions, type TriangularSolveOptions,
  type EighOptions, type EighResult, type SvdResult,
} from './api/array.js';
export type { QrMode, QrOptions, QrResult, LstsqResult } from './api/array-qr.js';
export { batchOf, asArray, type ArrayView, type BatchArg, type BatchOfOptions } from './api/bridge.js';
export { assertInfo } from './api/check.js';
export { transpose, add, subtract, scale, broadcastTo } from './api/elementwise.js';
export type {
  InfoArgs, GemmArgs, TrsmArgs, TrmmArgs, SyrkArgs, FactorArgs, CholeskySolveArgs, TrtriArgs, GetrfArgs, GetrsArgs, GesvArgs,
  SyevArgs, GesvdArgs, GeqrfArgs, OrgqrArgs, OrmqrArgs, GelsArgs, GetriArgs,
} from './api/prepare.js';

// LAPACK level on the CPU (the same calls as on a Context: see Context for CUDA).

/** C := alpha op(A) op(B) + beta C for every matrix. beta = 0 never reads C. */
export function gemm<S extends Storage>(args: GemmArgs<S>): void { cpuContext.gemm(args); }
/** B := alpha op(A)^-1 B (side 'left') or alpha B op(A)^-1 ('right'), A triangular. */
export function trsm<S extends Storage>(args: TrsmArgs<S>): void { cpuContext.trsm(args); }
/** B := alpha op(A) B (side 'left') or alpha B op(A) ('right'), A triangular. */
export function trmm<S extends Storage>(args: TrmmArgs<S>): void { cpuContext.trmm(args); }
/** C := alpha A A^T + beta C (trans 'N') or alpha A^T A + beta C ('T'); only `uplo` of C is written. */
export function syrk<S extends Storage>(args: SyrkArgs<S>): void { cpuContext.syrk(args); }
/** Cholesky A = L L^T ('lower') or U^T U ('upper') in place. info[i] = k > 0: minor k not positive definite. */
export function potrf<S extends Storage>(args: FactorArgs<S>): InfoResult<S> { return cpuContext.potrf(args); }
/** Solves A X = B in place of B, with A's Cholesky factor from potrf. */
export function potrs<S extends Storage>(args: CholeskySolveArgs<S>): InfoResult<S> { return cpuContext.potrs(args); }
/** Factors A (potrf) and solves A X = B; B is left unchanged for a matrix with info > 0. */
export function posv<S extends Storage>(args: CholeskySolveArgs<S>): InfoResult<S> { return cpuContext.posv(args); }
/**
 * LU with partial pivoting, P A = L U, in place. ipiv is 0-based: row j was swapped with row
 * ipiv[i * pivotStride + j] (LAPACK's ipiv minus one); pivotStride is min(m, n), or for a
 * variable batch the largest min(m, n) in it. info[i] = k > 0: U(k,k) is exactly zero.
 */
export function getrf<S extends Storage>(args: GetrfArgs<S>): PivotResult<S> { return cpuContext.getrf(args); }
/** Solves op(A) X = B with the LU factors and pivots from getrf. */
export function getrs<S extends Storage>(args: GetrsArgs<S>): InfoResult<S> { return cpuContext.getrs(args); }
/** Factors A (getrf) and solves A X = B; B is left unchanged for a matrix with info > 0. */
export function gesv<S extends Storage>(args: GesvArgs<S>): PivotResult<S> { return cpuContext.gesv(args); }
/** Inverse of A from getrf's LU factors and 0-based pivots, in place (LAPACK's getri). info[i] = k > 0: U(k,k) is exactly zero. */
export function getri<S extends Storage>(args: GetriArgs<S>): InfoResult<S> { return cpuContext.getri(args); }
/** Inverse of a triangular matrix in place. info[i] = k > 0: A(k,k) is exactly zero. */
export function trtri<S extends Storage>(args: TrtriArgs<S>): InfoResult<S> { return cpuContext.trtri(args); }
/** U U^T ('upper') or L^T L ('lower') into the same triangle. */
export function lauum<S extends Storage>(args: FactorArgs<S>): InfoResult<S> { return cpuContext.lauum(args); }
/** Inverse of an SPD matrix from its Cholesky factor (trtri then lauum), into the `uplo` triangle. */
export function potri<S extends Storage>(args: FactorArgs<S>): InfoResult<S> { return cpuContext.potri(args); }
/**
 * Symmetric eigendecomposition (cyclic Jacobi) of the `uplo` triangle: w (n x 1 per matrix)
 * ascending; jobz 'vectors' (default) overwrites A with the eigenvectors, 'values' leaves A.
 * info[i]: n + 1 where the sweeps did not converge, n + 2 where A held NaN or Inf.
 */
export function syev<S extends Storage>(args: SyevArgs<S>): InfoResult<S> { return cpuContext.syev(args); }
/**
 * Thin SVD A = U diag(s) VT (one-sided Jacobi), k = min(m, n): s (k x 1) descending, u
 * (m x k) and vt (k x n) where jobu / jobvt are 'thin' (default). A is only read.
 * info[i]: k + 1 where the sweeps did not converge, k + 2 where A held NaN or Inf.
 */
export function gesvd<S extends Storage>(args: GesvdArgs<S>): InfoResult<S> { return cpuContext.gesvd(args); }
/**
 * Householder QR in place (LAPACK's geqrf): R over the upper triangle, the reflectors below the
 * diagonal, their scalars in tau (min(m, n) x 1 per matrix). info is always 0.
 */
export function geqrf<S extends Storage>(args: GeqrfArgs<S>): InfoResult<S> { return cpuContext.geqrf(args); }
/** The m x n Q (m >= n) over A from geqrf's reflectors; k = tau's rows (k <= n). */
export function orgqr<S extends Storage>(args: OrgqrArgs<S>): void { cpuContext.orgqr(args); }
/**
 * C := op(Q) C (side 'left', default) or C op(Q) ('right') with op(Q) = Q ('N', default) or Q^T
 * ('T'), Q from geqrf's reflectors (A's first k columns, k = tau's rows), as LAPACK's ormqr.
 */
export function ormqr<S extends Storage>(args: OrmqrArgs<S>): void { cpuContext.ormqr(args); }
/**
 * Least squares (m >= n) or minimum norm (m < n) solutions of A X = B (LAPACK's gels, trans 'N'):
 * B is max(m, n) x nrhs, X lands in its first n rows; A is overwritten by its factors.
 * info[i] = j > 0: R(j, j) is exactly zero (A not of full rank), X not computed.
 */
export function gels<S extends Storage>(args: GelsArgs<S>): InfoResult<S> { return cpuContext.gels(args); }
/**
 * Inverse of an SPD matrix in one call (potrf, trtri, lauum), into the `uplo` triangle as potri
 * leaves it. info[i] = k > 0: the leading minor of order k is not positive definite (potrf's
 * info), and the matrix is left as potrf leaves it.
 */
export function poti<S extends Storage>(args: FactorArgs<S>): InfoResult<S> { return cpuContext.poti(args); }

// Array level on the CPU.

/** numpy's matmul: [..., m, k] x [..., k, n] -> [..., m, n], batch dimensions broadcast; a 1-D a is a row, a 1-D b a column. */
export function matmul<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>): NDArray<T> { return cpuContext.matmul(a, b); }
/** Cholesky factor L (lower, default) or U of SPD matrices [..., n, n]; throws NUMERICAL naming failed matrices. */
export function cholesky<T extends FloatArray>(a: NDArray<T>, options?: CholeskyOptions): NDArray<T> { return cpuContext.cholesky(a, options); }
/** cholesky with per-matrix info instead of throwing (failed factors are NaN). */
export function choleskyEx<T extends FloatArray>(a: NDArray<T>, options?: CholeskyOptions): WithInfo<{ factor: NDArray<T> }> { return cpuContext.choleskyEx(a, options); }
/** LU with partial pivoting: packed factors [..., m, n] and 0-based pivots; throws NUMERICAL for exactly singular matrices. */
export function lu<T extends FloatArray>(a: NDArray<T>): LuResult<T> { return cpuContext.lu(a); }
/** lu with per-matrix info instead of throwing. */
export function luEx<T extends FloatArray>(a: NDArray<T>): WithInfo<LuResult<T>> { return cpuContext.luEx(a); }
/** X with A X = B (numpy 2's solve): b [..., n, k] broadcast against a, or one vector [n]; throws NUMERICAL for singular or NaN/Inf matrices. */
export function solve<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>): NDArray<T> { return cpuContext.solve(a, b); }
/** solve with per-matrix info instead of throwing (failed solutions are NaN). */
export function solveEx<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>): WithInfo<{ x: NDArray<T> }> { return cpuContext.solveEx(a, b); }
/** X with A X = B from A's Cholesky factor; b [..., n, k] or [..., n] (one vector per matrix). */
export function choleskySolve<T extends FloatArray>(factor: NDArray<T>, b: NDArray<T>, options?: CholeskyOptions): NDArray<T> { return cpuContext.choleskySolve(factor, b, options); }
/** Inverses [..., n, n]: general (LU), or { assume: 'spd' } (Cholesky); throws NUMERICAL for failed matrices. */
export function inv<T extends FloatArray>(a: NDArray<T>, options?: InvOptions): NDArray<T> { return cpuContext.inv(a, options); }
/** inv with per-matrix info instead of throwing. */
export function invEx<T extends FloatArray>(a: NDArray<T>, options?: InvOptions): WithInfo<{ inverse: NDArray<T> }> { return cpuContext.invEx(a, options); }
/** X with op(A) X = B (left, default) or X op(A) = B, A triangular. */
export function triangularSolve<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, options?: TriangularSolveOptions): NDArray<T> { return cpuContext.triangularSolve(a, b, options); }
/** Eigenvalues (ascending) and eigenvectors of symmetric matrices (numpy's eigh); throws NUMERICAL for NaN/Inf or no convergence. */
export function eigh<T extends FloatArray>(a: NDArray<T>, options?: EighOptions): EighResult<T> { return cpuContext.eigh(a, options); }
/** eigh with per-matrix info instead of throwing. */
export function eighEx<T extends FloatArray>(a: NDArray<T>, options?: EighOptions): WithInfo<EighResult<T>> { return cpuContext.eighEx(a, options); }
/** Eigenvalues only, ascending (numpy's eigvalsh). */
export function eigvalsh<T extends FloatArray>(a: NDArray<T>, options?: EighOptions): NDArray<T> { return cpuContext.eigvalsh(a, options); }
/** eigvalsh with per-matrix info instead of throwing. */
export function eigvalshEx<T extends FloatArray>(a: NDArray<T>, options?: EighOptions): WithInfo<{ values: NDArray<T> }> { return cpuContext.eigvalshEx(a, options); }
/** The thin SVD (numpy's svd(a, full_matrices=False)): u [..., m, k], s [..., k], vt [..., k, n]. */
export function svd<T extends FloatArray>(a: NDArray<T>): SvdResult<T> { return cpuContext.svd(a); }
/** svd with per-matrix info instead of throwing. */
export function svdEx<T extends FloatArray>(a: NDArray<T>): WithInfo<SvdResult<T>> { return cpuContext.svdEx(a); }
/** Singular values only, descending (numpy's svdvals). */
export function svdvals<T extends FloatArray>(a: NDArray<T>): NDArray<T> { return cpuContext.svdvals(a); }
/** svdvals with per-matrix info instead of throwing. */
export function svdvalsEx<T extends FloatArray>(a: NDArray<T>): WithInfo<{ values: NDArray<T> }> { return cpuContext.svdvalsEx(a); }
/** numpy's linalg.qr: mode 'reduced' (default), 'complete' or 'r'. */
export function qr<T extends FloatArray>(a: NDArray<T>, options?: QrOptions): QrResult<T> { return cpuContext.qr(a, options); }
/** Least squares (numpy's lstsq, full rank): a [..., m, n], b [..., m, nrhs] broadcast against a, or one vector [m]. */
export function lstsq<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>): LstsqResult<T> { return cpuContext.lstsq(a, b); }
/** lstsq with per-matrix info instead of throwing. */
export function lstsqEx<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>): WithInfo<LstsqResult<T>> { return cpuContext.lstsqEx(a, b); }

/**
 * myriad: batched linear algebra for very many small matrices, and tall-and-skinny shapes.
 *
 * Two levels:
 * - LAPACK level (`gemm`, `potrf`, `getrf`, ...): BLAS/LAPACK names and semantics on batches
 *   described by `strided`, `list` or `variable`; in place; per-matrix `info`.
 * - Array level (`matmul`, `cholesky`, `solve`, ...): row-major stacks [..., m, n], new arrays;
 *   real, or complex with `ndarray(data, shape, { dtype: 'complex128' })` (interleaved pairs).
 * The top-level functions run on the CPU; `open()` returns a context for the best backend.
 *
 * The bridge: every LAPACK-level call takes an `NDArray` (row-major [..., rows, cols]) wherever
 * it takes a batch, and `asArray(batch)` turns a batch back into a stack (see api/bridge.ts).
 * Failure is per matrix in `info` (codes: core/info.ts); `{ check: true }` or `assertInfo` throws.
 */
import { cpuContext } from './api/context.js';
import type { FloatArray } from './core/dtype.js';
import type {
  CholeskyOptions, EighOptions, EighResult, InvOptions, LuResult, NDArray, SvdResult, TriangularSolveOptions, WithInfo,
} from './api/array.js';
import type { LstsqResult, QrOptions, QrResult } from './api/array-qr.js';

export * from './core/index.js';
export { Context, cpuContext, type BackendName, type InfoResult, type PivotResult, type IntsFor, type Preparers } from './api/context.js';
export type { PreparedCall, PreparedStorages } from './api/prepared.js';
export type { Captured } from './api/capture.js';
export { open, type OpenOptions } from './api/open.js';
export { warmAhead } from './api/warm-ahead.js';
export { probeBackends, type BackendChoice, type BackendStatus } from './api/backends.js';
export { ShardedArray, DeviceFailure, type DeviceSelection, type ShardLayout } from './cuda/multi/index.js';
export { MultiDeviceContext } from './api/multi-context.js';
export { openMultiDevice } from './api/multi-open.js';
export { cpuThreads, setCpuThreads } from './cpu-fast/index.js';
export { CudaError, NvrtcError, VendorError } from './cuda/runtime/index.js';
export { ndarray, type NDArray, type NDArrayOptions, type LuResult, type WithInfo, type CholeskyOptions, type InvOptions, type TriangularSolveOptions,
  type EighOptions, type EighResult, type SvdResult,
} from './api/array.js';
export type { QrMode, QrOptions, QrResult, LstsqResult } from './api/array-qr.js';
export { batchOf, asArray, type ArrayView, type BatchArg, type BatchOfOptions } from './api/bridge.js';
export { assertInfo, type AssertInfoOptions } from './api/check.js';
export { transpose, add, subtract, scale, broadcastTo } from './api/elementwise.js';
export type { InfoArgs } from './api/prepare.js';

// LAPACK level on the CPU (the same calls as on a Context: see Context for CUDA), generated from the op specs.
export * from './api/top-level.generated.js';

// Array level on the CPU.

/** numpy's matmul: [..., m, k] x [..., k, n] -> [..., m, n], batch dimensions broadcast; a 1-D a is a row, a 1-D b a column. */
export function matmul<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): NDArray<T> { return cpuContext.matmul(a, b, ...none); }
/** Cholesky factor L (lower, default) or U of SPD matrices [..., n, n]; throws NUMERICAL naming failed matrices. */
export function cholesky<T extends FloatArray>(a: NDArray<T>, options?: CholeskyOptions): NDArray<T> { return cpuContext.cholesky(a, options); }
/** cholesky with per-matrix info instead of throwing (failed factors are NaN). */
export function choleskyEx<T extends FloatArray>(a: NDArray<T>, options?: CholeskyOptions): WithInfo<{ factor: NDArray<T> }> { return cpuContext.choleskyEx(a, options); }
/** LU with partial pivoting: packed factors [..., m, n] and 0-based pivots; throws NUMERICAL for exactly singular matrices. */
export function lu<T extends FloatArray>(a: NDArray<T>, ...none: never[]): LuResult<T> { return cpuContext.lu(a, ...none); }
/** lu with per-matrix info instead of throwing. */
export function luEx<T extends FloatArray>(a: NDArray<T>, ...none: never[]): WithInfo<LuResult<T>> { return cpuContext.luEx(a, ...none); }
/** X with A X = B (numpy 2's solve): b [..., n, k] broadcast against a, or one vector [n]; throws NUMERICAL for singular or NaN/Inf matrices. */
export function solve<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): NDArray<T> { return cpuContext.solve(a, b, ...none); }
/** solve with per-matrix info instead of throwing (failed solutions are NaN). */
export function solveEx<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): WithInfo<{ x: NDArray<T> }> { return cpuContext.solveEx(a, b, ...none); }
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
export function svd<T extends FloatArray>(a: NDArray<T>, ...none: never[]): SvdResult<T> { return cpuContext.svd(a, ...none); }
/** svd with per-matrix info instead of throwing. */
export function svdEx<T extends FloatArray>(a: NDArray<T>, ...none: never[]): WithInfo<SvdResult<T>> { return cpuContext.svdEx(a, ...none); }
/** Singular values only, descending (numpy's svdvals). */
export function svdvals<T extends FloatArray>(a: NDArray<T>, ...none: never[]): NDArray<T> { return cpuContext.svdvals(a, ...none); }
/** svdvals with per-matrix info instead of throwing. */
export function svdvalsEx<T extends FloatArray>(a: NDArray<T>, ...none: never[]): WithInfo<{ values: NDArray<T> }> { return cpuContext.svdvalsEx(a, ...none); }
/** numpy's linalg.qr: mode 'reduced' (default), 'complete' or 'r'. */
export function qr<T extends FloatArray>(a: NDArray<T>, options?: QrOptions): QrResult<T> { return cpuContext.qr(a, options); }
/** Least squares (numpy's lstsq, full rank): a [..., m, n], b [..., m, nrhs] broadcast against a, or one vector [m]. */
export function lstsq<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): LstsqResult<T> { return cpuContext.lstsq(a, b, ...none); }
/** lstsq with per-matrix info instead of throwing. */
export function lstsqEx<T extends FloatArray>(a: NDArray<T>, b: NDArray<T>, ...none: never[]): WithInfo<LstsqResult<T>> { return cpuContext.lstsqEx(a, b, ...none); }

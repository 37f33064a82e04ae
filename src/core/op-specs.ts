/**
 * One entry per operation: its request (the validated, column-major arguments a backend gets,
 * listed in `Requests`) and its spec (OP_SPECS): what every layer needs to know about it that is
 * not its arithmetic. The per-operation tables of the layers are derived from here: the names
 * (OP_NAMES), the fields each call writes (the CUDA staging and CPU fallback download them, the
 * CPU worker pool stages them back, prepared calls check new storages against them), the batch
 * that defines a call's count and shape, which row-major host batches the context copies to
 * column-major, what a call returns, and whether its work can be recorded in a graph.
 *
 * Validation (the public argument object -> the request) is the operation's
 * preparer in api/prepare.ts (VALIDATORS), the arithmetic its CPU reference (cpu/backend.ts) and
 * its GPU candidates (cuda/router.ts). Flop and byte counts are in counts.ts.
 */
import type { Batch } from './batch.js';
import type { Diag, Side, Uplo } from './enums.js';
import type { IntStorage, Storage } from './storage.js';

/*
 * The requests: the operations as fully validated, column-major requests.
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
export type Op = 'N' | 'T';

export interface GemmRequest<S = Storage> {
  transA: Op; transB: Op; alpha: number; a: Batch<S>; b: Batch<S>; beta: number; c: Batch<S>;
}
/** op(X) of a complex matrix: X, its transpose ('T'), or its conjugate transpose ('C'). */
export type ComplexOp = 'N' | 'T' | 'C';
/** A complex scalar as (re, im). The public API takes `number | [re, im]`; a number is (x, 0). */
export type ComplexScalar = readonly [re: number, im: number];
/**
 * gemm on complex batches (complex128 or complex64, every batch of one type): C := alpha op(A)
 * op(B) + beta C, as BLAS zgemm / cgemm. beta = 0 never reads C; alpha = 0 never reads A or B.
 */
export interface ComplexGemmRequest<S = Storage> {
  transA: ComplexOp; transB: ComplexOp; alpha: ComplexScalar; a: Batch<S>; b: Batch<S>; beta: ComplexScalar; c: Batch<S>;
}
/** trsm / trmm on complex batches (ztrsm, ztrmm): op(A) may be A^H ('C'), alpha is complex. */
export interface ComplexTrsmRequest<S = Storage> {
  side: Side; uplo: Uplo; transA: ComplexOp; diag: Diag; alpha: ComplexScalar; a: Batch<S>; b: Batch<S>;
}
/** syrk on complex batches (zsyrk): C := alpha A A^T + beta C ('N') or alpha A^T A + beta C ('T'), no conjugation. */
export interface ComplexSyrkRequest<S = Storage> {
  uplo: Uplo; trans: Op; alpha: ComplexScalar; a: Batch<S>; beta: ComplexScalar; c: Batch<S>;
}
/**
 * herk on complex batches (zherk): C := alpha A A^H + beta C ('N', A n x k) or alpha A^H A + beta C
 * ('C', A k x n), alpha and beta real; only `uplo` of C is written, the imaginary parts of its
 * diagonal set to zero.
 */
export interface ComplexHerkRequest<S = Storage> {
  uplo: Uplo; trans: 'N' | 'C'; alpha: number; a: Batch<S>; beta: number; c: Batch<S>;
}
/** ormqr on complex batches (zunmqr): op(Q) = Q ('N') or Q^H ('C'). */
export interface ComplexOrmqrRequest<S = Storage> { side: Side; trans: 'N' | 'C'; a: Batch<S>; tau: Batch<S>; c: Batch<S> }
/** getrs on complex batches: op(A) X = B with op 'N', 'T' or 'C' (zgetrs). */
export interface ComplexGetrsRequest<S = Storage, I = IntStorage> extends InfoTarget<I> {
  trans: ComplexOp; a: Batch<S>; ipiv: I; pivotStride: number; b: Batch<S>;
}

/**
 * The operations that take complex batches, by name, with their complex requests (the same
 * validation as the real ones: column-major, one element type per call). Their reference is the
 * CPU's (cpu/complex/); a CUDA context runs those with a complex GPU candidate there (the lists of
 * cuda/router.ts COMPLEX_ROUTES) and the rest on the reference with copies of device data, route
 * 'cpu'. An operation lists here exactly when its OP_SPECS entry has `complex: true`.
 */
export interface ComplexRequests<S = Storage, I = IntStorage> {
  gemm: ComplexGemmRequest<S>;
  trsm: ComplexTrsmRequest<S>;
  trmm: ComplexTrsmRequest<S>;
  syrk: ComplexSyrkRequest<S>;
  herk: ComplexHerkRequest<S>;
  potrf: PotrfRequest<S, I>;
  potrs: PotrsRequest<S, I>;
  posv: PosvRequest<S, I>;
  getrf: GetrfRequest<S, I>;
  getrs: ComplexGetrsRequest<S, I>;
  gesv: GesvRequest<S, I>;
  trtri: TrtriRequest<S, I>;
  lauum: LauumRequest<S, I>;
  potri: PotriRequest<S, I>;
  poti: PotiRequest<S, I>;
  getri: GetriRequest<S, I>;
  heev: HeevRequest<S, I>;
  geqrf: GeqrfRequest<S, I>;
  orgqr: OrgqrRequest<S>;
  ormqr: ComplexOrmqrRequest<S>;
  gels: GelsRequest<S, I>;
  gesvd: GesvdRequest<S, I>;
}
/** The operations that take complex batches. */
export type ComplexOpName = keyof ComplexRequests;

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
/** herk on real data is syrk: C := alpha A A^T + beta C ('N') or alpha A^T A + beta C ('T' or 'C'). */
export type HerkRequest<S = Storage> = SyrkRequest<S>;
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
 * Hermitian eigendecomposition (LAPACK's zheev / cheev): A complex n x n, only its `uplo`
 * triangle read (the diagonal's imaginary parts ignored); w a real batch (float64 for complex128,
 * float32 for complex64) of n x 1 columns, the eigenvalues ascending; jobz 'vectors' overwrites
 * all of A with orthonormal eigenvectors (column j belongs to w[j]), 'values' leaves A unchanged.
 * info as syev's. On real data it is syev (the same request, every backend runs syev's code).
 */
export type HeevRequest<S = Storage, I = IntStorage> = SyevRequest<S, I>;
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
  herk: HerkRequest<S>;
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
  heev: HeevRequest<S, I>;
  gesvd: GesvdRequest<S, I>;
  poti: PotiRequest<S, I>;
  geqrf: GeqrfRequest<S, I>;
  orgqr: OrgqrRequest<S>;
  ormqr: OrmqrRequest<S>;
  gels: GelsRequest<S, I>;
  getri: GetriRequest<S, I>;
}

/** The LAPACK-level operations, by name. */
export type OpName = keyof Requests;


/** What a request field is. */
export type ArgKind =
  /** a batch of matrices (core/batch.ts) */
  | 'batch'
  /** an optional batch (absent where the caller does not want it) */
  | 'batch?'
  /** a number (alpha, beta) */
  | 'scalar'
  /** a parsed enum (side, uplo, trans, diag, jobz) */
  | 'enum'
  /** per-matrix int32 (info, ipiv) */
  | 'ints'
  /** an integer the API derives (pivotStride) */
  | 'int';

export interface OpSpec {
  /** The request's fields and their kinds, in the order of the request. */
  readonly args: Readonly<Record<string, ArgKind>>;
  /** The fields the operation writes (batches and ints). */
  readonly writes: readonly string[];
  /** The batch that defines the call's count and shape; a call whose `main` matrices are all empty computes nothing but info. */
  readonly main: string;
  /**
   * Batches the context copies to column-major where they are row-major host batches (no
   * transposed operation maps them); written back after the call unless `readOnly` lists them.
   */
  readonly copies?: readonly string[];
  /** The fields of `copies` the operation only reads. */
  readonly readOnly?: readonly string[];
  /** Fields of `copies` a call only reads where its enum argument has the value given (syev's A under jobz 'values'). */
  readonly readOnlyWhen?: Readonly<Record<string, readonly [arg: string, value: string]>>;
  /** What the call returns: nothing, { info }, or { info, ipiv }. */
  readonly returns: 'none' | 'info' | 'pivots';
  /** Whether its GPU work can be recorded in a graph (a composition that reads info on the host cannot). */
  readonly capturable: boolean;
  /** What its non-zero info codes mean (core/info.ts), absent where it has no info. */
  readonly info?: InfoSpec;
  /**
   * Whether it takes complex batches (complex128, complex64; every batch of a call of one element
   * type). Absent: a complex batch is an UNSUPPORTED error naming the operation and the argument.
   */
  readonly complex?: true;
}

/** What a failure code k in 1..p means: not positive definite, singular U(k,k), singular A(k,k), rank-deficient R(k,k), the Jacobi codes, or nothing. */
export type InfoMeaning = 'pd' | 'lu' | 'tri' | 'rank' | 'jacobi' | 'none';
export interface InfoSpec {
  readonly meaning: InfoMeaning;
  /** p, the order the codes count in: n of a square A, or min(m, n). */
  readonly order: 'square' | 'min';
  /** The outputs where NaN/Inf in the input shows (`{ check: true }` looks there). */
  readonly watch: readonly string[];
}
const info = (meaning: InfoMeaning, order: 'square' | 'min', ...watch: string[]): InfoSpec => ({ meaning, order, watch });

const SQUARE_INFO = { args: { uplo: 'enum', a: 'batch', info: 'ints' }, writes: ['a', 'info'], main: 'a', returns: 'info', capturable: true } as const;
const TRIANGULAR = { args: { side: 'enum', uplo: 'enum', transA: 'enum', diag: 'enum', alpha: 'scalar', a: 'batch', b: 'batch' }, writes: ['b'], main: 'b', returns: 'none', capturable: true } as const;
const RANK_K = { args: { uplo: 'enum', trans: 'enum', alpha: 'scalar', a: 'batch', beta: 'scalar', c: 'batch' }, writes: ['c'], main: 'c', returns: 'none', capturable: true } as const;
const CHOLESKY_SOLVE = { args: { uplo: 'enum', a: 'batch', b: 'batch', info: 'ints' }, main: 'a', copies: ['b'], returns: 'info', capturable: true } as const;

const SPECS = {
  gemm: {
    args: { transA: 'enum', transB: 'enum', alpha: 'scalar', a: 'batch', b: 'batch', beta: 'scalar', c: 'batch' },
    writes: ['c'], main: 'c', returns: 'none', capturable: true, complex: true,
  },
  trsm: { ...TRIANGULAR, complex: true },
  trmm: { ...TRIANGULAR, complex: true },
  syrk: { ...RANK_K, complex: true },
  herk: { ...RANK_K, complex: true },
  potrf: { ...SQUARE_INFO, info: info('pd', 'square', 'a'), complex: true },
  potrs: { ...CHOLESKY_SOLVE, writes: ['b', 'info'], info: info('none', 'square', 'b'), complex: true },
  posv: { ...CHOLESKY_SOLVE, writes: ['a', 'b', 'info'], info: info('pd', 'square', 'a', 'b'), complex: true },
  getrf: {
    args: { a: 'batch', ipiv: 'ints', pivotStride: 'int', info: 'ints' },
    writes: ['a', 'ipiv', 'info'], main: 'a', copies: ['a'], returns: 'pivots', capturable: true, info: info('lu', 'square', 'a'), complex: true,
  },
  getrs: {
    args: { trans: 'enum', a: 'batch', ipiv: 'ints', pivotStride: 'int', b: 'batch', info: 'ints' },
    writes: ['b', 'info'], main: 'a', copies: ['a', 'b'], readOnly: ['a'], returns: 'info', capturable: true, info: info('none', 'square', 'b'), complex: true,
  },
  gesv: {
    args: { trans: 'enum', a: 'batch', ipiv: 'ints', pivotStride: 'int', b: 'batch', info: 'ints' },
    writes: ['a', 'ipiv', 'b', 'info'], main: 'a', copies: ['a', 'b'], returns: 'pivots', capturable: true, info: info('lu', 'square', 'a', 'b'), complex: true,
  },
  trtri: { ...SQUARE_INFO, args: { uplo: 'enum', diag: 'enum', a: 'batch', info: 'ints' }, info: info('tri', 'square', 'a'), complex: true },
  lauum: { ...SQUARE_INFO, info: info('none', 'square', 'a'), complex: true },
  potri: { ...SQUARE_INFO, info: info('tri', 'square', 'a'), complex: true },
  poti: { ...SQUARE_INFO, info: info('pd', 'square', 'a'), complex: true },
  syev: {
    args: { jobz: 'enum', uplo: 'enum', a: 'batch', w: 'batch', info: 'ints' },
    writes: ['a', 'w', 'info'], main: 'a', copies: ['a', 'w'], readOnlyWhen: { a: ['jobz', 'values'] }, returns: 'info', capturable: true,
    info: info('jacobi', 'square', 'w'),
  },
  heev: {
    args: { jobz: 'enum', uplo: 'enum', a: 'batch', w: 'batch', info: 'ints' },
    writes: ['a', 'w', 'info'], main: 'a', copies: ['a', 'w'], readOnlyWhen: { a: ['jobz', 'values'] }, returns: 'info', capturable: true,
    info: info('jacobi', 'square', 'w'), complex: true,
  },
  gesvd: {
    args: { a: 'batch', s: 'batch', u: 'batch?', vt: 'batch?', info: 'ints' },
    writes: ['s', 'u', 'vt', 'info'], main: 'a', copies: ['a', 's', 'u', 'vt'], readOnly: ['a'], returns: 'info', capturable: true,
    info: info('jacobi', 'min', 's'), complex: true,
  },
  geqrf: {
    args: { a: 'batch', tau: 'batch', info: 'ints' },
    writes: ['a', 'tau', 'info'], main: 'a', copies: ['a', 'tau'], returns: 'info', capturable: true, info: info('none', 'min', 'a'), complex: true,
  },
  orgqr: { args: { a: 'batch', tau: 'batch' }, writes: ['a'], main: 'a', copies: ['a', 'tau'], readOnly: ['tau'], returns: 'none', capturable: true, complex: true },
  ormqr: {
    args: { side: 'enum', trans: 'enum', a: 'batch', tau: 'batch', c: 'batch' },
    writes: ['c'], main: 'c', copies: ['a', 'tau'], readOnly: ['a', 'tau'], returns: 'none', capturable: true, complex: true,
  },
  gels: {
    args: { a: 'batch', b: 'batch', info: 'ints' },
    writes: ['a', 'b', 'info'], main: 'a', copies: ['a', 'b'], returns: 'info', capturable: true, info: info('rank', 'min', 'a', 'b'), complex: true,
  },
  getri: {
    args: { a: 'batch', ipiv: 'ints', pivotStride: 'int', info: 'ints' },
    writes: ['a', 'info'], main: 'a', copies: ['a'], returns: 'info', capturable: true, info: info('lu', 'square', 'a'), complex: true,
  },
} satisfies { readonly [K in OpName]: OpSpec };

/** Every operation's spec, by name. */
export const OP_SPECS: { readonly [K in OpName]: OpSpec } = SPECS;

/** The operations with per-matrix info (their spec has `info`). */
export type LapackInfoOp = { [K in OpName]: (typeof SPECS)[K] extends { info: InfoSpec } ? K : never }[OpName];

/** How the public API presents an operation: its argument type (api/prepare.ts) and its documentation. */
export interface OpFace {
  /** The name of its argument object's type in api/prepare.ts. */
  readonly args: string;
  /** Its documentation, one string a line (the Context method, its *Async form and the top-level function carry it). */
  readonly doc: readonly string[];
}

/** The public face of every operation: scripts/generate-api.ts writes the Context methods, their *Async forms and the top-level functions from it. */
export const OP_FACES: { readonly [K in OpName]: OpFace } = {
  gemm: { args: 'GemmArgs', doc: ['C := alpha op(A) op(B) + beta C for every matrix. beta = 0 never reads C. Complex batches', "(complex128, complex64, column-major) take transA/transB 'C' and alpha/beta as [re, im]."] },
  trsm: { args: 'TrsmArgs', doc: ["B := alpha op(A)^-1 B (side 'left') or alpha B op(A)^-1 ('right'), A triangular. Complex batches", "take transA 'C' (A^H) and alpha as [re, im]."] },
  trmm: { args: 'TrmmArgs', doc: ["B := alpha op(A) B (side 'left') or alpha B op(A) ('right'), A triangular. Complex batches", "take transA 'C' (A^H) and alpha as [re, im]."] },
  syrk: { args: 'SyrkArgs', doc: ["C := alpha A A^T + beta C (trans 'N') or alpha A^T A + beta C ('T'); only `uplo` of C is written.", 'Complex batches: complex alpha and beta, no conjugation (zsyrk).'] },
  herk: { args: 'HerkArgs', doc: ["C := alpha A A^H + beta C (trans 'N') or alpha A^H A + beta C ('C'), alpha and beta real; only `uplo`", 'of C is written, the imaginary parts of its diagonal set to zero (zherk). On real data it is syrk.'] },
  potrf: { args: 'FactorArgs', doc: ["Cholesky A = L L^T ('lower') or U^T U ('upper') in place. info[i] = k > 0: minor k not positive definite.", 'Complex batches: A Hermitian, L L^H or U^H U; only the real parts of the diagonal are read (zpotrf).'] },
  potrs: { args: 'CholeskySolveArgs', doc: ["Solves A X = B in place of B, with A's Cholesky factor from potrf."] },
  posv: { args: 'CholeskySolveArgs', doc: ['Factors A (potrf) and solves A X = B; B is left unchanged for a matrix with info > 0.'] },
  getrf: { args: 'GetrfArgs', doc: ['LU with partial pivoting, P A = L U, in place. ipiv is 0-based: row j was swapped with row', "ipiv[i * pivotStride + j] (LAPACK's ipiv minus one); pivotStride is min(m, n), or for a", 'variable batch the largest min(m, n) in it. info[i] = k > 0: U(k,k) is exactly zero.'] },
  getrs: { args: 'GetrsArgs', doc: ["Solves op(A) X = B with the LU factors and pivots from getrf; trans 'C' is A^H on complex batches."] },
  gesv: { args: 'GesvArgs', doc: ['Factors A (getrf) and solves A X = B; B is left unchanged for a matrix with info > 0.'] },
  trtri: { args: 'TrtriArgs', doc: ['Inverse of a triangular matrix in place. info[i] = k > 0: A(k,k) is exactly zero.'] },
  lauum: { args: 'FactorArgs', doc: ["U U^T ('upper') or L^T L ('lower') into the same triangle (U U^H, L^H L on complex batches, the factor's diagonal read as real, as potrf writes it)."] },
  potri: { args: 'FactorArgs', doc: ['Inverse of an SPD (complex: Hermitian positive definite) matrix from its Cholesky factor (trtri', 'then lauum), into the `uplo` triangle.'] },
  poti: { args: 'FactorArgs', doc: ['Inverse of an SPD matrix in one call (potrf, trtri, lauum), into the `uplo` triangle as potri', "leaves it. info[i] = k > 0: the leading minor of order k is not positive definite (potrf's", 'info), and the matrix is left as potrf leaves it.'] },
  syev: { args: 'SyevArgs', doc: ['Symmetric eigendecomposition (cyclic Jacobi) of the `uplo` triangle: w (n x 1 per matrix)', "ascending; jobz 'vectors' (default) overwrites A with the eigenvectors, 'values' leaves A.", 'info[i]: n + 1 where the sweeps did not converge, n + 2 where A held NaN or Inf. Real data only: heev', 'takes complex Hermitian matrices.'] },
  heev: { args: 'SyevArgs', doc: ['Hermitian eigendecomposition (zheev / cheev; cyclic Jacobi) of the `uplo` triangle of complex A: w', "(n x 1 per matrix, a real batch of A's component type) ascending; jobz 'vectors' (default) overwrites A", "with orthonormal complex eigenvectors, 'values' leaves A. info as syev's. On real data it is syev."] },
  gesvd: { args: 'GesvdArgs', doc: ['Thin SVD A = U diag(s) VT (one-sided Jacobi), k = min(m, n): s (k x 1) descending, u', "(m x k) and vt (k x n) where jobu / jobvt are 'thin' (default). A is only read.", 'info[i]: k + 1 where the sweeps did not converge (nor the off-diagonal part of G^H G fall below k eps of its norm), k + 2 where A held NaN or Inf. Complex batches: complex', "u and vt (vt = V^H), s a real batch of A's component type."] },
  geqrf: { args: 'GeqrfArgs', doc: ["Householder QR in place (LAPACK's geqrf): R over the upper triangle, the reflectors below the", 'diagonal, their scalars in tau (min(m, n) x 1 per matrix). info is always 0. Complex batches: zgeqrf', '(H = I - tau v v^H, tau complex, R with a real diagonal).'] },
  orgqr: { args: 'OrgqrArgs', doc: ["The m x n Q (m >= n) over A from geqrf's reflectors; k = tau's rows (k <= n). Complex batches: zungqr."] },
  ormqr: { args: 'OrmqrArgs', doc: ["C := op(Q) C (side 'left', default) or C op(Q) ('right') with op(Q) = Q ('N', default) or Q^T", "('T'), Q from geqrf's reflectors (A's first k columns, k = tau's rows), as LAPACK's ormqr.", "Complex batches: zunmqr, trans 'N' or 'C' (Q^H)."] },
  gels: { args: 'GelsArgs', doc: ["Least squares (m >= n) or minimum norm (m < n) solutions of A X = B (LAPACK's gels, trans 'N'):", 'B is max(m, n) x nrhs, X lands in its first n rows; A is overwritten by its factors.', 'info[i] = j > 0: R(j, j) is exactly zero (A not of full rank), X not computed. Complex batches: zgels.'] },
  getri: { args: 'GetriArgs', doc: ["Inverse of A from getrf's LU factors and 0-based pivots, in place (LAPACK's getri).", 'info[i] = k > 0: U(k,k) is exactly zero (A singular), the matrix left unchanged.'] },
};

/** The LAPACK-level operations, by name (the order of OP_SPECS). */
export const OP_NAMES: readonly OpName[] = Object.keys(OP_SPECS) as OpName[];

/** The fields each operation writes (batches and ints): what a staged call copies back. */
export const OUTPUTS: { readonly [K in OpName]: readonly string[] } = mapSpecs((s) => s.writes);

/** The operations that report per-matrix info, in the order of OP_SPECS. */
export const INFO_OP_NAMES: readonly LapackInfoOp[] = OP_NAMES.filter((op): op is LapackInfoOp => OP_SPECS[op].info !== undefined);

/** The batches each operation writes (info and ipiv left out). */
export const WRITTEN_BATCHES: { readonly [K in OpName]: readonly string[] } =
  mapSpecs((s) => s.writes.filter((f) => s.args[f] === 'batch' || s.args[f] === 'batch?'));

function mapSpecs<T>(f: (s: OpSpec) => T): { readonly [K in OpName]: T } {
  const out = {} as { [K in OpName]: T };
  for (const op of Object.keys(OP_SPECS) as OpName[]) out[op] = f(OP_SPECS[op]);
  return out;
}

/**
 * True for a request on complex batches: its `main` batch names a complex element type (a real
 * batch has no `dtype` field; validation has made every batch of a call one element type).
 */
export function isComplexRequest(op: OpName, request: object): boolean {
  const main = (request as Record<string, unknown>)[OP_SPECS[op].main];
  return typeof main === 'object' && main !== null && (main as { dtype?: unknown }).dtype !== undefined;
}

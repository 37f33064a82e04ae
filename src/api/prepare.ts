/**
 * From public arguments to validated, column-major backend requests.
 *
 * Every public LAPACK-level function goes through one `prepare*` function here, which checks
 * every argument of the call in one pass before anything is copied, staged or written: the
 * argument object and its keys, enums, scalars, dtypes, counts, shapes, buffers, and last the
 * memory the arguments share (an output overlapping any other argument, or itself, is a LAYOUT
 * error naming both; see core/overlap.ts). Errors name the offending argument.
 *
 * Row-major batches map to the column-major operation on the transposes (gemm, trsm, trmm, syrk,
 * potrf, trtri, lauum, potri). Where no such mapping exists (the LU family, and the right-hand
 * sides of the solves), the request keeps the row-major host batch and the context copies it
 * to column-major after validation (see rowmajor.ts); row-major device batches are rejected.
 *
 * `{ data, shape }` arguments are already batches here: the callers (Context.call, its syev and
 * gesvd, prepared.ts) apply bridge.ts's `bridgeArgs` once, before anything reads the arguments.
 */
import {
  asColumnMajor, batchComplex, batchCount, batchDtype, batchElementType, matrixAt, storagesOf, validateBatch,
  type Batch,
} from '../core/batch.js';
import type { DeviceVariableBatch } from '../core/device-batch.js';
import { isInt32Array, type ComplexDType, type ElementType } from '../core/dtype.js';
import { complexInfo, isComplexDType } from '../core/dtype-table.js';
import {
  flipSide, flipTrans, flipUplo, parseDiag, parseEnumValue, parseSide, parseTrans, parseUplo,
  type Diag, type Side, type Trans, type Uplo,
} from '../core/enums.js';
import { MyriadError, check, checkKeys, describeValue } from '../core/errors.js';
import { checkNoOverlaps, type Operand } from '../core/overlap.js';
import {
  OP_SPECS, type ComplexGemmRequest, type ComplexHerkRequest, type ComplexOrmqrRequest, type ComplexOp, type ComplexScalar, type ComplexSyrkRequest, type ComplexTrsmRequest, type OpSpec,
} from '../core/op-specs.js';
import type {
  OpName, Requests, GelsRequest, GemmRequest, GetriRequest, GeqrfRequest, GesvdRequest, OrgqrRequest, OrmqrRequest, GetrfRequest, GetrsRequest, Job, LauumRequest, Op, PotrfRequest, PotrsRequest,
  SyevRequest, SyrkRequest, TrsmRequest, TrtriRequest,
} from '../core/ops.js';
import { isDeviceStorage, type IntStorage, type Storage } from '../core/storage.js';
import { viewHint, type BatchArg } from './bridge.js';
import {
  prepareGemmDeviceVariable, prepareGetrfDeviceVariable, prepareLuSolveDeviceVariable, preparePotrfDeviceVariable, prepareSolveDeviceVariable, prepareSyrkDeviceVariable, prepareTrsmDeviceVariable,
  prepareTrtriDeviceVariable, takesDeviceVariable,
} from './prepare-vdevice.js';

// ---------------------------------------------------------------------------------------------
// Public argument types

/**
 * transA / transB 'C' is the conjugate transpose of complex data and 'T' of real data (as BLAS).
 * alpha / beta as [re, im] only for complex batches (a number x is (x, 0)).
 */
export interface GemmArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> {
  transA?: Trans; transB?: Trans; alpha?: number | ComplexScalar; a: B; b: B; beta?: number | ComplexScalar; c: B;
  /** variableDevice batches only (and required there): per member 0, or a negative code where its device sizes are invalid. */
  info?: IntStorage;
}
/**
 * transA 'C': A^H on complex data, A^T on real data; alpha as [re, im] only for complex batches.
 * a and b may be variableDevice batches (trsm only: trmm rejects them), both or neither.
 */
export interface TrsmArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> {
  side?: Side; uplo?: Uplo; transA?: Trans; diag?: Diag; alpha?: number | ComplexScalar; a: B; b: B;
  /** variableDevice batches only (and required there): per member 0, or a negative code where its device sizes are invalid. */
  info?: IntStorage;
}
export type TrmmArgs<S extends Storage = Storage, B = BatchArg<S>> = TrsmArgs<S, B>;
/**
 * Complex batches (zsyrk): trans 'N' or 'T', alpha and beta a number or [re, im]. a and c may be
 * variableDevice batches (syrk only: herk rejects them), both or neither.
 */
export interface SyrkArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> {
  uplo?: Uplo; trans?: Trans; alpha?: number | ComplexScalar; a: B; beta?: number | ComplexScalar; c: B;
  /** variableDevice batches only (and required there): per member 0, or a negative code where its device sizes are invalid. */
  info?: IntStorage;
}
/** trans 'N' (A A^H) or 'C' (A^H A; on real data 'T' too); alpha and beta real. */
export interface HerkArgs<S extends Storage = Storage, B = BatchArg<S>> {
  uplo?: Uplo; trans?: Trans; alpha?: number; a: B; beta?: number; c: B;
}
/**
 * Options of every call that reports per-matrix `info`: where to write it, and whether to throw
 * for failed matrices.
 */
export interface InfoArgs {
  /** Where to write per-matrix status (int32, one per matrix); allocated when absent. */
  info?: IntStorage;
  /**
   * true: throw MyriadError('NUMERICAL') after the call when any matrix failed, naming the first
   * ones and what failed (not positive definite at k, singular at k, NaN/Inf in the input, no
   * convergence). Default false: failure is only reported in `info`. On device data this waits
   * for the call and reads `info` back.
   */
  check?: boolean;
}
/** `a` may be a variableDevice batch for potrf only (lauum, potri, poti reject it: UNSUPPORTED). */
export interface FactorArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> extends InfoArgs { uplo?: Uplo; a: B }
/** a and b may be variableDevice batches (potrs and posv), both or neither. */
export interface CholeskySolveArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> extends FactorArgs<S, B> { b: B }
/** `a` may be a variableDevice batch. */
export interface TrtriArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> extends FactorArgs<S, B> { diag?: Diag }
/**
 * `a` may be a variableDevice batch (getrf; getrs and gesv with b one too; getri rejects it); its
 * pivot stride is then min(maxRows, maxCols).
 */
export interface GetrfArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> extends InfoArgs { a: B; ipiv?: IntStorage }
export interface GetrsArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> extends GetrfArgs<S, B> { trans?: Trans; ipiv: IntStorage; b: B }
export interface GesvArgs<S extends Storage = Storage, B = BatchArg<S> | DeviceVariableBatch> extends GetrfArgs<S, B> { b: B }
/** getri: A holds getrf's LU factors, ipiv its 0-based pivots; A is overwritten by inv(A). */
export interface GetriArgs<S extends Storage = Storage, B = BatchArg<S>> extends InfoArgs { a: B; ipiv: IntStorage }
/**
 * jobz 'vectors' (default) or 'values'; w: n x 1 per matrix (syev, heev). heev on complex A: w is
 * real, of A's component type (float64 for complex128, float32 for complex64).
 */
export interface SyevArgs<S extends Storage = Storage, B = BatchArg<S>> extends InfoArgs { jobz?: Job; uplo?: Uplo; a: B; w: B }
/** jobu / jobvt 'thin' (default) or 'none'; s: k x 1, u: m x k, vt: k x n per matrix (k = min(m, n)). */
export interface GesvdArgs<S extends Storage = Storage, B = BatchArg<S>> extends InfoArgs {
  jobu?: 'none' | 'thin'; jobvt?: 'none' | 'thin'; a: B; s: B; u?: B; vt?: B;
}
/** tau: min(m, n) x 1 per matrix (geqrf writes it; orgqr reads k = its rows, k <= n). */
export interface GeqrfArgs<S extends Storage = Storage, B = BatchArg<S>> extends InfoArgs { a: B; tau: B }
export interface OrgqrArgs<S extends Storage = Storage, B = BatchArg<S>> { a: B; tau: B }
/**
 * side 'left' (default): C := op(Q) C; 'right': C := C op(Q); trans 'N' (default): op(Q) = Q, 'T'
 * (or 'C'): Q^T. Q = H(0) ... H(k-1) from geqrf's reflectors in A's first k columns (A has m rows
 * on the left, n on the right, for C m x n; geqrf's whole output can be passed), k = tau's rows.
 */
export interface OrmqrArgs<S extends Storage = Storage, B = BatchArg<S>> { side?: Side; trans?: Trans; a: B; tau: B; c: B }
/** b: max(m, n) x nrhs per matrix; X lands in its first n rows. */
export interface GelsArgs<S extends Storage = Storage, B = BatchArg<S>> extends InfoArgs { a: B; b: B }

// ---------------------------------------------------------------------------------------------
// Shared checks

/** The argument object of a call: an object holding only the keys the operation knows. */
function argsObject(args: unknown, op: string, keys: readonly string[]): void {
  // Messages are built only on failure (here and below): validation runs on every call.
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new MyriadError('INVALID_ARGUMENT', `${op} expects one argument object { ${keys.join(', ')} }, got ${describeValue(args)}`, 'args');
  checkKeys(args, keys);
}

/** The `check` option of a call (validated before anything runs). */
export function checkFlag(args: unknown): boolean {
  const v = typeof args === 'object' && args !== null ? (args as { check?: unknown }).check : undefined;
  if (v !== undefined && typeof v !== 'boolean') throw new MyriadError('INVALID_ARGUMENT', `expected true or false, got ${describeValue(v)}`, 'check');
  return v === true;
}

function scalar(v: unknown, fallback: number, argument: string): number {
  if (v === undefined) return fallback;
  // Infinity too: Inf times the exact zeros of a product is NaN, and where a kernel scales the sum
  // or its terms decides which zeros meet it (the backends would differ).
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    if (Array.isArray(v)) throw new MyriadError('INVALID_ARGUMENT', `expected a number: a pair [re, im] needs complex batches, got ${describeValue(v)}`, argument);
    throw new MyriadError('INVALID_ARGUMENT', `expected a finite number, got ${describeValue(v)}`, argument);
  }
  return v;
}

/**
 * Validates the batches of one call and returns their common element type and count. A complex
 * batch is an UNSUPPORTED error naming `op` and the argument, before anything reaches a backend,
 * unless `op`'s spec has `complex` (core/op-specs.ts); then every batch of the call must be of one
 * element type (a DTYPE error naming the first that differs). `complex` is true for a complex call.
 */
function checkBatches(op: string, batches: readonly [Batch<Storage>, string][]): { dtype: ElementType; count: number; complex: boolean } {
  check(batches.length > 0, 'INVALID_ARGUMENT', 'a', 'missing');
  for (let i = 0; i < batches.length; i++) {
    const [b, name] = batches[i]!;
    if (b === undefined || b === null) throw new MyriadError('INVALID_ARGUMENT', 'is required', name);
    validateBatch(b, name);
  }
  const takesComplex = (OP_SPECS as Readonly<Record<string, OpSpec>>)[op]?.complex === true;
  let anyComplex = false;
  for (const [b, name] of batches) {
    const complex = batchComplex(b, name);
    if (complex === undefined) continue;
    if (!takesComplex) throw new MyriadError('UNSUPPORTED', `${op} does not support complex batches yet (got ${complex})`, name);
    anyComplex = true;
  }
  const typeOf = anyComplex ? batchElementType : batchDtype;
  const [first, firstName] = batches[0]!;
  const dtype: ElementType = typeOf(first, firstName);
  const count = batchCount(first);
  for (let i = 1; i < batches.length; i++) {
    const [b, name] = batches[i]!;
    const d = typeOf(b, name);
    const n = batchCount(b);
    // A real/complex mix is an error whatever the counts; real dtypes only matter where there are matrices.
    if (d !== dtype && (anyComplex || (n > 0 && count > 0)))
      throw new MyriadError('DTYPE', `is ${d} but ${firstName} is ${dtype}: element types cannot be mixed`, name);
    if (n !== count) throw new MyriadError('SHAPE', `holds ${n} matrices${viewHint(b)} but ${firstName} holds ${count}${viewHint(first)}`, name);
  }
  // Row-major complex: with 'C' a transposed operation would need conj(X) without a transpose,
  // and the context's row-major copies count real elements.
  if (anyComplex) for (const [b, name] of batches)
    if (isRow(b)) throw new MyriadError('UNSUPPORTED', `complex ${op} takes column-major batches only so far (order 'col'): copy row-major complex data to column-major`, `${name}.order`);
  return { dtype, count, complex: anyComplex };
}

/**
 * A complex scalar argument (alpha, beta of a complex call): a number x is (x, 0), a pair
 * [re, im] is itself; NaN or infinite parts and anything else are INVALID_ARGUMENT naming `argument`.
 */
export function complexScalar(v: unknown, fallback: ComplexScalar, argument: string): ComplexScalar {
  if (v === undefined) return fallback;
  if (typeof v === 'number' && Number.isFinite(v)) return [v, 0];
  if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && Number.isFinite(x))) return [v[0] as number, v[1] as number];
  throw new MyriadError('INVALID_ARGUMENT', `expected a finite number or a pair [re, im] of finite numbers, got ${describeValue(v)}`, argument);
}

/** Checks one integer output/input array: an Int32Array (or int32 device memory) of at least `length`. */
export function checkIntStorage(s: unknown, length: number, argument: string): IntStorage {
  if (isDeviceStorage(s)) {
    if (s.dtype !== 'int32') throw new MyriadError('DTYPE', `expected int32 device memory, got ${s.dtype}`, argument);
  } else if (!isInt32Array(s)) {
    throw new MyriadError('DTYPE', `expected an Int32Array, got ${describeValue(s)}`, argument);
  }
  if (s.length < length) throw new MyriadError('BOUNDS', `holds ${s.length} elements but ${length} are needed`, argument);
  return s;
}

/** Each matrix's (rows, cols) in column-major terms, by index. */
function dims(b: Batch<Storage>, i: number): [number, number] {
  const m = matrixAt(b, i);
  return [m.rows, m.cols];
}

/** Matrix i's rows and cols as dims gives them, one number each (the per-member checks of variable batches make no pair). */
const rowsAt = (b: Batch<Storage>, i: number): number => (b.kind === 'variable' ? b.matrices[i]!.rows : b.rows);
const colsAt = (b: Batch<Storage>, i: number): number => (b.kind === 'variable' ? b.matrices[i]!.cols : b.cols);

/**
 * Runs a per-matrix shape check: once where every batch has one shape (strided, list), for every
 * matrix where one is variable. Validation stays O(1) in the batch size for the common case.
 */
function forEachShape(batches: readonly Batch<Storage>[], count: number, fn: (i: number) => void): void {
  const n = shapesToCheck(batches, count);
  for (let i = 0; i < n; i++) fn(i);
}

/**
 * How many matrices a per-matrix shape check visits (forEachShape's rule): the hot checks (BLAS 3,
 * the factorizations and solves) loop over this themselves, so that a variable batch's members
 * cost no call of a closure each.
 */
function shapesToCheck(batches: readonly Batch<Storage>[], count: number): number {
  return batches.some((b) => b.kind === 'variable') ? count : Math.min(count, 1);
}

const isRow = (b: Batch<Storage>): boolean => b.order === 'row';
/** op(X) in terms of X's column-major view V: V or V^T. */
const effective = (t: Op, b: Batch<Storage>): Op => (isRow(b) ? flipTrans(t) : t);

/** Largest min(rows, cols) over a batch: the pivot stride. */
export function pivotStrideOf(a: Batch<Storage>): number {
  if (a.kind !== 'variable') return Math.min(a.rows, a.cols);
  const ms = a.matrices;
  let most = 0;
  for (let i = 0; i < ms.length; i++) most = Math.max(most, Math.min(ms[i]!.rows, ms[i]!.cols));
  return most;
}

/** A batch the API will copy to column-major (LU family, solve right-hand sides): host memory only. */
function copyableOrder(b: Batch<Storage>, argument: string): void {
  if (isRow(b) && storagesOf(b).some((s) => isDeviceStorage(s)))
    throw new MyriadError('LAYOUT', "device batches must be column-major for this operation (order 'col'): a copy would hide its cost", `${argument}.order`);
}

const batchOperand = (name: string, batch: Batch<Storage>, output: boolean): Operand => ({ name, batch, output });
function intOperand(name: string, ints: IntStorage | undefined, used: number, output: boolean): Operand[] {
  return ints === undefined ? [] : [{ name, ints, used, output }];
}

export type IntAllocator = (length: number) => IntStorage;
export const hostInts: IntAllocator = (n) => new Int32Array(n);

/** A given integer array, else a new one of `length` (a MyriadError where it cannot be allocated). */
function intsOrNew(given: IntStorage | undefined, length: number, alloc: IntAllocator, argument: string): IntStorage {
  if (given !== undefined) return given;
  try {
    return alloc(length);
  } catch (e) {
    if (e instanceof RangeError)
      throw new MyriadError('BOUNDS', `cannot allocate ${length} int32 entries for ${argument} (${e.message}); split the batch`, argument);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// BLAS 3

const GEMM_KEYS = ['transA', 'transB', 'alpha', 'a', 'b', 'beta', 'c'] as const;
const TRSM_KEYS = ['side', 'uplo', 'transA', 'diag', 'alpha', 'a', 'b'] as const;
const SYRK_KEYS = ['uplo', 'trans', 'alpha', 'a', 'beta', 'c'] as const;

/**
 * gemm: a GemmRequest for real batches; for complex ones a ComplexGemmRequest (`isComplexGemm`),
 * which the context runs on the CPU reference (cpu/zgemm.ts). Its static type stays GemmRequest so
 * that the validators' table and every real backend are unchanged.
 */
export function prepareGemm<S extends Storage>(input: GemmArgs<S>): GemmRequest<S>  {
  // Sizes on the device (variableDevice): validated apart, run by the device backend only (api/prepare-vdevice.ts).
  if (takesDeviceVariable(input, ['a', 'b', 'c'])) return prepareGemmDeviceVariable(input) as unknown as GemmRequest<S>;
  const args = input as GemmArgs<S, Batch<S>>;
  argsObject(args, 'gemm', GEMM_KEYS);
  const transA = parseTrans(args.transA ?? 'N', 'transA');
  const transB = parseTrans(args.transB ?? 'N', 'transB');
  const { count, complex } = checkBatches('gemm', [[args.a, 'a'], [args.b, 'b'], [args.c, 'c']]);
  if (complex) return prepareComplexGemm(args, count) as unknown as GemmRequest<S>;
  const alpha = scalar(args.alpha, 1, 'alpha');
  const beta = scalar(args.beta, 0, 'beta');
  // Logical shapes (as the user sees them, whatever the order).
  checkGemmShapes(args.a, args.b, args.c, transA, transB, count);
  checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('b', args.b, false), batchOperand('c', args.c, true)]);
  const a = asColumnMajor(args.a);
  const b = asColumnMajor(args.b);
  const c = asColumnMajor(args.c);
  const eA = effective(transA, args.a);
  const eB = effective(transB, args.b);
  if (!isRow(args.c)) return { transA: eA, transB: eB, alpha, a, b, beta, c };
  // C row-major: its column-major view is C^T = op(B)^T op(A)^T.
  return { transA: flipTrans(eB), transB: flipTrans(eA), alpha, a: b, b: a, beta, c };
}

/** gemm's logical shapes (as the user sees them, whatever the order): op(A) op(B) is C's. */
function checkGemmShapes(a: Batch<Storage>, b: Batch<Storage>, c: Batch<Storage>, transA: Trans, transB: Trans, count: number): void {
  const n = shapesToCheck([a, b, c], count);
  for (let i = 0; i < n; i++) {
    const am = transA === 'N' ? rowsAt(a, i) : colsAt(a, i), ak = transA === 'N' ? colsAt(a, i) : rowsAt(a, i);
    const bk = transB === 'N' ? rowsAt(b, i) : colsAt(b, i), bn = transB === 'N' ? colsAt(b, i) : rowsAt(b, i);
    if (ak !== bk || am !== rowsAt(c, i) || bn !== colsAt(c, i)) gemmShapeError(a, b, c, transA, transB, i);
  }
}

/*
 * The shape checks' errors, each in a function of its own that the check calls for the first
 * matrix that fails: a message built inside a check's loop made every member's check about three
 * times slower (V8 optimises the loop less well around it).
 */

function gemmShapeError(a: Batch<Storage>, b: Batch<Storage>, c: Batch<Storage>, transA: Trans, transB: Trans, i: number): never {
  const am = transA === 'N' ? rowsAt(a, i) : colsAt(a, i), ak = transA === 'N' ? colsAt(a, i) : rowsAt(a, i);
  const bk = transB === 'N' ? rowsAt(b, i) : colsAt(b, i), bn = transB === 'N' ? colsAt(b, i) : rowsAt(b, i);
  const cm = rowsAt(c, i), cn = colsAt(c, i);
  if (ak !== bk) throw new MyriadError('SHAPE', `matrix ${i}: op(A) is ${am}x${ak} but op(B) is ${bk}x${bn} (inner dimensions differ)`, 'b');
  throw new MyriadError('SHAPE', `matrix ${i}: C is ${cm}x${cn} but op(A) op(B) is ${am}x${bn}`, 'c');
}

/** True for the request `prepareGemm` returns for complex batches. */
export function isComplexGemm<S>(r: GemmRequest<S> | ComplexGemmRequest<S>): r is ComplexGemmRequest<S> {
  return (r.c as { dtype?: unknown }).dtype !== undefined;
}

/** The complex gemm (batches already checked: one complex element type, one count, column-major). */
function prepareComplexGemm<S extends Storage>(args: GemmArgs<S, Batch<S>>, count: number): ComplexGemmRequest<S> {
  const transA = parseEnumValue(args.transA ?? 'N', ['N', 'T', 'C'] as const, 'transA') as ComplexOp;
  const transB = parseEnumValue(args.transB ?? 'N', ['N', 'T', 'C'] as const, 'transB') as ComplexOp;
  const alpha = complexScalar(args.alpha, [1, 0], 'alpha');
  const beta = complexScalar(args.beta, [0, 0], 'beta');
  forEachShape([args.a, args.b, args.c], count, (i) => {
    const [am, ak] = logical(args.a, i, transA === 'N' ? 'N' : 'T');
    const [bk, bn] = logical(args.b, i, transB === 'N' ? 'N' : 'T');
    const [cm, cn] = dims(args.c, i);
    if (ak !== bk) throw new MyriadError('SHAPE', `matrix ${i}: op(A) is ${am}x${ak} but op(B) is ${bk}x${bn} (inner dimensions differ)`, 'b');
    if (am !== cm || bn !== cn) throw new MyriadError('SHAPE', `matrix ${i}: C is ${cm}x${cn} but op(A) op(B) is ${am}x${bn}`, 'c');
  });
  checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('b', args.b, false), batchOperand('c', args.c, true)]);
  return { transA, transB, alpha, a: args.a, b: args.b, beta, c: args.c };
}

/** Logical (rows, cols) of op(X) for matrix i. */
function logical(b: Batch<Storage>, i: number, t: Op): [number, number] {
  const [r, c] = dims(b, i);
  return t === 'N' ? [r, c] : [c, r];
}

/** op(X) of a complex call: 'N', 'T' or 'C' (on real data 'C' folds to 'T', as BLAS). */
const COMPLEX_OPS = ['N', 'T', 'C'] as const;

/** trsm / trmm: A square, of B's rows (side 'left') or columns ('right'). */
function checkTriangularShapes(a: Batch<Storage>, b: Batch<Storage>, count: number, side: Side, name: string): void {
  const n = shapesToCheck([a, b], count);
  for (let i = 0; i < n; i++) {
    const ar = rowsAt(a, i);
    if (ar !== colsAt(a, i) || ar !== (side === 'left' ? rowsAt(b, i) : colsAt(b, i))) triangularShapeError(a, b, side, name, i);
  }
}

/** checkTriangularShapes' error for matrix i (see gemmShapeError). */
function triangularShapeError(a: Batch<Storage>, b: Batch<Storage>, side: Side, name: string, i: number): never {
  const ar = rowsAt(a, i), ac = colsAt(a, i);
  const br = rowsAt(b, i), bc = colsAt(b, i);
  if (ar !== ac) throw new MyriadError('SHAPE', `matrix ${i}: ${name} needs square A, got ${ar}x${ac}`, 'a');
  const need = side === 'left' ? br : bc;
  throw new MyriadError('SHAPE', `matrix ${i}: A is ${ar}x${ac} but B is ${br}x${bc} (side '${side}' needs A ${need}x${need})`, 'a');
}

export function prepareTrsm<S extends Storage>(input: TrsmArgs<S>, name = 'trsm'): TrsmRequest<S>  {
  // Sizes on the device (variableDevice): validated apart, run by the device backend only (api/prepare-vdevice.ts).
  if (name === 'trsm' && takesDeviceVariable(input, ['a', 'b'])) return prepareTrsmDeviceVariable(input) as unknown as TrsmRequest<S>;
  const args = input as TrsmArgs<S, Batch<S>>;
  argsObject(args, name, TRSM_KEYS);
  const side = parseSide(args.side ?? 'left', 'side');
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const op = parseEnumValue(args.transA ?? 'N', COMPLEX_OPS, 'transA');
  const diag = parseDiag(args.diag ?? 'nonunit', 'diag');
  const { count, complex } = checkBatches(name, [[args.a, 'a'], [args.b, 'b']]);
  if (complex) {
    const alpha = complexScalar(args.alpha, [1, 0], 'alpha');
    checkTriangularShapes(args.a, args.b, count, side, name);
    checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('b', args.b, true)]);
    const request: ComplexTrsmRequest<S> = { side, uplo, transA: op, diag, alpha, a: args.a, b: args.b };
    return request as unknown as TrsmRequest<S>;
  }
  const transA = op === 'N' ? 'N' : 'T';
  const alpha = scalar(args.alpha, 1, 'alpha');
  checkTriangularShapes(args.a, args.b, count, side, name);
  checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('b', args.b, true)]);
  // A row-major: its column-major view is A^T, whose stored triangle is the other one.
  const uploV = isRow(args.a) ? flipUplo(uplo) : uplo;
  const eA = effective(transA, args.a);
  const a = asColumnMajor(args.a);
  const b = asColumnMajor(args.b);
  if (!isRow(args.b)) return { side, uplo: uploV, transA: eA, diag, alpha, a, b };
  // B row-major: B^T := alpha B^T op(A)^-T (left <-> right).
  return { side: flipSide(side), uplo: uploV, transA: flipTrans(eA), diag, alpha, a, b };
}

/**
 * syrk / herk: C square, of op(A)'s rows. (Its messages are built only on failure: made for every
 * member, they were most of a variable syrk's validation.)
 */
function checkRankKShapes(a: Batch<Storage>, c: Batch<Storage>, count: number, trans: Op): void {
  const m = shapesToCheck([a, c], count);
  for (let i = 0; i < m; i++) {
    const cr = rowsAt(c, i);
    if (cr !== colsAt(c, i) || cr !== (trans === 'N' ? rowsAt(a, i) : colsAt(a, i))) rankKShapeError(a, c, trans, i);
  }
}

/** checkRankKShapes' error for matrix i (see gemmShapeError). */
function rankKShapeError(a: Batch<Storage>, c: Batch<Storage>, trans: Op, i: number): never {
  const n = trans === 'N' ? rowsAt(a, i) : colsAt(a, i), k = trans === 'N' ? colsAt(a, i) : rowsAt(a, i);
  const cr = rowsAt(c, i), cc = colsAt(c, i);
  if (cr !== cc) throw new MyriadError('SHAPE', `matrix ${i}: C must be square, got ${cr}x${cc}`, 'c');
  throw new MyriadError('SHAPE', `matrix ${i}: op(A) is ${n}x${k} but C is ${cr}x${cc}`, 'a');
}

export function prepareSyrk<S extends Storage>(input: SyrkArgs<S>): SyrkRequest<S>  {
  // Sizes on the device (variableDevice): validated apart, run by the device backend only (api/prepare-vdevice.ts).
  if (takesDeviceVariable(input, ['a', 'c'])) return prepareSyrkDeviceVariable(input) as unknown as SyrkRequest<S>;
  const args = input as SyrkArgs<S, Batch<S>>;
  argsObject(args, 'syrk', SYRK_KEYS);
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const t = parseEnumValue(args.trans ?? 'N', COMPLEX_OPS, 'trans');
  const { count, complex } = checkBatches('syrk', [[args.a, 'a'], [args.c, 'c']]);
  const trans = t === 'N' ? 'N' : 'T';
  checkRankKShapes(args.a, args.c, count, trans);
  if (complex) {
    // zsyrk: no conjugation, so 'C' has no meaning there (LAPACK's zsyrk rejects it).
    if (t === 'C') throw new MyriadError('ENUM', "complex syrk (zsyrk, C := alpha A A^T + beta C) takes trans 'N' or 'T'; herk is the Hermitian update with A^H", 'trans');
    const alpha = complexScalar(args.alpha, [1, 0], 'alpha');
    const beta = complexScalar(args.beta, [0, 0], 'beta');
    checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('c', args.c, true)]);
    const request: ComplexSyrkRequest<S> = { uplo, trans, alpha, beta, a: args.a, c: args.c };
    return request as unknown as SyrkRequest<S>;
  }
  const alpha = scalar(args.alpha, 1, 'alpha');
  const beta = scalar(args.beta, 0, 'beta');
  checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('c', args.c, true)]);
  return {
    uplo: isRow(args.c) ? flipUplo(uplo) : uplo,
    trans: effective(trans, args.a),
    alpha, beta, a: asColumnMajor(args.a), c: asColumnMajor(args.c),
  };
}

/**
 * herk: on complex batches C := alpha A A^H + beta C ('N') or alpha A^H A + beta C ('C'), as
 * zherk (trans 'T' is an error there, as in LAPACK); on real data the syrk request it equals.
 */
export function prepareHerk<S extends Storage>(input: HerkArgs<S>): SyrkRequest<S> {
  const args = input as HerkArgs<S, Batch<S>>;
  argsObject(args, 'herk', SYRK_KEYS);
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const t = parseEnumValue(args.trans ?? 'N', COMPLEX_OPS, 'trans');
  const { count, complex } = checkBatches('herk', [[args.a, 'a'], [args.c, 'c']]);
  if (complex && t === 'T') throw new MyriadError('ENUM', "complex herk (zherk, C := alpha A A^H + beta C) takes trans 'N' or 'C'; syrk is the update with A^T", 'trans');
  const trans = t === 'N' ? 'N' : 'T';
  checkRankKShapes(args.a, args.c, count, trans);
  const alpha = realScalar(args.alpha, 1, 'alpha', 'herk');
  const beta = realScalar(args.beta, 0, 'beta', 'herk');
  checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('c', args.c, true)]);
  if (complex) {
    const request: ComplexHerkRequest<S> = { uplo, trans: trans === 'N' ? 'N' : 'C', alpha, beta, a: args.a, c: args.c };
    return request as unknown as SyrkRequest<S>;
  }
  return {
    uplo: isRow(args.c) ? flipUplo(uplo) : uplo,
    trans: effective(trans, args.a),
    alpha, beta, a: asColumnMajor(args.a), c: asColumnMajor(args.c),
  };
}

/** A scalar that is real whatever the element type (herk's alpha and beta). */
function realScalar(v: unknown, fallback: number, argument: string, op: string): number {
  if (Array.isArray(v)) throw new MyriadError('INVALID_ARGUMENT', `${op} takes a real ${argument} (a number), got ${describeValue(v)}`, argument);
  return scalar(v, fallback, argument);
}

// ---------------------------------------------------------------------------------------------
// LAPACK

const FACTOR_KEYS = ['uplo', 'a', 'info', 'check'] as const;
const TRTRI_KEYS = ['uplo', 'diag', 'a', 'info', 'check'] as const;
const CHOLESKY_SOLVE_KEYS = ['uplo', 'a', 'b', 'info', 'check'] as const;
const GETRF_KEYS = ['a', 'ipiv', 'info', 'check'] as const;
const GETRS_KEYS = ['trans', 'a', 'ipiv', 'b', 'info', 'check'] as const;
const GESV_KEYS = ['a', 'ipiv', 'b', 'info', 'check'] as const;
const GETRI_KEYS = ['a', 'ipiv', 'info', 'check'] as const;

function checkSquare(a: Batch<Storage>, count: number, op: string): void {
  const n = shapesToCheck([a], count);
  for (let i = 0; i < n; i++) if (rowsAt(a, i) !== colsAt(a, i)) squareShapeError(a, op, i);
}

/** checkSquare's error for matrix i (see gemmShapeError). */
function squareShapeError(a: Batch<Storage>, op: string, i: number): never {
  throw new MyriadError('SHAPE', `matrix ${i}: ${op} needs a square matrix, got ${rowsAt(a, i)}x${colsAt(a, i)}`, 'a');
}

/** A given info array, checked (not yet allocated: that waits for the overlap check). */
function givenInfo(info: unknown, count: number): IntStorage | undefined {
  return info === undefined ? undefined : checkIntStorage(info, count, 'info');
}

/** potrf, lauum, potri, trtri: one square batch, uplo flips for row-major. */
function prepareSquare<S extends Storage>(args: FactorArgs<S, Batch<S>>, op: string, keys: readonly string[], alloc: IntAllocator): PotrfRequest<S> & LauumRequest<S> {
  argsObject(args, op, keys);
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const { count } = checkBatches(op, [[args.a, 'a']]);
  checkSquare(args.a, count, op);
  const info = givenInfo(args.info, count);
  checkNoOverlaps([batchOperand('a', args.a, true), ...intOperand('info', info, count, true)]);
  return { uplo: isRow(args.a) ? flipUplo(uplo) : uplo, a: asColumnMajor(args.a), info: intsOrNew(info, count, alloc, 'info') };
}

/** potrf, lauum, potri, poti. */
export function prepareFactor<S extends Storage>(input: FactorArgs<S>, op: string, alloc: IntAllocator): PotrfRequest<S> & LauumRequest<S>  {
  if (op === 'potrf' && takesDeviceVariable(input, ['a'])) return preparePotrfDeviceVariable(input, alloc) as unknown as PotrfRequest<S> & LauumRequest<S>;
  const args = input as FactorArgs<S, Batch<S>>;
  return prepareSquare(args, op, FACTOR_KEYS, alloc);
}

export function prepareTrtri<S extends Storage>(input: TrtriArgs<S>, alloc: IntAllocator): TrtriRequest<S>  {
  if (takesDeviceVariable(input, ['a'])) return prepareTrtriDeviceVariable(input, alloc) as unknown as TrtriRequest<S>;
  const args = input as TrtriArgs<S, Batch<S>>;
  // diag is parsed before anything is allocated.
  const diag = typeof args === 'object' && args !== null ? parseDiag(args.diag ?? 'nonunit', 'diag') : 'nonunit';
  return { ...prepareSquare(args, 'trtri', TRTRI_KEYS, alloc), diag };
}

/**
 * potrs / posv. A's row-major storage maps to the other triangle; B is returned as given (a
 * row-major host B is copied by the context after this validation).
 */
export function prepareCholeskySolve<S extends Storage>(input: CholeskySolveArgs<S>, op: 'potrs' | 'posv', alloc: IntAllocator): PotrsRequest<S>  {
  if (takesDeviceVariable(input, ['a', 'b'])) return prepareSolveDeviceVariable(input, op, alloc) as unknown as PotrsRequest<S>;
  const args = input as CholeskySolveArgs<S, Batch<S>>;
  argsObject(args, op, CHOLESKY_SOLVE_KEYS);
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const { count } = checkBatches(op, [[args.a, 'a'], [args.b, 'b']]);
  checkSquare(args.a, count, op);
  checkRhs(args.a, args.b, count);
  const info = givenInfo(args.info, count);
  checkNoOverlaps([
    batchOperand('a', args.a, op === 'posv'), batchOperand('b', args.b, true), ...intOperand('info', info, count, true),
  ]);
  return { uplo: isRow(args.a) ? flipUplo(uplo) : uplo, a: asColumnMajor(args.a), b: args.b, info: intsOrNew(info, count, alloc, 'info') };
}

function checkRhs(a: Batch<Storage>, b: Batch<Storage>, count: number): void {
  copyableOrder(b, 'b');
  const m = shapesToCheck([a, b], count);
  for (let i = 0; i < m; i++) if (rowsAt(b, i) !== rowsAt(a, i)) rhsShapeError(a, b, i);
}

/** checkRhs' error for matrix i (see gemmShapeError). */
function rhsShapeError(a: Batch<Storage>, b: Batch<Storage>, i: number): never {
  const n = rowsAt(a, i);
  throw new MyriadError('SHAPE', `matrix ${i}: B is ${rowsAt(b, i)}x${colsAt(b, i)} but A is ${n}x${n} (B needs ${n} rows)`, 'b');
}

/** getrf: `a` is returned as given (a row-major host batch is copied by the context). */
export function prepareGetrf<S extends Storage>(input: GetrfArgs<S>, alloc: IntAllocator): GetrfRequest<S>  {
  if (takesDeviceVariable(input, ['a'])) return prepareGetrfDeviceVariable(input, alloc) as unknown as GetrfRequest<S>;
  const args = input as GetrfArgs<S, Batch<S>>;
  argsObject(args, 'getrf', GETRF_KEYS);
  const { count } = checkBatches('getrf', [[args.a, 'a']]);
  copyableOrder(args.a, 'a');
  const pivotStride = pivotStrideOf(args.a);
  const ipiv = args.ipiv === undefined ? undefined : checkIntStorage(args.ipiv, count * pivotStride, 'ipiv');
  const info = givenInfo(args.info, count);
  checkNoOverlaps([
    batchOperand('a', args.a, true), ...intOperand('ipiv', ipiv, count * pivotStride, true), ...intOperand('info', info, count, true),
  ]);
  return {
    a: args.a, pivotStride,
    ipiv: intsOrNew(ipiv, count * pivotStride, alloc, 'ipiv'), info: intsOrNew(info, count, alloc, 'info'),
  };
}

/** getrs: `a` and `b` are returned as given (row-major host batches are copied by the context). */
export function prepareGetrs<S extends Storage>(input: GetrsArgs<S>, alloc: IntAllocator): GetrsRequest<S>  {
  if (takesDeviceVariable(input, ['a', 'b'])) return prepareLuSolveDeviceVariable(input, 'getrs', alloc) as unknown as GetrsRequest<S>;
  const args = input as GetrsArgs<S, Batch<S>>;
  argsObject(args, 'getrs', GETRS_KEYS);
  const t = parseEnumValue(args.trans ?? 'N', COMPLEX_OPS, 'trans');
  const { count, complex } = checkBatches('getrs', [[args.a, 'a'], [args.b, 'b']]);
  // 'C' solves with A^H on complex data (zgetrs) and folds to 'T' on real data.
  const trans = (complex ? t : t === 'N' ? 'N' : 'T') as Op;
  copyableOrder(args.a, 'a');
  checkSquare(args.a, count, 'getrs');
  checkRhs(args.a, args.b, count);
  const { ipiv, pivotStride } = givenPivots(args.a, args.ipiv, count);
  const info = givenInfo(args.info, count);
  checkNoOverlaps([
    batchOperand('a', args.a, false), ...intOperand('ipiv', ipiv, count * pivotStride, false),
    batchOperand('b', args.b, true), ...intOperand('info', info, count, true),
  ]);
  return { trans, a: args.a, ipiv, pivotStride, b: args.b, info: intsOrNew(info, count, alloc, 'info') };
}

/** getrf's pivots handed to a solve or an inverse: required, long enough, and in range where on the host. */
function givenPivots<S extends Storage>(a: Batch<S>, given: IntStorage | undefined, count: number): { ipiv: IntStorage; pivotStride: number } {
  const pivotStride = pivotStrideOf(a);
  check(given !== undefined, 'INVALID_ARGUMENT', 'ipiv', 'is required (the pivots from getrf)');
  const ipiv = checkIntStorage(given, count * pivotStride, 'ipiv');
  if (isInt32Array(ipiv)) checkPivots(a, ipiv, count, pivotStride);
  return { ipiv, pivotStride };
}

/** getri: `a` is returned as given (a row-major host batch is copied by the context). */
export function prepareGetri<S extends Storage>(input: GetriArgs<S>, alloc: IntAllocator): GetriRequest<S>  {
  const args = input as GetriArgs<S, Batch<S>>;
  argsObject(args, 'getri', GETRI_KEYS);
  const { count } = checkBatches('getri', [[args.a, 'a']]);
  copyableOrder(args.a, 'a');
  checkSquare(args.a, count, 'getri');
  const { ipiv, pivotStride } = givenPivots(args.a, args.ipiv, count);
  const info = givenInfo(args.info, count);
  checkNoOverlaps([
    batchOperand('a', args.a, true), ...intOperand('ipiv', ipiv, count * pivotStride, false), ...intOperand('info', info, count, true),
  ]);
  return { a: args.a, ipiv, pivotStride, info: intsOrNew(info, count, alloc, 'info') };
}

/** Every pivot of every matrix within [j, n - 1] (0-based, as getrf returns them); a prepared call checks them per run. */
export function checkPivots(a: Batch<Storage>, ipiv: Int32Array, count: number, pivotStride: number): void {
  for (let i = 0; i < count; i++) {
    const n = dims(a, i)[0];
    for (let j = 0; j < n; j++) {
      const p = ipiv[i * pivotStride + j]!;
      if (p < j || p >= n)
        throw new MyriadError('INVALID_ARGUMENT', `matrix ${i}: pivot ${j} is ${p}, outside [${j}, ${n - 1}] (pivots are 0-based, as getrf returns them)`, 'ipiv');
    }
  }
}

/** gesv: `a` and `b` are returned as given (row-major host batches are copied by the context). */
export function prepareGesv<S extends Storage>(input: GesvArgs<S>, alloc: IntAllocator): GetrsRequest<S>  {
  if (takesDeviceVariable(input, ['a', 'b'])) return prepareLuSolveDeviceVariable(input, 'gesv', alloc) as unknown as GetrsRequest<S>;
  const args = input as GesvArgs<S, Batch<S>>;
  argsObject(args, 'gesv', GESV_KEYS);
  const { count } = checkBatches('gesv', [[args.a, 'a'], [args.b, 'b']]);
  copyableOrder(args.a, 'a');
  checkSquare(args.a, count, 'gesv');
  checkRhs(args.a, args.b, count);
  const pivotStride = pivotStrideOf(args.a);
  const ipiv = args.ipiv === undefined ? undefined : checkIntStorage(args.ipiv, count * pivotStride, 'ipiv');
  const info = givenInfo(args.info, count);
  checkNoOverlaps([
    batchOperand('a', args.a, true), ...intOperand('ipiv', ipiv, count * pivotStride, true),
    batchOperand('b', args.b, true), ...intOperand('info', info, count, true),
  ]);
  return {
    trans: 'N', a: args.a, pivotStride, b: args.b,
    ipiv: intsOrNew(ipiv, count * pivotStride, alloc, 'ipiv'), info: intsOrNew(info, count, alloc, 'info'),
  };
}

// ---------------------------------------------------------------------------------------------
// Eigenvalues and singular values. Every batch is returned as given: row-major host batches are
// copied to column-major by the context (the outputs are not transposes of anything).

const SYEV_KEYS = ['jobz', 'uplo', 'a', 'w', 'info', 'check'] as const;
const GESVD_KEYS = ['jobu', 'jobvt', 'a', 's', 'u', 'vt', 'info', 'check'] as const;

/** A vector output: rows x 1 per matrix. */
function checkVector(b: Batch<Storage>, i: number, rows: number, argument: string, what: string): void {
  const [r, c] = dims(b, i);
  check(r === rows && c === 1, 'SHAPE', argument, `matrix ${i}: ${argument} must be ${rows}x1 (${what}), got ${r}x${c}`);
}

/**
 * A real output of a complex call (heev's eigenvalues, gesvd's singular values): a real batch of
 * the complex type's component type (float64 for complex128, float32 for complex64), of `count`
 * matrices; errors name `argument` and say what it holds.
 */
function checkRealOutput(b: Batch<Storage>, argument: string, complex: ComplexDType, count: number, what: string): void {
  if (b === undefined || b === null) throw new MyriadError('INVALID_ARGUMENT', `is required (${what})`, argument);
  validateBatch(b, argument);
  const want = complexInfo(complex).real;
  if (batchComplex(b, argument) !== undefined)
    throw new MyriadError('DTYPE', `holds ${what}, which are real: expected a ${want} batch for ${complex} data, got ${batchElementType(b, argument)}`, argument);
  // Real precisions only matter where there are matrices (as checkBatches has it).
  const n = batchCount(b);
  const got = n > 0 ? batchDtype(b, argument) : want;
  if (got !== want) throw new MyriadError('DTYPE', `holds ${what}: expected a ${want} batch for ${complex} data, got ${got}`, argument);
  if (n !== count) throw new MyriadError('SHAPE', `holds ${n} matrices${viewHint(b)} but a holds ${count}`, argument);
}

/** The batches of a call on complex `a` with real outputs (heev's w, gesvd's s): the complex ones as usual, then the real ones. */
function checkMixedBatches(
  op: string, complexOnes: readonly [Batch<Storage>, string][], realOnes: readonly [Batch<Storage>, string, string][],
): { count: number; complex: boolean } {
  const first = complexOnes[0]![0];
  const isComplex = typeof first === 'object' && first !== null && batchComplex(first, complexOnes[0]![1]) !== undefined;
  if (!isComplex) return checkBatches(op, [...complexOnes, ...realOnes.map(([b, name]): [Batch<Storage>, string] => [b, name])]);
  const { count, dtype } = checkBatches(op, complexOnes);
  for (const [b, name, what] of realOnes) checkRealOutput(b, name, dtype as ComplexDType, count, what);
  return { count, complex: true };
}

/** syev (real symmetric; complex data is an error that points to heev). */
export function prepareSyev<S extends Storage>(input: SyevArgs<S>, alloc: IntAllocator): SyevRequest<S>  {
  const args = input as SyevArgs<S, Batch<S>>;
  const a = typeof args === 'object' && args !== null ? (args.a as unknown) : undefined;
  if (typeof a === 'object' && a !== null && (a as { dtype?: unknown }).dtype !== undefined && isComplexDType((a as { dtype?: unknown }).dtype))
    throw new MyriadError('UNSUPPORTED', `syev takes real symmetric matrices; a is ${String((a as { dtype?: unknown }).dtype)}: use heev for complex Hermitian matrices (real eigenvalues in a real w)`, 'a');
  return prepareEigen(args, 'syev', alloc);
}

/** heev: complex Hermitian A with real w of its component type; on real data syev's request. */
export function prepareHeev<S extends Storage>(input: SyevArgs<S>, alloc: IntAllocator): SyevRequest<S>  {
  return prepareEigen(input as SyevArgs<S, Batch<S>>, 'heev', alloc);
}

function prepareEigen<S extends Storage>(args: SyevArgs<S, Batch<S>>, op: 'syev' | 'heev', alloc: IntAllocator): SyevRequest<S> {
  argsObject(args, op, SYEV_KEYS);
  const jobz = parseEnumValue(args.jobz ?? 'vectors', ['values', 'vectors'] as const, 'jobz');
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const { count } = checkMixedBatches(op, [[args.a, 'a']], [[args.w, 'w', 'the eigenvalues']]);
  copyableOrder(args.a, 'a');
  copyableOrder(args.w, 'w');
  checkSquare(args.a, count, op);
  forEachShape([args.a, args.w], count, (i) => checkVector(args.w, i, dims(args.a, i)[0], 'w', 'one eigenvalue per row of A'));
  const info = givenInfo(args.info, count);
  checkNoOverlaps([
    batchOperand('a', args.a, jobz === 'vectors'), batchOperand('w', args.w, true), ...intOperand('info', info, count, true),
  ]);
  return { jobz, uplo, a: args.a, w: args.w, info: intsOrNew(info, count, alloc, 'info') };
}

export function prepareGesvd<S extends Storage>(input: GesvdArgs<S>, alloc: IntAllocator): GesvdRequest<S>  {
  const args = input as GesvdArgs<S, Batch<S>>;
  argsObject(args, 'gesvd', GESVD_KEYS);
  const jobu = parseEnumValue(args.jobu ?? 'thin', ['none', 'thin'] as const, 'jobu');
  const jobvt = parseEnumValue(args.jobvt ?? 'thin', ['none', 'thin'] as const, 'jobvt');
  check(jobu === 'thin' || args.u === undefined, 'INVALID_ARGUMENT', 'u', "is given but jobu is 'none'");
  check(jobvt === 'thin' || args.vt === undefined, 'INVALID_ARGUMENT', 'vt', "is given but jobvt is 'none'");
  check(jobu === 'none' || args.u !== undefined, 'INVALID_ARGUMENT', 'u', "is required with jobu 'thin' (m x min(m, n) per matrix)");
  check(jobvt === 'none' || args.vt !== undefined, 'INVALID_ARGUMENT', 'vt', "is required with jobvt 'thin' (min(m, n) x n per matrix)");
  const batches: [Batch<S>, string][] = [[args.a, 'a'], [args.s, 's']];
  if (args.u !== undefined) batches.push([args.u, 'u']);
  if (args.vt !== undefined) batches.push([args.vt, 'vt']);
  // Complex A: u and vt complex, s real of A's component type.
  const { count } = checkMixedBatches('gesvd', batches.filter(([, name]) => name !== 's'), [[args.s, 's', 'the singular values']]);
  for (const [b, name] of batches) copyableOrder(b, name);
  forEachShape(batches.map(([b]) => b), count, (i) => {
    const [m, n] = dims(args.a, i);
    const k = Math.min(m, n);
    checkVector(args.s, i, k, 's', `min(m, n) singular values of the ${m}x${n} A`);
    if (args.u !== undefined) {
      const [r, c] = dims(args.u, i);
      check(r === m && c === k, 'SHAPE', 'u', `matrix ${i}: u must be ${m}x${k} for the ${m}x${n} A, got ${r}x${c}`);
    }
    if (args.vt !== undefined) {
      const [r, c] = dims(args.vt, i);
      check(r === k && c === n, 'SHAPE', 'vt', `matrix ${i}: vt must be ${k}x${n} for the ${m}x${n} A, got ${r}x${c}`);
    }
  });
  const info = givenInfo(args.info, count);
  checkNoOverlaps([
    batchOperand('a', args.a, false), batchOperand('s', args.s, true),
    ...(args.u !== undefined ? [batchOperand('u', args.u, true)] : []),
    ...(args.vt !== undefined ? [batchOperand('vt', args.vt, true)] : []),
    ...intOperand('info', info, count, true),
  ]);
  return { a: args.a, s: args.s, u: args.u, vt: args.vt, info: intsOrNew(info, count, alloc, 'info') };
}

// ---------------------------------------------------------------------------------------------
// QR and least squares. Every batch is returned as given: row-major host batches are copied to
// column-major by the context (the factors are not transposes of anything).

const GEQRF_KEYS = ['a', 'tau', 'info', 'check'] as const;
const ORGQR_KEYS = ['a', 'tau'] as const;
const ORMQR_KEYS = ['side', 'trans', 'a', 'tau', 'c'] as const;
const GELS_KEYS = ['a', 'b', 'info', 'check'] as const;

export function prepareGeqrf<S extends Storage>(input: GeqrfArgs<S>, alloc: IntAllocator): GeqrfRequest<S>  {
  const args = input as GeqrfArgs<S, Batch<S>>;
  argsObject(args, 'geqrf', GEQRF_KEYS);
  const { count } = checkBatches('geqrf', [[args.a, 'a'], [args.tau, 'tau']]);
  copyableOrder(args.a, 'a');
  copyableOrder(args.tau, 'tau');
  forEachShape([args.a, args.tau], count, (i) => {
    const [m, n] = dims(args.a, i);
    checkVector(args.tau, i, Math.min(m, n), 'tau', `one scalar per reflector of the ${m}x${n} A`);
  });
  const info = givenInfo(args.info, count);
  checkNoOverlaps([batchOperand('a', args.a, true), batchOperand('tau', args.tau, true), ...intOperand('info', info, count, true)]);
  return { a: args.a, tau: args.tau, info: intsOrNew(info, count, alloc, 'info') };
}

export function prepareOrgqr<S extends Storage>(input: OrgqrArgs<S>): OrgqrRequest<S>  {
  const args = input as OrgqrArgs<S, Batch<S>>;
  argsObject(args, 'orgqr', ORGQR_KEYS);
  const { count } = checkBatches('orgqr', [[args.a, 'a'], [args.tau, 'tau']]);
  copyableOrder(args.a, 'a');
  copyableOrder(args.tau, 'tau');
  forEachShape([args.a, args.tau], count, (i) => {
    const [m, n] = dims(args.a, i);
    const [k, c] = dims(args.tau, i);
    check(m >= n, 'SHAPE', 'a', `matrix ${i}: orgqr forms an m x n Q with m >= n, got ${m}x${n}`);
    check(c === 1 && k <= n, 'SHAPE', 'tau', `matrix ${i}: tau must be k x 1 with k <= ${n} (one scalar per reflector), got ${k}x${c}`);
  });
  checkNoOverlaps([batchOperand('a', args.a, true), batchOperand('tau', args.tau, false)]);
  return { a: args.a, tau: args.tau };
}

/**
 * ormqr: a and tau are returned as given (row-major host batches are copied by the context, as
 * geqrf wrote them column-major); a row-major C maps to the transposed operation on its
 * column-major view: (op(Q) C)^T = C^T op(Q)^T, side and trans flip.
 */
export function prepareOrmqr<S extends Storage>(input: OrmqrArgs<S>): OrmqrRequest<S>  {
  const args = input as OrmqrArgs<S, Batch<S>>;
  argsObject(args, 'ormqr', ORMQR_KEYS);
  const side = parseSide(args.side ?? 'left', 'side');
  const t = parseEnumValue(args.trans ?? 'N', COMPLEX_OPS, 'trans');
  const { count, complex } = checkBatches('ormqr', [[args.a, 'a'], [args.tau, 'tau'], [args.c, 'c']]);
  // zunmqr applies Q or Q^H ('C'); Q^T has no meaning there. On real data 'C' is 'T'.
  if (complex && t === 'T') throw new MyriadError('ENUM', "complex ormqr (zunmqr) takes trans 'N' or 'C' (Q^H)", 'trans');
  const trans: Op = t === 'N' ? 'N' : 'T';
  copyableOrder(args.a, 'a');
  copyableOrder(args.tau, 'tau');
  forEachShape([args.a, args.tau, args.c], count, (i) => {
    const [m, n] = dims(args.c, i);
    const [ar, ac] = dims(args.a, i);
    const [k, tc] = dims(args.tau, i);
    const need = side === 'left' ? m : n;
    check(ar === need, 'SHAPE', 'a', `matrix ${i}: side '${side}' applies Q of order ${need} to the ${m}x${n} C, but A has ${ar} rows (it needs ${need})`);
    check(tc === 1, 'SHAPE', 'tau', `matrix ${i}: tau must be k x 1 (one scalar per reflector), got ${k}x${tc}`);
    check(k <= ac && k <= ar, 'SHAPE', 'tau', `matrix ${i}: tau has ${k} rows but the ${ar}x${ac} A holds at most ${Math.min(ar, ac)} reflectors`);
  });
  checkNoOverlaps([batchOperand('a', args.a, false), batchOperand('tau', args.tau, false), batchOperand('c', args.c, true)]);
  if (complex) {
    const request: ComplexOrmqrRequest<S> = { side, trans: t === 'N' ? 'N' : 'C', a: args.a, tau: args.tau, c: args.c };
    return request as unknown as OrmqrRequest<S>;
  }
  const c = asColumnMajor(args.c);
  if (!isRow(args.c)) return { side, trans, a: args.a, tau: args.tau, c };
  return { side: flipSide(side), trans: flipTrans(trans), a: args.a, tau: args.tau, c };
}

export function prepareGels<S extends Storage>(input: GelsArgs<S>, alloc: IntAllocator): GelsRequest<S>  {
  const args = input as GelsArgs<S, Batch<S>>;
  argsObject(args, 'gels', GELS_KEYS);
  const { count } = checkBatches('gels', [[args.a, 'a'], [args.b, 'b']]);
  copyableOrder(args.a, 'a');
  copyableOrder(args.b, 'b');
  forEachShape([args.a, args.b], count, (i) => {
    const [m, n] = dims(args.a, i);
    const [r] = dims(args.b, i);
    check(r === Math.max(m, n), 'SHAPE', 'b', `matrix ${i}: b must have max(m, n) = ${Math.max(m, n)} rows for the ${m}x${n} A, got ${r}`);
  });
  const info = givenInfo(args.info, count);
  checkNoOverlaps([batchOperand('a', args.a, true), batchOperand('b', args.b, true), ...intOperand('info', info, count, true)]);
  return { a: args.a, b: args.b, info: intsOrNew(info, count, alloc, 'info') };
}

// ---------------------------------------------------------------------------------------------
// The table: one validator per operation (the compiler asks for a new operation's entry).

/** A validator: the public arguments of one call -> its request (integers allocated by `alloc` where not given). */
export type Validator<K extends OpName> = (args: Parameters<PublicCalls[K]>[0], alloc: IntAllocator) => Requests[K];

/** The public argument object of each operation. */
interface PublicCalls {
  gemm(a: GemmArgs): void; trsm(a: TrsmArgs): void; trmm(a: TrmmArgs): void; syrk(a: SyrkArgs): void; herk(a: HerkArgs): void;
  potrf(a: FactorArgs): void; potrs(a: CholeskySolveArgs): void; posv(a: CholeskySolveArgs): void;
  getrf(a: GetrfArgs): void; getrs(a: GetrsArgs): void; gesv(a: GesvArgs): void;
  trtri(a: TrtriArgs): void; lauum(a: FactorArgs): void; potri(a: FactorArgs): void; poti(a: FactorArgs): void;
  syev(a: SyevArgs): void; heev(a: SyevArgs): void; gesvd(a: GesvdArgs): void;
  geqrf(a: GeqrfArgs): void; orgqr(a: OrgqrArgs): void; ormqr(a: OrmqrArgs): void; gels(a: GelsArgs): void;
  getri(a: GetriArgs): void;
}

export const VALIDATORS: { readonly [K in OpName]: Validator<K> } = {
  gemm: (a) => prepareGemm(a),
  trsm: (a) => prepareTrsm(a, 'trsm'),
  trmm: (a) => prepareTrsm(a, 'trmm'),
  syrk: (a) => prepareSyrk(a),
  herk: (a) => prepareHerk(a),
  potrf: (a, alloc) => prepareFactor(a, 'potrf', alloc),
  potrs: (a, alloc) => prepareCholeskySolve(a, 'potrs', alloc),
  posv: (a, alloc) => prepareCholeskySolve(a, 'posv', alloc),
  getrf: (a, alloc) => prepareGetrf(a, alloc),
  getrs: (a, alloc) => prepareGetrs(a, alloc),
  gesv: (a, alloc) => prepareGesv(a, alloc),
  trtri: (a, alloc) => prepareTrtri(a, alloc),
  lauum: (a, alloc) => prepareFactor(a, 'lauum', alloc),
  potri: (a, alloc) => prepareFactor(a, 'potri', alloc),
  poti: (a, alloc) => prepareFactor(a, 'poti', alloc),
  syev: (a, alloc) => prepareSyev(a, alloc),
  heev: (a, alloc) => prepareHeev(a, alloc),
  gesvd: (a, alloc) => prepareGesvd(a, alloc),
  geqrf: (a, alloc) => prepareGeqrf(a, alloc),
  orgqr: (a) => prepareOrgqr(a),
  ormqr: (a) => prepareOrmqr(a),
  gels: (a, alloc) => prepareGels(a, alloc),
  getri: (a, alloc) => prepareGetri(a, alloc),
};

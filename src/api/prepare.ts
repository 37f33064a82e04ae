/**
 * From public arguments to validated, column-major backend requests.
 *
 * Every public LAPACK-level function goes through one `prepare*` function here: it parses the
 * enums, checks dtypes, counts, shapes and buffers, naming the offending argument, and maps
 * row-major batches to the column-major operation on the transposes (gemm, trsm, trmm, syrk,
 * potrf, trtri, lauum, potri). Where no such mapping exists (the LU family, and the right-hand
 * sides of the solves), row-major host batches go through a column-major copy (see rowmajor.ts).
 */
import {
  asColumnMajor, batchCount, batchDtype, checkNoOverlap, matrixAt, validateBatch,
  type Batch,
} from '../core/batch.js';
import type { DType } from '../core/dtype.js';
import {
  flipSide, flipTrans, flipUplo, parseDiag, parseSide, parseTrans, parseUplo,
  type Diag, type Side, type Trans, type Uplo,
} from '../core/enums.js';
import { MyriadError, check } from '../core/errors.js';
import type {
  GemmRequest, GetrfRequest, GetrsRequest, LauumRequest, Op, PotrfRequest, PotrsRequest, SyrkRequest,
  TrsmRequest, TrtriRequest,
} from '../core/ops.js';
import { isDeviceStorage, type IntStorage, type Storage } from '../core/storage.js';

// ---------------------------------------------------------------------------------------------
// Public argument types

export interface GemmArgs<S extends Storage = Storage> {
  transA?: Trans; transB?: Trans; alpha?: number; a: Batch<S>; b: Batch<S>; beta?: number; c: Batch<S>;
}
export interface TrsmArgs<S extends Storage = Storage> {
  side?: Side; uplo?: Uplo; transA?: Trans; diag?: Diag; alpha?: number; a: Batch<S>; b: Batch<S>;
}
export type TrmmArgs<S extends Storage = Storage> = TrsmArgs<S>;
export interface SyrkArgs<S extends Storage = Storage> {
  uplo?: Uplo; trans?: Trans; alpha?: number; a: Batch<S>; beta?: number; c: Batch<S>;
}
/** `info` (optional): where to write per-matrix status; allocated when absent. */
export interface FactorArgs<S extends Storage = Storage> { uplo?: Uplo; a: Batch<S>; info?: IntStorage }
export interface CholeskySolveArgs<S extends Storage = Storage> extends FactorArgs<S> { b: Batch<S> }
export interface TrtriArgs<S extends Storage = Storage> extends FactorArgs<S> { diag?: Diag }
export interface GetrfArgs<S extends Storage = Storage> { a: Batch<S>; ipiv?: IntStorage; info?: IntStorage }
export interface GetrsArgs<S extends Storage = Storage> extends GetrfArgs<S> { trans?: Trans; ipiv: IntStorage; b: Batch<S> }
export interface GesvArgs<S extends Storage = Storage> extends GetrfArgs<S> { b: Batch<S> }

// ---------------------------------------------------------------------------------------------
// Shared checks

function scalar(v: unknown, fallback: number, argument: string): number {
  if (v === undefined) return fallback;
  check(typeof v === 'number' && !Number.isNaN(v), 'INVALID_ARGUMENT', argument, `expected a number, got ${String(v)}`);
  return v;
}

/** Validates the batches of one call and returns their common dtype and count. */
function checkBatches(batches: readonly [Batch<Storage>, string][]): { dtype: DType; count: number } {
  check(batches.length > 0, 'INVALID_ARGUMENT', 'a', 'missing');
  for (const [b, name] of batches) {
    check(b !== undefined && b !== null, 'INVALID_ARGUMENT', name, 'is required');
    validateBatch(b, name);
  }
  const [first, firstName] = batches[0]!;
  const dtype = batchDtype(first, firstName);
  const count = batchCount(first);
  for (const [b, name] of batches.slice(1)) {
    const d = batchDtype(b, name);
    if (batchCount(b) > 0 && count > 0)
      check(d === dtype, 'DTYPE', name, `is ${d} but ${firstName} is ${dtype}: dtypes cannot be mixed`);
    check(batchCount(b) === count, 'SHAPE', name, `holds ${batchCount(b)} matrices but ${firstName} holds ${count}`);
  }
  return { dtype, count };
}

/** Checks one integer output/input array: an Int32Array (or int32 device memory) of at least `length`. */
export function checkIntStorage(s: unknown, length: number, argument: string): IntStorage {
  if (isDeviceStorage(s)) {
    check(s.dtype === 'int32', 'DTYPE', argument, `expected int32 device memory, got ${s.dtype}`);
  } else {
    check(s instanceof Int32Array, 'DTYPE', argument, 'expected an Int32Array');
  }
  check((s as IntStorage).length >= length, 'BOUNDS', argument, `holds ${(s as IntStorage).length} elements but ${length} are needed`);
  return s as IntStorage;
}

/** Each matrix's (rows, cols) in column-major terms, by index. */
function dims(b: Batch<Storage>, i: number): [number, number] {
  const m = matrixAt(b, i);
  return [m.rows, m.cols];
}

/**
 * Runs a per-matrix shape check: once where every batch has one shape (strided, list), for every
 * matrix where one is variable. Validation stays O(1) in the batch size for the common case.
 */
function forEachShape(batches: readonly Batch<Storage>[], count: number, fn: (i: number) => void): void {
  const n = batches.some((b) => b.kind === 'variable') ? count : Math.min(count, 1);
  for (let i = 0; i < n; i++) fn(i);
}

const isRow = (b: Batch<Storage>): boolean => b.order === 'row';
/** op(X) in terms of X's column-major view V: V or V^T. */
const effective = (t: Op, b: Batch<Storage>): Op => (isRow(b) ? flipTrans(t) : t);

/** Largest min(rows, cols) over a batch: the pivot stride. */
export function pivotStrideOf(a: Batch<Storage>): number {
  if (a.kind !== 'variable') return Math.min(a.rows, a.cols);
  return a.matrices.reduce((mx, m) => Math.max(mx, Math.min(m.rows, m.cols)), 0);
}

// ---------------------------------------------------------------------------------------------
// BLAS 3

export function prepareGemm<S extends Storage>(args: GemmArgs<S>): GemmRequest<S> {
  check(typeof args === 'object' && args !== null, 'INVALID_ARGUMENT', 'args', 'expected an object');
  const transA = parseTrans(args.transA ?? 'N', 'transA');
  const transB = parseTrans(args.transB ?? 'N', 'transB');
  const alpha = scalar(args.alpha, 1, 'alpha');
  const beta = scalar(args.beta, 0, 'beta');
  const { count } = checkBatches([[args.a, 'a'], [args.b, 'b'], [args.c, 'c']]);
  checkNoOverlap(args.c, 'c');
  // Logical shapes (as the user sees them, whatever the order).
  forEachShape([args.a, args.b, args.c], count, (i) => {
    const [am, ak] = logical(args.a, i, transA);
    const [bk, bn] = logical(args.b, i, transB);
    const [cm, cn] = logicalPlain(args.c, i);
    check(ak === bk, 'SHAPE', 'b', `matrix ${i}: op(A) is ${am}x${ak} but op(B) is ${bk}x${bn} (inner dimensions differ)`);
    check(am === cm && bn === cn, 'SHAPE', 'c', `matrix ${i}: C is ${cm}x${cn} but op(A) op(B) is ${am}x${bn}`);
  });
  const a = asColumnMajor(args.a);
  const b = asColumnMajor(args.b);
  const c = asColumnMajor(args.c);
  const eA = effective(transA, args.a);
  const eB = effective(transB, args.b);
  if (!isRow(args.c)) return { transA: eA, transB: eB, alpha, a, b, beta, c };
  // C row-major: its column-major view is C^T = op(B)^T op(A)^T.
  return { transA: flipTrans(eB), transB: flipTrans(eA), alpha, a: b, b: a, beta, c };
}

/** Logical (rows, cols) of op(X) for matrix i. */
function logical(b: Batch<Storage>, i: number, t: Op): [number, number] {
  const [r, c] = logicalPlain(b, i);
  return t === 'N' ? [r, c] : [c, r];
}
function logicalPlain(b: Batch<Storage>, i: number): [number, number] {
  return dims(b, i);
}

export function prepareTrsm<S extends Storage>(args: TrsmArgs<S>, name = 'trsm'): TrsmRequest<S> {
  check(typeof args === 'object' && args !== null, 'INVALID_ARGUMENT', 'args', 'expected an object');
  const side = parseSide(args.side ?? 'left', 'side');
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const transA = parseTrans(args.transA ?? 'N', 'transA');
  const diag = parseDiag(args.diag ?? 'nonunit', 'diag');
  const alpha = scalar(args.alpha, 1, 'alpha');
  const { count } = checkBatches([[args.a, 'a'], [args.b, 'b']]);
  checkNoOverlap(args.b, 'b');
  forEachShape([args.a, args.b], count, (i) => {
    const [ar, ac] = logicalPlain(args.a, i);
    const [br, bc] = logicalPlain(args.b, i);
    check(ar === ac, 'SHAPE', 'a', `matrix ${i}: ${name} needs square A, got ${ar}x${ac}`);
    const need = side === 'left' ? br : bc;
    check(ar === need, 'SHAPE', 'a', `matrix ${i}: A is ${ar}x${ac} but B is ${br}x${bc} (side '${side}' needs A ${need}x${need})`);
  });
  // A row-major: its column-major view is A^T, whose stored triangle is the other one.
  const uploV = isRow(args.a) ? flipUplo(uplo) : uplo;
  const eA = effective(transA, args.a);
  const a = asColumnMajor(args.a);
  const b = asColumnMajor(args.b);
  if (!isRow(args.b)) return { side, uplo: uploV, transA: eA, diag, alpha, a, b };
  // B row-major: B^T := alpha B^T op(A)^-T (left <-> right).
  return { side: flipSide(side), uplo: uploV, transA: flipTrans(eA), diag, alpha, a, b };
}

export function prepareSyrk<S extends Storage>(args: SyrkArgs<S>): SyrkRequest<S> {
  check(typeof args === 'object' && args !== null, 'INVALID_ARGUMENT', 'args', 'expected an object');
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const trans = parseTrans(args.trans ?? 'N', 'trans');
  const alpha = scalar(args.alpha, 1, 'alpha');
  const beta = scalar(args.beta, 0, 'beta');
  const { count } = checkBatches([[args.a, 'a'], [args.c, 'c']]);
  checkNoOverlap(args.c, 'c');
  forEachShape([args.a, args.c], count, (i) => {
    const [n, k] = logical(args.a, i, trans);
    const [cr, cc] = logicalPlain(args.c, i);
    check(cr === cc, 'SHAPE', 'c', `matrix ${i}: C must be square, got ${cr}x${cc}`);
    check(cr === n, 'SHAPE', 'a', `matrix ${i}: op(A) is ${n}x${k} but C is ${cr}x${cc}`);
  });
  return {
    uplo: isRow(args.c) ? flipUplo(uplo) : uplo,
    trans: effective(trans, args.a),
    alpha, beta, a: asColumnMajor(args.a), c: asColumnMajor(args.c),
  };
}

// ---------------------------------------------------------------------------------------------
// LAPACK

function checkSquare(a: Batch<Storage>, count: number, op: string): void {
  forEachShape([a], count, (i) => {
    const [r, c] = dims(a, i);
    check(r === c, 'SHAPE', 'a', `matrix ${i}: ${op} needs a square matrix, got ${r}x${c}`);
  });
}

function infoOf(info: unknown, count: number, alloc: (n: number) => IntStorage): IntStorage {
  return info === undefined ? alloc(count) : checkIntStorage(info, count, 'info');
}

export type IntAllocator = (length: number) => IntStorage;
export const hostInts: IntAllocator = (n) => new Int32Array(n);

/** potrf, lauum, potri (and trtri via prepareTrtri): one square batch, uplo flips for row-major. */
export function prepareFactor<S extends Storage>(args: FactorArgs<S>, op: string, alloc: IntAllocator): PotrfRequest<S> & LauumRequest<S> {
  check(typeof args === 'object' && args !== null, 'INVALID_ARGUMENT', 'args', 'expected an object');
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const { count } = checkBatches([[args.a, 'a']]);
  checkNoOverlap(args.a, 'a');
  checkSquare(args.a, count, op);
  const info = infoOf(args.info, count, alloc);
  return { uplo: isRow(args.a) ? flipUplo(uplo) : uplo, a: asColumnMajor(args.a), info };
}

export function prepareTrtri<S extends Storage>(args: TrtriArgs<S>, alloc: IntAllocator): TrtriRequest<S> {
  const r = prepareFactor(args, 'trtri', alloc);
  return { ...r, diag: parseDiag(args.diag ?? 'nonunit', 'diag') };
}

/**
 * potrs / posv. The right-hand sides must be column-major here (row-major host batches were
 * copied by the caller, see rowmajor.ts); A's row-major storage maps to the other triangle.
 */
export function prepareCholeskySolve<S extends Storage>(args: CholeskySolveArgs<S>, op: string, alloc: IntAllocator): PotrsRequest<S> {
  check(typeof args === 'object' && args !== null, 'INVALID_ARGUMENT', 'args', 'expected an object');
  const uplo = parseUplo(args.uplo ?? 'lower', 'uplo');
  const { count } = checkBatches([[args.a, 'a'], [args.b, 'b']]);
  checkNoOverlap(args.b, 'b');
  if (op === 'posv') checkNoOverlap(args.a, 'a');
  checkSquare(args.a, count, op);
  checkRhs(args.a, args.b, count);
  const info = infoOf(args.info, count, alloc);
  return { uplo: isRow(args.a) ? flipUplo(uplo) : uplo, a: asColumnMajor(args.a), b: args.b, info };
}

function checkRhs(a: Batch<Storage>, b: Batch<Storage>, count: number): void {
  check(!isRow(b), 'LAYOUT', 'b.order', "right-hand sides must be column-major here ('row' host batches are copied by the API)");
  forEachShape([a, b], count, (i) => {
    const [n] = dims(a, i);
    const [br, bc] = dims(b, i);
    check(br === n, 'SHAPE', 'b', `matrix ${i}: B is ${br}x${bc} but A is ${n}x${n} (B needs ${n} rows)`);
  });
}

export function prepareGetrf<S extends Storage>(args: GetrfArgs<S>, alloc: IntAllocator): GetrfRequest<S> {
  check(typeof args === 'object' && args !== null, 'INVALID_ARGUMENT', 'args', 'expected an object');
  const { count } = checkBatches([[args.a, 'a']]);
  check(!isRow(args.a), 'LAYOUT', 'a.order', "LU needs column-major storage here ('row' host batches are copied by the API)");
  checkNoOverlap(args.a, 'a');
  const pivotStride = pivotStrideOf(args.a);
  const ipiv = args.ipiv === undefined ? alloc(count * pivotStride) : checkIntStorage(args.ipiv, count * pivotStride, 'ipiv');
  return { a: args.a, ipiv, pivotStride, info: infoOf(args.info, count, alloc) };
}

export function prepareGetrs<S extends Storage>(args: GetrsArgs<S>, alloc: IntAllocator): GetrsRequest<S> {
  check(typeof args === 'object' && args !== null, 'INVALID_ARGUMENT', 'args', 'expected an object');
  const trans = parseTrans(args.trans ?? 'N', 'trans');
  const { count } = checkBatches([[args.a, 'a'], [args.b, 'b']]);
  check(!isRow(args.a), 'LAYOUT', 'a.order', "LU factors must be column-major here ('row' host batches are copied by the API)");
  checkNoOverlap(args.b, 'b');
  checkSquare(args.a, count, 'getrs');
  checkRhs(args.a, args.b, count);
  const pivotStride = pivotStrideOf(args.a);
  check(args.ipiv !== undefined, 'INVALID_ARGUMENT', 'ipiv', 'is required (the pivots from getrf)');
  const ipiv = checkIntStorage(args.ipiv, count * pivotStride, 'ipiv');
  if (ipiv instanceof Int32Array) {
    for (let i = 0; i < count; i++) {
      const n = dims(args.a, i)[0];
      for (let j = 0; j < n; j++) {
        const p = ipiv[i * pivotStride + j]!;
        if (p < j || p >= n)
          throw new MyriadError('INVALID_ARGUMENT', `matrix ${i}: pivot ${j} is ${p}, outside [${j}, ${n - 1}] (pivots are 0-based, as getrf returns them)`, 'ipiv');
      }
    }
  }
  return { trans, a: args.a, ipiv, pivotStride, b: args.b, info: infoOf(args.info, count, alloc) };
}

export function prepareGesv<S extends Storage>(args: GesvArgs<S>, alloc: IntAllocator): GetrsRequest<S> {
  const r = prepareGetrf(args, alloc);
  checkBatches([[args.a, 'a'], [args.b, 'b']]);
  checkSquare(args.a, batchCount(args.a), 'gesv');
  checkNoOverlap(args.b, 'b');
  checkRhs(args.a, args.b, batchCount(args.a));
  return { ...r, trans: 'N', b: args.b };
}

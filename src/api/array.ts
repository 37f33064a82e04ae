/**
 * The array level: numpy 2's conventions. An NDArray is a contiguous row-major stack of
 * matrices, shape [..., rows, cols]; every function returns new arrays and leaves its inputs
 * alone. Batch dimensions broadcast as in numpy (matmul, solve); `solve` reads b as one vector
 * only when it is 1-D (numpy 2). choleskySolve and triangularSolve, which numpy lacks, follow
 * jax.scipy.linalg: b is a stack of vectors when it has one dimension fewer than a.
 *
 * The plain functions throw MyriadError('NUMERICAL') naming the failing matrices and what failed;
 * the `*Ex` variants never throw for numerical failure and return per-matrix `info` instead (a
 * failed matrix's outputs are filled with NaN, so they cannot be mistaken for results). The codes
 * are core/info.ts's table; a matrix (or right-hand side) holding NaN or Inf is p + 2 in every
 * function. The elementwise companions (transpose, add, subtract, scale) are in elementwise.ts.
 */
import { list, strided, type Batch, type StridedBatch } from '../core/batch.js';
import { allocate, dtypeOfArray, type ComplexDType, type ElementType, type FloatArray } from '../core/dtype.js';
import { complexInfo, dtypeInfo, isComplexDType, isElementType } from '../core/dtype-table.js';
import { MyriadError, check, checkKeys, describeValue } from '../core/errors.js';
import { failureError, spanNonFinite, type Failure, type InfoOp } from '../core/info.js';
import type { Context } from './context.js';

export interface NDArray<T extends FloatArray = FloatArray> {
  readonly data: T;
  readonly shape: readonly number[];
  /**
   * Present on a complex array only: 'complex128' over a Float64Array, 'complex64' over a
   * Float32Array, the (re, im) pairs interleaved (numpy's layout); the shape counts complex elements.
   */
  readonly dtype?: ComplexDType;
}
export interface NDArrayOptions {
  /** The element type: default the array's real type; a complex type reads it as interleaved (re, im) pairs. */
  dtype?: ElementType;
}
/** A result with per-matrix status: info[i] = 0 where matrix i succeeded (codes: core/info.ts). */
export type WithInfo<T> = T & { info: Int32Array };
export interface LuResult<T extends FloatArray = FloatArray> {
  /** L (unit diagonal, not stored) and U packed in one [..., m, n] array, as LAPACK's getrf. */
  lu: NDArray<T>;
  /** [..., min(m, n)], 0-based: row j was swapped with row pivots[j]. */
  pivots: Int32Array;
}
export interface CholeskyOptions { upper?: boolean }
/** Which triangle eigh reads: the lower (default, numpy's UPLO='L') or the upper. */
export interface EighOptions { upper?: boolean }
export interface EighResult<T extends FloatArray = FloatArray> {
  /** [..., n], ascending. */
  values: NDArray<T>;
  /** [..., n, n]: column j (vectors[..., :, j]) is the unit eigenvector of values[..., j]. */
  vectors: NDArray<T>;
}
/** The thin SVD, numpy's svd(a, full_matrices=False) with k = min(m, n): a = u diag(s) vt. */
export interface SvdResult<T extends FloatArray = FloatArray> {
  /** [..., m, k], orthonormal columns. */
  u: NDArray<T>;
  /** [..., k], descending, non-negative. */
  s: NDArray<T>;
  /** [..., k, n], orthonormal rows. */
  vt: NDArray<T>;
}
/**
 * What `inv` may assume of its matrices: 'general' (the default: LU, gesv against the identity) or
 * 'spd' (symmetric positive definite: poti, potrf + trtri + lauum, about half the work; only the lower
 * triangle is read, and the inverse is returned whole). A matrix that is not positive definite
 * fails as a singular one does: invEx gives potrf's info > 0 and an inverse of NaN.
 */
export interface InvOptions { assume?: 'general' | 'spd' }
export interface TriangularSolveOptions {
  /** A is upper triangular (default: lower). */
  upper?: boolean;
  /** Solve A X = B (default, true) or X A = B (false). */
  left?: boolean;
  /** Use A^T instead of A. */
  transpose?: boolean;
  /** Use A^H (the conjugate transpose) instead of A; on real arrays the same as transpose. */
  adjoint?: boolean;
  /** Take A's diagonal as ones. */
  unitDiagonal?: boolean;
}

/**
 * Wraps a typed array as an NDArray, checking that the shape fits (shape [] a 0-D array of one
 * element, as numpy's, and as matmul of two 1-D arrays returns). `{ dtype: 'complex128' }` (over a
 * Float64Array) or `'complex64'` (over a Float32Array) makes a complex array of interleaved pairs.
 */
export function ndarray<T extends FloatArray>(data: T, shape: readonly number[], options: NDArrayOptions = {}): NDArray<T> {
  checkOptions(options, ['dtype']);
  check(Array.isArray(shape), 'SHAPE', 'shape', `expected an array of dimensions, got ${describeValue(shape)}`);
  const { dtype } = options;
  if (dtype !== undefined) {
    check(isElementType(dtype), 'DTYPE', 'options.dtype', `expected 'float64', 'float32', 'complex128' or 'complex64', got ${describeValue(dtype)}`);
    const real = isComplexDType(dtype) ? complexInfo(dtype).real : dtype;
    const got = dtypeOfArray(data, 'data');
    check(got === real, 'DTYPE', 'options.dtype', `${dtype} needs a ${dtypeInfo(real).array.name}${isComplexDType(dtype) ? ' of interleaved (re, im) pairs' : ''}, got a ${got} array`);
  }
  const a: NDArray<T> = dtype !== undefined && isComplexDType(dtype) ? { data, shape: [...shape], dtype } : { data, shape: [...shape] };
  stackOf(a, 'array', 0, true);
  return a;
}

/** True for an object whose `dtype` is a complex type (the array-level functions' dispatch). */
export function isComplexArray(a: unknown): boolean {
  return typeof a === 'object' && a !== null && isComplexDType((a as { dtype?: unknown }).dtype);
}

/** An array's element type: its `dtype` field (complex), else its data's real type. */
export function elementTypeOf(a: NDArray, argument: string): ElementType {
  const real = dtypeOfArray(a.data, `${argument}.data`);
  const dtype: unknown = (a as { dtype?: unknown }).dtype;
  if (dtype === undefined) return real;
  check(isComplexDType(dtype), 'DTYPE', `${argument}.dtype`, `expected 'complex128' or 'complex64' (a real array has no dtype field), got ${describeValue(dtype)}`);
  const part = complexInfo(dtype).real;
  check(part === real, 'DTYPE', `${argument}.dtype`, `${dtype} needs a ${dtypeInfo(part).array.name} of interleaved (re, im) pairs, got a ${real} array`);
  return dtype;
}

export interface Stack {
  /** The complex type of a complex stack (its data holds 2 floats per element). */
  complex?: ComplexDType;
  batchShape: number[];
  count: number;
  rows: number;
  cols: number;
}

/** Checks that `shape` is an array of non-negative integers (a SHAPE error naming `argument`). */
export function checkShape(shape: unknown, argument: string): asserts shape is readonly number[] {
  check(Array.isArray(shape) && shape.every((d) => Number.isSafeInteger(d) && d >= 0), 'SHAPE', argument,
    `expected an array of non-negative integers, got ${Array.isArray(shape) ? `[${shape.map((d) => describeValue(d)).join(', ')}]` : describeValue(shape)}`);
}

/**
 * The stack of an array, checked: data, shape, the fit. A complex array is an error (DTYPE naming
 * the argument) unless `complex` allows it: the real functions take real arrays only.
 */
export function stackOf(a: NDArray, argument: string, minDims = 2, complex = false): Stack {
  check(typeof a === 'object' && a !== null, 'INVALID_ARGUMENT', argument, `expected { data, shape }, got ${describeValue(a)}`);
  const type = elementTypeOf(a, argument);
  const z = isComplexDType(type) ? type : undefined;
  check(z === undefined || complex, 'DTYPE', argument, `a ${type} array where this function takes real arrays (dtypes cannot be mixed)`);
  checkShape(a.shape, `${argument}.shape`);
  check(a.shape.length >= minDims, 'SHAPE', `${argument}.shape`, `expected at least ${minDims} dimensions [..., rows, cols], got [${a.shape.join(', ')}]`);
  const size = countOf(a.shape);
  if (z === undefined) check(a.data.length === size, 'BOUNDS', `${argument}.data`, `holds ${a.data.length} elements but shape [${a.shape.join(', ')}] needs ${size}`);
  else check(a.data.length === 2 * size, 'BOUNDS', `${argument}.data`, `holds ${a.data.length} floats but ${z} shape [${a.shape.join(', ')}] needs ${2 * size} (interleaved re, im)`);
  const batchShape = a.shape.slice(0, -2);
  return {
    ...(z === undefined ? {} : { complex: z }),
    batchShape, count: batchShape.reduce((p, d) => p * d, 1),
    rows: a.shape[a.shape.length - 2] ?? 1, cols: a.shape[a.shape.length - 1] ?? 1,
  };
}

function rowBatch<T extends FloatArray>(data: T, s: Stack, argument: string, broadcast = false): StridedBatch<T> {
  return strided(data, {
    rows: s.rows, cols: s.cols, order: 'row', ld: Math.max(1, s.cols),
    count: s.count, stride: broadcast ? 0 : s.rows * s.cols,
  }, argument);
}

function copyOf<T extends FloatArray>(a: NDArray<T>): NDArray<T> {
  return { data: a.data.slice() as T, shape: [...a.shape] };
}

/** A new zeroed array of `like`'s type. */
export function allocLike<T extends FloatArray>(like: T, length: number): T {
  const dtype = dtypeOfArray(like, 'data');
  try {
    return allocate(dtype, length) as T;
  } catch (e) {
    // A broadcast too large for one array (numpy's MemoryError): an error naming the shapes, not V8's RangeError.
    if (e instanceof RangeError) throw new MyriadError('BOUNDS', `the result needs ${length} ${dtype} elements, more than one array holds`, 'shape');
    throw e;
  }
}

export function sameDtype(a: NDArray, b: NDArray, bName: string, aName = 'a'): void {
  check(typeof b === 'object' && b !== null, 'INVALID_ARGUMENT', bName, `expected { data, shape }, got ${describeValue(b)}`);
  const x = elementTypeOf(a, aName);
  const y = elementTypeOf(b, bName);
  check(x === y, 'DTYPE', bName, `dtypes cannot be mixed: ${aName} is ${x}, ${bName} is ${y}`);
}

/** Throws NUMERICAL naming the first failed matrices and what failed (p: the matrices' order, see core/info.ts). */
export function throwOnFailure(info: Int32Array, op: InfoOp, p: number, label: string = op): void {
  const failures: Failure[] = [];
  let total = 0;
  info.forEach((code, index) => {
    if (code === 0) return;
    total++;
    if (failures.length < 5) failures.push({ index, code, order: p, nonFinite: false });
  });
  if (total > 0) throw failureError(op, failures, total, `; ${label}Ex returns per-matrix info instead of throwing`, label);
}

/**
 * Marks info = p + 2 (NaN/Inf in the input, core/info.ts) for every matrix of a contiguous stack
 * (`per` elements each) that holds NaN or Inf. `index` maps a result matrix to its source.
 */
export function markNonFinite(info: Int32Array, data: ArrayLike<number>, per: number, p: number, index?: readonly number[]): void {
  // v - v is NaN exactly for NaN and +-Inf: one tight pass settles the common all-finite case.
  let finite = true;
  for (let k = 0; k < data.length; k++) { const v = data[k]!; if (v - v !== 0) { finite = false; break; } }
  if (finite) return;
  const flagged = new Map<number, boolean>();
  for (let i = 0; i < info.length; i++) {
    const src = index === undefined ? i : index[i]!;
    let bad = flagged.get(src);
    if (bad === undefined) { bad = spanNonFinite(data, src * per, per); flagged.set(src, bad); }
    if (bad) info[i] = p + 2;
  }
}

/**
 * info = 1 (rank-deficient: R(1, 1) is exactly zero) for every non-empty matrix of a contiguous
 * stack (`per` elements each) that is all zeros and whose info is 0: gels returns at once there
 * (dgels: X = 0, info 0), where lstsq, which needs A of full rank, reports the rank deficiency.
 */
export function markZeroMatrices(info: Int32Array, data: ArrayLike<number>, per: number): void {
  if (per === 0) return;
  for (let c = 0; c < info.length; c++) {
    if (info[c] !== 0) continue;
    let zero = true;
    for (let k = c * per; k < (c + 1) * per && zero; k++) zero = data[k] === 0;
    if (zero) info[c] = 1;
  }
}

/**
 * markNonFinite for the functions that read one triangle of each n x n matrix of a row-major stack
 * (cholesky, inv of an SPD matrix; numpy's cholesky uses only that triangle too): NaN or Inf in the
 * other triangle is never read and sets nothing. `lower`: elements (i, j) with j <= i, else j >= i;
 * `parts`: 2 for complex (re, im) pairs, whose diagonal's imaginary parts are not read either (zpotrf
 * takes the diagonal as real).
 */
export function markNonFiniteTriangle(info: Int32Array, data: ArrayLike<number>, n: number, lower: boolean, parts: 1 | 2 = 1): void {
  for (let m = 0; m < info.length; m++) {
    const base = m * n * n * parts;
    rows: for (let i = 0; i < n; i++) {
      const from = base + (i * n + (lower ? 0 : i)) * parts, to = base + (i * n + (lower ? i : n - 1)) * parts + parts;
      const diagonalImag = parts === 2 ? base + (i * n + i) * parts + 1 : -1;
      for (let k = from; k < to; k++) {
        if (k === diagonalImag) continue;
        const v = data[k]!;
        if (v - v !== 0) { info[m] = n + 2; break rows; }
      }
    }
  }
}

/** Fills matrix i of a contiguous stack with NaN for every i whose info is non-zero (or that `failed` names). */
export function poisonFailed(out: NDArray, info: Int32Array, perMatrix: number, failed = (code: number): boolean => code !== 0): void {
  info.forEach((v, i) => { if (failed(v)) out.data.fill(NaN, i * perMatrix, (i + 1) * perMatrix); });
}

// ---------------------------------------------------------------------------------------------

/**
 * For the array-level functions that take no options: an argument past their operands (numpy's
 * keywords, `svd(a, { full_matrices: true })`) is an error, not ignored; undefined ones are none.
 */
export function noOptions(op: string, extra: readonly unknown[]): void {
  const thin = op.startsWith('svd') ? " (the SVD here is always the thin one, numpy's full_matrices=False)" : '';
  const given = extra.find((x) => x !== undefined); // an undefined one (a wrapper passing its options on) is none
  check(given === undefined, 'INVALID_ARGUMENT', 'options', `${op} takes no options, got ${describeValue(given)}${thin}`);
}

/** The array level's flags: true or false (or absent), never a truthy string read as one or the other. */
const BOOLEAN_OPTIONS: ReadonlySet<string> = new Set(['upper', 'left', 'transpose', 'adjoint', 'unitDiagonal']);

export function checkOptions(options: unknown, keys: readonly string[]): void {
  check(typeof options === 'object' && options !== null && !Array.isArray(options), 'INVALID_ARGUMENT', 'options', `expected an object, got ${describeValue(options)}`);
  checkKeys(options, keys, 'options');
  for (const key of keys) {
    const value = (options as Record<string, unknown>)[key];
    if (BOOLEAN_OPTIONS.has(key) && value !== undefined) check(typeof value === 'boolean', 'INVALID_ARGUMENT', `options.${key}`, `expected true or false, got ${describeValue(value)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// numpy broadcasting of the batch dimensions [...]: right-aligned, a dimension of 1 stretches.

/** The broadcast of two batch shapes, or a SHAPE error naming `argument`. */
function broadcastShapes(x: readonly number[], y: readonly number[], argument: string): number[] {
  const n = Math.max(x.length, y.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const dx = x[x.length - n + i] ?? 1;
    const dy = y[y.length - n + i] ?? 1;
    check(dx === dy || dx === 1 || dy === 1, 'SHAPE', argument,
      `batch shapes [${x.join(', ')}] and [${y.join(', ')}] do not broadcast (numpy rules)`);
    out.push(dx === 1 ? dy : dx);
  }
  return out;
}

/** For each matrix of the broadcast batch `out`, the index of its source in a stack of batch shape `from`. */
function sourceIndices(from: readonly number[], out: readonly number[]): number[] {
  const count = out.reduce((p, d) => p * d, 1);
  check(count < 2 ** 32, 'BOUNDS', 'shape', `the broadcast batch [${out.join(', ')}] holds ${count} matrices, more than one call takes`);
  const idx = new Array<number>(count);
  for (let k = 0; k < count; k++) {
    let rest = k, src = 0, scale = 1;
    for (let i = out.length - 1; i >= 0; i--) {
      const coord = rest % out[i]!;
      rest = Math.floor(rest / out[i]!);
      const j = i - (out.length - from.length);
      if (j >= 0) { src += (from[j] === 1 ? 0 : coord) * scale; scale *= from[j]!; }
    }
    idx[k] = src;
  }
  return idx;
}

/** A read-only row-major batch of `s`'s matrices broadcast to batch shape `out` (no copy). */
function broadcastBatch<T extends FloatArray>(data: T, s: Stack, out: readonly number[], argument: string): Batch<T> {
  const count = out.reduce((p, d) => p * d, 1);
  if (sameShape(s.batchShape, out)) return rowBatch(data, s, argument);
  if (s.count === 1) return rowBatch(data, { ...s, count }, argument, true);
  const per = s.rows * s.cols;
  return list(sourceIndices(s.batchShape, out).map((i) => ({ data, offset: i * per })),
    { rows: s.rows, cols: s.cols, ld: Math.max(1, s.cols), order: 'row' }, argument);
}

/** A new contiguous stack holding `s`'s matrices broadcast to batch shape `out`. */
export function materialize<T extends FloatArray>(data: T, s: Stack, out: readonly number[]): T {
  if (sameShape(s.batchShape, out)) return data.slice() as T;
  const per = s.rows * s.cols;
  const src = sourceIndices(s.batchShape, out);
  const copy = allocLike(data, src.length * per);
  src.forEach((i, k) => copy.set(data.subarray(i * per, (i + 1) * per), k * per));
  return copy;
}

export const countOf = (shape: readonly number[]): number => shape.reduce((p, d) => p * d, 1);
export { broadcastShapes, sourceIndices };

// ---------------------------------------------------------------------------------------------

/**
 * numpy's matmul: [..., m, k] x [..., k, n] -> [..., m, n], the batch dimensions broadcast; a 1-D
 * a is a row vector and a 1-D b a column vector, their dimension removed from the result.
 */
export function matmul<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): NDArray<T> {
  const aVector = isVector(a, 'a');
  const bVector = isVector(b, 'b');
  sameDtype(a, b, 'b');
  const aa = aVector ? { data: a.data, shape: [1, a.shape[0]!] } : a;
  const bb = bVector ? { data: b.data, shape: [b.shape[0]!, 1] } : b;
  const sa = stackOf(aa, 'a');
  const sb = stackOf(bb, 'b');
  check(sa.cols === sb.rows, 'SHAPE', 'b', `inner dimensions differ: a is [..., ${sa.rows}, ${sa.cols}], b is [..., ${sb.rows}, ${sb.cols}]`);
  const batchShape = broadcastShapes(sa.batchShape, sb.batchShape, 'b');
  const count = countOf(batchShape);
  const out: NDArray<T> = { data: allocLike(a.data, count * sa.rows * sb.cols), shape: [...batchShape, sa.rows, sb.cols] };
  ctx.gemm({
    a: broadcastBatch(aa.data, sa, batchShape, 'a'),
    b: broadcastBatch(bb.data, sb, batchShape, 'b'),
    c: rowBatch(out.data, { batchShape, count, rows: sa.rows, cols: sb.cols }, 'c'),
    alpha: 1, beta: 0,
  });
  const shape = [...batchShape, ...(aVector ? [] : [sa.rows]), ...(bVector ? [] : [sb.cols])];
  return { data: out.data, shape };
}

export function isVector(a: NDArray, argument: string): boolean {
  check(typeof a === 'object' && a !== null, 'INVALID_ARGUMENT', argument, `expected { data, shape }, got ${describeValue(a)}`);
  return Array.isArray(a.shape) && a.shape.length === 1;
}

/** The same data (and element type) under another shape. */
export function withShape<T extends FloatArray>(a: NDArray<T>, shape: readonly number[]): NDArray<T> {
  const dtype: unknown = (a as { dtype?: unknown }).dtype;
  return isComplexDType(dtype) ? { data: a.data, shape, dtype } : { data: a.data, shape };
}

export const sameShape = (x: readonly number[], y: readonly number[]): boolean => x.length === y.length && x.every((d, i) => d === y[i]);

export function squareStack(a: NDArray, argument: string, complex = false): Stack {
  const s = stackOf(a, argument, 2, complex);
  check(s.rows === s.cols, 'SHAPE', `${argument}.shape`, `expected square matrices [..., n, n], got [..., ${s.rows}, ${s.cols}]`);
  return s;
}

/** Cholesky factor L (lower, default) or U; the other triangle is zero. */
export function choleskyEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: CholeskyOptions = {}): WithInfo<{ factor: NDArray<T> }> {
  checkOptions(options, ['upper']);
  const s = squareStack(a, 'a');
  const factor = copyOf(a);
  const upper = options.upper === true;
  const { info } = ctx.potrf({ a: rowBatch(factor.data, s, 'a'), uplo: upper ? 'upper' : 'lower' });
  const n = s.rows;
  for (let m = 0; m < s.count; m++) {
    const base = m * n * n;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) if (upper ? j < i : j > i) factor.data[base + i * n + j] = 0;
  }
  markNonFiniteTriangle(info, a.data, n, !upper);
  poisonFailed(factor, info, n * n);
  return { factor, info };
}

/** LU with partial pivoting: packed factors and 0-based pivots. */
export function luEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<LuResult<T>> {
  const s = stackOf(a, 'a');
  const lu = copyOf(a);
  const { info, ipiv } = ctx.getrf({ a: rowBatch(lu.data, s, 'a') });
  const p = Math.min(s.rows, s.cols);
  markNonFinite(info, a.data, s.rows * s.cols, p);
  // NaN/Inf in the input: NaN factors; a singular matrix keeps its factors, complete as getrf leaves them.
  poisonFailed(lu, info, s.rows * s.cols, (code) => code === p + 2);
  return { lu, pivots: ipiv, info };
}

/**
 * Right-hand sides (jax.scipy.linalg's rule): [..., n, k], or [..., n] for one vector per matrix;
 * batch shapes equal.
 */
export function rhsStack(b: NDArray, s: Stack): { stack: Stack; vector: boolean } {
  check(typeof b === 'object' && b !== null && Array.isArray(b.shape), 'INVALID_ARGUMENT', 'b', `expected { data, shape }, got ${describeValue(b)}`);
  const vector = b.shape.length === s.batchShape.length + 1;
  const shape = vector ? [...b.shape, 1] : b.shape;
  const sb = stackOf(withShape(b, shape), 'b', 2, s.complex !== undefined);
  const rule = `b is [..., n, k] (a matrix per matrix of a) or [..., n] (one vector per matrix of a, b with one dimension fewer than a); a is [${[...s.batchShape, s.rows, s.cols].join(', ')}]`;
  check(sameShape(sb.batchShape, s.batchShape), 'SHAPE', 'b.shape', `batch shape [${sb.batchShape.join(', ')}] differs from a's [${s.batchShape.join(', ')}] (${rule})`);
  check(sb.rows === s.rows, 'SHAPE', 'b.shape', `b has ${sb.rows} rows but a is ${s.rows}x${s.rows} (${rule})`);
  return { stack: sb, vector };
}

/**
 * triangularSolve's b against a: rhsStack's rule for the left side; for the right side (X op(A) = B)
 * b is [..., k, n] (a matrix per matrix of a) or [..., n] (one row vector per matrix of a, b with one
 * dimension fewer than a), the batch dimensions a's exactly.
 */
export function sideStack(b: NDArray, s: Stack, left: boolean): Stack {
  if (left) return rhsStack(b, s).stack;
  check(typeof b === 'object' && b !== null && Array.isArray(b.shape), 'INVALID_ARGUMENT', 'b', `expected { data, shape }, got ${describeValue(b)}`);
  const vector = b.shape.length === s.batchShape.length + 1;
  const shape = vector ? [...b.shape.slice(0, -1), 1, b.shape[b.shape.length - 1]!] : b.shape;
  const sb = stackOf(withShape(b, shape), 'b', 2, s.complex !== undefined);
  const rule = `with left: false b is [..., k, n] (a matrix per matrix of a) or [..., n] (one row vector per matrix of a, b with one dimension fewer than a); a is [${[...s.batchShape, s.rows, s.cols].join(', ')}]`;
  check(sameShape(sb.batchShape, s.batchShape), 'SHAPE', 'b.shape', `batch shape [${sb.batchShape.join(', ')}] differs from a's [${s.batchShape.join(', ')}] (${rule})`);
  check(sb.cols === s.rows, 'SHAPE', 'b.shape', `b has ${sb.cols} columns but a is ${s.rows}x${s.rows} (${rule})`);
  return sb;
}

/** The 1-D rule, for error messages: how a b of shape [len] is read against a. */
export function vectorRule(len: number, m: number, aShape: readonly number[]): string {
  return `b is 1-D, so it is one vector of length ${m} used for every matrix of a (numpy 2's rule); it has length ${len} but a ` +
    `[${aShape.join(', ')}] has ${m} rows. For a vector per matrix give b shape [..., ${m}, 1] (or [..., ${m}] with choleskySolve/triangularSolve)`;
}

/**
 * numpy 2's right-hand sides (solve, lstsq): b is one vector [m] when 1-D (used for every matrix
 * of a), else a stack [..., m, k] whose batch dimensions broadcast against a's (m = s.rows).
 * `mismatch(rows)` is the error of a stack of `rows` rows.
 */
export function numpyRhs(s: Stack, aShape: readonly number[], b: NDArray, mismatch: (rows: number) => string):
  { sb: Stack; vector: boolean; batchShape: number[]; count: number } {
  const vector = isVector(b, 'b');
  const sb = stackOf(vector ? withShape(b, [b.shape[0]!, 1]) : b, 'b', 2, s.complex !== undefined);
  if (vector) check(sb.rows === s.rows, 'SHAPE', 'b.shape', vectorRule(sb.rows, s.rows, aShape));
  check(sb.rows === s.rows, 'SHAPE', 'b.shape', mismatch(sb.rows));
  const batchShape = broadcastShapes(s.batchShape, sb.batchShape, 'b.shape');
  return { sb, vector, batchShape, count: countOf(batchShape) };
}

/**
 * X with A X = B, for general square A (gesv), by numpy 2's rule: b is one vector [n] when 1-D
 * (broadcast over a's batch; x is [..., n]), else a stack of matrices [..., n, k] whose batch
 * dimensions broadcast against a's.
 */
export function solveEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): WithInfo<{ x: NDArray<T> }> {
  const s = squareStack(a, 'a');
  sameDtype(a, b, 'b');
  const { sb, vector, batchShape, count } = numpyRhs(s, a.shape, b, (rows) =>
    `b has ${rows} rows but a is [..., ${s.rows}, ${s.rows}] (b is [..., n, k]; numpy 2 reads b as vectors only when 1-D: give b [..., ${s.rows}, 1] for a vector per matrix)`);
  const x: NDArray<T> = { data: materialize(b.data, sb, batchShape), shape: [...batchShape, s.rows, ...(vector ? [] : [sb.cols])] };
  const aWork = materialize(a.data, s, batchShape);
  const bad = new Int32Array(count);
  markNonFinite(bad, aWork, s.rows * s.rows, s.rows);
  markNonFinite(bad, x.data, sb.rows * sb.cols, s.rows);
  const { info } = ctx.gesv({
    a: rowBatch(aWork, { ...s, batchShape, count }, 'a'),
    b: rowBatch(x.data, { ...sb, batchShape, count }, 'b'),
  });
  bad.forEach((v, i) => { if (v !== 0) info[i] = v; });
  poisonFailed(x, info, sb.rows * sb.cols);
  return { x, info };
}

/** X with A X = B given A's Cholesky factor (from `cholesky`, lower unless options.upper). */
export function choleskySolve<T extends FloatArray>(ctx: Context, factor: NDArray<T>, b: NDArray<T>, options: CholeskyOptions = {}): NDArray<T> {
  checkOptions(options, ['upper']);
  const s = squareStack(factor, 'factor');
  sameDtype(factor, b, 'b', 'factor');
  const { stack } = rhsStack(b, s);
  const x = copyOf(b);
  ctx.potrs({ a: rowBatch(factor.data, s, 'factor'), b: rowBatch(x.data, stack, 'b'), uplo: options.upper ? 'upper' : 'lower' });
  return x;
}

/** Inverse of square matrices: general (gesv against the identity), or SPD with `{ assume: 'spd' }` (poti). */
export function invEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: InvOptions = {}): WithInfo<{ inverse: NDArray<T> }> {
  checkOptions(options, ['assume']);
  const assume = options.assume ?? 'general';
  check(assume === 'general' || assume === 'spd', 'ENUM', 'options.assume', `expected 'general' or 'spd', got ${describeValue(assume)}`);
  if (assume === 'spd') return invSpd(ctx, a);
  const s = squareStack(a, 'a');
  const n = s.rows;
  const inverse: NDArray<T> = { data: allocLike(a.data, s.count * n * n), shape: [...a.shape] };
  for (let m = 0; m < s.count; m++) for (let i = 0; i < n; i++) inverse.data[m * n * n + i * n + i] = 1;
  const { info } = ctx.gesv({ a: rowBatch(a.data.slice() as T, s, 'a'), b: rowBatch(inverse.data, s, 'b') });
  markNonFinite(info, a.data, n * n, n);
  poisonFailed(inverse, info, n * n);
  return { inverse, info };
}

/** poti on a copy (row-major lower = column-major upper), then the other triangle mirrored. */
function invSpd<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<{ inverse: NDArray<T> }> {
  const s = squareStack(a, 'a');
  const n = s.rows;
  const inverse = copyOf(a);
  const { info } = ctx.poti({ a: rowBatch(inverse.data, s, 'a'), uplo: 'lower' });
  const d = inverse.data;
  for (let m = 0; m < s.count; m++) {
    const o = m * n * n;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) d[o + i * n + j] = d[o + j * n + i]!;
  }
  markNonFiniteTriangle(info, a.data, n, true);
  poisonFailed(inverse, info, n * n);
  return { inverse, info };
}

/** triangularSolve's op(A) from its options: 'N', 'T' (transpose) or 'C' (adjoint); not both. */
export function describeTrans(options: TriangularSolveOptions): 'N' | 'T' | 'C' {
  check(!(options.transpose === true && options.adjoint === true), 'INVALID_ARGUMENT', 'options.adjoint',
    'give transpose (A^T) or adjoint (A^H), not both');
  return options.adjoint === true ? 'C' : options.transpose === true ? 'T' : 'N';
}

/** X with op(A) X = B (left, default) or X op(A) = B, A triangular. */
export function triangularSolve<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>, options: TriangularSolveOptions = {}): NDArray<T> {
  checkOptions(options, ['upper', 'left', 'transpose', 'adjoint', 'unitDiagonal']);
  const transA = describeTrans(options);
  const s = squareStack(a, 'a');
  sameDtype(a, b, 'b');
  const left = options.left !== false;
  const stack = sideStack(b, s, left);
  const x = copyOf(b);
  ctx.trsm({
    a: rowBatch(a.data, s, 'a'), b: rowBatch(x.data, stack, 'b'),
    side: left ? 'left' : 'right', uplo: options.upper ? 'upper' : 'lower',
    transA: transA === 'N' ? 'N' : 'T', diag: options.unitDiagonal ? 'unit' : 'nonunit',
  });
  return x;
}

// ---------------------------------------------------------------------------------------------
// Eigenvalues and singular values (cyclic Jacobi: see cpu/lapack/jacobi.ts for the accuracy).
// Their backends report NaN/Inf (p + 2) and no convergence (p + 1) themselves.

/** A new [...batch, len] stack of vectors and its batch of len x 1 columns. */
export function vectorStack<T extends FloatArray>(like: T, batchShape: readonly number[], count: number, len: number, argument: string): { out: NDArray<T>; batch: Batch<T> } {
  const out: NDArray<T> = { data: allocLike(like, count * len), shape: [...batchShape, len] };
  return { out, batch: strided(out.data, { rows: len, cols: 1, count, ld: Math.max(1, len), stride: len }, argument) };
}

function eigenEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: EighOptions, vectors: boolean): WithInfo<{ values: NDArray<T>; vectors: NDArray<T> | undefined }> {
  checkOptions(options, ['upper']);
  const s = squareStack(a, 'a');
  const n = s.rows;
  const work = copyOf(a);
  const w = vectorStack(a.data, s.batchShape, s.count, n, 'w');
  const { info } = ctx.syev({
    a: rowBatch(work.data, s, 'a'), w: w.batch, uplo: options.upper === true ? 'upper' : 'lower', jobz: vectors ? 'vectors' : 'values',
  });
  poisonFailed(w.out, info, n);
  if (vectors) poisonFailed(work, info, n * n);
  return { values: w.out, vectors: vectors ? work : undefined, info };
}

/** Eigenvalues (ascending) and eigenvectors of symmetric matrices, from one triangle (numpy's eigh). */
export function eighEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: EighOptions = {}): WithInfo<EighResult<T>> {
  const r = eigenEx(ctx, a, options, true);
  return { values: r.values, vectors: r.vectors!, info: r.info };
}
/** Eigenvalues only, ascending (numpy's eigvalsh). */
export function eigvalshEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: EighOptions = {}): WithInfo<{ values: NDArray<T> }> {
  const r = eigenEx(ctx, a, options, false);
  return { values: r.values, info: r.info };
}

function singularEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, vectors: boolean): WithInfo<{ s: NDArray<T>; u: NDArray<T> | undefined; vt: NDArray<T> | undefined }> {
  const st = stackOf(a, 'a');
  const { rows: m, cols: n, batchShape, count } = st;
  const k = Math.min(m, n);
  const s = vectorStack(a.data, batchShape, count, k, 's');
  const u: NDArray<T> | undefined = vectors ? { data: allocLike(a.data, count * m * k), shape: [...batchShape, m, k] } : undefined;
  const vt: NDArray<T> | undefined = vectors ? { data: allocLike(a.data, count * k * n), shape: [...batchShape, k, n] } : undefined;
  const { info } = ctx.gesvd({
    a: rowBatch(a.data, st, 'a'), s: s.batch,
    jobu: vectors ? 'thin' : 'none', jobvt: vectors ? 'thin' : 'none',
    ...(u ? { u: rowBatch(u.data, { batchShape, count, rows: m, cols: k }, 'u') } : {}),
    ...(vt ? { vt: rowBatch(vt.data, { batchShape, count, rows: k, cols: n }, 'vt') } : {}),
  });
  poisonFailed(s.out, info, k);
  if (u) poisonFailed(u, info, m * k);
  if (vt) poisonFailed(vt, info, k * n);
  return { s: s.out, u, vt, info };
}

export const minOrder = (a: NDArray): number => Math.min(a.shape[a.shape.length - 2]!, a.shape[a.shape.length - 1]!);

/** The thin SVD (numpy's svd(a, full_matrices=False)), vt as numpy's vh. */
export function svdEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<SvdResult<T>> {
  const r = singularEx(ctx, a, true);
  return { u: r.u!, s: r.s, vt: r.vt!, info: r.info };
}
/** Singular values only, descending (numpy's svdvals). */
export function svdvalsEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<{ values: NDArray<T> }> {
  const r = singularEx(ctx, a, false);
  return { values: r.s, info: r.info };
}

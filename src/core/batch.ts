/**
 * The batch descriptor: how many matrices, of what shape, where in memory.
 *
 * Three forms, as in cuBLAS/MAGMA:
 * - strided:  matrix i starts at `offset + i * stride` of one array (cuBLAS `...StridedBatched`);
 * - list:     separate arrays (or offsets), one per matrix, of one shape (the pointer-array form);
 * - variable: one entry per matrix, each with its own shape (MAGMA's vbatched form).
 *
 * Within a matrix, column-major ('col', native) puts element (i, j) at `i + j * ld` with
 * `ld >= rows`; row-major ('row') puts it at `i * ld + j` with `ld >= cols`. A row-major matrix is
 * read as the column-major storage of its transpose: the API maps it to the transposed
 * operation instead of copying (see `asColumnMajor`).
 *
 * A complex batch (of any form) names its type: `dtype: 'complex128'` over a Float64Array,
 * `'complex64'` over a Float32Array, the (re, im) pairs interleaved. Its rows, cols, ld, stride and
 * offset count complex elements (two floats each); a real batch has no `dtype` field (its type is
 * its array's). `batchDtype` answers for real batches only and rejects a complex one, so that no
 * real path reads a complex batch as real; `batchElementType` answers for both.
 */
import { DTYPE_BYTES, dtypeOfArray, isFloatArray, type ComplexDType, type DType, type ElementType } from './dtype.js';
import { complexInfo, isComplexDType, isDType, isElementType } from './dtype-table.js';
import { parseOrder, type Order } from './enums.js';
import { MyriadError, check, checkKeys, describeValue } from './errors.js';
import { isDeviceStorage, SpanScan, storagePlace, type Storage, type StoragePlace } from './storage.js';

export interface StridedBatch<S = Storage> {
  readonly kind: 'strided';
  readonly data: S;
  readonly rows: number;
  readonly cols: number;
  readonly count: number;
  readonly ld: number;
  readonly stride: number;
  readonly offset: number;
  readonly order: Order;
  /** Present on a complex batch only: its element type (the array holds interleaved pairs). */
  readonly dtype?: ComplexDType;
}

export interface ListEntry<S = Storage> {
  readonly data: S;
  readonly offset: number;
}
/** A member as list() takes it: a storage, or a view of it whose rows, cols and ld (if given) are the list's. */
export interface ListMember<S = Storage> {
  readonly data: S;
  readonly offset?: number;
  readonly rows?: number;
  readonly cols?: number;
  readonly ld?: number;
}

export interface ListBatch<S = Storage> {
  readonly kind: 'list';
  readonly matrices: readonly ListEntry<S>[];
  readonly rows: number;
  readonly cols: number;
  readonly ld: number;
  readonly order: Order;
  /** Present on a complex batch only: its element type (every array holds interleaved pairs). */
  readonly dtype?: ComplexDType;
}

/** One matrix anywhere in memory. Also the per-matrix view that `matrixAt` returns. */
export interface MatrixView<S = Storage> {
  readonly data: S;
  readonly offset: number;
  readonly ld: number;
  readonly rows: number;
  readonly cols: number;
}

export interface VariableBatch<S = Storage> {
  readonly kind: 'variable';
  readonly matrices: readonly MatrixView<S>[];
  readonly order: Order;
  /** Present on a complex batch only: its element type (every member's array holds interleaved pairs). */
  readonly dtype?: ComplexDType;
}

export type Batch<S = Storage> = StridedBatch<S> | ListBatch<S> | VariableBatch<S>;

// ---------------------------------------------------------------------------------------------
// Constructors (public): fill in the defaults, validate the layout against the buffer.

export interface StridedOptions {
  rows: number;
  /** Default: rows (square). */
  cols?: number;
  /** Default: as many whole matrices as fit after `offset` (must divide evenly). */
  count?: number;
  /** Default: rows ('col') or cols ('row'). */
  ld?: number;
  /** Distance between consecutive matrices, in elements. Default: ld * cols ('col') or ld * rows ('row'). */
  stride?: number;
  offset?: number;
  order?: Order;
  /**
   * The element type. Default: the array's real type. 'complex128' (over a Float64Array) or
   * 'complex64' (over a Float32Array) reads the array as interleaved (re, im) pairs, and every
   * count above is in complex elements.
   */
  dtype?: ElementType;
}

/**
 * Fields a constructor filled in for the user (`cols` from `rows`, `ld`, `stride`, `count`), by
 * batch: a layout that does not fit its buffer names them, since a defaulted field is the usual
 * cause (a right-hand side without `cols: 1` is read as square matrices).
 */
const defaulted = new WeakMap<object, string>();

/** What the constructor filled in for `b`, as an error message's hint ('' when nothing was). */
export function defaultedFields(b: object): string {
  return defaulted.get(b) ?? '';
}

/**
 * A strided batch over one array: `strided(data, { rows: 8, count: 1000 })`.
 *
 * The options are checked here (errors name `strided.<field>`); whether the layout fits the
 * buffer is checked by the call the batch is given to, whose error names that argument (`b.data`)
 * and any field that was defaulted (`cols` is `rows` unless given: give `cols: 1` for vectors).
 * With an explicit `argument`, everything is checked here and errors name it.
 */
export function strided<S extends Storage>(data: S, options: StridedOptions, argument?: string): StridedBatch<S> {
  const name = argument ?? 'strided';
  check(typeof options === 'object' && options !== null, 'INVALID_ARGUMENT', name, 'options must be an object');
  checkKeys(options, ['rows', 'cols', 'count', 'ld', 'stride', 'offset', 'order', 'dtype'], name);
  const complex = elementOption(options.dtype, [data], name);
  const order = parseOrder(options.order ?? 'col', `${name}.order`);
  const rows = nonNegativeInt(options.rows, `${name}.rows`);
  const cols = nonNegativeInt(options.cols ?? rows, `${name}.cols`);
  const inner = order === 'col' ? rows : cols;
  const outer = order === 'col' ? cols : rows;
  const ld = nonNegativeInt(options.ld ?? Math.max(1, inner), `${name}.ld`);
  checkShape(rows, cols, ld, order, name);
  // A defaulted stride past 2^53 comes from the sizes the caller gave: name them, not the field they did not give.
  if (options.stride === undefined && !Number.isSafeInteger(ld * outer)) throw new MyriadError('BOUNDS',
    `a matrix of ld ${ld} x ${outer} ${order === 'col' ? 'columns' : 'rows'} spans more than 2^53 elements`, `${name}.${order === 'col' && options.cols !== undefined ? 'cols' : 'rows'}`);
  const stride = nonNegativeInt(options.stride ?? ld * outer, `${name}.stride`);
  const offset = nonNegativeInt(options.offset ?? 0, `${name}.offset`);
  const length = storageLength(data, `${name}.data`, '', complex);
  const filled: string[] = [];
  if (options.cols === undefined) filled.push(`cols = rows = ${cols} (give cols: 1 for one vector per matrix)`);
  if (options.ld === undefined) filled.push(`ld = ${order === 'col' ? 'rows' : 'cols'} = ${ld}`);
  if (options.stride === undefined) filled.push(`stride = ld * ${order === 'col' ? 'cols' : 'rows'} = ${stride}`);
  let count: number;
  if (options.count === undefined) {
    const per = Math.max(stride, 1);
    const avail = Math.max(0, length - offset);
    if (!(stride > 0 && avail % per === 0)) throw new MyriadError('LAYOUT',
      `cannot infer count: ${avail} ${complex === undefined ? '' : `${complex} `}elements after offset is not a whole number of matrices of stride ${stride}; give count${hint(filled)}`, `${name}.count`);
    const floats = (data as { length: number }).length;
    if (complex !== undefined && floats % 2 !== 0) throw new MyriadError('LAYOUT',
      `cannot infer count: the buffer holds ${floats} floats, not a whole number of ${complex} (re, im) pairs; give count${hint(filled)}`, `${name}.count`);
    count = avail / per;
    filled.push(`count = ${count} (inferred from the buffer)`);
  } else {
    count = nonNegativeInt(options.count, `${name}.count`);
  }
  const b: StridedBatch<S> = complex === undefined
    ? { kind: 'strided', data, rows, cols, count, ld, stride, offset, order }
    : { kind: 'strided', data, rows, cols, count, ld, stride, offset, order, dtype: complex };
  if (filled.length > 0) defaulted.set(b, hint(filled));
  if (argument !== undefined) validateBatch(b, argument);
  return b;
}

const hint = (filled: readonly string[]): string => (filled.length === 0 ? '' : ` (not given, so defaulted: ${filled.join('; ')})`);

/**
 * A batch of separate matrices of one shape (the pointer-array form). As with `strided`, the
 * fit of each matrix in its buffer is checked by the call (or here, given `argument`).
 */
export function list<S extends Storage>(
  matrices: readonly (S | ListMember<S>)[],
  options: { rows: number; cols?: number; ld?: number; order?: Order; dtype?: ElementType },
  argument?: string,
): ListBatch<S> {
  const name = argument ?? 'list';
  check(Array.isArray(matrices), 'INVALID_ARGUMENT', `${name}.matrices`, 'expected an array');
  check(typeof options === 'object' && options !== null, 'INVALID_ARGUMENT', name, 'options must be an object');
  checkKeys(options, ['rows', 'cols', 'ld', 'order', 'dtype'], name);
  const order = parseOrder(options.order ?? 'col', `${name}.order`);
  const rows = nonNegativeInt(options.rows, `${name}.rows`);
  const cols = nonNegativeInt(options.cols ?? rows, `${name}.cols`);
  const ld = nonNegativeInt(options.ld ?? Math.max(1, order === 'col' ? rows : cols), `${name}.ld`);
  checkShape(rows, cols, ld, order, name);
  const shared = { rows, cols, ld };
  const entries = matrices.map((m, i): ListEntry<S> => {
    if (!isEntry<S>(m)) return { data: m as S, offset: 0 };
    // A member may be a matrix view of the list's shape; a rows, cols or ld of its own would be
    // ignored (the list's are every member's): an error, not a silent wrong layout.
    checkKeys(m, MEMBER_KEYS, `${name}.matrices[${i}]`);
    for (const key of ['rows', 'cols', 'ld'] as const) {
      const own = (m as { [k in typeof key]?: unknown })[key];
      if (own !== undefined && own !== shared[key])
        throw new MyriadError('SHAPE', `is ${describeValue(own)} but the list's ${key} is ${shared[key]} (a list's matrices share its rows, cols and ld; matrices of other shapes make a variable() batch)`, `${name}.matrices[${i}].${key}`);
    }
    return { data: m.data, offset: m.offset ?? 0 };
  });
  const complex = elementOption(options.dtype, entries.map((m) => m.data), name);
  entries.forEach((m, i) => { storageLength(m.data, `${name}.matrices[${i}].data`, '', complex); nonNegativeInt(m.offset, `${name}.matrices[${i}].offset`); });
  const b: ListBatch<S> = complex === undefined
    ? { kind: 'list', matrices: entries, rows, cols, ld, order }
    : { kind: 'list', matrices: entries, rows, cols, ld, order, dtype: complex };
  const filled: string[] = [];
  if (options.cols === undefined) filled.push(`cols = rows = ${cols} (give cols: 1 for one vector per matrix)`);
  if (options.ld === undefined) filled.push(`ld = ${ld}`);
  if (filled.length > 0) defaulted.set(b, hint(filled));
  if (argument !== undefined) validateBatch(b, argument);
  return b;
}

/** A batch whose matrices differ in size (MAGMA's vbatched form). */
export function variable<S extends Storage>(
  matrices: readonly { data: S; rows: number; cols?: number; ld?: number; offset?: number }[],
  options: { order?: Order; dtype?: ElementType } = {},
  argument = 'variable',
): VariableBatch<S> {
  check(Array.isArray(matrices), 'INVALID_ARGUMENT', `${argument}.matrices`, 'expected an array');
  check(typeof options === 'object' && options !== null, 'INVALID_ARGUMENT', argument, 'options must be an object');
  checkKeys(options, ['order', 'dtype'], argument);
  const order = parseOrder(options.order ?? 'col', `${argument}.order`);
  const views = matrices.map((m, i): MatrixView<S> => {
    // The common case without a string per member: every field present and valid, no other key.
    // Anything else takes the checks below, which name the member and the field at fault.
    if (typeof m === 'object' && m !== null && hasOnlyKeys(m, MEMBER_KEYS)) {
      const { rows, cols = rows, offset = 0 } = m;
      const ld = m.ld ?? Math.max(1, order === 'col' ? rows : cols);
      if (isCount(rows) && isCount(cols) && isCount(ld) && isCount(offset)) return { data: m.data, rows, cols, ld, offset };
    }
    const arg = `${argument}.matrices[${i}]`;
    check(typeof m === 'object' && m !== null, 'INVALID_ARGUMENT', arg, 'expected { data, rows, cols?, ld?, offset? }');
    checkKeys(m, MEMBER_KEYS, arg);
    const rows = nonNegativeInt(m.rows, `${arg}.rows`);
    const cols = nonNegativeInt(m.cols ?? rows, `${arg}.cols`);
    const ld = nonNegativeInt(m.ld ?? Math.max(1, order === 'col' ? rows : cols), `${arg}.ld`);
    return { data: m.data, rows, cols, ld, offset: nonNegativeInt(m.offset ?? 0, `${arg}.offset`) };
  });
  const complex = elementOption(options.dtype, views.map((m) => m.data), argument);
  const b: VariableBatch<S> = complex === undefined ? { kind: 'variable', matrices: views, order } : { kind: 'variable', matrices: views, order, dtype: complex };
  validateBatch(b, argument);
  return b;
}

const MEMBER_KEYS: readonly string[] = ['data', 'rows', 'cols', 'ld', 'offset'];

/** Whether every own enumerable key of `o` is one of `allowed` (checkKeys without its message). */
function hasOnlyKeys(o: object, allowed: readonly string[]): boolean {
  for (const key in o) if (Object.prototype.hasOwnProperty.call(o, key) && !allowed.includes(key)) return false;
  return true;
}

/** A non-negative safe integer: what nonNegativeInt accepts. */
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
/** A non-negative int32: isCount's common case, tested in fewer steps (every one is a count). */
const isSmallCount = (v: unknown): v is number => typeof v === 'number' && (v | 0) === v && v >= 0;

function isEntry<S>(m: unknown): m is { data: S; offset?: number } {
  return typeof m === 'object' && m !== null && !ArrayBuffer.isView(m) && !isDeviceStorage(m) && 'data' in m;
}

// ---------------------------------------------------------------------------------------------
// Queries

/** True for a batch descriptor (not a device array, whose `kind` is 'device'). */
export function isBatch(x: unknown): x is Batch<unknown> {
  if (typeof x !== 'object' || x === null) return false;
  const kind = (x as { kind?: unknown }).kind;
  return kind === 'strided' || kind === 'list' || kind === 'variable';
}

/** The batch restricted to its matrices [start, end): a strided batch moves its offset, a list or variable batch slices its matrices. */
export function sliceBatch<S>(b: Batch<S>, start: number, end: number): Batch<S> {
  if (b.kind === 'strided') return { ...b, offset: b.offset + start * b.stride, count: end - start };
  if (b.kind === 'list') return { ...b, matrices: b.matrices.slice(start, end) };
  return { ...b, matrices: b.matrices.slice(start, end) };
}

/** How many matrices a batch holds. */
export function batchCount(b: Batch<unknown>): number {
  return b.kind === 'strided' ? b.count : b.matrices.length;
}

/** Shape of matrix i (as stored: for 'row' order, rows and cols are the logical ones). */
export function shapeAt(b: Batch<unknown>, i: number): { rows: number; cols: number } {
  if (b.kind === 'variable') return b.matrices[i]!;
  return b;
}

/** True when every matrix has the same shape (strided and list batches, or a uniform variable one). */
export function uniformShape(b: Batch<unknown>): { rows: number; cols: number } | undefined {
  if (b.kind !== 'variable') return { rows: b.rows, cols: b.cols };
  const first = b.matrices[0];
  if (first === undefined) return { rows: 0, cols: 0 };
  return b.matrices.every((m) => m.rows === first.rows && m.cols === first.cols) ? first : undefined;
}

/** Matrix i of a batch as one view (data, offset, ld, rows, cols). */
export function matrixAt<S>(b: Batch<S>, i: number): MatrixView<S> {
  switch (b.kind) {
    case 'strided':
      return { data: b.data, offset: b.offset + i * b.stride, ld: b.ld, rows: b.rows, cols: b.cols };
    case 'list': {
      const m = b.matrices[i]!;
      return { data: m.data, offset: m.offset, ld: b.ld, rows: b.rows, cols: b.cols };
    }
    case 'variable':
      return b.matrices[i]!;
  }
}

/** Every storage object a batch touches (one for strided, several for list/variable). */
export function storagesOf<S>(b: Batch<S>): S[] {
  if (b.kind === 'strided') return [b.data];
  // A variable batch validated in this call: its validation's pass found them.
  const scan = b.kind === 'variable' ? validated?.get(b as VariableBatch<unknown> as VariableBatch<Storage>) : undefined;
  if (scan !== undefined) return scan.stores.slice() as S[];
  // Members usually share one or a few arrays: a run of one array costs a comparison, not a Set lookup.
  const out = new Set<S>();
  const ms = b.matrices;
  for (let i = 0; i < ms.length; i++) {
    const d = ms[i]!.data;
    if (i === 0 || d !== ms[i - 1]!.data) out.add(d);
  }
  return [...out];
}

/**
 * The `dtype` option of a constructor: undefined for a real batch (the default, or a real type
 * that matches every array), the complex type otherwise (every array must hold its parts' type).
 */
function elementOption(dtype: unknown, stores: readonly unknown[], name: string): ComplexDType | undefined {
  if (dtype === undefined) return undefined;
  if (!isElementType(dtype))
    throw new MyriadError('DTYPE', `expected 'float64', 'float32', 'complex128' or 'complex64', got ${describeValue(dtype)}`, `${name}.dtype`);
  const real = isComplexDType(dtype) ? complexInfo(dtype).real : dtype;
  stores.forEach((s, i) => {
    if (!isDeviceStorage(s) && !isFloatArray(s)) return; // the data check names it
    const got = storageDtype(s, `${name}.dtype`);
    const where = stores.length === 1 ? `${name}.data` : `${name}.matrices[${i}].data`;
    if (got !== real) throw new MyriadError('DTYPE', `dtype ${dtype} needs ${real} storage${isComplexDType(dtype) ? ' (interleaved re, im)' : ''}, got ${got}`, where);
  });
  return isComplexDType(dtype) ? dtype : undefined;
}

/**
 * The complex type of a batch, or undefined for a real one (a bad `dtype` field is a DTYPE error). A
 * variableDevice batch is real: its `dtype` field names its real type (validateBatch then refuses it
 * where the operation does not take it).
 */
export function batchComplex(b: Batch<unknown>, argument: string): ComplexDType | undefined {
  if ((b as { kind?: unknown }).kind === 'device-variable') return undefined;
  const d: unknown = (b as { dtype?: unknown }).dtype;
  if (d === undefined) return undefined;
  if (!isComplexDType(d))
    throw new MyriadError('DTYPE', `expected 'complex128' or 'complex64' (a real batch has no dtype field), got ${describeValue(d)}`, `${argument}.dtype`);
  return d;
}

/** The element type of a batch, real or complex; throws DTYPE as `batchDtype` does. */
export function batchElementType(b: Batch<Storage>, argument: string): ElementType {
  const complex = batchComplex(b, argument);
  if (complex === undefined) return batchDtype(b, argument);
  // A list or variable batch of no matrices has no storage to check: its type is the one it names.
  if (b.kind !== 'strided' && storagesOf(b).length === 0) return complex;
  const real = realDtype(b, argument);
  check(real === complexInfo(complex).real, 'DTYPE', `${argument}.data`, `dtype ${complex} needs ${complexInfo(complex).real} storage (interleaved re, im), got ${real}`);
  return complex;
}

/**
 * The (real) dtype of a batch; throws DTYPE if its matrices mix dtypes or are not float arrays,
 * and for a complex batch (a real path must not read one: see `batchElementType`).
 */
export function batchDtype(b: Batch<Storage>, argument: string): DType {
  const complex = batchComplex(b, argument);
  if (complex !== undefined) throw new MyriadError('DTYPE', `is ${complex}, where a real batch (float64 or float32) is expected`, argument);
  return realDtype(b, argument);
}

/** The dtype of a batch's arrays (the component type of a complex batch). */
function realDtype(b: Batch<Storage>, argument: string): DType {
  if (b.kind === 'strided') return storageDtype(b.data, argument, '.data');
  const stores = storagesOf(b);
  if (stores.length === 0) return 'float64';
  // The arrays are deduplicated: an error names the first member that holds the array at fault.
  const member = (store: Storage): string => `${argument}.matrices[${b.matrices.findIndex((m) => m.data === store)}]`;
  let first: DType | undefined;
  for (const store of stores) {
    let dtype: DType;
    try {
      dtype = storageDtype(store, argument);
    } catch {
      dtype = storageDtype(store, `${member(store)}.data`); // throws again, naming the member
    }
    first ??= dtype;
    check(dtype === first, 'DTYPE', `${member(store)}.data`, `is ${dtype} where the batch's first matrix is ${first}: matrices mix dtypes`);
  }
  return first!;
}

/** The dtype of one storage (host array or device memory), else a DTYPE error naming `argument`. */
export function storageDtype(s: Storage, argument: string, suffix = ''): DType {
  if (isDeviceStorage(s)) {
    if (!isDType(s.dtype))
      throw new MyriadError('DTYPE', `expected float64 or float32 device memory, got ${s.dtype}`, argument + suffix);
    return s.dtype;
  }
  return dtypeOfArray(s, argument + suffix);
}

/** Elements a storage holds: its length, or half of it (rounded down) for a complex batch. */
function storageLength(s: unknown, argument: string, suffix = '', complex?: ComplexDType): number {
  const parts = complex === undefined ? 1 : complexInfo(complex).parts;
  if (isDeviceStorage(s)) return Math.floor(s.length / parts);
  if (isFloatArray(s)) return Math.floor(s.length / parts);
  dtypeOfArray(s, argument + suffix); // throws with the right message
  return 0;
}

/** Bytes a batch occupies if every matrix is read or written once (rows * cols elements each). */
export function batchBytes(b: Batch<Storage>, dtype: DType): number {
  let elements = 0;
  if (b.kind === 'variable') for (const m of b.matrices) elements += m.rows * m.cols;
  else elements = batchCount(b) * b.rows * b.cols;
  return elements * DTYPE_BYTES[dtype];
}

// ---------------------------------------------------------------------------------------------
// Validation

function nonNegativeInt(v: unknown, argument: string, field?: string): number {
  // Messages are built only on failure: this runs several times per call on the hot path.
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new MyriadError('INVALID_ARGUMENT', `expected a non-negative integer, got ${describeValue(v)}`, field === undefined ? argument : `${argument}.${field}`);
  return v;
}

/**
 * Checks a batch fully: integer fields, leading dimension, and that every matrix lies inside its
 * buffer. Called by the constructors and again by every public function (a batch object may be
 * written by hand).
 */
export function validateBatch(b: Batch<Storage>, argument: string): void {
  check(typeof b === 'object' && b !== null, 'INVALID_ARGUMENT', argument, 'expected a batch (see strided(), list(), variable())');
  // A variableDevice batch (core/device-batch.ts) reaches here only in an operation that does not take it.
  if ((b as { kind?: unknown }).kind === 'device-variable')
    throw new MyriadError('UNSUPPORTED', 'a variableDevice batch (sizes on the GPU) is taken by gemm, potrf, getrf, trsm, potrs, posv, getrs, gesv, syrk and trtri only, on a CUDA context of one GPU; give host-known sizes as variable([...])', argument);
  if (b.kind !== 'strided' && b.kind !== 'list' && b.kind !== 'variable')
    throw new MyriadError('INVALID_ARGUMENT', `expected 'strided', 'list' or 'variable', got ${JSON.stringify((b as { kind?: unknown }).kind)}`, `${argument}.kind`);
  if (b.order !== 'col' && b.order !== 'row') parseOrder(b.order, `${argument}.order`);
  const complex = batchComplex(b, argument);
  const unit = complex === undefined ? '' : ` ${complex}`;
  if (b.kind === 'strided') {
    nonNegativeInt(b.count, argument, 'count');
    nonNegativeInt(b.stride, argument, 'stride');
    nonNegativeInt(b.offset, argument, 'offset');
    checkShape(b.rows, b.cols, b.ld, b.order, argument);
    const length = storageLength(b.data, argument, '.data', complex);
    if (b.count > 0 && b.rows > 0 && b.cols > 0) {
      const last = lastElement(b.rows, b.cols, b.ld, b.order);
      const end = b.offset + (b.count - 1) * b.stride + last + 1;
      if (end > length) throw new MyriadError('BOUNDS',
        `buffer of ${length}${unit} elements is too short: ${b.count} matrices of ${b.rows}x${b.cols} (stride ${b.stride}, offset ${b.offset}, ld ${b.ld}) reach element ${end - 1}${defaultedFields(b)}`, `${argument}.data`);
    }
    return;
  }
  // A batch written by hand: its members must be an array of objects before any is read.
  check(Array.isArray(b.matrices), 'INVALID_ARGUMENT', `${argument}.matrices`, `expected an array of matrices, got ${describeValue(b.matrices)}`);
  if (b.kind === 'list') {
    checkShape(b.rows, b.cols, b.ld, b.order, argument);
    const last = b.rows > 0 && b.cols > 0 ? lastElement(b.rows, b.cols, b.ld, b.order) : -1;
    b.matrices.forEach((m, i) => { checkMember(m, argument, i); checkPlace(b, m.data, m.offset, last, complex, argument, i); });
    return;
  }
  // Variable: every shape first, then every member's place in its buffer (the order errors come
  // in). One pass of fast predicates over the members; where a member fails one, the two passes
  // below find the first error in that order and build its message, so no string is made for a
  // valid batch.
  const scan = scanVariable(b, complex);
  if (scan !== undefined) { validated?.set(b, scan); return; }
  const ms = b.matrices;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]!;
    checkMember(m, argument, i);
    if (!shapeOk(m.rows, m.cols, m.ld, b.order)) checkShape(m.rows, m.cols, m.ld, b.order, `${argument}.matrices[${i}]`);
  }
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]!;
    checkPlace(b, m.data, m.offset, m.rows > 0 && m.cols > 0 ? lastElement(m.rows, m.cols, m.ld, b.order) : -1, complex, argument, i);
  }
}

/** A member of a list or variable batch is an object (a batch written by hand may hold anything). */
function checkMember(m: unknown, argument: string, i: number): void {
  if (typeof m !== 'object' || m === null) throw new MyriadError('INVALID_ARGUMENT', `expected a matrix { data, ... }, got ${describeValue(m)}`, `${argument}.matrices[${i}]`);
}

/**
 * What the pass of validateBatch over a valid variable batch's members found besides its validity:
 * its distinct arrays in order of first appearance (storagesOf's answer) and, per buffer (a
 * StoragePlace key), the byte range [lo, hi) of its non-empty members and whether each of them
 * starts at or after the end of those before it (then no two share a byte), as overlap.ts's scan
 * of the batch finds them. The checks after a batch's validation read this instead of passing
 * over its 200,000 members again.
 */
export interface VariableScan {
  readonly stores: readonly Storage[];
  readonly bounds: Map<object, [number, number]>;
  readonly disjoint: boolean;
}

/**
 * The scans of the variable batches validated since withValidatedScans began (undefined outside
 * it): one call (its validation, and in a context its run), during which nothing changes its
 * batches. Outside it every query reads the members again (a member object may be changed between
 * two calls).
 */
let validated: Map<Batch<Storage>, VariableScan> | undefined;

/** Runs one call's validation with its variable batches' scans kept (see VariableScan); nested, the outer keeps them. */
export function withValidatedScans<T>(run: () => T): T {
  if (validated !== undefined) return run();
  validated = new Map();
  try {
    return run();
  } finally {
    validated = undefined;
  }
}

/** The scan of a variable batch validated in the current withValidatedScans, if it was. */
export function validatedScan(b: VariableBatch<Storage>): VariableScan | undefined {
  return validated?.get(b);
}

/**
 * Whether every member of a variable batch passes checkShape and checkPlace (undefined where one
 * does not), with its VariableScan, in one pass over the members (a member's array is asked about
 * once per run of members in one array).
 */
function scanVariable(b: VariableBatch<Storage>, complex: ComplexDType | undefined): VariableScan | undefined {
  const stores = new Set<Storage>();
  const spans = new SpanScan();
  if (!scanMembers(b.matrices, b.order, complex === undefined ? 1 : complexInfo(complex).parts, stores, spans)) return undefined;
  return { stores: [...stores], bounds: spans.bounds, disjoint: spans.disjoint };
}

/**
 * scanVariable's loop, alone in its function: code after a loop of 200,000 members has no type
 * feedback when the loop is first optimised, and would throw that code away on every call. Whether
 * every member passes; the members' distinct arrays go to `stores`, their spans to `spans`.
 */
function scanMembers(ms: readonly MatrixView<Storage>[], order: Order, parts: number, stores: Set<Storage>, spans: SpanScan): boolean {
  const col = order === 'col';
  let data: Storage | undefined, length = 0, place: StoragePlace | undefined, base = 0, elem = 0;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]!;
    if (typeof m !== 'object' || m === null) return false;
    const rows = m.rows, cols = m.cols, ld = m.ld, offset = m.offset;
    // shapeOk and isCount, their int32 case first (the cheaper test).
    const small = isSmallCount(rows) && isSmallCount(cols) && isSmallCount(ld) && isSmallCount(offset) && ld >= 1 && ld >= (col ? rows : cols);
    if (!small && !(shapeOk(rows, cols, ld, order) && isCount(offset))) return false;
    if (m.data !== data || place === undefined) {
      data = m.data;
      if (!isDeviceStorage(data) && !isFloatArray(data)) return false;
      length = Math.floor(data.length / parts);
      stores.add(data);
      place = storagePlace(data);
      spans.enter(place.key);
      base = place.base;
      elem = place.elem * parts;
    }
    if (rows === 0 || cols === 0) continue;
    const last = col ? (cols - 1) * ld + rows - 1 : (rows - 1) * ld + cols - 1;   // lastElement
    if (offset + last + 1 > length) return false;
    // Its first byte and the end of its last column (row): overlap.ts's span of it.
    const lo = base + offset * elem;
    spans.add(lo, lo + (last + 1) * elem);
  }
  return true;
}

/** The offset of matrix i of a list or variable batch and its fit in its buffer (`last`: its last element, -1 for an empty matrix). */
function checkPlace(b: ListBatch<Storage> | VariableBatch<Storage>, data: Storage, offset: number, last: number, complex: ComplexDType | undefined, argument: string, i: number): void {
  if (isCount(offset) && (isDeviceStorage(data) || isFloatArray(data))) {
    const len = complex === undefined ? data.length : Math.floor(data.length / complexInfo(complex).parts);
    if (last < 0 || offset + last + 1 <= len) return;
  }
  const arg = `${argument}.matrices[${i}]`;
  nonNegativeInt(offset, `${arg}.offset`);
  const len = storageLength(data, `${arg}.data`, '', complex);
  if (last < 0) return;
  const v = b.kind === 'variable' ? b.matrices[i]! : { rows: b.rows, cols: b.cols };
  const end = offset + last + 1;
  const unit = complex === undefined ? '' : ` ${complex}`;
  check(end <= len, 'BOUNDS', `${arg}.data`, `buffer of ${len}${unit} elements is too short: the ${v.rows}x${v.cols} matrix reaches element ${end - 1}${defaultedFields(b)}`);
}

/** checkShape's conditions, without building its messages. */
function shapeOk(rows: number, cols: number, ld: number, order: Order): boolean {
  return isCount(rows) && isCount(cols) && isCount(ld) && ld >= Math.max(1, order === 'col' ? rows : cols);
}

function checkShape(rows: number, cols: number, ld: number, order: Order, argument: string): void {
  nonNegativeInt(rows, argument, 'rows');
  nonNegativeInt(cols, argument, 'cols');
  nonNegativeInt(ld, argument, 'ld');
  const inner = order === 'col' ? rows : cols;
  if (ld < Math.max(1, inner)) throw new MyriadError('LAYOUT',
    `leading dimension ${ld} must be at least max(1, ${order === 'col' ? 'rows' : 'cols'}) = ${Math.max(1, inner)} for order '${order}'`, `${argument}.ld`);
}

function lastElement(rows: number, cols: number, ld: number, order: Order): number {
  return order === 'col' ? (cols - 1) * ld + rows - 1 : (rows - 1) * ld + cols - 1;
}

/**
 * The column-major view of a batch: a 'row' batch of r x c matrices is the column-major storage
 * of their c x r transposes. Returns the batch unchanged for 'col'.
 */
export function asColumnMajor<S>(b: Batch<S>): Batch<S> {
  if (b.order === 'col') return b;
  switch (b.kind) {
    case 'strided':
      return { ...b, rows: b.cols, cols: b.rows, order: 'col' };
    case 'list':
      return { ...b, rows: b.cols, cols: b.rows, order: 'col' };
    case 'variable':
      return { ...b, order: 'col', matrices: b.matrices.map((m) => ({ ...m, rows: m.cols, cols: m.rows })) };
  }
}

/** Throws unless two batches hold the same number of matrices. */
export function checkSameCount(a: Batch<unknown>, b: Batch<unknown>, aName: string, bName: string): void {
  const na = batchCount(a);
  const nb = batchCount(b);
  if (na !== nb) throw new MyriadError('SHAPE', `holds ${nb} matrices but ${aName} holds ${na}`, bName);
}

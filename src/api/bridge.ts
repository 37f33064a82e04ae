/**
 * The bridge between the two levels: an array-level stack (`NDArray`, row-major [..., rows, cols])
 * is a LAPACK-level batch (order 'row', ld = cols, stride = rows * cols), and back.
 *
 * Every LAPACK-level call takes an `NDArray` wherever it takes a batch (`batchOf` is applied to
 * it, naming the argument), so row-major data from the array level needs no `order: 'row'` and no
 * index arithmetic: `posv({ a: P, b: x })` with P [count, n, n] and x [count, n, 1].
 */
import { batchComplex, batchCount, isBatch, validateBatch, type Batch, type StridedBatch } from '../core/batch.js';
import { allocate, dtypeOfArray, type FloatArray } from '../core/dtype.js';
import { MyriadError, check, checkKeys, describeValue } from '../core/errors.js';
import { isDeviceStorage, type Storage } from '../core/storage.js';
import { checkShape, countOf } from './array.js';

/**
 * A row-major stack over any storage: `{ data, shape }`. An `NDArray` is one (host data); device
 * memory of the same layout is one too (`{ data: ctx.upload(x.data), shape: x.shape }`).
 */
export interface ArrayView<S extends Storage = Storage> {
  readonly data: S;
  readonly shape: readonly number[];
}

/** What the LAPACK-level calls take for a matrix argument: a batch, or a row-major stack. */
export type BatchArg<S extends Storage = Storage> = Batch<S> | ArrayView<S>;

/** True for `{ data, shape }` (not a batch descriptor). */
export function isArrayView(x: unknown): x is ArrayView {
  return typeof x === 'object' && x !== null && !isBatch(x) && 'shape' in x && 'data' in x;
}

/** Options of `batchOf`. */
export interface BatchOfOptions {
  /**
   * Repeat a stack of one matrix (shape [rows, cols], or batch dimensions all 1) as `count`
   * matrices with stride 0: one F for a whole bank of filters. Only for arguments the call reads.
   */
  count?: number;
}

/** The shapes `batchOf` read its batches from, for the errors of the call (a count that differs). */
const viewShapes = new WeakMap<object, readonly number[]>();

/**
 * How a batch made by `batchOf` was read, for an error message ('' for other batches):
 * " (shape [50000, 4] is read as 1 matrix of 50000x4; give [50000, 4, 1] for a vector per matrix)".
 */
export function viewHint(b: object): string {
  const shape = viewShapes.get(b);
  if (shape === undefined) return '';
  const rows = shape.length === 1 ? shape[0]! : shape[shape.length - 2]!;
  const cols = shape.length === 1 ? 1 : shape[shape.length - 1]!;
  const count = countOf(shape.slice(0, -2));
  const vectors = shape.length === 2 ? `; give [${shape.join(', ')}, 1] for a vector of ${cols} per matrix` : '';
  return ` (shape [${shape.join(', ')}] is read as ${count} ${count === 1 ? 'matrix' : 'matrices'} of ${rows}x${cols}: [..., rows, cols]${vectors})`;
}

/**
 * The batch of a row-major stack: shape [..., rows, cols] is prod(...) matrices of rows x cols
 * (order 'row', ld = cols, stride = rows * cols); a 1-D shape [n] is one n x 1 column. No copy:
 * the call reads and writes the stack's own data. `{ count }` repeats a single matrix.
 */
export function batchOf<S extends Storage>(a: ArrayView<S>, options: BatchOfOptions = {}, argument = 'array'): StridedBatch<S> {
  check(isArrayView(a), 'INVALID_ARGUMENT', argument, `expected { data, shape } (an NDArray), got ${describeValue(a)}`);
  check(typeof options === 'object' && options !== null, 'INVALID_ARGUMENT', 'options', `expected an object, got ${describeValue(options)}`);
  checkKeys(options, ['count'], 'options');
  const shape = a.shape;
  const dtype: unknown = (a as { dtype?: unknown }).dtype;
  if (dtype !== undefined)
    throw new MyriadError('UNSUPPORTED', `a ${describeValue(dtype)} array is row-major, and complex batches are column-major only: ` +
      "use the array-level functions, or strided(data, { rows, cols, count, dtype }) over column-major data", `${argument}.dtype`);
  checkShape(shape, `${argument}.shape`);
  check(shape.length >= 1, 'SHAPE', `${argument}.shape`, 'a 0-D array is not a matrix: give shape [n] (one n x 1 column) or [..., rows, cols]');
  const rows = shape.length === 1 ? shape[0]! : shape[shape.length - 2]!;
  const cols = shape.length === 1 ? 1 : shape[shape.length - 1]!;
  const held = countOf(shape.slice(0, -2));
  const size = held * rows * cols;
  const length = isDeviceStorage(a.data) ? a.data.length : dtypeOfArray(a.data, `${argument}.data`) && (a.data as FloatArray).length;
  if (isDeviceStorage(a.data) ? length < size : length !== size)
    throw new MyriadError('BOUNDS', `holds ${length} elements but shape [${shape.join(', ')}] needs ${size}`, `${argument}.data`);
  let count = held;
  let stride = rows * cols;
  if (options.count !== undefined) {
    check(Number.isSafeInteger(options.count) && options.count >= 0, 'INVALID_ARGUMENT', 'options.count', `expected a non-negative integer, got ${describeValue(options.count)}`);
    check(held === 1, 'SHAPE', `${argument}.shape`, `{ count } repeats one matrix, but shape [${shape.join(', ')}] holds ${held}`);
    count = options.count;
    stride = 0;
  }
  const b: StridedBatch<S> = { kind: 'strided', data: a.data, rows, cols, count, order: 'row', ld: Math.max(1, cols), stride, offset: 0 };
  viewShapes.set(b, [...shape]);
  return b;
}

/** A call's arguments with every `{ data, shape }` among `keys` replaced by its batch (named by its key). */
export function bridgeArgs<A>(args: A, keys: readonly string[] = BATCH_KEYS): A {
  if (typeof args !== 'object' || args === null) return args;
  const record = args as Record<string, unknown>;
  if (!keys.some((k) => isArrayView(record[k]))) return args;
  const out: Record<string, unknown> = { ...record };
  for (const k of keys) if (isArrayView(record[k])) out[k] = batchOf(record[k], {}, k);
  return out as A;
}

/** The matrix arguments of the LAPACK-level calls. */
export const BATCH_KEYS: readonly string[] = ['a', 'b', 'c', 'w', 's', 'u', 'vt', 'tau'];

/**
 * A batch as a row-major stack [count, rows, cols]: the batch's own memory where it already is a
 * contiguous row-major stack (order 'row', ld = cols, stride = rows * cols), else a row-major
 * copy (column-major or padded batches, list batches), of the batch's array type (an empty list
 * batch, which holds no array, gives a Float64Array). Host memory only: download device data
 * first. A variable batch (matrices of different shapes) has no stack form.
 */
export function asArray<T extends FloatArray>(batch: Batch<T>): { readonly data: T; readonly shape: readonly number[] } {
  check(isBatch(batch), 'INVALID_ARGUMENT', 'batch', `expected a batch (strided() or list()), got ${describeValue(batch)}`);
  validateBatch(batch, 'batch');
  if (batch.kind === 'variable') throw new MyriadError('SHAPE', 'a variable batch holds matrices of different shapes: it has no [count, rows, cols] form', 'batch');
  const complex = batchComplex(batch, 'batch');
  if (complex !== undefined) throw new MyriadError('UNSUPPORTED', `a ${complex} batch: asArray makes real row-major arrays only (complex arrays come from ndarray(data, shape, { dtype }))`, 'batch');
  const { rows, cols, ld, order } = batch;
  const count = batchCount(batch);
  const sources = batch.kind === 'strided'
    ? Array.from({ length: count }, (_, i) => ({ data: batch.data, offset: batch.offset + i * batch.stride }))
    : batch.matrices;
  for (const [i, m] of sources.entries())
    if (isDeviceStorage(m.data)) throw new MyriadError('UNSUPPORTED', `matrix ${i} is in device memory: ctx.download() it first`, 'batch');
  const shape = [count, rows, cols];
  if (batch.kind === 'strided' && order === 'row' && ld === cols && batch.stride === rows * cols) {
    const start = batch.offset;
    return { data: batch.data.subarray(start, start + count * rows * cols) as T, shape };
  }
  // The element type of the batch's arrays: a strided batch's own even when it holds no matrix; an
  // empty list has no array to take it from (float64).
  const from = batch.kind === 'strided' ? batch.data : sources[0]?.data;
  const out = allocate(from === undefined ? 'float64' : dtypeOfArray(from, 'batch.data'), count * rows * cols) as T;
  sources.forEach((m, k) => {
    const base = k * rows * cols;
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++)
        out[base + i * cols + j] = m.data[m.offset + (order === 'row' ? i * ld + j : i + j * ld)]!;
  });
  return { data: out, shape };
}

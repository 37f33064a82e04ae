/**
 * The elementwise companions of the array level (numpy 2 conventions), enough for filter and
 * regression code without index arithmetic: transpose (numpy's matrix_transpose, `a.mT`), add,
 * subtract (numpy broadcasting over every dimension; a number is a scalar) and scale. New arrays
 * out, of the inputs' array type; host memory, no context needed.
 */
import type { FloatArray } from '../core/dtype.js';
import { MyriadError, check, describeValue } from '../core/errors.js';
import { allocLike, broadcastShapes, checkShape, countOf, noOptions, sameDtype, sameShape, stackOf, type NDArray } from './array.js';

/** Checks `{ data, shape }` with any number of dimensions (0-D is a scalar). */
const checked = (a: NDArray, argument: string): void => void stackOf(a, argument, 0);

/**
 * The matrix transpose of a stack: [..., m, n] -> [..., n, m] (numpy's `np.linalg.matrix_transpose`,
 * `a.mT`; the batch dimensions stay). A 1-D array has no matrix transpose: give [n, 1] or [1, n].
 */
export function transpose<T extends FloatArray>(a: NDArray<T>, ...none: never[]): NDArray<T> {
  noOptions('transpose', none);
  checked(a, 'a');
  if (a.shape.length < 2)
    throw new MyriadError('SHAPE', `expected [..., rows, cols], got [${a.shape.join(', ')}]: a 1-D array has no matrix transpose (give shape [n, 1] or [1, n])`, 'a.shape');
  const m = a.shape[a.shape.length - 2]!;
  const n = a.shape[a.shape.length - 1]!;
  const per = m * n;
  const count = per === 0 ? 0 : a.data.length / per;
  const out = allocLike(a.data, a.data.length);
  const src = a.data;
  for (let c = 0; c < count; c++) {
    const o = c * per;
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[o + j * m + i] = src[o + i * n + j]!;
  }
  return { data: out, shape: [...a.shape.slice(0, -2), n, m] };
}

/** a + b, elementwise, with numpy broadcasting over every dimension (b may be a number). */
export function add<T extends FloatArray>(a: NDArray<T>, b: NDArray<T> | number, ...none: never[]): NDArray<T> {
  noOptions('add', none);
  return combine(a, b, 1, 'add');
}

/** a - b, elementwise, with numpy broadcasting over every dimension (b may be a number). */
export function subtract<T extends FloatArray>(a: NDArray<T>, b: NDArray<T> | number, ...none: never[]): NDArray<T> {
  noOptions('subtract', none);
  return combine(a, b, -1, 'subtract');
}

/** alpha * a, elementwise. */
export function scale<T extends FloatArray>(a: NDArray<T>, alpha: number, ...none: never[]): NDArray<T> {
  noOptions('scale', none);
  checked(a, 'a');
  if (typeof alpha !== 'number') throw new MyriadError('INVALID_ARGUMENT', `expected a number, got ${describeValue(alpha)}`, 'alpha');
  const out = allocLike(a.data, a.data.length);
  for (let i = 0; i < out.length; i++) out[i] = alpha * a.data[i]!;
  return { data: out, shape: [...a.shape] };
}

/**
 * A new contiguous array of `a` broadcast to `shape` (numpy's broadcast_to, but a copy: the
 * result can be written, e.g. as the in-place `a` of a LAPACK-level call).
 */
export function broadcastTo<T extends FloatArray>(a: NDArray<T>, shape: readonly number[], ...none: never[]): NDArray<T> {
  noOptions('broadcastTo', none);
  checked(a, 'a');
  checkShape(shape, 'shape');
  const target = broadcastAll(a.shape, shape, 'broadcastTo', 'shape');
  check(sameShape(target, shape), 'SHAPE', 'shape', `[${a.shape.join(', ')}] cannot be broadcast to [${shape.join(', ')}] (numpy's rule)`);
  const size = countOf(shape);
  const out = allocLike(a.data, size);
  const x = a.data;
  // A copy of each element (its sign of zero kept), along a's strides over the target shape.
  walkBroadcast(shape, broadcastStrides(a.shape, shape), [], (o, inner, oa, ia) => {
    for (let k = 0; k < inner; k++) out[o + k] = x[oa + k * ia]!;
  });
  return { data: out, shape: [...shape] };
}

function combine<T extends FloatArray>(a: NDArray<T>, b: NDArray<T> | number, sign: 1 | -1, op: string): NDArray<T> {
  checked(a, 'a');
  if (typeof b === 'number') {
    const out = allocLike(a.data, a.data.length);
    for (let i = 0; i < out.length; i++) out[i] = a.data[i]! + sign * b;
    return { data: out, shape: [...a.shape] };
  }
  checked(b, 'b');
  sameDtype(a, b, 'b');
  const shape = broadcastAll(a.shape, b.shape, op, 'b.shape');
  const size = countOf(shape);
  const out = allocLike(a.data, size);
  const x = a.data;
  const y = b.data;
  if (sameShape(a.shape, b.shape)) {
    for (let i = 0; i < size; i++) out[i] = x[i]! + sign * y[i]!;
    return { data: out, shape };
  }
  // One operand repeating over the other's leading dimensions (P + Q, Q one matrix): block loops.
  const tailB = isTrailing(b.shape, shape, size);
  if (tailB > 0 && y.length === tailB && x.length === size) {
    for (let o = 0; o < size; o += tailB) for (let k = 0; k < tailB; k++) out[o + k] = x[o + k]! + sign * y[k]!;
    return { data: out, shape };
  }
  const tailA = isTrailing(a.shape, shape, size);
  if (tailA > 0 && x.length === tailA && y.length === size) {
    for (let o = 0; o < size; o += tailA) for (let k = 0; k < tailA; k++) out[o + k] = x[k]! + sign * y[o + k]!;
    return { data: out, shape };
  }
  walkBroadcast(shape, broadcastStrides(a.shape, shape), broadcastStrides(b.shape, shape), (o, inner, oa, ia, ob, ib) => {
    for (let k = 0; k < inner; k++) out[o + k] = x[oa + k * ia]! + sign * y[ob + k * ib]!;
  });
  return { data: out, shape };
}

/**
 * The rows of a broadcast over `shape` (its last dimension, `inner` elements from output offset o),
 * with each operand's offset and stride along them (strides from broadcastStrides; `sb` empty for
 * one operand): an odometer over the outer dimensions.
 */
function walkBroadcast(shape: readonly number[], sa: readonly number[], sb: readonly number[],
  row: (o: number, inner: number, oa: number, ia: number, ob: number, ib: number) => void): void {
  const rank = shape.length;
  const size = countOf(shape);
  const inner = shape[rank - 1] ?? 1;
  const ia = sa[rank - 1] ?? 0;
  const ib = sb[rank - 1] ?? 0;
  const index = new Array<number>(rank).fill(0);
  let oa = 0, ob = 0;
  for (let o = 0; o < size; o += inner) {
    row(o, inner, oa, ia, ob, ib);
    // Advance the odometer over the outer dimensions.
    for (let d = rank - 2; d >= 0; d--) {
      index[d]!++;
      oa += sa[d]!;
      ob += sb[d] ?? 0;
      if (index[d]! < shape[d]!) break;
      oa -= sa[d]! * shape[d]!;
      ob -= (sb[d] ?? 0) * shape[d]!;
      index[d] = 0;
    }
  }
}

/** The broadcast of two whole shapes (numpy's rule), or a SHAPE error naming `argument`. */
function broadcastAll(x: readonly number[], y: readonly number[], op: string, argument: string): number[] {
  try {
    return broadcastShapes(x, y, argument);
  } catch (e) {
    if (e instanceof MyriadError)
      throw new MyriadError('SHAPE', `${op}: shapes [${x.join(', ')}] and [${y.join(', ')}] do not broadcast (numpy's rule: aligned from the right, each pair of dimensions equal or one of them 1)`, argument);
    throw e;
  }
}

/**
 * The element count of `from` when it equals the trailing dimensions of `to` (leading 1s aside),
 * so that it repeats as one block over `to`'s leading dimensions; 0 otherwise.
 */
function isTrailing(from: readonly number[], to: readonly number[], size: number): number {
  let k = 0;
  while (k < from.length && from[k] === 1) k++;
  const tail = from.slice(k);
  if (tail.length > to.length || !tail.every((d, i) => d === to[to.length - tail.length + i])) return 0;
  const n = countOf(tail);
  return n > 0 && size % n === 0 ? n : 0;
}

/** Element strides of `from` read as shape `to` (0 along broadcast dimensions). */
function broadcastStrides(from: readonly number[], to: readonly number[]): number[] {
  const strides = new Array<number>(to.length).fill(0);
  let stride = 1;
  for (let i = from.length - 1; i >= 0; i--) {
    const d = to.length - from.length + i;
    strides[d] = from[i] === 1 ? 0 : stride;
    stride *= from[i]!;
  }
  return strides;
}

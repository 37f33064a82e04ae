/**
 * The pointer-array form of a batch (cuBLAS getrf/getrs, cuSOLVER potrf/potrs take a device
 * array of matrix pointers), built from a strided DeviceArray, plus the bounds checks every
 * vendor call makes before it reaches native code (a kernel reading outside its buffer poisons
 * the whole context).
 */
import { MyriadError } from '../../core/errors.js';
import type { ComplexDType, DType } from '../../core/dtype.js';
import { complexInfo } from '../../core/dtype-table.js';
import { ELEMENT_BYTES } from '../runtime/memory.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';

/** Matrix i of the batch starts at element `offset + i * stride` of `source`. */
export class BatchPointers {
  constructor(
    /** int64 device array of `count` addresses. */
    readonly pointers: DeviceArray,
    readonly source: DeviceArray,
    readonly count: number,
    readonly stride: number,
    readonly offset: number,
  ) {}

  /** Throws BOUNDS unless every matrix of `rows x cols` with leading dimension `ld` fits in `source`. */
  checkFits(rows: number, cols: number, ld: number, count: number, argument: string): void {
    if (count > this.count) throw new MyriadError('BOUNDS', `batch of ${count} over ${this.count} pointers`, argument);
    checkStrided(this.source, this.source.dtype as DType, rows, cols, ld, this.stride, count, this.offset, argument);
  }

  dispose(): void {
    this.pointers.dispose();
  }
}

/** Builds the pointer array of `count` matrices of `source` (start `offset`, `stride` elements apart). */
export function batchPointers(dev: GpuDevice, source: DeviceArray, count: number, stride: number, offset = 0): BatchPointers {
  for (const [v, name] of [[count, 'count'], [stride, 'stride'], [offset, 'offset']] as const) {
    if (!Number.isSafeInteger(v) || v < 0) throw new MyriadError('INVALID_ARGUMENT', `must be a non-negative integer, got ${v}`, name);
  }
  if (count > 0 && offset + (count - 1) * stride >= source.length) {
    throw new MyriadError('BOUNDS', `matrix ${count - 1} starts at ${offset + (count - 1) * stride}, the array holds ${source.length}`, 'source');
  }
  const bytes = BigInt(ELEMENT_BYTES[source.dtype]);
  const base = source.ptr;
  const addresses = new BigInt64Array(count);
  for (let i = 0; i < count; i++) addresses[i] = base + BigInt(offset + i * stride) * bytes;
  return new BatchPointers(dev.upload(addresses), source, count, stride, offset);
}

/** Throws unless `a` is a `dtype` array holding `count` matrices `rows x cols` (ld, stride, offset). */
export function checkStrided(
  a: DeviceArray, dtype: DType, rows: number, cols: number, ld: number, stride: number, count: number, offset: number, argument: string,
): void {
  if (a.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype}, got ${a.dtype}`, argument);
  for (const [v, name] of [[rows, 'rows'], [cols, 'cols'], [ld, 'ld'], [stride, 'stride'], [count, 'count'], [offset, 'offset']] as const) {
    if (!Number.isSafeInteger(v) || v < 0) throw new MyriadError('INVALID_ARGUMENT', `${name} must be a non-negative integer, got ${v}`, argument);
  }
  if (ld < Math.max(1, rows)) throw new MyriadError('LAYOUT', `leading dimension ${ld} < rows ${rows}`, argument);
  if (count === 0 || rows === 0 || cols === 0) return;
  const span = ld * (cols - 1) + rows;
  const end = offset + (count - 1) * stride + span;
  if (end > a.length) throw new MyriadError('BOUNDS', `batch needs ${end} elements, the array holds ${a.length}`, argument);
}

/** Throws unless `a` is an int32 array of at least `n` elements. */
export function checkInts(a: DeviceArray, n: number, argument: string): void {
  if (a.dtype !== 'int32') throw new MyriadError('DTYPE', `expected int32, got ${a.dtype}`, argument);
  if (a.length < n) throw new MyriadError('BOUNDS', `needs ${n} elements, the array holds ${a.length}`, argument);
}

/**
 * Throws unless every complex matrix of `rows x cols` (leading dimension `ld`, in elements of
 * `dtype`) of `p`'s first `count` fits in its source: an array of the parts' real dtype holding
 * interleaved (re, im) pairs, each matrix starting on a pair (an even offset and stride, so that
 * every address is aligned for cuDoubleComplex / cuFloatComplex, as the array's own address must be).
 * Sizes must be int32s.
 */
export function checkComplexFits(p: BatchPointers, dtype: ComplexDType, rows: number, cols: number, ld: number, count: number, argument: string): void {
  const real = complexInfo(dtype).real;
  if (p.source.dtype !== real) throw new MyriadError('DTYPE', `${dtype} pairs live in a ${real} array, got ${p.source.dtype}`, argument);
  for (const [v, name] of [[rows, 'rows'], [cols, 'cols'], [ld, 'ld'], [count, 'count']] as const) {
    if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `${name} must be an int32 >= 0, got ${v}`, argument);
  }
  if (p.stride % 2 !== 0 || p.offset % 2 !== 0) throw new MyriadError('LAYOUT', `complex matrices start on a pair: stride ${p.stride} and offset ${p.offset} must be even`, argument);
  const pair = BigInt(complexInfo(dtype).bytes);
  if (p.source.ptr % pair !== 0n) throw new MyriadError('LAYOUT', `the array's address is not aligned to a ${pair}-byte ${complexInfo(dtype).spelling.cuda}`, argument);
  if (ld < Math.max(1, rows)) throw new MyriadError('LAYOUT', `leading dimension ${ld} < rows ${rows}`, argument);
  p.checkFits(2 * rows, cols, 2 * ld, count, argument);
}

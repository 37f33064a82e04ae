import { dtypeInfo, dtypeOfArrayName } from './dtype-table.js';
import { MyriadError, describeValue } from './errors.js';

/** A real element type: what every kernel, tuning table and backend path is written for. */
export type DType = 'float64' | 'float32';
/**
 * A complex element type: interleaved (re, im) pairs of its real component type in a Float64Array
 * (complex128) or Float32Array (complex64), numpy's and cuBLAS's layout. Rows, cols, ld, stride
 * and offset of a complex batch count complex elements (two floats each).
 */
export type ComplexDType = 'complex128' | 'complex64';
/** Any element type a batch may hold: a real one, or a complex one (named on the batch). */
export type ElementType = DType | ComplexDType;
export type FloatArray = Float64Array | Float32Array;
/** One value per dtype (the tuning tables' per-precision entries, CUDA's and cpu-fast's). */
export type PerDType<T> = { readonly [D in DType]: T };

/** Bytes per element (the element types' table, core/dtype-table.ts, has the rest). */
export const DTYPE_BYTES: Readonly<Record<DType, number>> = { float64: dtypeInfo('float64').bytes, float32: dtypeInfo('float32').bytes };

/** Machine epsilon as LAPACK's dlamch('E') * 2 (the spacing of numbers near 1). */
export const DTYPE_EPS: Readonly<Record<DType, number>> = { float64: dtypeInfo('float64').eps, float32: dtypeInfo('float32').eps };

/** The dtype of a host array, or a DTYPE error naming `argument`. */
export function dtypeOfArray(data: unknown, argument: string): DType {
  const dtype = dtypeOfArrayName(typedArrayName(data));
  if (dtype !== undefined) return dtype;
  throw new MyriadError('DTYPE', `expected a Float64Array or Float32Array (or a device array), got ${describeValue(data)}`, argument);
}

const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype) as object, Symbol.toStringTag)!.get!;

/**
 * The kind of a typed array ('Float64Array', 'Int32Array', ...) or undefined for anything else.
 * Reads the array's internal type, so arrays from another realm (vm, worker) are recognised,
 * where `instanceof` would reject them, and no plain object can pass for one.
 */
export function typedArrayName(x: unknown): string | undefined {
  return ArrayBuffer.isView(x) ? (typedArrayTag.call(x) as string | undefined) : undefined;
}

/** True for a Float64Array or Float32Array (from any realm). */
export const isFloatArray = (x: unknown): x is FloatArray => dtypeOfArrayName(typedArrayName(x)) !== undefined;
/** True for an Int32Array (from any realm). */
export const isInt32Array = (x: unknown): x is Int32Array => typedArrayName(x) === 'Int32Array';
/** True for a Float32Array (from any realm): where a host path picks its precision. */
export const isFloat32Array = (x: unknown): x is Float32Array => typedArrayName(x) === 'Float32Array';
/** True for a Float64Array (from any realm). */
export const isFloat64Array = (x: unknown): x is Float64Array => typedArrayName(x) === 'Float64Array';

/** A new zeroed Float64Array or Float32Array of `length` elements. */
export function allocate(dtype: DType, length: number): FloatArray {
  return dtypeInfo(dtype).array.create(length);
}

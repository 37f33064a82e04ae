import { MyriadError } from './errors.js';

export type DType = 'float64' | 'float32';
export type FloatArray = Float64Array | Float32Array;

/** Bytes per element. */
export const DTYPE_BYTES: Readonly<Record<DType, number>> = { float64: 8, float32: 4 };

/** Machine epsilon as LAPACK's dlamch('E') * 2 (the spacing of numbers near 1). */
export const DTYPE_EPS: Readonly<Record<DType, number>> = {
  float64: 2.220446049250313e-16,
  float32: 1.1920928955078125e-7,
};

/** The dtype of a host array, or a DTYPE error naming `argument`. */
export function dtypeOfArray(data: unknown, argument: string): DType {
  if (data instanceof Float64Array) return 'float64';
  if (data instanceof Float32Array) return 'float32';
  const got = data === null ? 'null' : typeof data === 'object' ? (data as object).constructor?.name ?? 'object' : typeof data;
  throw new MyriadError('DTYPE', `expected a Float64Array or Float32Array (or a device array), got ${got}`, argument);
}

export function allocate(dtype: DType, length: number): FloatArray {
  return dtype === 'float64' ? new Float64Array(length) : new Float32Array(length);
}

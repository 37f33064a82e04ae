/**
 * Precision as a generator parameter: one CUDA template body, specialised by a typedef
 * (MAGMA writes only one precision and generates the others; we do it with `real`).
 */
import type { DType } from '../../../core/dtype.js';

/** One letter for kernel names, as in BLAS: d = float64, s = float32. */
export function precisionLetter(dtype: DType): 'd' | 's' {
  return dtype === 'float64' ? 'd' : 's';
}

/** The C++ spelling of the element type. */
export function cType(dtype: DType): 'double' | 'float' {
  return dtype === 'float64' ? 'double' : 'float';
}

/** Bytes per element. */
export function elementBytes(dtype: DType): number {
  return dtype === 'float64' ? 8 : 4;
}

/** The lines every generated kernel starts with: `typedef double real;` and a fused multiply-add. */
export function precisionPrelude(dtype: DType): string {
  const t = cType(dtype);
  return `typedef ${t} real;
// a * b + c, rounded once (DFMA / FFMA).
static __device__ __forceinline__ real fmaReal(real a, real b, real c) { return ${dtype === 'float64' ? 'fma' : 'fmaf'}(a, b, c); }`;
}

/** Typed sqrt, |x| and +infinity (NVRTC has no <cmath> overloads or INFINITY without headers). */
export function mathHelpers(dtype: DType): string {
  const d = dtype === 'float64';
  return `static __device__ __forceinline__ real sqrtReal(real x) { return ${d ? 'sqrt' : 'sqrtf'}(x); }
static __device__ __forceinline__ real absReal(real x) { return ${d ? 'fabs' : 'fabsf'}(x); }
static __device__ __forceinline__ real infReal() { return ${d ? '__longlong_as_double(0x7ff0000000000000LL)' : '__int_as_float(0x7f800000)'}; }`;
}

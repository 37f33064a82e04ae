/**
 * Precision as a generator parameter: one CUDA template body, specialised by a typedef
 * (MAGMA writes only one precision and generates the others; we do it with `real`). The
 * spellings come from the element types' table (core/dtype-table.ts).
 */
import type { DType } from '../../../core/dtype.js';
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';

/** One letter for kernel names, as in BLAS: d = float64, s = float32. */
export function precisionLetter(dtype: DType): 'd' | 's' {
  return dtypeInfo(dtype).letter;
}

/** The C++ spelling of the element type. */
export function cType(dtype: DType): 'double' | 'float' {
  return dtypeInfo(dtype).cuda.type;
}

/** Bytes per element. */
export function elementBytes(dtype: DType): number {
  return dtypeInfo(dtype).bytes;
}

/** The lines every generated kernel starts with: `typedef double real;` and a fused multiply-add. */
export function precisionPrelude(dtype: DType): string {
  const t = cType(dtype);
  return `typedef ${t} real;
// a * b + c, rounded once (DFMA / FFMA).
static __device__ __forceinline__ real fmaReal(real a, real b, real c) { return ${cudaMath(dtype, 'fma')}(a, b, c); }`;
}

/** Typed sqrt, |x| and +infinity (NVRTC has no <cmath> overloads or INFINITY without headers). */
export function mathHelpers(dtype: DType): string {
  return `static __device__ __forceinline__ real sqrtReal(real x) { return ${cudaMath(dtype, 'sqrt')}(x); }
static __device__ __forceinline__ real absReal(real x) { return ${cudaMath(dtype, 'fabs')}(x); }
static __device__ __forceinline__ real infReal() { return ${dtypeInfo(dtype).cuda.infinity}; }`;
}

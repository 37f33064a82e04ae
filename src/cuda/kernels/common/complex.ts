/**
 * Complex elements in generated kernels: `real2`, a pair (x = re, y = im) of the kernel's `real`,
 * laid out as the API's interleaved arrays (and cuBLAS's cuDoubleComplex / cuFloatComplex), with
 * the arithmetic spelled out as fused multiply-adds on the parts. A generator that takes complex
 * data keeps `real` as the component type (precisionPrelude) and adds these lines after it.
 *
 * Conjugation is folded into the multiply-add (`complexMultiplyAdd`): conj(a) b differs from a b
 * only in the signs of the a.y terms, which an FFMA/DFMA negates for free, so op(X) = X^H costs no
 * instruction and the operands travel as stored.
 */
import type { DType } from '../../../core/dtype.js';
import { complexInfo, complexOf, cudaMath, dtypeInfo } from '../../../core/dtype-table.js';

/** Which operands of a complex product enter conjugated (op 'C'). */
export interface Conjugations {
  readonly conjA: boolean;
  readonly conjB: boolean;
}

/** Bytes of one complex element whose parts are `dtype` (16 for complex128, 8 for complex64). */
export function complexBytes(dtype: DType): number {
  return complexInfo(complexOf(dtype)).bytes;
}

/** The BLAS letter of the complex type whose parts are `dtype` (z, c). */
export function complexLetter(dtype: DType): 'z' | 'c' {
  return complexInfo(complexOf(dtype)).letter;
}

/**
 * The `real2` type and its helpers (after precisionPrelude, which defines `real` and `fmaReal`):
 * aligned to its size so that one element is one 16-byte (complex128) or 8-byte load.
 */
export function complexPrelude(dtype: DType): string {
  const align = 2 * dtypeInfo(dtype).bytes;
  return `// A complex element: (x, y) = (re, im), interleaved as in memory.
struct __align__(${align}) real2 { real x, y; };
static __device__ __forceinline__ real2 makeReal2(real x, real y) { real2 z; z.x = x; z.y = y; return z; }
// a * b (each part one multiply and one fused multiply-add).
static __device__ __forceinline__ real2 mulReal2(real2 a, real2 b) {
  return makeReal2(fmaReal(a.x, b.x, -(a.y * b.y)), fmaReal(a.x, b.y, a.y * b.x));
}
// alpha * x + beta * y.
static __device__ __forceinline__ real2 axpbyReal2(real2 alpha, real2 x, real2 beta, real2 y) {
  real2 z = mulReal2(alpha, x);
  z.x = fmaReal(beta.x, y.x, z.x); z.x = fmaReal(-beta.y, y.y, z.x);
  z.y = fmaReal(beta.x, y.y, z.y); z.y = fmaReal(beta.y, y.x, z.y);
  return z;
}`;
}

/**
 * `static real2 fmaOp(real2 a, real2 b, real2 c)`: c + op(a) op(b) with op a conjugation where
 * `c` says, as four fused multiply-adds (8 flops). With sa, sb the signs of the imaginary parts:
 * re += a.x b.x - sa sb a.y b.y, im += sb a.x b.y + sa a.y b.x.
 */
export function complexMultiplyAdd(c: Conjugations): string {
  const sa = c.conjA ? -1 : 1;
  const sb = c.conjB ? -1 : 1;
  const neg = (s: number): string => (s < 0 ? '-' : '');
  return `// c + ${c.conjA ? 'conj(a)' : 'a'} * ${c.conjB ? 'conj(b)' : 'b'}: four fused multiply-adds.
static __device__ __forceinline__ real2 fmaOp(real2 a, real2 b, real2 c) {
  c.x = fmaReal(a.x, b.x, c.x); c.x = fmaReal(${neg(-sa * sb)}a.y, b.y, c.x);
  c.y = fmaReal(${neg(sb)}a.x, b.y, c.y); c.y = fmaReal(${neg(sa)}a.y, b.x, c.y);
  return c;
}`;
}

// The lines both the Cholesky's and the LU's helpers emit (each kernel includes one of the two).
const CONJ_REAL2 = 'static __device__ __forceinline__ real2 conjReal2(real2 a) { return makeReal2(a.x, -a.y); }';
const FMS_REAL2 = `static __device__ __forceinline__ real2 fmsReal2(real2 a, real2 b, real2 c) {
  c.x = fmaReal(-a.x, b.x, c.x); c.x = fmaReal(a.y, b.y, c.x);
  c.y = fmaReal(-a.x, b.y, c.y); c.y = fmaReal(-a.y, b.x, c.y);
  return c;
}`;
/** A pair through a warp shuffle, from lane `lane` (the parameter's name as each family's kernels were written). */
const shflReal2 = (lane: string): string => `static __device__ __forceinline__ real2 shflReal2(real2 v, int ${lane}) {
  return makeReal2(__shfl_sync(0xffffffffu, v.x, ${lane}), __shfl_sync(0xffffffffu, v.y, ${lane}));
}`;

/**
 * Helpers of the complex factorizations and substitutions (after complexPrelude): conjugation, a
 * real scale, the three multiply-subtracts a Cholesky and its solves need (c - a b, c - a conj(b),
 * c - conj(a) b; each four fused multiply-adds, the conjugation folded into the signs), the
 * reciprocal of a pivot and a warp shuffle of a pair.
 *
 * The reciprocal is Smith's: the ratio of the smaller part to the larger keeps |d|^2 from
 * overflowing or underflowing where |d| itself is representable (the complex reference divides
 * the same way, cpu/complex/scalar.ts); a real d (im 0) gives exactly (1 / d.x, 0).
 */
export function complexFactorHelpers(): string {
  return `${CONJ_REAL2}
static __device__ __forceinline__ real2 scaleReal2(real s, real2 a) { return makeReal2(s * a.x, s * a.y); }
// c - a b.
${FMS_REAL2}
// c - a conj(b).
static __device__ __forceinline__ real2 fmsConjBReal2(real2 a, real2 b, real2 c) {
  c.x = fmaReal(-a.x, b.x, c.x); c.x = fmaReal(-a.y, b.y, c.x);
  c.y = fmaReal(a.x, b.y, c.y); c.y = fmaReal(-a.y, b.x, c.y);
  return c;
}
// c - conj(a) b.
static __device__ __forceinline__ real2 fmsConjAReal2(real2 a, real2 b, real2 c) {
  c.x = fmaReal(-a.x, b.x, c.x); c.x = fmaReal(-a.y, b.y, c.x);
  c.y = fmaReal(-a.x, b.y, c.y); c.y = fmaReal(a.y, b.x, c.y);
  return c;
}
// 1 / d by Smith's ratio (no overflow of |d|^2).
static __device__ __forceinline__ real2 recipReal2(real2 d) {
  if (absReal(d.x) >= absReal(d.y)) {
    const real q = d.y / d.x, s = real(1) / (d.x + d.y * q);
    return makeReal2(s, -q * s);
  }
  const real q = d.x / d.y, s = real(1) / (d.y + d.x * q);
  return makeReal2(q * s, -s);
}
${shflReal2('from')}`;
}

/** |a| by hypot (no overflow): the complex factorisations' and the complex Jacobi designs'. */
export const modulusReal2 = (dtype: DType): string =>
  `static __device__ __forceinline__ real modulusReal2(real2 a) { return ${cudaMath(dtype, 'hypot')}(a.x, a.y); }`;

/**
 * The scalar helpers of the complex factorisations and solves (after complexPrelude and
 * mathHelpers): the conjugate; |re| + |im|, LAPACK's dcabs1, the magnitude izamax compares (so a
 * pivot search picks what the reference's does); the modulus by hypot (no overflow); division by
 * Smith's algorithm (no overflow of |b|^2, as the reference's divideInto, so a zero or NaN divisor
 * gives Inf or NaN alike); c - a b as four fused multiply-adds; and a pair through a warp shuffle.
 */
export function complexScalarHelpers(dtype: DType): string {
  return `${CONJ_REAL2}
static __device__ __forceinline__ real abs1Real2(real2 a) { return absReal(a.x) + absReal(a.y); }
${modulusReal2(dtype)}
static __device__ __forceinline__ bool isZeroReal2(real2 a) { return a.x == real(0) && a.y == real(0); }
// a / b by Smith's algorithm: the ratio of b's smaller part to its larger one never overflows.
static __device__ __forceinline__ real2 divReal2(real2 a, real2 b) {
  if (absReal(b.x) >= absReal(b.y)) {
    const real q = b.y / b.x, d = b.x + b.y * q;
    return makeReal2((a.x + a.y * q) / d, (a.y - a.x * q) / d);
  }
  const real q = b.x / b.y, d = b.y + b.x * q;
  return makeReal2((a.x * q + a.y) / d, (a.y * q - a.x) / d);
}
// c - a * b.
${FMS_REAL2}
// Lane src's pair, to every lane of the warp.
${shflReal2('src')}`;
}

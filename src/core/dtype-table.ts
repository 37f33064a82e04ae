/**
 * The element types' table: every fact about an element type that code would otherwise branch on
 * (size, real or complex, precision, the generators' spellings), so that a generator, a planner or
 * an allocator asks the table for the fact it needs and a new element type is one entry here.
 *
 * The real types (`DType`) have the full entry every kernel generator reads. The complex types
 * (`ComplexDType`: complex128, complex64) have an entry of their own (`ComplexInfo`): a complex
 * element is a pair of its real component type, stored interleaved in that type's host array, so
 * most facts (eps, safeMin, the array) are the component's, and the table names the rest (size,
 * LAPACK letter, the generators' spellings). `elementInfo` answers for either kind.
 */
import type { ComplexDType, DType, ElementType, FloatArray } from './dtype.js';

/** How generated CUDA C++ spells a type and its helpers. */
export interface CudaSpelling {
  /** The C++ element type, as in `typedef double real;`. */
  readonly type: 'double' | 'float';
  /** Suffix of the CUDA math library's functions of this precision (`sqrt` + 'f' = `sqrtf`). */
  readonly mathSuffix: '' | 'f';
  /** Letter of the precision's intrinsics (`__drcp_rn`, `__frcp_rn`). */
  readonly intrinsic: 'd' | 'f';
  /** Suffix of a floating literal of the type ('1e18' + 'f'). */
  readonly literalSuffix: '' | 'f';
  /** The built-in 16-byte vector type and its members in memory order. */
  readonly vector: { readonly type: 'double2' | 'float4'; readonly members: readonly string[] };
  /** The intrinsic that reinterprets a value as an integer of its width (ordered as the value where non-negative). */
  readonly toBits: '__double_as_longlong' | '__float_as_uint';
  /** Literal expressions of the type: the largest finite value, the smallest normal, eps (`DTypeInfo.eps`), +infinity, a quiet NaN. */
  readonly max: string;
  readonly safeMin: string;
  readonly eps: string;
  readonly infinity: string;
  readonly nan: string;
  /** PTX: the type suffix (`fma.rn.f64`), also a kernel argument's type, and the inline-asm register constraint. */
  readonly ptx: { readonly type: 'f64' | 'f32'; readonly register: 'd' | 'f' };
  /** The vendor libraries' `cudaDataType` (CUDA_R_64F = 1, CUDA_R_32F = 0). */
  readonly dataType: number;
}

/** What the library knows of one element type. */
export interface DTypeInfo {
  readonly name: DType;
  /** Bytes per element (a complex element: both parts). */
  readonly bytes: number;
  /** 'real', or 'complex' for a pair of `real` values. */
  readonly field: 'real' | 'complex';
  /** The dtype of one part: the type itself for a real type. */
  readonly real: DType;
  /** IEEE precision of a part: binary64 ('double') or binary32 ('single'). */
  readonly precision: 'double' | 'single';
  /** The BLAS/LAPACK precision letter (dgemm, sgemm). */
  readonly letter: 'd' | 's';
  /** Machine epsilon as LAPACK's dlamch('E') * 2 (the spacing of numbers near 1). */
  readonly eps: number;
  /** Unit roundoff u = eps / 2. */
  readonly unitRoundoff: number;
  /** The smallest positive normal number (LAPACK's dlamch('S')). */
  readonly safeMin: number;
  /** Elements per 16-byte vector (CUDA double2 / float4, WebAssembly f64x2 / f32x4). */
  readonly vectorLanes: number;
  /** The host array: its name (as `typedArrayName` reads it) and a zeroed one of `length` elements. */
  readonly array: { readonly name: 'Float64Array' | 'Float32Array'; readonly create: (length: number) => FloatArray };
  /** Whether JavaScript arithmetic (binary64) must round each stored value to the type (Math.fround). */
  readonly jsRounds: boolean;
  /**
   * The largest magnitude that rounds to zero when a float64 value is stored as this type (round
   * to nearest even): 0 for float64, 2^-150 for float32 (half the smallest subnormal, a tie, goes
   * to the even 0). The CPU LU paths, which factor float32 in float64, count a pivot within it as
   * zero (info = k), since U(k, k) stores as zero (complex: both parts within it); they test
   * `!(|p| <= zeroMax)` for nonzero, so that a NaN pivot is not zero.
   */
  readonly zeroMax: number;
  readonly cuda: CudaSpelling;
}

/**
 * A real type's entry from its facts: the unit roundoff (eps / 2) and the CUDA literals of eps and
 * safeMin are derived from the numbers rather than written a second time.
 */
function realType(e: Omit<DTypeInfo, 'unitRoundoff' | 'cuda'> & { cuda: Omit<CudaSpelling, 'eps' | 'safeMin'> }): DTypeInfo {
  const literal = (x: number): string => String(x) + e.cuda.literalSuffix;
  return { ...e, unitRoundoff: e.eps / 2, cuda: { ...e.cuda, safeMin: literal(e.safeMin), eps: literal(e.eps) } };
}

const DTYPES: Readonly<Record<DType, DTypeInfo>> = {
  float64: realType({
    name: 'float64', bytes: 8, field: 'real', real: 'float64', precision: 'double', letter: 'd',
    eps: 2.220446049250313e-16, safeMin: 2.2250738585072014e-308, vectorLanes: 2,
    array: { name: 'Float64Array', create: (length) => new Float64Array(length) },
    jsRounds: false,
    zeroMax: 0,
    cuda: {
      type: 'double', mathSuffix: '', intrinsic: 'd', literalSuffix: '',
      vector: { type: 'double2', members: ['x', 'y'] },
      toBits: '__double_as_longlong',
      max: '1.7976931348623157e308',
      infinity: '__longlong_as_double(0x7ff0000000000000LL)', nan: '__longlong_as_double(0x7ff8000000000000LL)',
      ptx: { type: 'f64', register: 'd' },
      dataType: 1,
    },
  }),
  float32: realType({
    name: 'float32', bytes: 4, field: 'real', real: 'float32', precision: 'single', letter: 's',
    eps: 1.1920928955078125e-7, safeMin: 1.1754943508222875e-38, vectorLanes: 4,
    array: { name: 'Float32Array', create: (length) => new Float32Array(length) },
    jsRounds: true,
    zeroMax: 2 ** -150,
    cuda: {
      type: 'float', mathSuffix: 'f', intrinsic: 'f', literalSuffix: 'f',
      vector: { type: 'float4', members: ['x', 'y', 'z', 'w'] },
      toBits: '__float_as_uint',
      max: '3.4028234663852886e38f',
      infinity: '__int_as_float(0x7f800000)', nan: '__int_as_float(0x7fc00000)',
      ptx: { type: 'f32', register: 'f' },
      dataType: 0,
    },
  }),
};

/** How C and CUDA libraries spell a complex type (the generated kernels' own pair, `real2` of kernels/common/complex.ts, has its layout). */
export interface ComplexSpelling {
  /** CUDA C++: the cuComplex.h type. */
  readonly cuda: 'cuDoubleComplex' | 'cuFloatComplex';
  /** C99 / C++ std: the complex type of the component precision. */
  readonly c: 'double _Complex' | 'float _Complex';
  /** The vendor libraries' `cudaDataType` (CUDA_C_64F = 5, CUDA_C_32F = 4). */
  readonly dataType: number;
}

/** What the library knows of one complex element type. */
export interface ComplexInfo {
  readonly name: ComplexDType;
  /** Bytes per element: both parts. */
  readonly bytes: number;
  readonly field: 'complex';
  /** The real dtype of each part (and of the host array that holds the pairs). */
  readonly real: DType;
  /** Floats of `real` per element (re, im interleaved). */
  readonly parts: 2;
  /** IEEE precision of a part. */
  readonly precision: 'double' | 'single';
  /** The BLAS/LAPACK precision letter (zgemm, cgemm). */
  readonly letter: 'z' | 'c';
  readonly spelling: ComplexSpelling;
}

const COMPLEX: Readonly<Record<ComplexDType, ComplexInfo>> = {
  complex128: {
    name: 'complex128', bytes: 16, field: 'complex', real: 'float64', parts: 2, precision: 'double', letter: 'z',
    spelling: { cuda: 'cuDoubleComplex', c: 'double _Complex', dataType: 5 },
  },
  complex64: {
    name: 'complex64', bytes: 8, field: 'complex', real: 'float32', parts: 2, precision: 'single', letter: 'c',
    spelling: { cuda: 'cuFloatComplex', c: 'float _Complex', dataType: 4 },
  },
};

/** Every complex element type, in the table's order. */
export const ALL_COMPLEX_DTYPES: readonly ComplexDType[] = Object.keys(COMPLEX) as ComplexDType[];

/** True for the name of a complex element type. */
export function isComplexDType(x: unknown): x is ComplexDType {
  return typeof x === 'string' && Object.hasOwn(COMPLEX, x);
}

/** True for the name of any element type a batch may hold (real or complex). */
export function isElementType(x: unknown): x is ElementType {
  return isDType(x) || isComplexDType(x);
}

/** The complex table's entry of `dtype`. */
export function complexInfo(dtype: ComplexDType): ComplexInfo {
  return COMPLEX[dtype];
}

/** The facts every element type has, real or complex. */
export interface ElementInfo {
  readonly name: ElementType;
  readonly bytes: number;
  readonly field: 'real' | 'complex';
  /** The real dtype of a part (and of the host array); the type itself for a real type. */
  readonly real: DType;
  /** Floats of `real` per element: 1 or 2. */
  readonly parts: 1 | 2;
  readonly precision: 'double' | 'single';
  readonly letter: 'd' | 's' | 'z' | 'c';
}

/** The entry of any element type. */
export function elementInfo(type: ElementType): ElementInfo {
  if (isComplexDType(type)) return COMPLEX[type];
  const t = DTYPES[type];
  return { name: t.name, bytes: t.bytes, field: t.field, real: t.real, parts: 1, precision: t.precision, letter: t.letter };
}

/** The complex type whose parts are the real `dtype` (float64 -> complex128). */
export function complexOf(dtype: DType): ComplexDType {
  return ALL_COMPLEX_DTYPES.find((c) => COMPLEX[c].real === dtype)!;
}

/** The table's entry of `dtype`. */
export function dtypeInfo(dtype: DType): DTypeInfo {
  return DTYPES[dtype];
}

/** Every element type, in the table's order. */
export const ALL_DTYPES: readonly DType[] = Object.keys(DTYPES) as DType[];

/** True for the name of an element type (device memory's dtype may also be an integer type). */
export function isDType(x: unknown): x is DType {
  return typeof x === 'string' && Object.hasOwn(DTYPES, x);
}

/** The element type of a typed-array kind ('Float64Array' -> 'float64'), or undefined. */
export function dtypeOfArrayName(name: string | undefined): DType | undefined {
  return ALL_DTYPES.find((d) => DTYPES[d].array.name === name);
}

/**
 * One of two values by the precision of `dtype`'s parts: for an algorithm's constants that are a
 * choice per precision (a scaling range, a threshold), not a fact of the type.
 */
export function byPrecision<T>(dtype: DType, choices: { readonly double: T; readonly single: T }): T {
  return choices[DTYPES[dtype].precision];
}

/** `expr` rounded to `dtype` where JavaScript's binary64 arithmetic needs it (`Math.fround(expr)` for float32). */
export function jsRound(dtype: DType, expr: string): string {
  return DTYPES[dtype].jsRounds ? `Math.fround(${expr})` : expr;
}

/**
 * JavaScript source of the test that a pivot, the float64 values `parts` (one, or a complex
 * number's two), does not store as zero in `dtype` (DTypeInfo.zeroMax): `p !== 0` (complex
 * `re !== 0 || im !== 0`) for float64, as cheap as ever; for float32 `!(Math.abs(p) <= 2^-150)`
 * (complex: both parts within it), which keeps a NaN nonzero.
 */
export function jsStoresNonzero(dtype: DType, ...parts: readonly string[]): string {
  const max = DTYPES[dtype].zeroMax;
  if (max === 0) return parts.map((x) => `${x} !== 0`).join(' || ');
  return `!(${parts.map((x) => `Math.abs(${x}) <= ${max}`).join(' && ')})`;
}

/** The CUDA math library's function `name` of `dtype`'s precision (`cudaMath('float32', 'sqrt')` = 'sqrtf'). */
export function cudaMath(dtype: DType, name: 'fma' | 'sqrt' | 'rsqrt' | 'fabs' | 'hypot' | 'ldexp' | 'ilogb'): string {
  return name + DTYPES[dtype].cuda.mathSuffix;
}

/** A floating literal of `dtype` in CUDA ('1e18' -> '1e18f' for float32). */
export function cudaLiteral(dtype: DType, text: string): string {
  return text + DTYPES[dtype].cuda.literalSuffix;
}

/** Element types device memory holds: the matrices' and the integer types of info and pivots. */
export type StorageDType = DType | 'int32' | 'int64';

/** Bytes and host arrays of every type device memory holds. */
export interface StorageInfo {
  readonly bytes: number;
  readonly arrayName: 'Float64Array' | 'Float32Array' | 'Int32Array' | 'BigInt64Array';
  readonly create: (length: number) => Float64Array | Float32Array | Int32Array | BigInt64Array;
}

const STORAGE: Readonly<Record<StorageDType, StorageInfo>> = {
  ...Object.fromEntries(ALL_DTYPES.map((d) => [d, { bytes: DTYPES[d].bytes, arrayName: DTYPES[d].array.name, create: DTYPES[d].array.create }])) as Record<DType, StorageInfo>,
  int32: { bytes: 4, arrayName: 'Int32Array', create: (length) => new Int32Array(length) },
  int64: { bytes: 8, arrayName: 'BigInt64Array', create: (length) => new BigInt64Array(length) },
};

/** The storage table's entry of `dtype`. */
export function storageInfo(dtype: StorageDType): StorageInfo {
  return STORAGE[dtype];
}

/** The storage type of a typed-array kind ('Int32Array' -> 'int32'), or undefined. */
export function storageOfArrayName(name: string | undefined): StorageDType | undefined {
  return (Object.keys(STORAGE) as StorageDType[]).find((d) => STORAGE[d].arrayName === name);
}

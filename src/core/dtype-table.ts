/**
 * The element types' table: every fact about an element type that code would otherwise branch on
 * (size, real or complex, precision, the generators' spellings), so that a generator, a planner or
 * an allocator asks the table for the fact it needs and a new element type is one entry here.
 *
 * Only real types so far. A complex type (complex64, complex128) becomes an entry with `field`
 * 'complex' and `real` naming the dtype of its parts; the entries are `Record`s over the types,
 * so the compiler lists every table that still lacks it.
 */
import type { DType, FloatArray } from './dtype.js';

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

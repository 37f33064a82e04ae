/**
 * The complex kernels' plan (potrf, posv, potrs, getrf, gesv, getrs, gemm and trsm on complex128 and
 * complex64): the generated JavaScript (for gemm and LU also WebAssembly) or the complex reference. Pure: the tuning table and
 * `force` decide.
 */
import type { ComplexDType } from '../../core/dtype.js';
import { ZGESVD_INTERLEAVED_MAX_COLUMNS } from '../kernels/zgesvd-interleaved.js';
import type { ComplexOp } from '../../core/op-specs.js';
import type { CpuTuning } from '../tuning.js';

export type ComplexFactorOp = 'potrf' | 'posv' | 'potrs' | 'getrf' | 'gesv' | 'getrs';
/** unrolled: kernels/zpotrf-js.ts, zgetrf-js.ts, zgemm-js.ts or ztrsm-js.ts; reference: src/cpu/complex's code. */
export type ComplexVariant = 'reference' | 'unrolled';
export interface ComplexProblem { readonly op: ComplexFactorOp; readonly m: number; readonly n: number }
export interface ComplexForce { readonly variant?: ComplexVariant }

export function planComplex(p: ComplexProblem, tuning: CpuTuning, force: ComplexForce = {}): ComplexVariant {
  if (p.n === 0 || p.m !== p.n) return 'reference';
  if (force.variant) return force.variant;
  const max = tuning.complexUnrollMax;
  const limit = p.op === 'potrf' || p.op === 'posv' ? max.cholesky : p.op === 'potrs' ? max.potrs : p.op === 'gesv' ? max.gesv : max.lu;
  return p.n <= limit ? 'unrolled' : 'reference';
}

export type ComplexLuOp = 'getrf' | 'gesv' | 'getrs';
export interface ComplexLuProblem { readonly op: ComplexLuOp; readonly m: number; readonly n: number; readonly trans: ComplexOp }
/** LU's variants: wasm is kernels/zgetrf-wasm.ts (getrs with trans 'N' only). */
export type ComplexLuVariant = ComplexVariant | 'wasm';
export interface ComplexLuForce { readonly variant?: ComplexLuVariant }

/**
 * getrf, gesv, getrs: the WebAssembly kernel while n is within `complexLuWasm`'s range for the
 * op (square; getrs only with trans 'N'), else as planComplex. A forced 'wasm' where it does not
 * apply (getrs 'T' / 'C') is the JavaScript kernel.
 */
export function planComplexLu(p: ComplexLuProblem, tuning: CpuTuning, force: ComplexLuForce = {}): ComplexLuVariant {
  if (p.n === 0 || p.m !== p.n) return 'reference';
  const wasmFits = p.op !== 'getrs' || p.trans === 'N';
  if (force.variant) return force.variant === 'wasm' && !wasmFits ? 'unrolled' : force.variant;
  const range = tuning.complexLuWasm[p.op];
  if (wasmFits && p.n >= range.min && p.n <= range.max) return 'wasm';
  return planComplex(p, tuning);
}

export interface ComplexGemmProblem { readonly m: number; readonly n: number; readonly k: number; readonly alphaZero: boolean; readonly dtype: ComplexDType }
/** gemm's variants: wasm is kernels/zgemm-wasm.ts. */
export type ComplexGemmVariant = ComplexVariant | 'wasm';
export interface ComplexGemmForce { readonly variant?: ComplexGemmVariant }

/**
 * gemm: the WebAssembly kernel while the largest dimension is within `complexGemmWasm`'s range for the dtype (alpha
 * non-zero and k > 0: the reference's quick paths are the JavaScript kernel's), else the
 * JavaScript kernel while no dimension exceeds `complexUnrollMax.gemm`, else the reference.
 * A forced 'wasm' where it does not apply is the JavaScript kernel.
 */
export function planComplexGemm(p: ComplexGemmProblem, tuning: CpuTuning, force: ComplexGemmForce = {}): ComplexGemmVariant {
  if (p.m === 0 || p.n === 0) return 'reference';
  const wasmFits = !p.alphaZero && p.k > 0;
  if (force.variant) return force.variant === 'wasm' && !wasmFits ? 'unrolled' : force.variant;
  const size = Math.max(p.m, p.n, p.k);
  const range = tuning.complexGemmWasm[p.dtype];
  if (wasmFits && size >= range.min && size <= range.max) return 'wasm';
  return size <= tuning.complexUnrollMax.gemm ? 'unrolled' : 'reference';
}

export interface ComplexTrsmProblem { readonly n: number; readonly nvec: number }

/** trsm: the kernel while T's order (n) is at most `complexUnrollMax.trsm` (and B is not empty). */
export function planComplexTrsm(p: ComplexTrsmProblem, tuning: CpuTuning, force: ComplexForce = {}): ComplexVariant {
  if (p.n === 0 || p.nvec === 0) return 'reference';
  if (force.variant) return force.variant;
  return p.n <= tuning.complexUnrollMax.trsm ? 'unrolled' : 'reference';
}

export interface ComplexCholeskyProblem { readonly op: 'potrf' | 'posv' | 'potrs'; readonly m: number; readonly n: number; readonly dtype: ComplexDType }
/** potrf/posv/potrs's variants: wasm is kernels/zpotrf-wasm.ts. */
export type ComplexCholeskyVariant = ComplexVariant | 'wasm';
export interface ComplexCholeskyForce { readonly variant?: ComplexCholeskyVariant }

/**
 * potrf/posv/potrs: the WebAssembly kernel while n is within `complexCholeskyWasm`'s range (the
 * dtype's `factor` range for potrf and posv, `potrs` for potrs), else as planComplex. Square only.
 */
export function planComplexCholesky(p: ComplexCholeskyProblem, tuning: CpuTuning, force: ComplexCholeskyForce = {}): ComplexCholeskyVariant {
  if (p.n === 0 || p.m !== p.n) return 'reference';
  if (force.variant) return force.variant;
  const range = p.op === 'potrs' ? tuning.complexCholeskyWasm.potrs : tuning.complexCholeskyWasm.factor[p.dtype];
  if (p.n >= range.min && p.n <= range.max) return 'wasm';
  return planComplex(p, tuning);
}

/** geqrf's, getri's and gesvd's variants: wasm is kernels/zgeqrf-interleaved.ts, zgetri-interleaved.ts or zgesvd-interleaved.ts. */
export type ComplexPairVariant = 'reference' | 'wasm';
export interface ComplexPairForce { readonly variant?: ComplexPairVariant }
export interface ComplexQrProblem { readonly op: 'geqrf' | 'orgqr' | 'getri' | 'gesvd'; readonly m: number; readonly n: number; /** orgqr's reflectors */ readonly k?: number }

/**
 * geqrf (m x n), orgqr (m >= n >= k >= 1), getri (square) and gesvd (m x n): the two-matrix
 * WebAssembly kernel while max(m, n) is within `complexQrWasmPairs` (geqrf, orgqr),
 * `complexGetriWasmPairs` (getri) or `complexGesvdWasmPairs` (gesvd), else the reference.
 */
export function planComplexPairs(p: ComplexQrProblem, tuning: CpuTuning, force: ComplexPairForce = {}): ComplexPairVariant {
  if (p.m === 0 || p.n === 0 || (p.op === 'getri' && p.m !== p.n)) return 'reference';
  if (p.op === 'orgqr' && !((p.k ?? 0) >= 1 && (p.k ?? 0) <= p.n && p.n <= p.m)) return 'reference';
  if (p.op === 'gesvd' && Math.min(p.m, p.n) > ZGESVD_INTERLEAVED_MAX_COLUMNS) return 'reference';
  if (force.variant) return force.variant;
  const range = p.op === 'getri' ? tuning.complexGetriWasmPairs : p.op === 'gesvd' ? tuning.complexGesvdWasmPairs : tuning.complexQrWasmPairs;
  const size = Math.max(p.m, p.n);
  return size >= range.min && size <= range.max ? 'wasm' : 'reference';
}

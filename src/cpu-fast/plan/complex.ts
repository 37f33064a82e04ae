/**
 * The complex kernels' plan (potrf, posv, potrs, getrf, gesv, getrs, gemm and trsm on complex128 and
 * complex64): the generated JavaScript or the complex reference. Pure: the tuning table and
 * `force` decide.
 */
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

export interface ComplexGemmProblem { readonly m: number; readonly n: number; readonly k: number }

/** gemm: the kernel while no dimension exceeds `complexUnrollMax.gemm` (and C is not empty). */
export function planComplexGemm(p: ComplexGemmProblem, tuning: CpuTuning, force: ComplexForce = {}): ComplexVariant {
  if (p.m === 0 || p.n === 0) return 'reference';
  if (force.variant) return force.variant;
  return Math.max(p.m, p.n, p.k) <= tuning.complexUnrollMax.gemm ? 'unrolled' : 'reference';
}

export interface ComplexTrsmProblem { readonly n: number; readonly nvec: number }

/** trsm: the kernel while T's order (n) is at most `complexUnrollMax.trsm` (and B is not empty). */
export function planComplexTrsm(p: ComplexTrsmProblem, tuning: CpuTuning, force: ComplexForce = {}): ComplexVariant {
  if (p.n === 0 || p.nvec === 0) return 'reference';
  if (force.variant) return force.variant;
  return p.n <= tuning.complexUnrollMax.trsm ? 'unrolled' : 'reference';
}

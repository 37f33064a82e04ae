/**
 * The complex factorisations' plan (potrf, posv, potrs, getrf, gesv, getrs on complex128 and
 * complex64): the generated JavaScript or the complex reference. Pure: the tuning table and
 * `force` decide.
 */
import type { CpuTuning } from '../tuning.js';

export type ComplexFactorOp = 'potrf' | 'posv' | 'potrs' | 'getrf' | 'gesv' | 'getrs';
/** unrolled: kernels/zpotrf-js.ts or zgetrf-js.ts; reference: src/cpu/complex's code. */
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

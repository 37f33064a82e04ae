/**
 * Which path the fast backend's eigen drivers take: LAPACK's route (a tridiagonal reduction, QL:
 * ops/syev.ts on real data, ops/zheev.ts on complex) while n is within the table's range for the job,
 * else the reference's Jacobi.
 */
import type { CpuTuning, SizeRange } from '../tuning.js';

/** The eigen drivers' variants: tridiagonal is LAPACK's route. */
export type EigenVariant = 'reference' | 'tridiagonal';
export interface EigenForce { readonly variant?: EigenVariant }
type EigenProblem = { readonly n: number; readonly jobz: 'vectors' | 'values' };

/** n = 0: the reference (nothing to do); `force.variant` pins the path; else `ranges[jobz]` holds n. */
export function planEigen(p: EigenProblem, ranges: Readonly<Record<EigenProblem['jobz'], SizeRange>>, force: EigenForce = {}): EigenVariant {
  if (p.n === 0) return 'reference';
  if (force.variant) return force.variant;
  const range = ranges[p.jobz];
  return p.n >= range.min && p.n <= range.max ? 'tridiagonal' : 'reference';
}

/** Real syev: the table's `syevTridiagonal`. */
export const planSyev = (p: EigenProblem, tuning: CpuTuning, force: EigenForce = {}): EigenVariant => planEigen(p, tuning.syevTridiagonal, force);

/** Complex heev: the table's `complexHeevTridiagonal`. */
export const planComplexHeev = (p: EigenProblem, tuning: CpuTuning, force: EigenForce = {}): EigenVariant => planEigen(p, tuning.complexHeevTridiagonal, force);

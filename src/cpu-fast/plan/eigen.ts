/**
 * Which path the fast backend's real syev takes (ops/syev.ts): the tridiagonal one (dsytd2, QL)
 * while n is within the table's `syevTridiagonal` range for the job, else the reference's Jacobi.
 */
import type { CpuTuning } from '../tuning.js';

/** syev's variants: tridiagonal is ops/syev.ts's dsytrd + QL path. */
export type SyevVariant = 'reference' | 'tridiagonal';
export interface SyevForce { readonly variant?: SyevVariant }

/** n = 0: the reference (nothing to do); `force.variant` pins the path. */
export function planSyev(p: { readonly n: number; readonly jobz: 'vectors' | 'values' }, tuning: CpuTuning, force: SyevForce = {}): SyevVariant {
  if (p.n === 0) return 'reference';
  if (force.variant) return force.variant;
  const range = tuning.syevTridiagonal[p.jobz];
  return p.n >= range.min && p.n <= range.max ? 'tridiagonal' : 'reference';
}

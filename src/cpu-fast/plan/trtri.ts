/**
 * The triangular-inverse family's plan (trtri, lauum, potri): the unrolled JavaScript up to
 * unrollMax.inverse, above it the recursive halving over the fast trmm, trsm and syrk
 * (ops/trtri-blocked.ts) up to inverseBlockedMax; the reference beyond and for n = 0. Pure:
 * the tuning table and `force` decide.
 */
import type { CpuTuning } from '../tuning.js';

export type TrtriVariant = 'reference' | 'unrolled' | 'blocked';
export interface TrtriProblem { readonly n: number }
export interface TrtriForce { readonly variant?: TrtriVariant }

export function planTrtri(p: TrtriProblem, tuning: CpuTuning, force: TrtriForce = {}): TrtriVariant {
  if (force.variant) return force.variant;
  if (p.n === 0 || p.n > tuning.inverseBlockedMax) return 'reference';
  return p.n <= tuning.unrollMax.inverse ? 'unrolled' : 'blocked';
}

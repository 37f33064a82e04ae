/**
 * syrk's plan: C's triangle halved recursively over the fast gemm down to the unrolled
 * JavaScript (unrollMax.syrk) up to syrkBlockedMax; the reference beyond, for alpha = 0, k = 0
 * and empty C. Pure: the tuning table and `force` decide.
 */
import type { CpuTuning } from '../tuning.js';

export type SyrkVariant = 'reference' | 'blocked';
export interface SyrkProblem { readonly n: number; readonly k: number; readonly alpha: number }
export interface SyrkForce { readonly variant?: SyrkVariant }

export function planSyrk(p: SyrkProblem, tuning: CpuTuning, force: SyrkForce = {}): SyrkVariant {
  if (force.variant) return force.variant;
  return p.alpha === 0 || p.k === 0 || p.n === 0 || p.n > tuning.syrkBlockedMax ? 'reference' : 'blocked';
}

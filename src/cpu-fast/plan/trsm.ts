/**
 * trsm's and trmm's plan: the recursive halving over the fast gemm (ops/trsm-blocked.ts)
 * down to the unrolled JavaScript leaves, or for trsm 'left' from trsmLeftWasm.min down to the
 * WebAssembly solves (whole up to trsmLeftWasm.max); the reference beyond
 * triangularBlockedMax, for alpha = 0 and for empty B. Pure: the tuning table and `force` decide.
 */
import type { DType } from '../../core/dtype.js';
import type { Side } from '../../core/enums.js';
import type { CpuTuning } from '../tuning.js';

/** blocked: leaves of at most unrollMax.triangular on the unrolled kernels; blockedWasm: leaves of at most trsmLeftWasm.max on the WebAssembly solves. */
export type TrsmVariant = 'reference' | 'blocked' | 'blockedWasm';
export interface TrsmProblem {
  readonly op: 'trsm' | 'trmm';
  readonly side: Side;
  /** B's rows and columns. */
  readonly rows: number;
  readonly cols: number;
  readonly alpha: number;
  readonly dtype: DType;
}
export interface TrsmForce { readonly variant?: TrsmVariant }

export function planTrsm(p: TrsmProblem, tuning: CpuTuning, force: TrsmForce = {}): TrsmVariant {
  if (force.variant) return force.variant;
  const left = p.side === 'left';
  const s = left ? p.rows : p.cols;
  if (p.alpha === 0 || p.rows === 0 || p.cols === 0 || s > tuning.triangularBlockedMax) return 'reference';
  return p.op === 'trsm' && left && s >= tuning.trsmLeftWasm[p.dtype].min ? 'blockedWasm' : 'blocked';
}

/** The largest triangle a variant's leaves take. */
export const trsmLeafMax = (variant: TrsmVariant, tuning: CpuTuning, dtype: DType): number =>
  variant === 'blockedWasm' ? tuning.trsmLeftWasm[dtype].max : tuning.unrollMax.triangular;

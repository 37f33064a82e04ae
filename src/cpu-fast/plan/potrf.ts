/**
 * The Cholesky family's plan (potrf, posv, potrs): which design serves a run of matrices of
 * order n. Pure: the tuning table and `force` decide. 'interleaved' and 'composed' need a strided
 * layout that suits (checked by their runners); where it does not, the run takes `otherwise`.
 */
import type { DType } from '../../core/dtype.js';
import type { CholeskyOp } from '../kernels/potrf-js.js';
import type { CpuTuning } from '../tuning.js';

export type { CholeskyOp };
/**
 * reference: src/cpu's code; unrolled: generated JavaScript, the triangle in locals; wasm: the
 * WebAssembly Cholesky ('upper' through its transpose; posv solves after it); solveWasm: potrs on
 * the WebAssembly triangular solves; interleaved: two matrices per f64x2 vector (posv's solve
 * fused); composed: posv as the interleaved potrf, then the WebAssembly potrs.
 */
export type PotrfVariant = 'reference' | 'unrolled' | 'wasm' | 'solveWasm' | 'interleaved' | 'composed';
export interface PotrfProblem { readonly op: CholeskyOp; readonly n: number; readonly dtype: DType; readonly count: number }
export interface PotrfForce { readonly variant?: PotrfVariant }
export interface PotrfPlan { readonly variant: PotrfVariant; readonly otherwise: PotrfVariant }

const inRange = (n: number, r: { readonly min: number; readonly max: number }): boolean => n >= r.min && n <= r.max;

export function planPotrf(p: PotrfProblem, tuning: CpuTuning, force: PotrfForce = {}): PotrfPlan {
  const { op, n, dtype, count } = p;
  if (force.variant) return { variant: force.variant, otherwise: 'unrolled' };
  if (op === 'potrs' && n > tuning.unrollMax.potrs) return plain(n > tuning.triSolveWasmMax ? 'reference' : 'solveWasm');
  if (n > tuning.unrollMax.cholesky) return plain(n > tuning.choleskyWasmMax ? 'reference' : 'wasm');
  if (op === 'posv' && count >= 2 && inRange(n, tuning.posvComposed)) return PLANS.composed;
  const interleaved = op === 'potrf' ? tuning.choleskyInterleaved[dtype] : op === 'posv' ? tuning.posvInterleaved : undefined;
  if (interleaved && count >= 2 && inRange(n, interleaved)) return PLANS.interleaved;
  return plain('unrolled');
}

// The plans are shared constants: planned per run, in list batches per matrix, so nothing is allocated.
const VARIANTS: readonly PotrfVariant[] = ['reference', 'unrolled', 'wasm', 'solveWasm', 'interleaved', 'composed'];
/** Each variant's plan: the layout-dependent ones fall back to the unrolled kernel. */
const PLANS = Object.freeze(Object.fromEntries(VARIANTS.map((v) =>
  [v, Object.freeze({ variant: v, otherwise: v === 'interleaved' || v === 'composed' ? 'unrolled' : v })])) as Record<PotrfVariant, PotrfPlan>);
const plain = (variant: PotrfVariant): PotrfPlan => PLANS[variant];

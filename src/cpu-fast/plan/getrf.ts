/**
 * The LU family's plan (getrf, gesv, getrs): which design serves a run of m x n matrices. Pure:
 * the tuning table and `force` decide. 'interleaved' needs a strided layout that suits (checked
 * by its runner); where it does not, the run takes `otherwise`.
 */
import type { DType } from '../../core/dtype.js';
import type { Op } from '../../core/ops.js';
import type { LuOp } from '../kernels/getrf-js.js';
import type { CpuTuning } from '../tuning.js';

export type { LuOp };
/**
 * reference: src/cpu's code; unrolled: generated JavaScript, the matrix in locals; interleaved:
 * gesv two matrices per f64x2 vector; wasm: the unblocked WebAssembly LU; wasmBlock: the
 * delayed-update WebAssembly LU (from luWasmBlock.min); blocked: the recursive LU over the fast gemm; solveWasm: getrs
 * 'N' on the delayed-update kernel's solve; solveTransWasm: getrs 'T' on the triangular solves.
 */
export type GetrfVariant = 'reference' | 'unrolled' | 'interleaved' | 'wasm' | 'wasmBlock' | 'blocked' | 'solveWasm' | 'solveTransWasm';
export interface GetrfProblem { readonly op: LuOp; readonly m: number; readonly n: number; readonly trans: Op; readonly dtype: DType; readonly count: number }
export interface GetrfForce { readonly variant?: GetrfVariant }
export interface GetrfPlan { readonly variant: GetrfVariant; readonly otherwise: GetrfVariant }

export function planGetrf(p: GetrfProblem, tuning: CpuTuning, force: GetrfForce = {}): GetrfPlan {
  if (force.variant) return { variant: force.variant, otherwise: planLayoutFree(p, tuning) };
  const { op, m, n, dtype, count } = p;
  if (op === 'gesv' && count >= 2 && m === n) {
    const range = tuning.gesvInterleaved[dtype];
    if (m >= range.min && m <= range.max) return INTERLEAVED[planLayoutFree(p, tuning)];
  }
  return PLANS[planLayoutFree(p, tuning)];
}

// The plans are shared constants: planned per run, in list batches per matrix, so nothing is allocated.
const VARIANTS: readonly GetrfVariant[] = ['reference', 'unrolled', 'interleaved', 'wasm', 'wasmBlock', 'blocked', 'solveWasm', 'solveTransWasm'];
const table = (variant: (v: GetrfVariant) => GetrfVariant): Record<GetrfVariant, GetrfPlan> =>
  Object.freeze(Object.fromEntries(VARIANTS.map((v) => [v, Object.freeze({ variant: variant(v), otherwise: v })])) as Record<GetrfVariant, GetrfPlan>);
/** PLANS[v]: v; INTERLEAVED[v]: the interleaved kernel, else v. */
const PLANS = table((v) => v);
const INTERLEAVED = table(() => 'interleaved');

/** The plan among the designs that take any layout. */
function planLayoutFree(p: GetrfProblem, tuning: CpuTuning): GetrfVariant {
  const { op, m, n, trans } = p;
  if (op === 'getrs' && trans === 'T' && m > tuning.unrollMax.getrsTrans && m <= tuning.triSolveWasmMax) return 'solveTransWasm';
  if (m > tuning.unrollMax.lu || n > tuning.unrollMax.lu) {
    if (m === 0 || n === 0) return 'reference';
    if (op === 'getrs') return trans !== 'N' || m > tuning.luWasmMax ? 'reference' : 'solveWasm';
    if (Math.min(m, n) >= tuning.luBlocked.min) return 'blocked';
    if (Math.max(m, n) > tuning.luWasmMax) return 'reference';
    return Math.min(m, n) >= tuning.luWasmBlock.min ? 'wasmBlock' : 'wasm';
  }
  return 'unrolled';
}

/**
 * The blocked complex LU for orders above the register designs' (plan.ts COMPLEX_LU_MAX): LAPACK's
 * zgetrf, right-looking, as a list of steps that the launcher runs on sub-blocks of every matrix
 * (launch-blocked.ts) and a CPU emulation replays with the reference's routines
 * (test/cuda/zlu-blocked.test.ts). Per panel of nb columns at `off` (w = min(nb, min(m, n) - off)):
 * - 'panel': zgetf2 on A(off:m, off:off+w) (generate-panel.ts), pivots as rows of the matrix;
 * - 'swap': the panel's interchanges (rows off ... off+w-1 with their pivots) on the columns left
 *   of it and on those right of it (zlaswp);
 * - 'solve': U12 := L11^-1 A12, L11 the panel's unit lower w x w triangle (ztrsm);
 * - 'update': A22 -= L21 U12 (zgemm).
 * The solves (getrs) are the interchanges of B and two triangular solves of order n: 'N' swaps
 * first, 'T' and 'C' last and backward (zgetrs).
 */
import type { ComplexOp } from '../../../core/op-specs.js';
import type { DType } from '../../../core/dtype.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { ComplexPanelParams } from './params.js';

/** Columns a panel: the trsm's triangle is the panel's (the complex trsm kernels' order bound). */
export const COMPLEX_PANEL_WIDTH = 32;
/** Threads of the panel kernel at most (a row a thread, rows strided by the block). */
const PANEL_THREADS_MAX = 256;

export type ComplexLuStep =
  | { readonly kind: 'panel'; readonly off: number; readonly width: number }
  /** Rows k and ipiv[k] swapped for k = from ... to-1, on columns col ... col+cols-1. */
  | { readonly kind: 'swap'; readonly from: number; readonly to: number; readonly col: number; readonly cols: number }
  /** A(off:off+width, col:col+cols) := L11^-1 A(off:off+width, col:col+cols), L11 = A(off:off+width, off:off+width) unit lower. */
  | { readonly kind: 'solve'; readonly off: number; readonly width: number; readonly col: number; readonly cols: number }
  /** A(off+width:m, col:col+cols) -= A(off+width:m, off:off+width) A(off:off+width, col:col+cols). */
  | { readonly kind: 'update'; readonly off: number; readonly width: number; readonly rows: number; readonly col: number; readonly cols: number };

/** The steps of the blocked LU of an m x n matrix, panels of nb columns. */
export function complexLuSteps(m: number, n: number, nb: number = COMPLEX_PANEL_WIDTH): ComplexLuStep[] {
  if (!(Number.isInteger(nb) && nb >= 1)) throw new Error(`panel width must be a positive integer, got ${nb}`);
  const steps: ComplexLuStep[] = [];
  const k = Math.min(m, n);
  for (let off = 0; off < k; off += nb) {
    const w = Math.min(nb, k - off);
    steps.push({ kind: 'panel', off, width: w });
    if (off > 0) steps.push({ kind: 'swap', from: off, to: off + w, col: 0, cols: off });
    const right = n - off - w;
    if (right > 0) {
      steps.push({ kind: 'swap', from: off, to: off + w, col: off + w, cols: right });
      steps.push({ kind: 'solve', off, width: w, col: off + w, cols: right });
      const below = m - off - w;
      if (below > 0) steps.push({ kind: 'update', off, width: w, rows: below, col: off + w, cols: right });
    }
  }
  return steps;
}

export type ComplexSolveStep =
  | { readonly kind: 'swap'; readonly reverse: boolean }
  /** op(T) X = X with T the unit lower triangle of the factor (L) or its upper one (U). */
  | { readonly kind: 'solve'; readonly uplo: 'lower' | 'upper'; readonly trans: ComplexOp };

/** zgetrs's steps: 'N': P B, L \, U \; 'T' / 'C': op(U) \, op(L) \, then P^T (the swaps backward). */
export function complexSolveSteps(trans: ComplexOp): ComplexSolveStep[] {
  if (trans === 'N') return [{ kind: 'swap', reverse: false }, { kind: 'solve', uplo: 'lower', trans }, { kind: 'solve', uplo: 'upper', trans }];
  return [{ kind: 'solve', uplo: 'upper', trans }, { kind: 'solve', uplo: 'lower', trans }, { kind: 'swap', reverse: true }];
}

/** The panel kernel for matrices of m rows: a thread per row to PANEL_THREADS_MAX, whole warps. */
export function planComplexPanel(dtype: DType, m: number, kind: OperandKind, nb: number = COMPLEX_PANEL_WIDTH): ComplexPanelParams {
  const threads = Math.min(PANEL_THREADS_MAX, Math.max(32, Math.ceil(m / 32) * 32));
  return { dtype, kind, nb, threads };
}

/**
 * Which shapes of the bidiagonalization gesvd serve one group of equal-shape matrices, and whether
 * gesvd takes this design (`bidiagServes`, the router's question, from the table). The reduce kernel a
 * thread per row of G (whole warps, at most the table's `maxThreads`, at least 64), the vectors kernel
 * a thread per row of B (whole warps, 64 ... 512), the store BIDIAG_STORE_THREADS; the tridiag family's
 * values and vectors kernels on the Golub-Kahan tridiagonal of order 2K, the upper half of each block.
 * The reduction (`bidiagReduction`): dgebd2 in the one reduce kernel, or from the table's `panelsFrom`
 * (or forced) dgebrd's panels of `panelColumns` columns with the reduce kernel's load and tail stages
 * around them, the panel kernel with the reduce kernel's threads.
 */
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { BidiagTuning } from '../../model/tuning/index.js';
import type { GesvdShape } from '../common/gesvd-shape.js';
import { planSteinKernels, STEIN_MAXITS, steinSlice, TRIDIAG_MAX } from '../tridiag/index.js';
import type { BidiagForce, BidiagReduction, GesvdBidiagPlan } from './params.js';
import { bidiagSlice } from './snippets.js';

/** Threads a block of the store kernel. */
export const BIDIAG_STORE_THREADS = 256;

/** A gesvd problem as this design plans it. */
export type BidiagProblem = GesvdShape;

/** Whether gesvd of m x n `dtype` matrices takes this design (the table's range of min(m, n), max(m, n) <= longMax). */
export function bidiagServes(m: number, n: number, dtype: DType, tuning: BidiagTuning): boolean {
  const k = Math.min(m, n);
  return k >= tuning.gesvdFrom[dtype] && k <= Math.min(tuning.gesvdTo[dtype], TRIDIAG_MAX) && Math.max(m, n) <= tuning.longMax;
}

const warps = (rows: number, least: number, most: number): number => Math.max(least, Math.min(most, 32 * Math.ceil(rows / 32)));

export function planGesvdBidiag(pr: BidiagProblem, tuning: BidiagTuning, options: { readonly force?: BidiagForce } = {}): GesvdBidiagPlan {
  const { dtype, m, n, wantU, wantVt, kind } = pr;
  const rows = Math.max(m, n), k = Math.min(m, n);
  if (!Number.isInteger(m) || !Number.isInteger(n) || k < 1 || k > TRIDIAG_MAX || rows > tuning.longMax)
    throw new MyriadError('UNSUPPORTED', `the bidiagonalization gesvd takes 1 <= min(m, n) <= ${TRIDIAG_MAX} and max(m, n) <= ${tuning.longMax}, got ${m} x ${n}`, 'a');
  const force = options.force ?? {};
  const threads = force.threads ?? warps(rows, 64, tuning.maxThreads);
  if (!Number.isInteger(threads) || threads % 32 !== 0 || threads < 32 || threads > 1024)
    throw new MyriadError('UNSUPPORTED', `threads ${threads} must be a multiple of 32 within 1024`, 'force.threads');
  const tall = m >= n;
  const left = tall ? wantU : wantVt, right = tall ? wantVt : wantU;
  const blocked = planBlocked(pr, tuning, force, threads);
  return {
    reduce: { dtype, m, n, kind, threads, ...(blocked === undefined ? {} : { stage: 'load' as const }) },
    ...(blocked === undefined ? {} : { blocked }),
    stein: planSteinKernels(2 * k, left || right, force.steinMaxits ?? STEIN_MAXITS, { upperHalf: true }),
    vectors: { k, rows, threads: warps(k, 64, 512), left, right },
    store: { dtype, m, n, kind, wantU, wantVt, threads: BIDIAG_STORE_THREADS },
    slice: steinSlice(2 * k).slice,
    bslice: bidiagSlice(rows, k).slice,
  };
}

/** The reduction the plan takes: the force's, else panels from the table's `panelsFrom` on. */
export function bidiagReduction(k: number, tuning: BidiagTuning, force: BidiagForce = {}): BidiagReduction {
  if (force.reduction !== undefined && force.reduction !== 'unblocked' && force.reduction !== 'panels')
    throw new MyriadError('UNSUPPORTED', `reduction must be 'unblocked' or 'panels', got ${String(force.reduction)}`, 'force.reduction');
  return force.reduction ?? (k >= tuning.panelsFrom ? 'panels' : 'unblocked');
}

/**
 * The blocked reduction's kernels, or undefined for dgebd2 in one kernel: panels of nb columns at
 * 0, nb, ... while a column is left after the panel (p0 + nb < K: every panel column has its right
 * reflector), the last 1 ... nb columns by the tail stage. K <= nb leaves no panel: the whole reduction.
 */
function planBlocked(pr: BidiagProblem, tuning: BidiagTuning, force: BidiagForce, threads: number): GesvdBidiagPlan['blocked'] {
  const { dtype, m, n, kind } = pr;
  const rows = Math.max(m, n), k = Math.min(m, n);
  if (bidiagReduction(k, tuning, force) === 'unblocked') return undefined;
  const nb = force.nb ?? tuning.panelColumns;
  if (!Number.isInteger(nb) || nb < 1 || nb > 64)
    throw new MyriadError('UNSUPPORTED', `a panel's columns must be an integer in 1 ... 64, got ${nb}`, force.nb === undefined ? 'tuning.panelColumns' : 'force.nb');
  const from = nb * Math.floor((k - 1) / nb);
  if (from === 0) return undefined;
  return { panel: { rows, k, threads, nb }, tail: { dtype, m, n, kind, threads, stage: 'tail', from } };
}

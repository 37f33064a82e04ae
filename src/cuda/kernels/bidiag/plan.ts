/**
 * Which shapes of the bidiagonalization gesvd serve one group of equal-shape matrices, and whether
 * gesvd takes this design (`bidiagServes`, the router's question, from the table). The reduce kernel a
 * thread per row of G (whole warps, at most the table's `maxThreads`, at least 64), the vectors kernel
 * a thread per row of B (whole warps, 64 ... 512), the store BIDIAG_STORE_THREADS; the tridiag family's
 * values and vectors kernels on the Golub-Kahan tridiagonal of order 2K, the upper half of each block.
 */
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { BidiagTuning } from '../../model/tuning/index.js';
import type { GesvdShape } from '../common/gesvd-shape.js';
import { planSteinKernels, STEIN_MAXITS, steinSlice, TRIDIAG_MAX } from '../tridiag/index.js';
import type { BidiagForce, GesvdBidiagPlan } from './params.js';
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
  return {
    reduce: { dtype, m, n, kind, threads },
    stein: planSteinKernels(2 * k, left || right, force.steinMaxits ?? STEIN_MAXITS, { upperHalf: true }),
    vectors: { k, rows, threads: warps(k, 64, 512), left, right },
    store: { dtype, m, n, kind, wantU, wantVt, threads: BIDIAG_STORE_THREADS },
    slice: steinSlice(2 * k).slice,
    bslice: bidiagSlice(rows, k).slice,
  };
}

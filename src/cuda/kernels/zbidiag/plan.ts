/**
 * Which shapes of the complex bidiagonalization gesvd serve one group of equal-shape matrices, and
 * whether the router sends a shape here (`zbidiagServes`). The reduce kernel a thread per row of G
 * (whole warps, 64 ... ZBIDIAG_THREADS), the bidiag family's vectors kernel as that family sizes it (a
 * thread per row of B, whole warps, 64 ... 512), the widen and store kernels ZBIDIAG_STORE_THREADS;
 * the tridiag family's values and vectors kernels on the Golub-Kahan tridiagonal of order 2K, the
 * upper half of each block. No tuning table: not swept yet; the range is the one below which the
 * complex Jacobi warp design takes gesvd (max(m, n) <= 32) up to the tridiag family's order.
 */
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { bidiagSlice } from '../bidiag/index.js';
import { planSteinKernels, STEIN_MAXITS, steinSlice, TRIDIAG_MAX } from '../tridiag/index.js';
import type { ZbidiagForce, ZgesvdBidiagPlan } from './params.js';
import { zbidiagSlice } from './snippets.js';

/** The smallest min(m, n) the router sends here (the complex Jacobi warp design takes max(m, n) <= 32). */
export const ZBIDIAG_FROM = 33;
/** The largest min(m, n) (the tridiag family's order). */
export const ZBIDIAG_MAX = TRIDIAG_MAX;
/** The largest max(m, n), as the real design's table (`bidiag` longMax). */
export const ZBIDIAG_LONG_MAX = 4096;
/** Threads a block of the reduce kernel at most: a thread per row of G to 512 rows. */
const ZBIDIAG_THREADS = 512;
/** Threads a block of the widen and store kernels. */
export const ZBIDIAG_STORE_THREADS = 256;

/**
 * The shapes the router sends here: those checked on a GPU against the reference so far (H200,
 * test/gpu/zgesvd-large.test.ts to 200 x 150). The design takes min(m, n) <= ZBIDIAG_MAX and
 * max(m, n) <= ZBIDIAG_LONG_MAX; larger shapes stay on the CPU reference until they pass there.
 */
export const ZBIDIAG_ROUTED_K_MAX = 150;
export const ZBIDIAG_ROUTED_LONG_MAX = 200;

/** Whether the router sends complex gesvd of m x n here: 33 <= min(m, n) <= 150, max(m, n) <= 200. */
export function zbidiagServes(m: number, n: number): boolean {
  const k = Math.min(m, n);
  return k >= ZBIDIAG_FROM && k <= ZBIDIAG_ROUTED_K_MAX && Math.max(m, n) <= ZBIDIAG_ROUTED_LONG_MAX;
}

export interface ZbidiagProblem {
  /** The parts' type of the data (float64: complex128, float32: complex64). */
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly wantU: boolean;
  readonly wantVt: boolean;
  readonly kind: OperandKind;
}

const warps = (rows: number, least: number, most: number): number => Math.max(least, Math.min(most, 32 * Math.ceil(rows / 32)));

export function planZgesvdBidiag(pr: ZbidiagProblem, options: { readonly force?: ZbidiagForce } = {}): ZgesvdBidiagPlan {
  const { dtype, m, n, wantU, wantVt, kind } = pr;
  const rows = Math.max(m, n), k = Math.min(m, n);
  if (!Number.isInteger(m) || !Number.isInteger(n) || k < 1 || k > ZBIDIAG_MAX || rows > ZBIDIAG_LONG_MAX)
    throw new MyriadError('UNSUPPORTED', `the complex bidiagonalization gesvd takes 1 <= min(m, n) <= ${ZBIDIAG_MAX} and max(m, n) <= ${ZBIDIAG_LONG_MAX}, got ${m} x ${n}`, 'a');
  const force = options.force ?? {};
  const threads = force.threads ?? warps(rows, 64, ZBIDIAG_THREADS);
  if (!Number.isInteger(threads) || threads % 32 !== 0 || threads < 32 || threads > 1024)
    throw new MyriadError('UNSUPPORTED', `threads ${threads} must be a multiple of 32 within 1024`, 'force.threads');
  const tall = m >= n;
  const left = tall ? wantU : wantVt, right = tall ? wantVt : wantU;
  return {
    reduce: { dtype, m, n, kind, threads },
    stein: planSteinKernels(2 * k, left || right, force.steinMaxits ?? STEIN_MAXITS, { upperHalf: true }),
    vectors: { k, rows, threads: warps(k, 64, 512), left, right },
    ...(left || right ? { widen: { k, rows, left, right, threads: ZBIDIAG_STORE_THREADS } } : {}),
    store: { dtype, m, n, kind, wantU, wantVt, threads: ZBIDIAG_STORE_THREADS },
    slice: steinSlice(2 * k).slice,
    bslice: bidiagSlice(rows, k).slice,
    cslice: zbidiagSlice(rows, k).slice,
  };
}

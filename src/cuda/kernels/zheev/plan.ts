/**
 * Which shape of the complex heev's tridiagonal design serves one group of equal-size matrices: the
 * reduce kernel a thread per row (whole warps, at most ZHEEV_TRIDIAG_THREADS), the store a thread per
 * column in blocks of at most ZHEEV_STORE_THREADS, the tridiag
 * family's values and vectors kernels as that family plans them. The router sends orders
 * ZHEEV_TRIDIAG_FROM ... ZHEEV_TRIDIAG_MAX here (below: the Jacobi warp design, zjacobi/); the plan
 * itself takes any order from 1 (tests). No tuning table: not swept yet.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { planSteinKernels, STEIN_MAXITS, steinSlice, TRIDIAG_MAX, tridiagThreads } from '../tridiag/index.js';
import type { ZheevForce, ZheevTridiagPlan } from './params.js';
import { complexSlice } from './snippets.js';

/** The smallest order the router sends here (the Jacobi warp design takes n <= 32). */
export const ZHEEV_TRIDIAG_FROM = 33;
/** The largest order (the tridiag family's). */
export const ZHEEV_TRIDIAG_MAX = TRIDIAG_MAX;
/** Threads a block of the reduce and store kernels at most: a thread per row to n = 512, as the real design. */
const ZHEEV_TRIDIAG_THREADS = 512;

/**
 * Threads (columns) a block of the store kernel at most: with vectors its back-transformation spreads
 * a matrix's columns over ceil(n / 128) blocks (4 at n = 512), each block's threads a column each.
 */
export const ZHEEV_STORE_THREADS = 128;

/** Whether the router sends complex heev of order n here. */
export const zheevTridiagServes = (n: number): boolean => n >= ZHEEV_TRIDIAG_FROM && n <= ZHEEV_TRIDIAG_MAX;

export interface ZheevTridiagProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
}

export function planZheevTridiag(pr: ZheevTridiagProblem, options: { readonly force?: ZheevForce } = {}): ZheevTridiagPlan {
  const { dtype, n, uplo, vectors, kind } = pr;
  if (!Number.isInteger(n) || n < 1 || n > ZHEEV_TRIDIAG_MAX) throw new MyriadError('UNSUPPORTED', `the complex tridiagonal heev takes 1 <= n <= ${ZHEEV_TRIDIAG_MAX}, got ${n}`, 'a');
  const force = options.force ?? {};
  const threads = force.threads ?? tridiagThreads(n, ZHEEV_TRIDIAG_THREADS);
  if (!Number.isInteger(threads) || threads % 32 !== 0 || threads < 32 || threads > 1024)
    throw new MyriadError('UNSUPPORTED', `threads ${threads} must be a multiple of 32 within 1024`, 'force.threads');
  const maxits = force.steinMaxits ?? STEIN_MAXITS;
  return {
    reduce: { dtype, n, uplo, kind, threads },
    stein: planSteinKernels(n, vectors, maxits),
    store: { dtype, n, vectors, kind, threads: Math.min(threads, ZHEEV_STORE_THREADS) },
    slice: steinSlice(n).slice,
    cslice: complexSlice(n).slice,
  };
}

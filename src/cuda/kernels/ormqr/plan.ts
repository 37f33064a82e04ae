/**
 * The ormqr launch shape of one group of equal-size matrices, from the block and shared-memory
 * limits (no measured table yet, as the Jacobi family): threads per matrix V = the vector count
 * rounded up to a power of two, at most 128 (one vector of C per thread, V vectors per pass), as
 * many matrices per block as keep it within 256 threads and the shared memory; where one matrix's
 * slot does not fit, V halves (more passes over C), down to min(8, V). `ormqrCovers` (launch.ts) tells
 * the registry which requests fit a budget every GPU we target offers (`ormqrFits`); the
 * rest run on the CPU.
 */
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { Op } from '../../../core/ops.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { fitHouseholderApply, householderApplyMatrices, householderApplyShape, type HouseholderApplyKernel } from '../common/householder-plan.js';
import { elementBytes } from '../common/precision.js';
import { ORMQR_MAX_THREADS, ormqrSlotElements } from './generate-block.js';
import type { OrmqrForce, OrmqrPlan, OrmqrShape } from './params.js';

/** Most threads per matrix: one pass covers 128 vectors of C. */
export const ORMQR_THREADS_MAX = 128;
/** Fewest threads per matrix the planner goes down to (fewer where C has fewer vectors). */
export const ORMQR_THREADS_MIN = 8;
/**
 * Shared bytes per block that `ormqrCovers` counts on: the least opt-in limit of the GPUs we
 * target (sm_75: 64 KiB) less the 1 KiB reserve of `sharedLimit`, so a covered size plans on every
 * one of them (float64: 117 reflectors of order 117 fit, 128 of order 128 go to the CPU).
 */
export const ORMQR_COVER_SHARED = 63 * 1024;

export interface OrmqrProblem {
  readonly dtype: DType;
  readonly side: Side;
  readonly trans: Op;
  readonly kind: OperandKind;
  /** Order of Q (C's rows on the left, its columns on the right). */
  readonly r: number;
  /** Reflectors (tau's rows). */
  readonly k: number;
  /** Vectors of C Q acts on (C's columns on the left, its rows on the right). */
  readonly nvec: number;
  /** Dynamic shared bytes one block may use (the device's opt-in limit less a reserve). */
  readonly sharedLimit: number;
}

const pow2AtLeast = (x: number): number => {
  let p = 1;
  while (p < x) p *= 2;
  return p;
};

/** dorm2r's kernel as the shared fit sees it (common/householder-plan.ts). */
const applyKernel = (dtype: DType): HouseholderApplyKernel => ({
  slotBytes: (r, k, ldt) => ormqrSlotElements(r, k, ldt) * elementBytes(dtype),
  threadsMax: ORMQR_THREADS_MAX, threadsMin: ORMQR_THREADS_MIN, blockThreads: ORMQR_MAX_THREADS,
});

/** The widest shape that fits `limit`, or undefined where even min(8, V) threads do not. */
const fit = (dtype: DType, r: number, k: number, nvec: number, limit: number): OrmqrShape | undefined => fitHouseholderApply(applyKernel(dtype), r, k, nvec, limit);

export function planOrmqr(pr: OrmqrProblem, options: { readonly force?: OrmqrForce } = {}): OrmqrPlan {
  const params = { dtype: pr.dtype, side: pr.side, trans: pr.trans, kind: pr.kind };
  const force = options.force ?? {};
  if (force.threads !== undefined || force.matrices !== undefined) {
    const threads = force.threads ?? Math.min(ORMQR_THREADS_MAX, pow2AtLeast(Math.max(1, pr.nvec)));
    if (!Number.isInteger(Math.log2(threads)) || threads > ORMQR_THREADS_MAX)
      throw new MyriadError('UNSUPPORTED', `threads ${threads} must be a power of two <= ${ORMQR_THREADS_MAX}`, 'force.threads');
    const matrices = force.matrices ?? 1;
    const shape = householderApplyShape(applyKernel(pr.dtype), pr.r, pr.k, threads, matrices);
    if (matrices < 1 || threads * matrices > ORMQR_MAX_THREADS || shape.bytesPerMatrix * matrices > pr.sharedLimit)
      throw new MyriadError('UNSUPPORTED', `${matrices} matrices of ${threads} threads exceed ${ORMQR_MAX_THREADS} threads or ${pr.sharedLimit} shared bytes`, 'force.matrices');
    return { params, shape };
  }
  const shape = fit(pr.dtype, pr.r, pr.k, pr.nvec, pr.sharedLimit);
  if (shape === undefined)
    throw new MyriadError('UNSUPPORTED', `ormqr's reflectors (${pr.r} x ${pr.k}, ${pr.dtype}) do not fit ${pr.sharedLimit} shared bytes`, 'a');
  return { params, shape };
}

/** Matrices per block of a launch over `count` matrices (no more slots than matrices). */
export const blockMatrices = householderApplyMatrices;

/** Whether a problem of this size fits `limit` shared bytes with at least min(8, V) threads per matrix. */
export function ormqrFits(dtype: DType, r: number, k: number, nvec: number, limit = ORMQR_COVER_SHARED): boolean {
  return fit(dtype, r, k, nvec, limit) !== undefined;
}

/**
 * The complex QR family's plans (no tuning table yet: the shapes follow from the sizes and the
 * shared-memory limit, and the blocked driver's thresholds are the real qr table's defaults, which
 * await a measurement on complex data):
 *
 * - the shared kernel (planZqr) and the design of a group (planZqrDesign, planZqrBlocked): the real
 *   family's plans (common/householder-plan.ts) with this family's tile bytes and the thresholds
 *   ZQR_BLOCKED_FROM, ZQR_PANEL and ZQR_TAIL_MAX.
 * - zunmqr (planZormqr): threads per matrix the vector count rounded up to a power of two, at most
 *   128, halved (down to min(8, V)) while one matrix's slot does not fit; the blocked driver from
 *   ZORMQR_BLOCKED_FROM reflectors on, or where the slot does not fit.
 */
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { Side } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { complexBytes } from '../common/complex.js';
import { zqrSharedBytes } from './generate-shared.js';
import { ZORMQR_MAX_THREADS, zormqrSlotPairs } from './generate-ormqr.js';
import { ZWY_NB_MAX } from './generate-wy.js';
import {
  fitHouseholderApply, HOUSEHOLDER_PANEL_MIN, HOUSEHOLDER_WARP_MAX, householderBlockedFits, householderFits, planHouseholder,
  planHouseholderBlocked, planHouseholderDesign, type HouseholderApplyKernel, type HouseholderKernel, type HouseholderProblem, type HouseholderThresholds,
} from '../common/householder-plan.js';
import type { ZormqrForce, ZormqrPlan, ZqrBlockedPlan, ZqrDesign, ZqrForce, ZqrPlan } from './params.js';

export const ZWARP_MAX = HOUSEHOLDER_WARP_MAX;
/** geqrf and orgqr take the blocked driver from this many reflectors on (the real qr table's default). */
export const ZQR_BLOCKED_FROM = 128;
/** The blocked driver's panel width (LAPACK's nb). */
export const ZQR_PANEL = 32;
/** The narrowest panel the blocked driver goes down to where a wider one does not fit. */
export const ZPANEL_MIN = HOUSEHOLDER_PANEL_MIN;
/** The blocked driver hands the rest to one shared kernel once at most this many reflectors (columns) remain (LAPACK's nx). */
const ZQR_TAIL_MAX = 64;
/** zunmqr takes the blocked driver from this many reflectors on (the real table's default). */
const ZORMQR_BLOCKED_FROM = 64;

export type ZqrProblem = HouseholderProblem;

/** The complex kernel as the shared plans see it (common/householder-plan.ts). */
const KERNEL: HouseholderKernel = { label: 'complex QR', sharedBytes: zqrSharedBytes, panelMax: ZWY_NB_MAX, dtypeSuffix: ' parts' };
const THRESHOLDS: HouseholderThresholds = { blockedFrom: ZQR_BLOCKED_FROM, panel: ZQR_PANEL, tailMax: ZQR_TAIL_MAX };

export const planZqr = (pr: ZqrProblem, options: { readonly force?: ZqrForce } = {}): ZqrPlan => planHouseholder(KERNEL, pr, options);

/** Whether the shared kernel takes the problem (the m x n tile fits the shared memory). */
export const zqrFits = (pr: ZqrProblem): boolean => householderFits(KERNEL, pr);

/** Which design serves a group: the shared kernel below ZQR_BLOCKED_FROM reflectors where the tile fits, else blocked. */
export const planZqrDesign = (pr: ZqrProblem, options: { readonly force?: ZqrForce } = {}): ZqrDesign =>
  planHouseholderDesign(KERNEL, pr, THRESHOLDS, options);

/** The blocked driver's panel width and tail (LAPACK's nb and nx). */
export const planZqrBlocked = (pr: ZqrProblem, force: ZqrForce = {}): ZqrBlockedPlan => planHouseholderBlocked(KERNEL, pr, THRESHOLDS, force);

/** Whether the blocked driver takes the problem (its narrowest panel fits the shared memory). */
export const zqrBlockedFits = (pr: ZqrProblem): boolean => householderBlockedFits(KERNEL, pr);

// ---------------------------------------------------------------------------------------------
// zunmqr.

/** Most threads per matrix: one pass covers 128 vectors of C. */
const ZORMQR_THREADS_MAX = 128;
/** Fewest threads per matrix the planner goes down to (fewer where C has fewer vectors). */
const ZORMQR_THREADS_MIN = 8;

export interface ZormqrProblem {
  readonly dtype: DType;
  readonly side: Side;
  readonly trans: 'N' | 'C';
  readonly kind: OperandKind;
  /** Order of Q (C's rows on the left, its columns on the right). */
  readonly r: number;
  readonly k: number;
  /** Vectors of C Q acts on (C's columns on the left, its rows on the right). */
  readonly nvec: number;
  readonly sharedLimit: number;
}

/** zunm2r's kernel as the shared fit sees it (common/householder-plan.ts). */
const applyKernel = (dtype: DType): HouseholderApplyKernel => ({
  slotBytes: (r, k, ldt) => zormqrSlotPairs(r, k, ldt) * complexBytes(dtype),
  threadsMax: ZORMQR_THREADS_MAX, threadsMin: ZORMQR_THREADS_MIN, blockThreads: ZORMQR_MAX_THREADS,
});

export function planZormqr(pr: ZormqrProblem, force: ZormqrForce = {}): ZormqrPlan {
  if (force.threads !== undefined && (!Number.isInteger(Math.log2(force.threads)) || force.threads > ZORMQR_THREADS_MAX))
    throw new MyriadError('UNSUPPORTED', `threads ${force.threads} must be a power of two <= ${ZORMQR_THREADS_MAX}`, 'force.threads');
  const shape = fitHouseholderApply(applyKernel(pr.dtype), pr.r, pr.k, pr.nvec, pr.sharedLimit, force.threads);
  if (shape === undefined)
    throw new MyriadError('UNSUPPORTED', `zunmqr's reflectors (${pr.r} x ${pr.k}, ${pr.dtype} parts) do not fit ${pr.sharedLimit} shared bytes`, 'a');
  return { params: { dtype: pr.dtype, side: pr.side, trans: pr.trans, kind: pr.kind }, shape };
}

/** Whether a group of this size takes the blocked driver. */
export function zormqrBlocked(dtype: DType, order: number, k: number, nvec: number, limit: number, force: ZormqrForce = {}): boolean {
  if (force.design !== undefined) return force.design === 'blocked';
  return k >= ZORMQR_BLOCKED_FROM || fitHouseholderApply(applyKernel(dtype), order, k, nvec, limit) === undefined;
}

/**
 * The real Householder QR's plans: the per-thread kernel for max(m, n) up to the `qr` table's
 * `threadMax` (generate-thread.ts), and the shared plans of common/householder-plan.ts (which shape of
 * the shared-memory kernel serves a group, and the blocked driver's panels and tail) with this
 * family's kernel (its shared bytes) and the table's thresholds per dtype.
 */
import { MyriadError } from '../../../core/errors.js';
import { qrSharedBytes } from './generate-shared.js';
import { QR_THREAD_LIMIT, qrThreadSharedBytes } from './generate-thread.js';
import type { QrTuning } from '../../model/tuning/index.js';
import {
  HOUSEHOLDER_PANEL_MIN, HOUSEHOLDER_WARP_MAX, HOUSEHOLDER_WARP_SHARED, householderBlockedFits, householderFits, planHouseholder,
  planHouseholderBlocked, planHouseholderDesign, type HouseholderKernel, type HouseholderProblem, type HouseholderThresholds,
} from '../common/householder-plan.js';
import type { QrBlockedPlan, QrDesign, QrForce, QrPlan, QrThreadParams, QrThreadPlan, QrThreadVariant } from './params.js';

export const WARP_MAX = HOUSEHOLDER_WARP_MAX;
/** Shared bytes per block of the warp scope. */
export const WARP_SHARED = HOUSEHOLDER_WARP_SHARED;
/** The narrowest panel the blocked driver goes down to where a wider one does not fit. */
export const PANEL_MIN = HOUSEHOLDER_PANEL_MIN;
/** The widest panel (the WY kernel's T and Gram matrix are nb x nb in static shared memory). */
export const PANEL_MAX = 32;

export type QrProblem = HouseholderProblem;

/** The real kernel as the shared plans see it (common/householder-plan.ts). */
const KERNEL: HouseholderKernel = { label: 'QR', sharedBytes: qrSharedBytes, panelMax: PANEL_MAX, dtypeSuffix: '' };

const thresholdsOf = (tuning: QrTuning, dtype: QrProblem['dtype']): HouseholderThresholds =>
  ({ blockedFrom: tuning.blockedFrom[dtype], panel: tuning.panel[dtype], tailMax: tuning.tailMax[dtype] });

/** The shared designs' force (the per-thread design's fields left out). */
const sharedForce = (force: QrForce = {}): { readonly force: Omit<QrForce, 'design'> & { readonly design?: 'shared' | 'blocked' } } => {
  const { design, ...rest } = force;
  return { force: design === 'thread' ? rest : { ...rest, design } };
};

export const planQr = (pr: QrProblem, options: { readonly force?: QrForce } = {}): QrPlan => planHouseholder(KERNEL, pr, sharedForce(options.force));

/** Whether the planner takes the problem (the m x n tile fits the shared memory). */
export const qrFits = (pr: QrProblem): boolean => householderFits(KERNEL, pr);

/**
 * Which design serves a group (blocked from `tuning.blockedFrom` reflectors on, or where the tile
 * does not fit the shared memory; the shared kernel below it): see QrDesign.
 */
export function planQrDesign(pr: QrProblem, tuning: QrTuning, options: { readonly force?: QrForce } = {}): QrDesign {
  const design = options.force?.design;
  if (design === 'thread') {
    if (!qrThreadFits(pr)) throw new MyriadError('UNSUPPORTED', `the per-thread QR takes 1 <= m, n <= ${QR_THREAD_LIMIT}, got ${pr.m}x${pr.n}`, 'a');
    return { design };
  }
  if (design === undefined && qrThreadFits(pr) && Math.max(pr.m, pr.n) <= tuning.threadMax[pr.dtype]) return { design: 'thread' };
  return planHouseholderDesign(KERNEL, pr, thresholdsOf(tuning, pr.dtype), sharedForce(options.force));
}

/** The blocked driver's panel width (from the table) and tail (common/householder-plan.ts planHouseholderBlocked). */
export const planQrBlocked = (pr: QrProblem, tuning: QrTuning, force: QrForce = {}): QrBlockedPlan =>
  planHouseholderBlocked(KERNEL, pr, thresholdsOf(tuning, pr.dtype), sharedForce(force).force);

/** Whether the blocked driver takes the problem (its narrowest panel fits the shared memory). */
export const qrBlockedFits = (pr: QrProblem): boolean => householderBlockedFits(KERNEL, pr);

/** Whether the per-thread kernel takes the shape (1 <= m, n, max(m, n) <= QR_THREAD_LIMIT; orgqr: m >= n >= k). */
export function qrThreadFits(s: Pick<QrProblem, 'op' | 'm' | 'n' | 'k'>): boolean {
  const sizes = s.m >= 1 && s.n >= 1 && Math.max(s.m, s.n) <= QR_THREAD_LIMIT;
  return sizes && (s.op === 'geqrf' ? s.k === Math.min(s.m, s.n) : s.m >= s.n && s.n >= s.k && s.k >= 0);
}

/** A per-thread group: its shape and whether its A and tau are densely packed (ld = m, stride = m n; tau's stride = k). */
export interface QrThreadProblem extends Omit<QrProblem, 'sharedLimit'> {
  readonly denseA: boolean;
  readonly denseT: boolean;
}

/** Shared bytes a staged block keeps within (no opt-in; several blocks an SM). */
const THREAD_STAGE_BYTES = 48 * 1024;
const THREAD_BLOCKS = [128, 64, 32] as const;

/**
 * The per-thread kernel of a group: geqrf by `variant` (the caller's table's `threadVariant`, or
 * `force.threadVariant`; orgqr always classic). Classic: staged through shared memory where A is
 * densely packed (the block's matrices one contiguous span; `force.stage` stages any layout or none);
 * fast: always staged (`force.stage: false` picks the classic variant; with the fast one forced, an error). 128 threads a block, fewer where the staged
 * slots would pass 48 KiB (8 x 8 float64: 64).
 */
export function planQrThread(pr: QrThreadProblem, force: QrForce = {}, variant: QrThreadVariant = 'classic'): QrThreadPlan {
  if (!qrThreadFits(pr)) throw new MyriadError('UNSUPPORTED', `the per-thread QR takes 1 <= m, n <= ${QR_THREAD_LIMIT}, got ${pr.m}x${pr.n}`, 'a');
  const { op, dtype, m, n, k, kind } = pr;
  // Forcing the kernel unstaged picks the classic variant (the fast one is always staged) unless the fast one is forced too.
  const fast = op === 'geqrf' && (force.threadVariant ?? (force.stage === false ? 'classic' : variant)) === 'fast';
  if (fast && force.stage === false) throw new MyriadError('INVALID_ARGUMENT', 'the fast per-thread geqrf is always staged: force threadVariant \'classic\' to run unstaged', 'force.stage');
  const stage = fast || (force.stage ?? pr.denseA);
  const base = {
    op, dtype, m, n, k, kind, stage, denseA: stage && pr.denseA, denseT: stage && pr.denseT, ...(fast ? { variant: 'fast' as const } : {}),
  };
  const blockThreads = force.blockThreads
    ?? THREAD_BLOCKS.find((t) => qrThreadSharedBytes({ ...base, blockThreads: t }) <= THREAD_STAGE_BYTES) ?? 32;
  const params: QrThreadParams = { ...base, blockThreads };
  return { params, sharedBytes: qrThreadSharedBytes(params) };
}

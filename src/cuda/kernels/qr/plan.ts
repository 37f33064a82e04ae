/**
 * The real Householder QR's plans: the shared plans of common/householder-plan.ts (which shape of the
 * shared-memory kernel serves a group, and the blocked driver's panels and tail) with this family's
 * kernel (its shared bytes) and the `qr` tuning table's thresholds per dtype.
 */
import { qrSharedBytes } from './generate-shared.js';
import type { QrTuning } from '../../model/tuning/index.js';
import {
  HOUSEHOLDER_PANEL_MIN, HOUSEHOLDER_WARP_MAX, HOUSEHOLDER_WARP_SHARED, householderBlockedFits, householderFits, planHouseholder,
  planHouseholderBlocked, planHouseholderDesign, type HouseholderKernel, type HouseholderProblem, type HouseholderThresholds,
} from '../common/householder-plan.js';
import type { QrBlockedPlan, QrDesign, QrForce, QrPlan } from './params.js';

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

export const planQr = (pr: QrProblem, options: { readonly force?: QrForce } = {}): QrPlan => planHouseholder(KERNEL, pr, options);

/** Whether the planner takes the problem (the m x n tile fits the shared memory). */
export const qrFits = (pr: QrProblem): boolean => householderFits(KERNEL, pr);

/**
 * Which design serves a group (blocked from `tuning.blockedFrom` reflectors on, or where the tile
 * does not fit the shared memory; the shared kernel below it): see QrDesign.
 */
export const planQrDesign = (pr: QrProblem, tuning: QrTuning, options: { readonly force?: QrForce } = {}): QrDesign =>
  planHouseholderDesign(KERNEL, pr, thresholdsOf(tuning, pr.dtype), options);

/** The blocked driver's panel width (from the table) and tail (common/householder-plan.ts planHouseholderBlocked). */
export const planQrBlocked = (pr: QrProblem, tuning: QrTuning, force: QrForce = {}): QrBlockedPlan =>
  planHouseholderBlocked(KERNEL, pr, thresholdsOf(tuning, pr.dtype), force);

/** Whether the blocked driver takes the problem (its narrowest panel fits the shared memory). */
export const qrBlockedFits = (pr: QrProblem): boolean => householderBlockedFits(KERNEL, pr);

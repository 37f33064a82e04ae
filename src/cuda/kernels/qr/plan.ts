/**
 * Which shape of the shared-memory Householder kernel serves one group of equal-size matrices
 * (no tuning table yet: the shapes follow from the sizes and the shared-memory limit, as the
 * Jacobi family's).
 *
 * - max(m, n) <= WARP_MAX: scope 'warp', the smallest power of two >= max(m, n) lanes per matrix,
 *   as many matrices per block as keep it within 256 threads and WARP_SHARED bytes (several
 *   blocks per SM).
 * - larger, where the m x n tile fits `sharedLimit`: scope 'block', one matrix per block of
 *   64..256 threads (about 16 elements of the tile per thread).
 * - otherwise UNSUPPORTED (`qrFits` says so first: the registry's `covers` leaves those to the CPU).
 * rowLanes (lanes per column of the trailing update) balances rows per lane against columns per
 * pass: the power of two nearest sqrt(threads m / n), at most 32 and at most threads.
 */
import { MyriadError } from '../../../core/errors.js';
import { qrSharedBytes } from './generate-shared.js';
import type { QrTuning } from '../../model/tuning/index.js';
import type { QrBlockedPlan, QrDesign, QrForce, QrPlan, QrScope, QrShape, QrSharedParams } from './params.js';

export const WARP_MAX = 32;
/** Shared bytes per block of the warp scope. */
export const WARP_SHARED = 48 * 1024;
const MAX_THREADS = 256;

export interface QrProblem extends QrShape {
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

const pow2ceil = (x: number): number => { let p = 1; while (p < x) p *= 2; return p; };

function rowLanesFor(threads: number, m: number, n: number): number {
  const ideal = Math.sqrt((threads * Math.max(1, m)) / Math.max(1, n));
  const p = 2 ** Math.round(Math.log2(Math.max(1, ideal)));
  return Math.max(1, Math.min(p, threads, 32));
}

function scopeOf(pr: QrProblem, force: QrForce): QrScope {
  return force.scope ?? (Math.max(pr.m, pr.n) <= WARP_MAX ? 'warp' : 'block');
}

export function planQr(pr: QrProblem, options: { readonly force?: QrForce } = {}): QrPlan {
  const force = options.force ?? {};
  const scope = scopeOf(pr, force);
  const { op, dtype, m, n, k, kind } = pr;
  if (scope === 'warp') {
    if (Math.max(m, n) > WARP_MAX) throw new MyriadError('UNSUPPORTED', `the warp QR takes max(m, n) <= ${WARP_MAX}, got ${m}x${n}`, 'a');
    const threads = force.threads ?? pow2ceil(Math.max(m, n, 1));
    const rowLanes = force.rowLanes ?? rowLanesFor(threads, m, n);
    const unit = Math.max(1, 32 / threads);
    const budget = Math.min(WARP_SHARED, pr.sharedLimit);
    const base = { op, dtype, m, n, k, kind, scope, threads, rowLanes };
    let perBlock = force.perBlock ?? unit;
    if (force.perBlock === undefined)
      while ((perBlock + unit) * threads <= MAX_THREADS && qrSharedBytes({ ...base, perBlock: perBlock + unit }) <= budget) perBlock += unit;
    const params: QrSharedParams = { ...base, perBlock };
    return fitted(params, pr.sharedLimit);
  }
  const threads = force.threads ?? Math.max(64, Math.min(MAX_THREADS, pow2ceil(Math.ceil((m * n) / 16))));
  const rowLanes = force.rowLanes ?? rowLanesFor(threads, m, n);
  return fitted({ op, dtype, m, n, k, kind, scope, threads, rowLanes, perBlock: 1 }, pr.sharedLimit);
}

function fitted(params: QrSharedParams, sharedLimit: number): QrPlan {
  const sharedBytes = qrSharedBytes(params);
  if (sharedBytes > sharedLimit)
    throw new MyriadError('UNSUPPORTED', `a ${params.m}x${params.n} QR tile needs ${sharedBytes} shared bytes, the device gives ${sharedLimit}`, 'a');
  return { params, blockThreads: params.threads * params.perBlock, sharedBytes };
}

/** Whether the planner takes the problem (the m x n tile fits the shared memory). */
export function qrFits(pr: QrProblem): boolean {
  if (Math.max(pr.m, pr.n) <= WARP_MAX) return true;
  try {
    planQr(pr);
    return true;
  } catch {
    return false;
  }
}

/** The narrowest panel the blocked driver goes down to where a wider one does not fit. */
export const PANEL_MIN = 8;
/** The widest panel (the WY kernel's T and Gram matrix are nb x nb in static shared memory). */
export const PANEL_MAX = 32;

/** Whether the shared kernel of `op` takes an rows x cols tile with k reflectors. */
const tileFits = (pr: QrProblem, op: QrShape['op'], rows: number, cols: number, k: number): boolean =>
  qrFits({ ...pr, op, m: rows, n: cols, k });

/**
 * Which design serves a group (blocked from `tuning.blockedFrom` reflectors on, or where the tile
 * does not fit the shared memory; the shared kernel below it): see QrDesign.
 */
export function planQrDesign(pr: QrProblem, tuning: QrTuning, options: { readonly force?: QrForce } = {}): QrDesign {
  const force = options.force ?? {};
  const small = Math.min(pr.m, pr.n) < tuning.blockedFrom[pr.dtype] || Math.max(pr.m, pr.n) <= WARP_MAX;
  const design = force.design ?? (small && qrFits(pr) ? 'shared' : 'blocked');
  if (design === 'shared') return { design, ...planQr(pr, { force }) };
  return planQrBlocked(pr, tuning, force);
}

/**
 * The blocked driver's panel width and tail (LAPACK's nb and nx): nb from the table, halved while
 * the first (tallest) m x nb panel does not fit the shared kernel; the tail from the first panel
 * boundary where at most `tailMax` reflectors (geqrf) or columns (orgqr) remain and their tile fits.
 */
export function planQrBlocked(pr: QrProblem, tuning: QrTuning, force: QrForce = {}): QrBlockedPlan {
  const { op, dtype, m, n, k } = pr;
  let nb = force.panel ?? tuning.panel[dtype];
  if (!Number.isInteger(nb) || nb < 1 || nb > PANEL_MAX) throw new MyriadError('UNSUPPORTED', `the QR panel must be 1..${PANEL_MAX} columns, got ${nb}`, 'force.panel');
  const panelFits = (w: number): boolean => k === 0 || tileFits(pr, op, m, Math.min(w, k), Math.min(w, k));
  if (force.panel === undefined) while (nb > PANEL_MIN && !panelFits(nb)) nb /= 2;
  if (!panelFits(nb))
    throw new MyriadError('UNSUPPORTED', `a ${m} x ${Math.min(nb, k)} QR panel (${dtype}) does not fit ${pr.sharedLimit} shared bytes`, 'a');
  const tailMax = force.tailMax ?? tuning.tailMax[dtype];
  const candidates: number[] = [];
  for (let i = 0; i < k; i += nb) candidates.push(i);
  candidates.push(k);
  const tailAt = (i: number): boolean => op === 'geqrf'
    ? i < k && k - i <= tailMax && tileFits(pr, 'geqrf', m - i, n - i, k - i)
    : n - i <= tailMax && tileFits(pr, 'orgqr', m - i, n - i, k - i);
  const tail = candidates.find((i) => n > i && tailAt(i));
  return { design: 'blocked', op, dtype, m, n, k, nb, tail: tail ?? k, tailKernel: tail !== undefined };
}

/** Whether the blocked driver takes the problem (its narrowest panel fits the shared memory). */
export function qrBlockedFits(pr: QrProblem): boolean {
  const w = Math.min(PANEL_MIN, pr.k);
  return w === 0 || tileFits(pr, pr.op, pr.m, w, w);
}

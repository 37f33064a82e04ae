/**
 * The complex QR family's plans (no tuning table yet: the shapes follow from the sizes and the
 * shared-memory limit, and the blocked driver's thresholds are the real qr table's defaults, which
 * await a measurement on complex data):
 *
 * - the shared kernel (planZqr): max(m, n) <= 32, scope 'warp' (the smallest power of two >=
 *   max(m, n) lanes per matrix, as many matrices per block as keep it within 256 threads and
 *   ZWARP_SHARED bytes); larger tiles that fit `sharedLimit`, scope 'block' (64..256 threads, about
 *   16 pairs of the tile per thread); rowLanes the power of two nearest sqrt(threads m / n).
 * - the design of a group (planZqrDesign): the shared kernel below ZQR_BLOCKED_FROM reflectors
 *   where the tile fits, else the blocked driver: panels of ZQR_PANEL columns (halved down to
 *   ZPANEL_MIN while the tallest m x nb panel does not fit), the tail handed to one shared kernel
 *   from the first panel boundary where at most ZQR_TAIL_MAX reflectors (geqrf) or columns (orgqr)
 *   remain and that tile fits.
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
import type { ZormqrForce, ZormqrPlan, ZormqrShape, ZqrBlockedPlan, ZqrDesign, ZqrForce, ZqrPlan, ZqrScope, ZqrShape, ZqrSharedParams } from './params.js';

export const ZWARP_MAX = 32;
/** Shared bytes per block of the warp scope. */
export const ZWARP_SHARED = 48 * 1024;
const MAX_THREADS = 256;
/** geqrf and orgqr take the blocked driver from this many reflectors on (the real qr table's default). */
export const ZQR_BLOCKED_FROM = 128;
/** The blocked driver's panel width (LAPACK's nb). */
export const ZQR_PANEL = 32;
/** The narrowest panel the blocked driver goes down to where a wider one does not fit. */
export const ZPANEL_MIN = 8;
/** The blocked driver hands the rest to one shared kernel once at most this many reflectors (columns) remain (LAPACK's nx). */
export const ZQR_TAIL_MAX = 64;
/** zunmqr takes the blocked driver from this many reflectors on (the real table's default). */
export const ZORMQR_BLOCKED_FROM = 64;

export interface ZqrProblem extends ZqrShape {
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

const pow2ceil = (x: number): number => { let p = 1; while (p < x) p *= 2; return p; };

function rowLanesFor(threads: number, m: number, n: number): number {
  const ideal = Math.sqrt((threads * Math.max(1, m)) / Math.max(1, n));
  const p = 2 ** Math.round(Math.log2(Math.max(1, ideal)));
  return Math.max(1, Math.min(p, threads, 32));
}

function scopeOf(pr: ZqrProblem, force: ZqrForce): ZqrScope {
  return force.scope ?? (Math.max(pr.m, pr.n) <= ZWARP_MAX ? 'warp' : 'block');
}

export function planZqr(pr: ZqrProblem, options: { readonly force?: ZqrForce } = {}): ZqrPlan {
  const force = options.force ?? {};
  const scope = scopeOf(pr, force);
  const { op, dtype, m, n, k, kind } = pr;
  if (scope === 'warp') {
    if (Math.max(m, n) > ZWARP_MAX) throw new MyriadError('UNSUPPORTED', `the warp complex QR takes max(m, n) <= ${ZWARP_MAX}, got ${m}x${n}`, 'a');
    const threads = force.threads ?? pow2ceil(Math.max(m, n, 1));
    const rowLanes = force.rowLanes ?? rowLanesFor(threads, m, n);
    const unit = Math.max(1, 32 / threads);
    const budget = Math.min(ZWARP_SHARED, pr.sharedLimit);
    const base = { op, dtype, m, n, k, kind, scope, threads, rowLanes };
    let perBlock = force.perBlock ?? unit;
    if (force.perBlock === undefined)
      while ((perBlock + unit) * threads <= MAX_THREADS && zqrSharedBytes({ ...base, perBlock: perBlock + unit }) <= budget) perBlock += unit;
    return fitted({ ...base, perBlock }, pr.sharedLimit);
  }
  const threads = force.threads ?? Math.max(64, Math.min(MAX_THREADS, pow2ceil(Math.ceil((m * n) / 16))));
  const rowLanes = force.rowLanes ?? rowLanesFor(threads, m, n);
  return fitted({ op, dtype, m, n, k, kind, scope, threads, rowLanes, perBlock: 1 }, pr.sharedLimit);
}

function fitted(params: ZqrSharedParams, sharedLimit: number): ZqrPlan {
  const sharedBytes = zqrSharedBytes(params);
  if (sharedBytes > sharedLimit)
    throw new MyriadError('UNSUPPORTED', `a ${params.m}x${params.n} complex QR tile needs ${sharedBytes} shared bytes, the device gives ${sharedLimit}`, 'a');
  return { params, blockThreads: params.threads * params.perBlock, sharedBytes };
}

/** Whether the shared kernel takes the problem (the m x n tile fits the shared memory). */
export function zqrFits(pr: ZqrProblem): boolean {
  if (Math.max(pr.m, pr.n) <= ZWARP_MAX) return true;
  try {
    planZqr(pr);
    return true;
  } catch {
    return false;
  }
}

const tileFits = (pr: ZqrProblem, op: ZqrShape['op'], rows: number, cols: number, k: number): boolean =>
  zqrFits({ ...pr, op, m: rows, n: cols, k });

/** Which design serves a group: the shared kernel below ZQR_BLOCKED_FROM reflectors where the tile fits, else blocked. */
export function planZqrDesign(pr: ZqrProblem, options: { readonly force?: ZqrForce } = {}): ZqrDesign {
  const force = options.force ?? {};
  const small = Math.min(pr.m, pr.n) < ZQR_BLOCKED_FROM || Math.max(pr.m, pr.n) <= ZWARP_MAX;
  const design = force.design ?? (small && zqrFits(pr) ? 'shared' : 'blocked');
  if (design === 'shared') return { design, ...planZqr(pr, { force }) };
  return planZqrBlocked(pr, force);
}

/** The blocked driver's panel width and tail (LAPACK's nb and nx). */
export function planZqrBlocked(pr: ZqrProblem, force: ZqrForce = {}): ZqrBlockedPlan {
  const { op, dtype, m, n, k } = pr;
  let nb = force.panel ?? ZQR_PANEL;
  if (!Number.isInteger(nb) || nb < 1 || nb > ZWY_NB_MAX) throw new MyriadError('UNSUPPORTED', `the complex QR panel must be 1..${ZWY_NB_MAX} columns, got ${nb}`, 'force.panel');
  const panelFits = (w: number): boolean => k === 0 || tileFits(pr, op, m, Math.min(w, k), Math.min(w, k));
  if (force.panel === undefined) while (nb > ZPANEL_MIN && !panelFits(nb)) nb /= 2;
  if (!panelFits(nb))
    throw new MyriadError('UNSUPPORTED', `a ${m} x ${Math.min(nb, k)} complex QR panel (${dtype} parts) does not fit ${pr.sharedLimit} shared bytes`, 'a');
  const tailMax = force.tailMax ?? ZQR_TAIL_MAX;
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
export function zqrBlockedFits(pr: ZqrProblem): boolean {
  const w = Math.min(ZPANEL_MIN, pr.k);
  return w === 0 || tileFits(pr, pr.op, pr.m, w, w);
}

// ---------------------------------------------------------------------------------------------
// zunmqr.

/** Most threads per matrix: one pass covers 128 vectors of C. */
export const ZORMQR_THREADS_MAX = 128;
/** Fewest threads per matrix the planner goes down to (fewer where C has fewer vectors). */
export const ZORMQR_THREADS_MIN = 8;

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

function ormqrShape(dtype: DType, r: number, k: number, threads: number, matrices: number): ZormqrShape {
  const ldt = threads + 1;
  return { threads, matrices, ldt, bytesPerMatrix: zormqrSlotPairs(r, k, ldt) * complexBytes(dtype) };
}

function ormqrFit(dtype: DType, r: number, k: number, nvec: number, limit: number, threadsAt?: number): ZormqrShape | undefined {
  const want = threadsAt ?? Math.min(ZORMQR_THREADS_MAX, pow2ceil(Math.max(1, nvec)));
  const least = threadsAt ?? Math.min(ZORMQR_THREADS_MIN, want);
  for (let threads = want; threads >= least; threads /= 2) {
    const one = ormqrShape(dtype, r, k, threads, 1);
    if (one.bytesPerMatrix > limit) continue;
    const matrices = Math.max(1, Math.min(Math.floor(ZORMQR_MAX_THREADS / threads), Math.floor(limit / one.bytesPerMatrix)));
    return { ...one, matrices };
  }
  return undefined;
}

export function planZormqr(pr: ZormqrProblem, force: ZormqrForce = {}): ZormqrPlan {
  if (force.threads !== undefined && (!Number.isInteger(Math.log2(force.threads)) || force.threads > ZORMQR_THREADS_MAX))
    throw new MyriadError('UNSUPPORTED', `threads ${force.threads} must be a power of two <= ${ZORMQR_THREADS_MAX}`, 'force.threads');
  const shape = ormqrFit(pr.dtype, pr.r, pr.k, pr.nvec, pr.sharedLimit, force.threads);
  if (shape === undefined)
    throw new MyriadError('UNSUPPORTED', `zunmqr's reflectors (${pr.r} x ${pr.k}, ${pr.dtype} parts) do not fit ${pr.sharedLimit} shared bytes`, 'a');
  return { params: { dtype: pr.dtype, side: pr.side, trans: pr.trans, kind: pr.kind }, shape };
}

/** Matrices per block of a launch over `count` matrices. */
export function zormqrBlockMatrices(shape: ZormqrShape, count: number): number {
  return Math.max(1, Math.min(shape.matrices, count));
}

/** Whether a group of this size takes the blocked driver. */
export function zormqrBlocked(dtype: DType, order: number, k: number, nvec: number, limit: number, force: ZormqrForce = {}): boolean {
  if (force.design !== undefined) return force.design === 'blocked';
  return k >= ZORMQR_BLOCKED_FROM || ormqrFit(dtype, order, k, nvec, limit) === undefined;
}

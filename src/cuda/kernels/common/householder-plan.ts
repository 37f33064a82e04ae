/**
 * The plans the real and the complex shared-memory Householder QR share (qr/ and zqr/: their
 * kernels differ by element type, their plans only by the shared bytes a tile takes and the
 * blocked driver's thresholds). No tuning table here: the caller passes its thresholds.
 *
 * - the shared kernel (planHouseholder): max(m, n) <= HOUSEHOLDER_WARP_MAX, scope 'warp' (the
 *   smallest power of two >= max(m, n) lanes per matrix, as many matrices per block as keep it within
 *   256 threads and HOUSEHOLDER_WARP_SHARED bytes: several blocks per SM); larger tiles that fit
 *   `sharedLimit`, scope 'block', one matrix per block of 64..256 threads (about 16 elements of the
 *   tile per thread); otherwise UNSUPPORTED (`householderFits` says so first). rowLanes (lanes per
 *   column of the trailing update) balances rows per lane against columns per pass: the power of two
 *   nearest sqrt(threads m / n), at most 32 and at most threads.
 * - the design of a group (planHouseholderDesign): the shared kernel below `blockedFrom` reflectors
 *   where the tile fits, else the blocked driver (planHouseholderBlocked): panels of `panel` columns
 *   halved down to HOUSEHOLDER_PANEL_MIN while the tallest m x nb panel does not fit, the tail handed
 *   to one shared kernel from the first panel boundary where at most `tailMax` reflectors (geqrf) or
 *   columns (orgqr) remain and that tile fits.
 */
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { OperandKind } from './batch-pointer.js';

export type HouseholderScope = 'warp' | 'block';

/** The operation and the size of one group of matrices (a plan's problem and a kernel's). */
export interface HouseholderShape {
  readonly op: 'geqrf' | 'orgqr';
  /** The element type (complex data: its parts' type). */
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  /** Reflectors: min(m, n) for geqrf, tau's rows for orgqr (k <= n <= m). */
  readonly k: number;
  readonly kind: OperandKind;
}

/**
 * The shared-memory Householder kernel: each matrix in its own slot of shared memory, `threads`
 * threads per matrix split into `threads / rowLanes` column groups of `rowLanes` lanes (a power of
 * two <= 32: one column's dot product reduced by shuffles).
 */
export interface HouseholderSharedParams extends HouseholderShape {
  readonly scope: HouseholderScope;
  /** Threads per matrix (a power of two; <= 32 for 'warp', a multiple of 32 for 'block'). */
  readonly threads: number;
  /** Lanes that share one column of the trailing update (a power of two dividing threads, <= 32). */
  readonly rowLanes: number;
  /** Matrices per thread block (1 for 'block'). */
  readonly perBlock: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks, sweeps). */
export interface HouseholderForce {
  /** One shared-memory kernel per matrix, or the blocked compact-WY driver. */
  readonly design?: 'shared' | 'blocked';
  /** The blocked driver's panel width (at most the kernel's `panelMax`). */
  readonly panel?: number;
  /** The blocked driver's tail bound (0: no shared-memory tail, panels to the end). */
  readonly tailMax?: number;
  readonly scope?: HouseholderScope;
  readonly threads?: number;
  readonly rowLanes?: number;
  readonly perBlock?: number;
}

/** One group's kernel and launch: the parameters, the block size and the dynamic shared bytes. */
export interface HouseholderPlan {
  readonly params: HouseholderSharedParams;
  readonly blockThreads: number;
  readonly sharedBytes: number;
}

/** The blocked compact-WY driver of one group: panels of nb, the shared kernel from `tail` on where `tailKernel`. */
export interface HouseholderBlockedPlan {
  readonly design: 'blocked';
  readonly op: 'geqrf' | 'orgqr';
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly nb: number;
  readonly tail: number;
  /** Whether the shared kernel finishes from `tail` on (else: nothing left (geqrf), unit columns by laset (orgqr)). */
  readonly tailKernel: boolean;
}

/** A group's design: one shared-memory kernel per matrix, or the blocked driver. */
export type HouseholderDesign = ({ readonly design: 'shared' } & HouseholderPlan) | HouseholderBlockedPlan;

export interface HouseholderProblem extends HouseholderShape {
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

/** A family's kernel as its plans see it: its name in errors, a tile's shared bytes, its widest panel, its dtype's words. */
export interface HouseholderKernel {
  /** 'QR', 'complex QR'. */
  readonly label: string;
  readonly sharedBytes: (p: HouseholderSharedParams) => number;
  /** The widest panel of the blocked driver (its WY kernel's nb x nb shared arrays). */
  readonly panelMax: number;
  /** How errors name the element type: '' ('float64'), ' parts' ('float64 parts'). */
  readonly dtypeSuffix: string;
}

/** The blocked driver's thresholds (the real family's from its table, the complex one's its own). */
export interface HouseholderThresholds {
  readonly blockedFrom: number;
  readonly panel: number;
  readonly tailMax: number;
}

export const HOUSEHOLDER_WARP_MAX = 32;
/** Shared bytes per block of the warp scope. */
export const HOUSEHOLDER_WARP_SHARED = 48 * 1024;
/** The narrowest panel the blocked driver goes down to where a wider one does not fit. */
export const HOUSEHOLDER_PANEL_MIN = 8;
const MAX_THREADS = 256;

const pow2ceil = (x: number): number => { let p = 1; while (p < x) p *= 2; return p; };

function rowLanesFor(threads: number, m: number, n: number): number {
  const ideal = Math.sqrt((threads * Math.max(1, m)) / Math.max(1, n));
  const p = 2 ** Math.round(Math.log2(Math.max(1, ideal)));
  return Math.max(1, Math.min(p, threads, 32));
}

function scopeOf(pr: HouseholderProblem, force: HouseholderForce): HouseholderScope {
  return force.scope ?? (Math.max(pr.m, pr.n) <= HOUSEHOLDER_WARP_MAX ? 'warp' : 'block');
}

export function planHouseholder(kernel: HouseholderKernel, pr: HouseholderProblem, options: { readonly force?: HouseholderForce } = {}): HouseholderPlan {
  const force = options.force ?? {};
  const scope = scopeOf(pr, force);
  const { op, dtype, m, n, k, kind } = pr;
  if (scope === 'warp') {
    if (Math.max(m, n) > HOUSEHOLDER_WARP_MAX)
      throw new MyriadError('UNSUPPORTED', `the warp ${kernel.label} takes max(m, n) <= ${HOUSEHOLDER_WARP_MAX}, got ${m}x${n}`, 'a');
    const threads = force.threads ?? pow2ceil(Math.max(m, n, 1));
    const rowLanes = force.rowLanes ?? rowLanesFor(threads, m, n);
    const unit = Math.max(1, 32 / threads);
    const budget = Math.min(HOUSEHOLDER_WARP_SHARED, pr.sharedLimit);
    const base = { op, dtype, m, n, k, kind, scope, threads, rowLanes };
    let perBlock = force.perBlock ?? unit;
    if (force.perBlock === undefined)
      while ((perBlock + unit) * threads <= MAX_THREADS && kernel.sharedBytes({ ...base, perBlock: perBlock + unit }) <= budget) perBlock += unit;
    return fitted(kernel, { ...base, perBlock }, pr.sharedLimit);
  }
  const threads = force.threads ?? Math.max(64, Math.min(MAX_THREADS, pow2ceil(Math.ceil((m * n) / 16))));
  const rowLanes = force.rowLanes ?? rowLanesFor(threads, m, n);
  return fitted(kernel, { op, dtype, m, n, k, kind, scope, threads, rowLanes, perBlock: 1 }, pr.sharedLimit);
}

function fitted(kernel: HouseholderKernel, params: HouseholderSharedParams, sharedLimit: number): HouseholderPlan {
  const sharedBytes = kernel.sharedBytes(params);
  if (sharedBytes > sharedLimit)
    throw new MyriadError('UNSUPPORTED', `a ${params.m}x${params.n} ${kernel.label} tile needs ${sharedBytes} shared bytes, the device gives ${sharedLimit}`, 'a');
  return { params, blockThreads: params.threads * params.perBlock, sharedBytes };
}

/** Whether the shared kernel takes the problem (the m x n tile fits the shared memory). */
export function householderFits(kernel: HouseholderKernel, pr: HouseholderProblem): boolean {
  if (Math.max(pr.m, pr.n) <= HOUSEHOLDER_WARP_MAX) return true;
  try {
    planHouseholder(kernel, pr);
    return true;
  } catch {
    return false;
  }
}

/** Whether the shared kernel of `op` takes an rows x cols tile with k reflectors. */
const tileFits = (kernel: HouseholderKernel, pr: HouseholderProblem, op: HouseholderShape['op'], rows: number, cols: number, k: number): boolean =>
  householderFits(kernel, { ...pr, op, m: rows, n: cols, k });

/** Which design serves a group (blocked from `blockedFrom` reflectors on, or where the tile does not fit; the shared kernel below it). */
export function planHouseholderDesign(kernel: HouseholderKernel, pr: HouseholderProblem, thresholds: HouseholderThresholds,
  options: { readonly force?: HouseholderForce } = {}): HouseholderDesign {
  const force = options.force ?? {};
  const small = Math.min(pr.m, pr.n) < thresholds.blockedFrom || Math.max(pr.m, pr.n) <= HOUSEHOLDER_WARP_MAX;
  const design = force.design ?? (small && householderFits(kernel, pr) ? 'shared' : 'blocked');
  if (design === 'shared') return { design, ...planHouseholder(kernel, pr, { force }) };
  return planHouseholderBlocked(kernel, pr, thresholds, force);
}

/**
 * The blocked driver's panel width and tail (LAPACK's nb and nx): nb from `thresholds.panel`, halved
 * while the first (tallest) m x nb panel does not fit the shared kernel; the tail from the first panel
 * boundary where at most `tailMax` reflectors (geqrf) or columns (orgqr) remain and their tile fits.
 */
export function planHouseholderBlocked(kernel: HouseholderKernel, pr: HouseholderProblem, thresholds: HouseholderThresholds,
  force: HouseholderForce = {}): HouseholderBlockedPlan {
  const { op, dtype, m, n, k } = pr;
  let nb = force.panel ?? thresholds.panel;
  if (!Number.isInteger(nb) || nb < 1 || nb > kernel.panelMax)
    throw new MyriadError('UNSUPPORTED', `the ${kernel.label} panel must be 1..${kernel.panelMax} columns, got ${nb}`, 'force.panel');
  const panelFits = (w: number): boolean => k === 0 || tileFits(kernel, pr, op, m, Math.min(w, k), Math.min(w, k));
  if (force.panel === undefined) while (nb > HOUSEHOLDER_PANEL_MIN && !panelFits(nb)) nb /= 2;
  if (!panelFits(nb))
    throw new MyriadError('UNSUPPORTED', `a ${m} x ${Math.min(nb, k)} ${kernel.label} panel (${dtype}${kernel.dtypeSuffix}) does not fit ${pr.sharedLimit} shared bytes`, 'a');
  const tailMax = force.tailMax ?? thresholds.tailMax;
  const candidates: number[] = [];
  for (let i = 0; i < k; i += nb) candidates.push(i);
  candidates.push(k);
  const tailAt = (i: number): boolean => op === 'geqrf'
    ? i < k && k - i <= tailMax && tileFits(kernel, pr, 'geqrf', m - i, n - i, k - i)
    : n - i <= tailMax && tileFits(kernel, pr, 'orgqr', m - i, n - i, k - i);
  const tail = candidates.find((i) => n > i && tailAt(i));
  return { design: 'blocked', op, dtype, m, n, k, nb, tail: tail ?? k, tailKernel: tail !== undefined };
}

/** Whether the blocked driver takes the problem (its narrowest panel fits the shared memory). */
export function householderBlockedFits(kernel: HouseholderKernel, pr: HouseholderProblem): boolean {
  const w = Math.min(HOUSEHOLDER_PANEL_MIN, pr.k);
  return w === 0 || tileFits(kernel, pr, pr.op, pr.m, w, w);
}

/**
 * Launch shape of one group of the one-reflector-at-a-time ormqr kernels (dorm2r's, zunm2r's):
 * `threads` per matrix (blockDim.x), up to `matrices` per block (blockDim.y).
 */
export interface HouseholderApplyShape {
  readonly threads: number;
  readonly matrices: number;
  /** Leading dimension of the C tile in shared memory (threads + 1: the coalesced loads' stride is odd). */
  readonly ldt: number;
  /** Shared bytes of one matrix: packed reflectors, tau, the C tile. */
  readonly bytesPerMatrix: number;
}

/** A family's ormqr kernel as its fit sees it. */
export interface HouseholderApplyKernel {
  /** Shared bytes of one matrix's slot: Q of order r, k reflectors, a C tile of leading dimension ldt. */
  readonly slotBytes: (r: number, k: number, ldt: number) => number;
  /** Most and fewest threads per matrix, and most threads per block. */
  readonly threadsMax: number;
  readonly threadsMin: number;
  readonly blockThreads: number;
}

/** The shape of `threads` per matrix and `matrices` per block (the tile's ld threads + 1). */
export function householderApplyShape(kernel: HouseholderApplyKernel, r: number, k: number, threads: number, matrices: number): HouseholderApplyShape {
  const ldt = threads + 1;
  return { threads, matrices, ldt, bytesPerMatrix: kernel.slotBytes(r, k, ldt) };
}

/**
 * The widest shape that fits `limit`: threads per matrix the vector count rounded up to a power of
 * two, at most `threadsMax`, halved down to min(threadsMin, that) while one matrix's slot does not
 * fit (only `threadsAt` where given); as many matrices per block as the block's threads and `limit`
 * allow. Undefined where none fits.
 */
export function fitHouseholderApply(kernel: HouseholderApplyKernel, r: number, k: number, nvec: number, limit: number, threadsAt?: number): HouseholderApplyShape | undefined {
  const want = threadsAt ?? Math.min(kernel.threadsMax, pow2ceil(Math.max(1, nvec)));
  const least = threadsAt ?? Math.min(kernel.threadsMin, want);
  for (let threads = want; threads >= least; threads /= 2) {
    const one = householderApplyShape(kernel, r, k, threads, 1);
    if (one.bytesPerMatrix > limit) continue;
    const matrices = Math.max(1, Math.min(Math.floor(kernel.blockThreads / threads), Math.floor(limit / one.bytesPerMatrix)));
    return { ...one, matrices };
  }
  return undefined;
}

/** Matrices per block of a launch over `count` matrices (no more slots than matrices). */
export const householderApplyMatrices = (shape: HouseholderApplyShape, count: number): number => Math.max(1, Math.min(shape.matrices, count));

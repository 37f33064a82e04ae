/**
 * Which LU design and parameters serve one group of equal-size matrices: max(rows, cols) <= 32
 * the warp design, up to registerMax the block register design, beyond the blocked fallback;
 * shapes and thresholds from the architecture's tuning table, `force` for tests and sweeps.
 */
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import { bandFor, type GetrfBlockedTuning, type GetrfRegisterBand, type RegisterShape, type GetrfMidBand, type GetrfRecursionTuning, type GetrfSpreadTuning, type GetrfTuning, type SpreadExchange } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { elementBytes } from '../common/precision.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';
import { splitPoint } from '../common/split.js';
import { SMALL_WARPS } from '../common/warp-slots.js';
import { GETRF_SMALL_MAX } from './generate-small.js';
import { SPREAD_WIDTH, spreadPushedBytes, spreadSharedBytes } from './generate-spread.js';
import type { GetrfForce, GetrfPlan, GetrfVariant } from './params.js';

export interface GetrfProblem {
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
  /** Matrices in the batch and the device's SMs: a register band's `few` shape applies by them (absent: the band's shape). */
  readonly count?: number;
  readonly smCount?: number;
}

/** The widest panel (widest, then halving to 1) whose m x IB block fits in `limit` shared bytes; 0 if none. */
export function chooseLuPanelWidth(dtype: DType, m: number, limit: number, widest = 16): number {
  for (let ib = widest; ib >= 1; ib >>= 1) if (m * ib * elementBytes(dtype) <= limit) return ib;
  return 0;
}


/** The design for a rows x cols matrix: forced (it must accept the size), else by size from the table. */
export function selectGetrf(dtype: DType, rows: number, cols: number, tuning: GetrfTuning, forced?: GetrfVariant): GetrfVariant {
  const big = Math.max(rows, cols);
  if (forced !== undefined) {
    const fits = forced === 'small' ? big <= GETRF_SMALL_MAX : forced === 'register' ? big <= REGISTER_DESIGN_MAX : true;
    if (!fits) throw new MyriadError('UNSUPPORTED', `getrf variant '${forced}' does not accept ${rows} x ${cols}`, 'a');
    return forced;
  }
  if (big <= GETRF_SMALL_MAX) return 'small';
  if (big <= Math.min(tuning.registerMax[dtype], REGISTER_DESIGN_MAX)) return 'register';
  return 'blocked';
}

/** A band's shape for a batch of `count` matrices on `smCount` SMs: its `few` shape for few matrices an SM. */
export function registerShapeFor(band: GetrfRegisterBand, count?: number, smCount?: number): RegisterShape {
  const few = band.few;
  return few !== undefined && count !== undefined && smCount !== undefined && count <= few.maxPerSm * smCount ? few.shape : band.shape;
}

export function planGetrf(problem: GetrfProblem, tuning: GetrfTuning, options: { readonly force?: GetrfForce } = {}): GetrfPlan {
  const { dtype, rows, cols, kind } = problem;
  const force = options.force ?? {};
  const variant = selectGetrf(dtype, rows, cols, tuning, force.variant);
  if (variant === 'small') return { variant, params: { dtype, rows, cols, kind, warps: SMALL_WARPS } };
  if (variant === 'register') {
    const shape = force.register ?? registerShapeFor(bandFor(tuning.registerShapes[dtype], Math.max(rows, cols))!, problem.count, problem.smCount);
    return { variant, params: { dtype, rows, cols, kind, warps: shape.warps, nb: shape.nb, minBlocks: shape.minBlocks } };
  }
  const ib = chooseLuPanelWidth(dtype, rows, problem.sharedLimit, force.panelWidest ?? tuning.panelWidest[dtype]);
  return { variant, params: { dtype, kind, ib } };
}

/**
 * The recursive LU over the whole batch (mid-size batches and single large matrices;
 * gpu-only-cholesky.txt's blocked algorithm with pivoting, Toledo's/Gustavson's recursive LU):
 * split the columns near the half, factor the left part, apply its row interchanges to the right
 * part, U12 := L11^-1 A12 (trsm, unit lower), A22 -= A21 U12 (gemm), factor the lower right part,
 * apply its interchanges to the left part. Panels of at most the leaf width (tallShape) are the
 * tall panel kernel (generate-tall.ts); the rest is GEMM-rich work of the trsm and gemm families.
 * Applies to strided batches; thresholds from the tuning table (tuning/factor-sm_90.ts, where they are measured).
 */
export function getrfRecursive(dtype: DType, rows: number, cols: number, count: number, smCount: number, t: GetrfRecursionTuning, force?: boolean): boolean {
  const big = Math.max(rows, cols);
  if (force !== undefined) return force && Math.min(rows, cols) > 0;
  if (big >= t.minN[dtype]) return true;
  if (count < smCount) return big >= t.minNFew[dtype];
  const mid = getrfMidBand(t, dtype, big);
  if (mid !== undefined && count >= mid.perSm * smCount) return true;
  return big >= (t.minNMany ?? t.minN)[dtype];
}

/** The band of recursion.mid that covers order `big` (the last whose minN <= big), if any. */
export function getrfMidBand(t: GetrfRecursionTuning, dtype: DType, big: number): GetrfMidBand | undefined {
  let band: GetrfMidBand | undefined;
  for (const b of t.mid?.[dtype] ?? []) if (b.minN <= big) band = b;
  return band;
}

/** The leaf's launch shape for a panel of m rows: threads, rows per thread, widest panel. */
export interface TallShape {
  readonly threads: number;
  readonly rowsPerThread: number;
  readonly nb: number;
}

/**
 * Threads: the next power of two >= m (at least 64) up to maxThreads, then rows per thread; the
 * panel as wide as the registers allow (rowsPerThread * nb values per thread within the budget at
 * that thread count), at most `widest`.
 */
export function tallShape(dtype: DType, m: number, t: GetrfRecursionTuning, widest = t.widest[dtype]): TallShape {
  let threads = 64;
  while (threads < m && threads < t.maxThreads) threads *= 2;
  threads = Math.min(threads, t.maxThreads);
  const rowsPerThread = Math.max(1, Math.ceil(m / threads));
  const regsAt = (x: number): number => Math.min(255, Math.floor(65536 / x));
  const budget = regsAt(threads) - (regsAt(t.maxThreads) - t.valueRegisters);
  const perValue = elementBytes(dtype) / 4;
  let nb = widest;
  while (nb > 1 && rowsPerThread * nb * perValue > budget) nb >>= 1;
  return { threads, rowsPerThread, nb };
}

/** One step of the flattened recursion, in launch order (0-based columns; rows of the matrix: m). */
export type GetrfRecursionStep =
  /** Factor A(off:m, off:off+width) (the leaf kernel); pivots off ... off+width-1. */
  | { readonly kind: 'panel'; readonly off: number; readonly width: number }
  /** Apply the interchanges of pivots from ... to-1 to the columns col ... col+cols-1 (dlaswp). */
  | { readonly kind: 'swap'; readonly from: number; readonly to: number; readonly col: number; readonly cols: number }
  /** A(off:off+top, col:col+cols) := L11^-1 A(off:off+top, col:col+cols), L11 unit lower at (off, off). */
  | { readonly kind: 'solve'; readonly off: number; readonly top: number; readonly col: number; readonly cols: number }
  /** A(off+top:m, col:col+cols) -= A(off+top:m, off:off+top) A(off:off+top, col:col+cols). */
  | { readonly kind: 'update'; readonly off: number; readonly top: number; readonly col: number; readonly cols: number };

/**
 * The recursion for an m x n matrix: leaves of at most `leafWidth(rows of the leaf)` columns,
 * splits near the half at multiples of 32 (of the leaf width below 64 columns, so that the leaves
 * are full panels but the last). Where n > m, the columns past
 * the m-th get every interchange and the solve by the whole L at the end (their update has no rows).
 */
export function getrfRecursionSteps(m: number, n: number, leafWidth: (rows: number) => number): GetrfRecursionStep[] {
  const steps: GetrfRecursionStep[] = [];
  const run = (off: number, size: number): void => {
    const leaf = Math.max(1, leafWidth(m - off));
    if (size <= leaf) {
      steps.push({ kind: 'panel', off, width: size });
      return;
    }
    const top = splitPoint(size, size > 64 ? Math.max(32, leaf) : leaf);
    const rest = size - top;
    run(off, top);
    steps.push({ kind: 'swap', from: off, to: off + top, col: off + top, cols: rest });
    steps.push({ kind: 'solve', off, top, col: off + top, cols: rest });
    steps.push({ kind: 'update', off, top, col: off + top, cols: rest });
    run(off + top, rest);
    steps.push({ kind: 'swap', from: off + top, to: off + size, col: off, cols: top });
  };
  const k = Math.min(m, n);
  if (k === 0) return steps;
  run(0, k);
  if (n > k) {
    steps.push({ kind: 'swap', from: 0, to: k, col: k, cols: n - k });
    steps.push({ kind: 'solve', off: 0, top: k, col: k, cols: n - k });
  }
  return steps;
}

/**
 * Whether the large path runs panel by panel (getrfBlockedSteps) rather than by halves: forced, or
 * from the table's `blocked.minN` by max(rows, cols).
 */
export function getrfBlocked(dtype: DType, rows: number, cols: number, t: GetrfBlockedTuning, force?: boolean): boolean {
  return force ?? Math.max(rows, cols) >= t.minN[dtype];
}

/** The blocked driver's panel width for max(rows, cols) and the batch's count: the table's band (a multiple of 32). */
export function getrfPanelWidth(dtype: DType, rows: number, cols: number, count: number, t: GetrfBlockedTuning): number {
  return bandFor((count > 1 ? t.panelBatch : t.panel)[dtype], Math.max(rows, cols))?.nb ?? 128;
}

/** The blocked driver's wide leaf for max(rows, cols) and the batch's count: a batch band's own, else the table's. */
export function getrfWideLeaf(dtype: DType, rows: number, cols: number, count: number, t: GetrfBlockedTuning): number {
  const band = count > 1 ? bandFor(t.panelBatch[dtype], Math.max(rows, cols)) : undefined;
  return band?.wideLeaf ?? t.wideLeaf[dtype];
}

/** One step of the blocked LU (getrfBlockedSteps), in launch order; 0-based columns, m rows. */
export type GetrfBlockedStep =
  /** Inside a panel: the recursion's steps (getrfRecursionStep), the update on the main stream. */
  | Exclude<GetrfRecursionStep, { readonly kind: 'update' }>
  /** After a panel [from, to): its pivots to every column of the matrix outside it (one launch). */
  | { readonly kind: 'interchange'; readonly from: number; readonly to: number }
  /**
   * A(off+top:m, col:col+cols) -= A(off+top:m, off:off+top) A(off:off+top, col:col+cols); `side`:
   * on the side stream (lookahead), beside the next panel's factorization.
   */
  | { readonly kind: 'update'; readonly off: number; readonly top: number; readonly col: number; readonly cols: number; readonly side: boolean }
  /** The main stream waits for the side's updates so far (before it touches their columns). */
  | { readonly kind: 'join' };

/**
 * The right-looking blocked LU (gpu-only-cholesky.txt's blocked algorithm, with partial pivoting
 * as LAPACK's dgetrf) of an m x n matrix, panels of nb columns:
 * 1. the m-j0 x jb panel by the recursion (getrfRecursionSteps on the panel: leaves, and the
 *    swaps, solves and updates inside the panel);
 * 2. one 'interchange': the panel's pivots to every column outside it (dgetrf's two dlaswp calls;
 *    none where the panel holds every column);
 * 3. U12 := L11^-1 A12 for every column right of the panel, then A22 -= A21 U12.
 * Lookahead (the paper's section on it): step 3's update as two, the next panel's columns first,
 * then the rest on the side stream, where it runs beside the next panel's step 1; the main stream
 * joins it before the next step 2 (which touches those columns, and the rows of the A21 it reads).
 * Where n > m the columns past the m-th are trailing columns of every panel (their update has no
 * rows left after the last panel).
 */
export function getrfBlockedSteps(m: number, n: number, nb: number, leafWidth: (rows: number) => number, lookahead = false): GetrfBlockedStep[] {
  if (!(nb >= 1)) throw new MyriadError('INVALID_ARGUMENT', `getrf's panel width must be at least 1, got ${nb}`, 'panelWidth');
  const steps: GetrfBlockedStep[] = [];
  const k = Math.min(m, n);
  let forked = false;
  for (let j0 = 0; j0 < k; j0 += nb) {
    const jb = Math.min(nb, k - j0);
    for (const s of getrfRecursionSteps(m - j0, jb, leafWidth)) {
      switch (s.kind) {
        case 'panel': steps.push({ ...s, off: s.off + j0 }); break;
        case 'swap': steps.push({ ...s, from: s.from + j0, to: s.to + j0, col: s.col + j0 }); break;
        case 'solve': steps.push({ ...s, off: s.off + j0, col: s.col + j0 }); break;
        case 'update': steps.push({ ...s, off: s.off + j0, col: s.col + j0, side: false }); break;
      }
    }
    if (forked) steps.push({ kind: 'join' });
    forked = false;
    // (a panel holding every column, as one batch band's panel of 128 at n <= 128, has none to interchange)
    if (j0 > 0 || j0 + jb < n) steps.push({ kind: 'interchange', from: j0, to: j0 + jb });
    const right = n - j0 - jb;
    if (right === 0) continue;
    steps.push({ kind: 'solve', off: j0, top: jb, col: j0 + jb, cols: right });
    if (m - j0 - jb === 0) continue;
    const next = Math.min(nb, right);
    if (lookahead && right > next) {
      steps.push({ kind: 'update', off: j0, top: jb, col: j0 + jb, cols: next, side: false });
      steps.push({ kind: 'update', off: j0, top: jb, col: j0 + jb + next, cols: right - next, side: true });
      forked = true;
    } else {
      steps.push({ kind: 'update', off: j0, top: jb, col: j0 + jb, cols: right, side: false });
    }
  }
  if (forked) steps.push({ kind: 'join' });
  return steps;
}

/** A spread leaf's launch: rows a block, blocks a matrix, and the form (0: the grid form, else the cluster's blocks). */
export interface SpreadShape {
  readonly rowsPerBlock: number;
  readonly blocks: number;
  readonly cluster: number;
  /** The cluster form's exchange (absent in the grid form). */
  readonly exchange?: SpreadExchange;
}

/** What of the GPU a spread leaf's shape depends on: its SMs, the dynamic shared bytes a block may take (operands.ts sharedLimit), thread-block clusters (sm_90). */
export interface SpreadDevice {
  readonly smCount: number;
  readonly sharedLimit: number;
  readonly clusters: boolean;
}

/** What a call may force: the spread leaf wherever the shape allows (true) or never (false); likewise its cluster form. */
export interface SpreadForce {
  readonly spread?: boolean | undefined;
  readonly cluster?: boolean | undefined;
  /** The cluster form's exchange, in place of the table's. */
  readonly exchange?: SpreadExchange | undefined;
}

/**
 * Whether a panel of m rows of `count` matrices takes the spread leaf (generate-spread.ts), and
 * its shape. The cluster form first, where the device has clusters, the table has the form for the
 * dtype (a finite minRows) and its cluster holds the rows (the fewest rows a block, 32, 64, ..., that fit its blocks; batches up to the table's
 * maxCount as the grid form: beyond it the wide leaf's block a matrix fills the GPU better, though
 * any count would run, a cluster running whole). Else the grid form: the fewest rows a block that keep the blocks a matrix within the
 * table's maxBlocks, more where a block's rows would not fit its shared memory; never more blocks
 * a matrix than SMs (the grid form's blocks wait for each other: one matrix's blocks must fit the
 * GPU at once). null: the wide leaf.
 */
export function spreadShape(
  dtype: DType, m: number, count: number, device: SpreadDevice, t: GetrfSpreadTuning, force: SpreadForce = {},
): SpreadShape | null {
  const { smCount } = device;
  if (force.spread === false) return null;
  // (the kernel's static arrays, ~1.1 KiB in the grid form, ~3.2 KiB in the cluster form, beside the dynamic rows)
  const fits = (rowsPerBlock: number, reserve: number): boolean => spreadSharedBytes({ dtype, width: SPREAD_WIDTH, rowsPerBlock }) + reserve <= device.sharedLimit;
  const g = t.cluster.blocks;
  // (a minRows of Infinity keeps a dtype off the cluster form even where it is forced)
  if (device.clusters && g > 0 && g <= smCount && Number.isFinite(t.cluster.minRows[dtype]) && force.cluster !== false) {
    let rowsPerBlock = 32;
    while (rowsPerBlock * g < m) rowsPerBlock *= 2;
    const wanted = force.cluster === true || force.spread === true || (m >= t.cluster.minRows[dtype] && count <= t.maxCount);
    const exchange = force.exchange ?? t.cluster.exchange ?? 'pull';
    const pushed = spreadPushedBytes({ dtype, width: SPREAD_WIDTH, cluster: g, exchange });
    if (wanted && fits(rowsPerBlock, 4096 + pushed)) return { rowsPerBlock, blocks: g, cluster: g, exchange };
  }
  if (force.spread === undefined && (m < t.minRows[dtype] || count > t.maxCount)) return null;
  let rowsPerBlock = 32;
  while (Math.ceil(m / rowsPerBlock) > Math.min(t.maxBlocks, smCount) && fits(rowsPerBlock * 2, 2048)) rowsPerBlock *= 2;
  const blocks = Math.ceil(m / rowsPerBlock);
  if (blocks > smCount) return null;
  return { rowsPerBlock, blocks, cluster: 0 };
}

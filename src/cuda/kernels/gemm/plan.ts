/**
 * Picks the kernel and its parameters for one batched GEMM problem: the very-small kernel where
 * m, n, k are small enough to unroll (paper section 4.2), else the tiled kernel (on FP64 tensor
 * cores for float64 where the GPU has them); block sizes from
 * the architecture's tuning table; tbc and rn from the occupancy model (threads, registers and
 * shared memory per SM from DeviceInfo).
 */
import { blocksPerSM } from '../../model/occupancy.js';
import { tmaRouteFor, tmaRoutesFor, tuningFor, type GemmTuning, type MmaConfig, type PaddedTile, type TmaConfig, type TmaRoute } from '../../model/tuning/index.js';
import type { DeviceInfo } from '../../runtime/types.js';
import type { GemmShape } from '../common/gemm-shape.js';
import type { Conjugations } from '../common/complex.js';
import type { Op } from '../../../core/ops.js';
import { gemmElementBytes } from './element.js';
import { MMA_DTYPE } from './generate-mma.js';
import { smallGemmShape, smallGemmWork } from './generate-small.js';
import type { GemmOperandLayouts, GemmParams, GemmVariant, MmaGemmParams, OperandLayout, SmallGemmParams, TiledGemmParams, TmaGemmParams } from './params.js';

export type { GemmShape };

export interface GemmProblem extends GemmShape {
  readonly count: number;
  /** 'list' and 'variable' batches reach the kernel as pointer arrays. */
  readonly batchKind: 'strided' | 'list' | 'variable';
  readonly betaZero: boolean;
  /** Per-operand layouts where they differ from `batchKind` (strided ones densely packed). */
  readonly layouts?: GemmOperandLayouts;
  /** Complex data (pairs of `dtype`), with the operands that enter conjugated; absent for real data. */
  readonly complex?: Conjugations;
  /**
   * A and B can be read through TMA tensor maps (strided, first elements, ld * 8 and stride * 8
   * multiples of 16 bytes: generate-tma.ts tmaOperandFits) and the device can encode them; absent: no.
   */
  readonly tmaFits?: boolean;
}

export interface PlanOptions {
  /** Force a variant (its parameters still planned), e.g. for tests and benchmarks. */
  readonly variant?: GemmVariant;
  readonly tuning?: GemmTuning | undefined;
  /** Route single products to the TMA design by these instead of the card's table (tests). */
  readonly tmaRoutes?: readonly TmaRoute[] | undefined;
}

/** Static shared memory per block the small kernel may use (the 48 KiB static limit). */
const SMALL_SHARED_LIMIT = 48 * 1024;

export function defaultLayouts(batchKind: GemmProblem['batchKind']): GemmOperandLayouts {
  const one: OperandLayout = batchKind === 'strided' ? { kind: 'strided', dense: true } : { kind: 'pointer', dense: false };
  return { a: one, b: one, c: one };
}

/** True where the very-small kernel can take the problem at all. */
function smallApplies(p: GemmProblem, maxDim: number): boolean {
  return p.m >= 1 && p.n >= 1 && p.k >= 1 && p.m <= maxDim && p.n <= maxDim && p.k <= maxDim;
}

export function planGemm(info: DeviceInfo, problem: GemmProblem, options: PlanOptions = {}): GemmParams {
  const tuning = options.tuning ?? tuningFor(info.arch, 'gemm');
  const mmaUsable = problem.dtype === MMA_DTYPE && info.major >= tuning.mmaMinMajor;
  if (options.variant === 'tma') {
    // Where TMA cannot serve (another arch, dtype or layout, complex data, misaligned operands,
    // k = 0), what 'mma' would run (real float64 on tensor cores), else the plan's own choice.
    if (tmaUsable(info, problem, tuning)) return planTma(problem, bandFor(tuning.tma!, Math.max(problem.m, problem.n)).config);
    return planGemm(info, problem, { ...options, variant: mmaUsable && problem.complex === undefined ? 'mma' : undefined });
  }
  const routed = options.variant === undefined ? tmaRouted(info, problem, options.tmaRoutes ?? tmaRoutesFor(info.name)) : undefined;
  if (routed !== undefined) return planTma(problem, routed.config);
  if (problem.complex !== undefined) return planComplex(info, problem, options, tuning);
  if (options.variant === 'small' && !smallApplies(problem, 32)) {
    throw new Error(`the small gemm kernel needs 1 <= m, n, k <= 32, got ${problem.m}, ${problem.n}, ${problem.k}`);
  }
  const variant = options.variant
    ?? (smallApplies(problem, tuning.smallMaxDim[problem.dtype]) ? 'small' : mmaUsable ? 'mma' : 'tiled');
  if (variant === 'small') {
    if (!smallApplies(problem, 32)) throw new Error(`the small gemm kernel needs 1 <= m, n, k <= 32, got ${problem.m}, ${problem.n}, ${problem.k}`);
    return planSmall(info, problem, tuning);
  }
  if (variant === 'mma') {
    if (!mmaUsable) throw new Error(`the mma gemm kernel needs float64 and compute capability ${tuning.mmaMinMajor}.0+`);
    return planMma(info, problem, tuning);
  }
  return planTiled(info, problem, tuning);
}

/**
 * Complex data: the very-small kernel to the complex bound, then the tiled kernel, or (complex128
 * with op(A) = A, from the table's `mmaFrom`) the mma kernel on the real embedding, planned as
 * the real product of 2m x 2k by 2k x n that it computes; the same planners, with the pairs' bytes
 * and the complex bands.
 */
function planComplex(info: DeviceInfo, problem: GemmProblem, options: PlanOptions, tuning: GemmTuning): GemmParams {
  const conj = problem.complex!;
  const mmaTakes = problem.dtype === MMA_DTYPE && info.major >= tuning.mmaMinMajor && problem.transA === 'N' && !conj.conjA;
  const mmaFrom = tuning.complex.mmaFrom;
  const onMma = mmaTakes && mmaFrom !== undefined && Math.max(problem.m, problem.n, problem.k) >= mmaFrom;
  const variant = options.variant ?? (smallApplies(problem, tuning.complex.smallMaxDim[problem.dtype]) ? 'small' : onMma ? 'mma' : 'tiled');
  if (variant === 'mma') {
    if (!mmaTakes) throw new Error(`the mma gemm kernel takes complex128 with op(A) = A, on compute capability ${tuning.mmaMinMajor}.0+`);
    // The complex epilogue's scalars and pair stores: 32 accumulator tiles a warp spill with pointer
    // operands (255 registers), so at most 16, as for TT; and no tile groups (with pointer operands
    // the grouped prologue spilled too; one large complex C is cuBLAS's in the card's table).
    const embedded = { ...problem, m: 2 * problem.m, k: 2 * problem.k };
    const { tileGroup: _, ...config } = mmaConfigFor('N', problem.transB, Math.max(embedded.m, embedded.n), tuning, 16);
    const { tileGroup: __, ...base } = planMma(info, embedded, tuning);
    return { ...base, ...config, complex: conj };
  }
  if (variant === 'small') {
    if (!smallApplies(problem, 32)) throw new Error(`the small gemm kernel needs 1 <= m, n, k <= 32, got ${problem.m}, ${problem.n}, ${problem.k}`);
    return planSmall(info, problem, tuning);
  }
  return { ...planTiled(info, problem, { ...tuning, tiled: tuning.complex.tiled }), complex: problem.complex! };
}

/** Whether the small kernel stages a C it reads (beta != 0): the card's measured band, or undefined where there is none. */
function stagesReadC(p: GemmProblem, dim: number, tuning: GemmTuning): boolean | undefined {
  if (p.betaZero || p.complex !== undefined) return undefined;
  const bands = tuning.smallStageCReadingC?.[p.dtype];
  return bands === undefined ? undefined : bands.some((b) => b.minDim <= dim && dim <= b.maxDim);
}

function planSmall(info: DeviceInfo, p: GemmProblem, tuning: GemmTuning): SmallGemmParams {
  const dim = Math.max(p.m, p.n, p.k);
  // Real and complex winners are measured apart (a complex element is twice the bytes and four times the flops).
  const winners = p.complex === undefined ? tuning.smallWinners : tuning.complex.smallWinners ?? [];
  const winner = winners.find((w) => w.dtype === p.dtype && w.minDim <= dim && dim <= w.maxDim);
  const maxThreadsPerMatrix = winner?.maxThreadsPerMatrix ?? tuning.smallMaxThreadsPerMatrix;
  const threadsPerBlock = winner?.threadsPerBlock ?? tuning.smallThreadsPerBlock;
  // rn: the fewest columns per thread (most threads, most loads in flight) that keeps the
  // threads per matrix within bounds.
  let rn = 1;
  while (rn < Math.min(p.n, tuning.smallMaxColumnsPerThread) && p.m * Math.ceil(p.n / rn) > maxThreadsPerMatrix) rn++;
  // The same number of column groups with fewer idle columns in the last one.
  const groups = Math.ceil(p.n / rn);
  rn = Math.ceil(p.n / groups);
  const itemsPerMatrix = p.m * groups;
  const itemsPerThread = winner?.itemsPerThread ?? tuning.smallItemsPerThread;
  const stageC = stagesReadC(p, dim, tuning) ?? winner?.stageC ?? p.m * gemmElementBytes(p) < tuning.smallStageCBelowBytes;
  const base = {
    variant: 'small' as const, dtype: p.dtype, transA: p.transA, transB: p.transB, m: p.m, n: p.n, k: p.k,
    rn, stageC, betaZero: p.betaZero, layouts: smallLayouts(p), ...(p.complex === undefined ? {} : { complex: p.complex }),
  };
  // Threads for tbc matrices: itemsPerThread work items each, whole warps where possible.
  const threadsFor = (tbc: number): number => {
    const work = smallGemmWork({ ...base, tbc });
    return Math.min(work, 1024, Math.ceil(Math.ceil(work / itemsPerThread) / 32) * 32);
  };
  const plan = (tbc: number): SmallGemmParams => ({ ...base, tbc, threads: threadsFor(tbc) });
  // tbc: fill the block to the target, in multiples of 4 (16-byte vectors of whole spans), then
  // shrink while the shared memory does not fit, the SM would hold fewer than two blocks, or the
  // batch would not give every SM enough blocks.
  let tbc = winner?.tbc ?? Math.max(1, Math.floor((threadsPerBlock * itemsPerThread) / itemsPerMatrix));
  if (tbc >= 4) tbc -= tbc % 4;
  const fits = (t: number): boolean => smallGemmShape(plan(t)).sharedBytes <= SMALL_SHARED_LIMIT;
  while (tbc > 1 && !fits(tbc)) tbc--;
  // At least two resident blocks per SM, so one block's loads overlap another's arithmetic.
  while (tbc > 1 && smallPlanOccupancy(info, plan(tbc)) < 2) tbc--;
  const wantedBlocks = info.smCount * tuning.smallMinBlocksPerSM;
  while (tbc > 1 && Math.ceil(p.count / tbc) < wantedBlocks) tbc = Math.max(1, Math.floor(tbc / 2));
  return plan(tbc);
}

function smallLayouts(p: GemmProblem): GemmOperandLayouts {
  return p.layouts ?? defaultLayouts(p.batchKind);
}

/** The band of a tuning list that takes order `dim` (the last past every maxDim). */
export function bandFor<T extends { maxDim: number }>(bands: readonly T[], dim: number): T {
  return bands.find((b) => dim <= b.maxDim) ?? bands[bands.length - 1]!;
}

/** The tiled kernels do not use `dense` (it only changes the small kernel's loads). */
function plainLayouts(p: GemmProblem): GemmOperandLayouts {
  const layouts = smallLayouts(p);
  const plain = (o: OperandLayout): OperandLayout => ({ kind: o.kind, dense: false });
  return { a: plain(layouts.a), b: plain(layouts.b), c: plain(layouts.c) };
}

/** Fewer blocks than this many a SM (the batch's count times C's tiles) and a tile's cost grows by the shortfall. */
const PADDED_MIN_BLOCKS_PER_SM = 2;

/**
 * The tile of `tiles` that covers C (m x n, `count` matrices) at the least cost: the area its
 * tiles cover over C's area, times the tile's cost, times the shortfall in blocks where the batch
 * gives fewer than PADDED_MIN_BLOCKS_PER_SM a SM. A tie goes to the earlier tile.
 */
export function tileByPadding<C extends { readonly bm: number; readonly bn: number }>(
  tiles: readonly PaddedTile<C>[], m: number, n: number, count: number, smCount: number,
): C {
  if (tiles.length === 0) throw new Error('tileByPadding: no tiles');
  if (m < 1 || n < 1) return tiles[0]!.config;
  const wanted = PADDED_MIN_BLOCKS_PER_SM * smCount;
  let best = tiles[0]!.config;
  let bestCost = Infinity;
  for (const { config, cost } of tiles) {
    const rows = Math.ceil(m / config.bm), cols = Math.ceil(n / config.bn);
    const padding = (rows * config.bm * cols * config.bn) / (m * n);
    const blocks = Math.max(1, count) * rows * cols;
    const total = padding * cost * Math.max(1, wanted / blocks);
    if (total < bestCost) {
      best = config;
      bestCost = total;
    }
  }
  return best;
}

function planTiled(info: DeviceInfo, p: GemmProblem, tuning: GemmTuning): TiledGemmParams {
  const dim = Math.max(p.m, p.n);
  const padded = p.complex === undefined ? tuning.tiledByPadding?.[p.dtype] : undefined;
  const config = padded !== undefined && dim <= padded.maxDim
    ? tileByPadding(padded.tiles, p.m, p.n, p.count, info.smCount)
    : bandFor(tuning.tiled[p.dtype], dim).config;
  return {
    variant: 'tiled', dtype: p.dtype, transA: p.transA, transB: p.transB, betaZero: p.betaZero,
    layouts: plainLayouts(p), ...config,
  };
}

/** Whether the TMA design can run the problem: sm_90 (Hopper) only, real float64 strided batches the launcher found aligned, k >= 1. */
export function tmaTakes(info: DeviceInfo, p: GemmProblem): boolean {
  return info.major === 9 && p.dtype === MMA_DTYPE && p.complex === undefined && p.batchKind === 'strided' && p.tmaFits === true && p.k >= 1;
}

/** tmaTakes, with a table that has the design's bands. */
export function tmaUsable(info: DeviceInfo, p: GemmProblem, tuning: GemmTuning): boolean {
  return tmaTakes(info, p) && (tuning.tma?.length ?? 0) > 0;
}

/**
 * The card's route for a single product the TMA design can run (one matrix, float64, aligned
 * operands on sm_90: tmaTakes), or undefined: the plan's own choice stands.
 */
export function tmaRouted(info: DeviceInfo, p: GemmProblem, routes: readonly TmaRoute[]): TmaRoute | undefined {
  if (routes.length === 0 || p.count !== 1 || !tmaTakes(info, p)) return undefined;
  return tmaRouteFor(routes, p.transA, p.transB, p.m, p.n, p.k);
}

function planTma(p: GemmProblem, config: TmaConfig): TmaGemmParams {
  return {
    variant: 'tma', dtype: p.dtype, transA: p.transA, transB: p.transB, betaZero: p.betaZero,
    layouts: plainLayouts(p), ...config,
  };
}

function planMma(info: DeviceInfo, p: GemmProblem, tuning: GemmTuning): MmaGemmParams {
  const side = Math.min(p.m, p.n), dim = Math.max(p.m, p.n);
  const smallSideMax = tuning.mmaSmallSide?.at(-1)?.maxDim ?? 0;
  const small = tuning.mmaSmallSide !== undefined && side <= smallSideMax;
  // The padding rule's tiles for C's larger side; the small side's bands where C is narrow and long.
  const padded = p.complex === undefined && tuning.mmaByPadding !== undefined && dim <= tuning.mmaByPadding.maxDim && !(small && dim > smallSideMax)
    ? tuning.mmaByPadding.tiles.filter((t) => side <= (t.maxSide ?? Infinity))
    : [];
  const config = padded.length > 0
    // One band of the chosen tile, so mmaConfigFor still fits it to the transposes.
    ? mmaConfigFor(p.transA, p.transB, side, { ...tuning, mma: [{ maxDim: Infinity, config: tileByPadding(padded, p.m, p.n, p.count, info.smCount) }] })
    : small
      ? mmaConfigFor(p.transA, p.transB, side, { ...tuning, mma: tuning.mmaSmallSide! })
      : mmaConfigFor(p.transA, p.transB, Math.max(p.m, p.n), tuning);
  return { variant: 'mma', dtype: p.dtype, transA: p.transA, transB: p.transB, betaZero: p.betaZero, layouts: plainLayouts(p), ...config };
}

/**
 * The mma kernel's tiles for C's triangle alone (m = n): the table's triangle band for op(A) and n,
 * or undefined where the table has none (the plan's own tiles stand). Real float64 only.
 */
export function mmaTriangleConfig(p: GemmProblem, tuning: GemmTuning): MmaConfig | undefined {
  const bands = tuning.mmaTriangle?.[p.transA];
  if (bands === undefined || p.complex !== undefined || p.dtype !== MMA_DTYPE || p.n > (bands.at(-1)?.maxDim ?? 0)) return undefined;
  return bandFor(bands, p.n).config;
}

/**
 * The mma kernel's block sizes for C of order `dim` (the band of the table, fitted to the
 * transposes); `maxTiles`: at most that many 8 x 8 accumulator tiles a warp.
 */
export function mmaConfigFor(transA: Op, transB: Op, dim: number, tuning: GemmTuning, maxTiles = Infinity): MmaConfig {
  let config = bandFor(tuning.mma, dim).config;
  // TT with 32 accumulator tiles per warp spills at 255 registers (both operands take one
  // fragment load per tile): take the largest band whose warps hold at most 16 tiles.
  const tiles = (c: MmaConfig): number => (c.bm / c.wm / 8) * (c.bn / c.wn / 8);
  if (transA === 'T' && transB === 'T' && tiles(config) > 16) {
    config = [...tuning.mma].reverse().find((b) => tiles(b.config) <= 16)?.config ?? config;
  }
  // Otherwise the nearest smaller band within maxTiles.
  if (tiles(config) > maxTiles) {
    const at = tuning.mma.findIndex((b) => b.config === config);
    config = tuning.mma.slice(0, at + 1).reverse().find((b) => tiles(b.config) <= maxTiles)?.config ?? config;
  }
  // A k-contiguous op(A) (A^T) takes one 16-byte fragment load per 8-row tile where an
  // m-contiguous A takes one per 16 rows: with warps 2 x 4 over a square tile, the 64 x 32 warp
  // tile then runs out of registers (spills at 255). Turning the warps to 4 x 2 (32 x 64) keeps
  // the same block tile and fits.
  const turn = transA === 'T' && config.wm < config.wn && config.bm === config.bn;
  return turn ? { ...config, wm: config.wn, wn: config.wm } : config;
}

/** Blocks per SM the model expects for a small plan (registers estimated before compiling). */
function smallPlanOccupancy(info: DeviceInfo, p: SmallGemmParams): number {
  const shape = smallGemmShape(p);
  const registersPerThread = 32 + 2 * p.rn * (gemmElementBytes(p) / 4);
  return blocksPerSM(info, { threads: shape.threads, registersPerThread, sharedBytes: shape.sharedBytes });
}

/**
 * The batched symmetric rank-k update's plan for one group of equal-size matrices: the paper's
 * recursion (batched-triangular-kblas, SYRK: split C in halves; the two diagonal blocks are syrks
 * of half the size, the off-diagonal block one GEMM) unrolled on the host into launches over the
 * whole batch: every off-diagonal block one batched GEMM, and the diagonal blocks at the bottom in
 * as few leaf launches as there are runs of equal, adjacent blocks (generate-leaf.ts). Sizes and
 * shapes from the tuning table (model/tuning/), `force` for tests.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { SyrkTilesBand, SyrkTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { MAX_BLOCK_Z } from '../common/block-launch.js';
import { elementBytes } from '../common/precision.js';
import { splitPoint } from '../common/split.js';
import { SYRK_LEAF_MAX_THREADS } from './generate-leaf.js';
import { SYRK_TILES_MAX_THREADS, syrkTilesShapeError, syrkTilesThreads } from './generate-tiles.js';
import type {
  Span, SyrkForce, SyrkLeafParams, SyrkLeafShape, SyrkPlan, SyrkStep, SyrkTilesLaunch, SyrkTilesParams, SyrkTilesShape, SyrkVariant, SyrkVbatchedLeafParams,
} from './params.js';

/** The largest leaf tile (16 x 16 threads of 4 x 4 accumulators). */
export const SYRK_TILE_MAX = 64;

export interface SyrkProblem extends SyrkVariant {
  readonly dtype: DType;
  /** C is n x n, op(A) n x k. */
  readonly n: number;
  readonly k: number;
  readonly count: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use (the device's opt-in limit less a reserve). */
  readonly sharedLimit: number;
}

/**
 * The recursion over C's n x n triangle (`uplo`'s off-diagonal blocks): the off-diagonal blocks (in recursion order) after the
 * leaves, adjacent leaves of one size merged into one launch.
 */
export function syrkSteps(n: number, leafMax: number, align: number, uplo: Uplo): SyrkStep[] {
  if (!(leafMax >= 1 && leafMax <= SYRK_TILE_MAX))
    throw new MyriadError('INVALID_ARGUMENT', `syrk leaf size must be 1 to ${SYRK_TILE_MAX}, got ${leafMax}`, 'leafMax');
  const leaves: Span[] = [];
  const offdiag: SyrkStep[] = [];
  const run = (span: Span): void => {
    if (span.size <= leafMax) {
      leaves.push(span);
      return;
    }
    const h = splitPoint(span.size, align);
    const lo: Span = { off: span.off, size: h };
    const hi: Span = { off: span.off + h, size: span.size - h };
    offdiag.push(uplo === 'lower' ? { kind: 'offdiag', rows: hi, cols: lo } : { kind: 'offdiag', rows: lo, cols: hi });
    run(lo);
    run(hi);
  };
  if (n > 0) run({ off: 0, size: n });
  const merged: { off: number; size: number; blocks: number }[] = [];
  for (const s of leaves) {
    const last = merged[merged.length - 1];
    if (last !== undefined && last.size === s.size && last.off + last.size * last.blocks === s.off) last.blocks++;
    else merged.push({ off: s.off, size: s.size, blocks: 1 });
  }
  return [...merged.map((m): SyrkStep => ({ kind: 'leaf', ...m })), ...offdiag];
}

/** The leaf's tile for diagonal blocks of `size`: the next power of two, and its accumulators per side. */
export function leafTile(size: number): { readonly tile: number; readonly reg: number } {
  let tile = 1;
  while (tile < size) tile *= 2;
  return { tile, reg: tile >= 64 ? 4 : tile >= 32 ? 2 : 1 };
}

/** The leaf's launch shape: threads per side, and as many matrices per block (blockDim.z) as CUDA, the table and the shared memory allow. */
export function syrkLeafShape(p: SyrkLeafParams | SyrkVbatchedLeafParams, count: number, tuning: SyrkTuning, sharedLimit: number): SyrkLeafShape {
  const side = p.tile / p.reg;
  const perMatrix = p.chunk * (p.tile + 1) * elementBytes(p.dtype);
  if (perMatrix > sharedLimit) throw new MyriadError('UNSUPPORTED', `a syrk leaf of ${p.tile} x ${p.chunk} does not fit ${sharedLimit} shared bytes`, 'chunk');
  const matrices = Math.max(1, Math.min(
    MAX_BLOCK_Z,
    Math.floor(Math.min(tuning.blockThreads, SYRK_LEAF_MAX_THREADS) / (side * side)),
    Math.floor(sharedLimit / perMatrix),
    count,
  ));
  return { side, matrices, sharedBytes: matrices * perMatrix };
}

type TilesBands = SyrkTuning['tiles'][keyof SyrkTuning['tiles']];

/** The tile design's shape for n: the table's first band with a shape holding n, else its last band with one. */
export function syrkTilesShapeFor(n: number, bands: TilesBands): SyrkTilesShape {
  const shaped = bands.filter((b): b is SyrkTilesBand => b.off !== true);
  const band = shaped.find((b) => n <= b.upTo) ?? shaped[shaped.length - 1];
  if (band === undefined) throw new MyriadError('UNSUPPORTED', 'the syrk tuning table lists no tile shape', 'tuning.tiles');
  return { tile: band.tile, reg: band.reg, chunk: band.chunk, minBlocks: band.minBlocks };
}

/** Whether the table sends n to the tile design: within tilesUpTo, and n's band not off. */
export function syrkTilesTake(n: number, upTo: number, bands: TilesBands): boolean {
  return n <= upTo && bands.find((b) => n <= b.upTo)?.off !== true;
}

/**
 * The tile design's launch: as many matrices per block (blockDim.z) as the thread cap, CUDA, the
 * shared memory and the batch allow; two panels per matrix where C has tiles off the diagonal.
 */
export function syrkTilesLaunch(p: SyrkTilesParams, n: number, count: number, tuning: SyrkTuning, sharedLimit: number): SyrkTilesLaunch {
  const bad = syrkTilesShapeError(p);
  if (bad !== undefined) throw new MyriadError('INVALID_ARGUMENT', `syrk tiles: ${bad}`, 'force.tiles');
  const nt = Math.ceil(n / p.tile);
  const perMatrix = (nt > 1 ? 2 : 1) * p.chunk * (p.tile + 1) * elementBytes(p.dtype);
  if (perMatrix > sharedLimit) throw new MyriadError('UNSUPPORTED', `a syrk tile of ${p.tile} x ${p.chunk} does not fit ${sharedLimit} shared bytes`, 'chunk');
  const threads = syrkTilesThreads(p);
  const matrices = Math.max(1, Math.min(
    MAX_BLOCK_Z,
    Math.floor(Math.min(tuning.blockThreads, SYRK_TILES_MAX_THREADS) / threads),
    Math.floor(sharedLimit / perMatrix),
    count,
  ));
  const tiles = (nt * (nt + 1)) / 2;
  return { params: p, side: p.tile / p.reg, matrices, tiles, blocks: Math.ceil(count / matrices) * tiles, sharedBytes: matrices * perMatrix };
}

export function planSyrk(problem: SyrkProblem, tuning: SyrkTuning, options: { readonly force?: SyrkForce } = {}): SyrkPlan {
  const { dtype, uplo, trans, kind } = problem;
  const force = options.force ?? {};
  const takeTiles = force.tiles !== undefined ? force.tiles !== false
    : force.leafMax === undefined && force.chunk === undefined && force.triangle === undefined && syrkTilesTake(problem.n, tuning.tilesUpTo[dtype], tuning.tiles[dtype]);
  if (takeTiles && problem.n > 0) {
    const shape = typeof force.tiles === 'object' ? force.tiles : syrkTilesShapeFor(problem.n, tuning.tiles[dtype]);
    const params: SyrkTilesParams = { dtype, uplo, trans, kind, tile: shape.tile, reg: shape.reg, chunk: shape.chunk, minBlocks: shape.minBlocks };
    return { leaves: new Map(), steps: [{ kind: 'tiles' }], tiles: syrkTilesLaunch(params, problem.n, problem.count, tuning, problem.sharedLimit) };
  }
  const leafMax = force.leafMax ?? tuning.leafMax[dtype];
  const chunk = force.chunk ?? tuning.chunk[dtype];
  // A forced leaf shape asks for the recursion (tests, sweeps of the leaf).
  const leafForced = force.leafMax !== undefined || force.chunk !== undefined;
  if (force.triangle ?? (!leafForced && problem.n >= tuning.triangleFrom[dtype])) return { leaves: new Map(), steps: [{ kind: 'triangle' }] };
  const steps = syrkSteps(problem.n, leafMax, tuning.splitAlign, uplo);
  const leaves = new Map<number, { params: SyrkLeafParams; shape: SyrkLeafShape }>();
  for (const s of steps) {
    if (s.kind !== 'leaf' || leaves.has(s.size)) continue;
    const params: SyrkLeafParams = { dtype, uplo, trans, kind, ...leafTile(s.size), chunk };
    leaves.set(s.size, { params, shape: syrkLeafShape(params, problem.count, tuning, problem.sharedLimit) });
  }
  return { leaves, steps };
}

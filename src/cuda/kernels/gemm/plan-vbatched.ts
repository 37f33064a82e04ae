/**
 * Pure: the launches of a variable-size batched GEMM. A member's size is max(m, n, k) (k = 0 where
 * alpha = 0); members with nothing to do (m = 0, n = 0, or k = 0 with beta = 1) are left out; the
 * rest go to the classes of common/vbatch.ts: classes up to 32 the `vstaged` kernel, larger ones
 * the tensor-core kernel (float64, where the card's table sets `vbatchedMma`) or else the tiled
 * kernel, with the tuning table's tile for the class (`vbatchedLarge`) or else its block sizes for
 * the class bound (the uniform planner's bands, keyed by the bound instead of the size; float32 at
 * most the band of 96, see below). Members beyond VBATCH_MAX: the per-size path.
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision } from '../../../core/dtype-table.js';
import type { Op } from '../../../core/ops.js';
import { MyriadError } from '../../../core/errors.js';
import type { GemmTuning } from '../../model/tuning/index.js';
import type { HostFrame } from '../common/host-scratch.js';
import { planClasses, type ClassPlan, type SizeClass } from '../common/vbatch.js';
import { MMA_DTYPE } from './generate-mma.js';
import type { VbatchedGemmParams } from './params.js';
import { bandFor, mmaConfigFor } from './plan.js';

export interface VbatchedGemmProblem {
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly alpha: number;
  readonly beta: number;
  /** Per member: m, n and k (the batch's own k; alpha = 0 is applied here). */
  readonly shapes: readonly { readonly m: number; readonly n: number; readonly k: number }[];
}

export interface VbatchedGemmLaunch extends SizeClass {
  readonly params: VbatchedGemmParams;
}

export interface VbatchedGemmPlan {
  readonly launches: readonly VbatchedGemmLaunch[];
  /** The launches' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: in no launch). */
  readonly place: Int32Array;
  /** Batch indices of members beyond the largest class (the per-size path takes them). */
  readonly large: readonly number[];
}

/**
 * The staged design's shape per class bound (generate-vstaged.ts), from its model: a team of
 * 16-64 threads a member (a tile of 2 x 2 to 4 x 4 elements of C a thread, so a member's loads and
 * the unrolled product share few threads), members enough for blocks of 128-256 threads, the
 * operands' shared memory (float64: 8.7 to 37.5 KiB a block) leaving room for at least five
 * blocks an SM. A tuning table's `vbatchedSmall` overrides a class.
 */
const VSTAGED_SHAPE: Readonly<Record<number, { members: number; tm: number; tn: number }>> = {
  8: { members: 16, tm: 2, tn: 2 },
  16: { members: 4, tm: 2, tn: 2 },
  24: { members: 4, tm: 3, tn: 3 },
  32: { members: 2, tm: 4, tn: 4 },
};

/** The largest class the staged and team designs take. */
export const VBATCHED_SMALL_MAX = 32;

/**
 * float32 classes take the table's band for at most this size: the larger band's 256-thread
 * blocks are held to 128 registers (generate-tiled.ts, minBlocks), and with the class prologue's
 * extra live values they spill (28-44 bytes, ptxas sm_90); the 64 x 64 tile of 8 x 8 does not.
 */
const FLOAT32_BAND_MAX = 96;

/**
 * The largest tile of C a tensor-core class kernel takes, in elements: the class frame keeps more
 * values live than the uniform kernel, and the 128 x 128 tiles spill there (TN: 255 registers and
 * 8 bytes, ptxas sm_90); a member of 65-128 wastes as much of a 128 x 128 tile as of its 64 x 64
 * tiles.
 */
const VMMA_TILE_MAX = 64 * 64;

/** The order whose mma band a class of `bound` takes: its own, or the largest below whose tile fits VMMA_TILE_MAX. */
function vmmaBandKey(bound: number, tuning: GemmTuning): number {
  const own = bandFor(tuning.mma, bound);
  if (own.config.bm * own.config.bn <= VMMA_TILE_MAX) return bound;
  const below = tuning.mma.slice(0, tuning.mma.indexOf(own)).reverse().find((b) => b.config.bm * b.config.bn <= VMMA_TILE_MAX);
  return below?.maxDim ?? bound;
}

/** The k the kernel runs for a member: 0 where alpha = 0 (BLAS then reads neither A nor B). */
export const effectiveK = (k: number, alpha: number): number => (alpha === 0 ? 0 : k);

/** A member's size, or undefined where it has nothing to do. */
export function gemmMemberSize(m: number, n: number, k: number, beta: number): number | undefined {
  if (m === 0 || n === 0 || (k === 0 && beta === 1)) return undefined;
  return Math.max(m, n, k);
}

export function planVbatchedGemm(p: VbatchedGemmProblem, tuning: GemmTuning): VbatchedGemmPlan {
  const sizes = p.shapes.map((s) => gemmMemberSize(s.m, s.n, effectiveK(s.k, p.alpha), p.beta));
  return gemmClassLaunches(p, planClasses(sizes), tuning);
}

/**
 * The same from the members' sizes (gemmMemberSize of each, NO_WORK where it has nothing to do),
 * as the launcher computes them in one typed array. `frame`: the plan's order and place come from
 * it (valid until it ends); absent, fresh arrays.
 */
export function planVbatchedGemmSizes(p: Omit<VbatchedGemmProblem, 'shapes'>, sizes: Int32Array, tuning: GemmTuning, frame?: HostFrame): VbatchedGemmPlan {
  return gemmClassLaunches(p, planClasses(sizes, frame), tuning);
}

function gemmClassLaunches(p: Omit<VbatchedGemmProblem, 'shapes'>, { classes, order, place, large }: ClassPlan, tuning: GemmTuning): VbatchedGemmPlan {
  const launches = classes.map((c): VbatchedGemmLaunch => ({ ...c, params: gemmClassParams(p, c.bound, tuning) }));
  return { launches, order, place, large };
}

/**
 * The kernel of the class of `bound`: the staged design for the classes up to 32 (or the team
 * design where the tuning table asks for it), else the table's `vbatchedLarge` shape for the class
 * where it has one, or the tensor-core or tiled design with the table's band for the bound. Any bound above 32 has one (the classes of
 * common/vbatch.ts, and the device-sized batches' class of their largest members).
 */
export function gemmClassParams(p: Pick<VbatchedGemmProblem, 'dtype' | 'transA' | 'transB' | 'beta'>, bound: number, tuning: GemmTuning): VbatchedGemmParams {
  const common = { dtype: p.dtype, transA: p.transA, transB: p.transB, betaZero: p.beta === 0 };
  if (bound <= VBATCHED_SMALL_MAX) {
    const shape = tuning.vbatchedSmall?.[p.dtype]?.[bound];
    if (shape?.design === 'team') return { variant: 'vsmall', ...common, bound, team: shape.team, tbc: shape.tbc };
    const staged = shape ?? VSTAGED_SHAPE[bound];
    if (staged === undefined) throw new Error(`no staged gemm shape for class bound ${bound}`);
    return { variant: 'vstaged', ...common, bound, members: staged.members, tm: staged.tm, tn: staged.tn };
  }
  const large = tuning.vbatchedLarge?.[p.dtype]?.[bound];
  if (large !== undefined) {
    if (large.design === 'tiled') {
      const { design: _design, ...config } = large;
      return { variant: 'vtiled', ...common, bound, ...config };
    }
    if (p.dtype !== MMA_DTYPE) throw new MyriadError('INVALID_ARGUMENT', `a tuning table's vbatchedLarge asks the tensor-core design for ${p.dtype} (class ${bound}): it runs ${MMA_DTYPE} only`, 'tuning.vbatchedLarge');
    const { design: _design, ...config } = large;
    return { variant: 'vmma', ...common, bound, ...config };
  }
  if (p.dtype === MMA_DTYPE && tuning.vbatchedMma === true) {
    const { tileGroup: _tileGroup, ...config } = mmaConfigFor(p.transA, p.transB, vmmaBandKey(bound, tuning), tuning);
    return { variant: 'vmma', ...common, bound, ...config };
  }
  const key = byPrecision(p.dtype, { double: bound, single: Math.min(bound, FLOAT32_BAND_MAX) });
  return { variant: 'vtiled', ...common, bound, ...bandFor(tuning.tiled[p.dtype], key).config };
}

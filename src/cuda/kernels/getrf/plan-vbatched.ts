/**
 * Pure: the launches of a variable-size batched LU. A member's size is max(m, n), or 0 where
 * min(m, n) = 0 (nothing to factor: class 8 writes its info 0); classes from common/vbatch.ts,
 * each with the design the uniform planner uses for its bound: up to 32 the warp design, up to the
 * table's registerMax (at most 128) the register design (the table's register shape for the
 * bound), above the blocked design with the panel width the uniform planner gives the bound (a
 * panel and an update launch per panel of the class). Members beyond VBATCH_MAX, and those of a
 * class whose panel does not fit the shared memory, keep the per-size path.
 */
import type { DType } from '../../../core/dtype.js';
import { elementBytes } from '../common/precision.js';
import { bandFor, type GetrfTuning } from '../../model/tuning/index.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';
import type { HostFrame } from '../common/host-scratch.js';
import { NO_WORK, planClasses, sizeClass, VBATCH_CLASSES, VBATCH_MAX, type SizeClass } from '../common/vbatch.js';
import { SMALL_WARPS } from '../common/warp-slots.js';
import { GETRF_SMALL_MAX } from './generate-small.js';
import type { GetrfVbatchedParams } from './params.js';
import { chooseLuPanelWidth } from './plan.js';

export interface VbatchedGetrfProblem {
  readonly dtype: DType;
  /** Per member: its rows and columns. */
  readonly shapes: readonly { readonly rows: number; readonly cols: number }[];
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

export interface VbatchedGetrfLaunch extends SizeClass {
  readonly params: GetrfVbatchedParams;
}

export interface VbatchedGetrfPlan {
  readonly launches: readonly VbatchedGetrfLaunch[];
  /** The launches' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: in no launch). */
  readonly place: Int32Array;
  /** Batch indices (batch order) of the members on the per-size path. */
  readonly large: readonly number[];
}

/** A member's size for its class: max(m, n), or 0 where there is nothing to factor. */
export const getrfMemberSize = (rows: number, cols: number): number => (Math.min(rows, cols) === 0 ? 0 : Math.max(rows, cols));

/** The largest class of the register design for `dtype`: the largest class within its limit (at least 32); above, the blocked design. */
export function getrfRegisterClassMax(dtype: DType, tuning: GetrfTuning): number {
  const limit = Math.min(tuning.registerMax[dtype], REGISTER_DESIGN_MAX);
  return VBATCH_CLASSES.reduce((most, bound) => (bound <= limit ? Math.max(most, bound) : most), GETRF_SMALL_MAX);
}

/** The design of one class; undefined where the blocked design's panel of `bound` rows does not fit `sharedLimit`. */
export function getrfClassParams(dtype: DType, bound: number, tuning: GetrfTuning, sharedLimit: number): GetrfVbatchedParams | undefined {
  const kind = 'pointer' as const;
  if (bound <= GETRF_SMALL_MAX) return { variant: 'vsmall', bound, params: { dtype, rows: bound, cols: bound, kind, warps: SMALL_WARPS } };
  if (bound <= getrfRegisterClassMax(dtype, tuning)) {
    const shape = bandFor(tuning.registerShapes[dtype], bound)!.shape;
    return { variant: 'vregister', bound, params: { dtype, rows: bound, cols: bound, kind, warps: shape.warps, nb: shape.nb, minBlocks: classMinBlocks(dtype, bound, shape.warps, shape.minBlocks ?? 1) } };
  }
  const ib = chooseLuPanelWidth(dtype, bound, sharedLimit, tuning.panelWidest[dtype]);
  return ib === 0 ? undefined : { variant: 'vpanel', bound, params: { dtype, kind, ib } };
}

/**
 * The blocks an SM the class kernel asks for: the table's, except where that caps a thread at 64
 * registers (float32 65-128 on sm_90: 16 warps, 2 blocks): there one. The member's run-time bounds
 * stay live through the loops, and under the cap of 64 the class kernel of 128 spilled 160 bytes
 * (the uniform kernel 12); at one block an SM it takes 108 registers and spills none (ptxas, sm_90).
 */
function classMinBlocks(dtype: DType, bound: number, warps: number, minBlocks: number): number {
  if (65536 / (32 * warps * minBlocks) <= 64) return 1;
  // float64 from 49 rows: the table's 5 blocks (96 registers) spilled 852 bytes in the class kernel of
  // 64 (the uniform kernel 168); at 4 (128 registers) none.
  return elementBytes(dtype) === 8 && bound > 48 ? Math.min(minBlocks, 4) : minBlocks;
}

export function planVbatchedGetrf(p: VbatchedGetrfProblem, tuning: GetrfTuning): VbatchedGetrfPlan {
  const sizes = new Int32Array(p.shapes.length);
  for (let i = 0; i < sizes.length; i++) sizes[i] = getrfMemberSize(p.shapes[i]!.rows, p.shapes[i]!.cols);
  return planVbatchedGetrfSizes(p.dtype, sizes, p.sharedLimit, tuning);
}

/**
 * The same from the members' sizes (getrfMemberSize of each), as the launcher computes them in one
 * typed array. Whether a size has a class (a class bound within VBATCH_MAX whose design fits) is
 * found once per distinct size, not per member (a size NO_WORK: a member with nothing to do here,
 * left out): one pass marks the members without one (NO_WORK
 * for planClasses, their batch indices to `large`), then one counting sort. `frame`: the plan's
 * member arrays come from it (planClasses); absent, fresh ones.
 */
export function planVbatchedGetrfSizes(dtype: DType, sizes: Int32Array, sharedLimit: number, tuning: GetrfTuning, frame?: HostFrame): VbatchedGetrfPlan {
  const designs = new Map<number, GetrfVbatchedParams | undefined>();
  const design = (bound: number): GetrfVbatchedParams | undefined => {
    if (!designs.has(bound)) designs.set(bound, getrfClassParams(dtype, bound, tuning, sharedLimit));
    return designs.get(bound);
  };
  // Per size up to VBATCH_MAX: 1 where it has a class, 0 where not, -1 not yet asked.
  const classed = new Int8Array(VBATCH_MAX + 1).fill(-1);
  const inClass = (d: number): boolean => {
    if (d > VBATCH_MAX) return false;
    if (classed[d] === -1) { const bound = sizeClass(d); classed[d] = bound !== undefined && design(bound) !== undefined ? 1 : 0; }
    return classed[d] === 1;
  };
  const keys = frame === undefined ? new Int32Array(sizes.length) : frame.int32(sizes.length);
  const large: number[] = [];
  for (let i = 0; i < sizes.length; i++) {
    const d = sizes[i]!;
    if (d === NO_WORK) keys[i] = NO_WORK;                 // a member the caller takes elsewhere (gesv's fused classes)
    else if (inClass(d)) keys[i] = d;
    else { keys[i] = NO_WORK; large.push(i); }
  }
  const { classes, order, place } = planClasses(keys, frame);
  return { launches: classes.map((c) => ({ ...c, params: design(c.bound)! })), order, place, large };
}

/**
 * Pure: the launches of a variable-size batched Cholesky. A member's size is its order n (n = 0
 * is in class 8: its info is written 0); classes from common/vbatch.ts, each with the design the
 * uniform planner uses for orders of its bound: up to 32 the warp design (warps and the classic
 * step as planPotrf gives for the bound), up to the table's registerMax (at most 128) the register
 * design (the table's register shape for the bound), above the panel design, loop-inclusive (one launch for all panels), its
 * panel width for the bound. Members beyond VBATCH_MAX: the per-size path.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { bandFor, type PotrfTuning } from '../../model/tuning/index.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';
import type { HostFrame } from '../common/host-scratch.js';
import { planClasses, type SizeClass } from '../common/vbatch.js';
import { SMALL_MAX_N, smallWarps } from '../common/warp-slots.js';
import type { PotrfVbatchedParams } from './params.js';
import { choosePanelWidth, PANEL_KB } from './plan.js';

export interface VbatchedPotrfProblem {
  readonly dtype: DType;
  readonly uplo: Uplo;
  /** Per member: its order. */
  readonly orders: ArrayLike<number>;
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

export interface VbatchedPotrfLaunch extends SizeClass {
  readonly params: PotrfVbatchedParams;
}

export interface VbatchedPotrfPlan {
  readonly launches: readonly VbatchedPotrfLaunch[];
  /** The launches' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: in no launch). */
  readonly place: Int32Array;
  readonly large: readonly number[];
}

/** The design of one class. */
export function potrfClassParams(dtype: DType, uplo: Uplo, bound: number, sharedLimit: number, tuning: PotrfTuning): PotrfVbatchedParams {
  const kind = 'pointer' as const;
  if (bound <= SMALL_MAX_N) {
    return { variant: 'vsmall', bound, params: { dtype, n: bound, uplo, kind, warps: smallWarps(bound), classic: bound <= tuning.classicMax[dtype] } };
  }
  if (bound <= Math.min(tuning.registerMax[dtype], REGISTER_DESIGN_MAX)) {
    const shape = bandFor(tuning.registerShapes[dtype], bound)!.shape;
    return { variant: 'vregister', bound, params: { dtype, n: bound, uplo, kind, warps: shape.warps, nb: shape.nb, minBlocks: shape.minBlocks } };
  }
  const widest = bandFor(tuning.panelWidest[dtype], bound)!.widest;
  const ib = choosePanelWidth(dtype, bound, PANEL_KB, sharedLimit, widest);
  if (ib === 0) throw new Error(`no Cholesky panel of ${bound} rows fits ${sharedLimit} bytes of shared memory`);
  return { variant: 'vpanel', bound, params: { dtype, uplo, kind, ib, kb: PANEL_KB, loop: true } };
}

/** `frame`: the plan's member arrays come from it (planClasses); absent, fresh ones. */
export function planVbatchedPotrf(p: VbatchedPotrfProblem, tuning: PotrfTuning, frame?: HostFrame): VbatchedPotrfPlan {
  const { classes, order, place, large } = planClasses(p.orders, frame);
  return {
    launches: classes.map((c) => ({ ...c, params: potrfClassParams(p.dtype, p.uplo, c.bound, p.sharedLimit, tuning) })),
    order,
    place,
    large,
  };
}

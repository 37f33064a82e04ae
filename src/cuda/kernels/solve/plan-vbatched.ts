/**
 * Pure: the fused class launches of a variable-size batched posv or gesv (generate-vsmall.ts). The
 * members of order up to SMALL_MAX_N (n = 0 too: its info is written 0) go to the classes of
 * common/vbatch.ts that hold them (8, 16, 24, 32), each with the uniform fused kernel's warps for
 * its bound; the larger members are left to the factorisation's and trsm's class paths (`place` -1).
 *
 * Right-hand sides: FUSED_RHS of them ride through the factorisation (the bordered columns), the
 * rest go in further passes. That number is fixed, not the class's widest B, so that a member's
 * arithmetic does not depend on the other members (nor, on device sizes, on the maxima): the
 * bordered columns and the passes round differently, and the device form must equal the host
 * form bit for bit.
 */
import type { DType } from '../../../core/dtype.js';
import type { HostFrame } from '../common/host-scratch.js';
import { int32s } from '../common/members.js';
import { NO_WORK, planClasses, SMALL_CLASS_SHIFT, SMALL_CLASS_STEP, type SizeClass } from '../common/vbatch.js';
import { SMALL_MAX_N, smallWarps } from '../common/warp-slots.js';
import { RHS_MAX } from './generate-small.js';
import type { FusedVbatchedParams } from './params.js';

/** Right-hand sides carried through the factorisation by the fused class kernels (generate-small.ts's most). */
export const FUSED_RHS = RHS_MAX;

/** The fused kernel of a class of bound `bound` whose widest B (or the maxima's) has `nrhsMax` columns. */
export function fusedParams(dtype: DType, bound: number, nrhsMax: number): FusedVbatchedParams {
  return { dtype, n: bound, warps: smallWarps(bound), rhs: FUSED_RHS, more: nrhsMax > FUSED_RHS };
}

export interface VbatchedFusedProblem {
  readonly dtype: DType;
  /** Per member: A's order and B's columns. */
  readonly orders: Int32Array;
  readonly nrhs: Int32Array;
}

export interface VbatchedFusedLaunch extends SizeClass {
  readonly params: FusedVbatchedParams;
  /** The class's widest B (whether its kernel has the further passes' loop; each warp runs it to its own members' widest). */
  readonly nrhsMax: number;
}

export interface VbatchedFusedPlan {
  readonly launches: readonly VbatchedFusedLaunch[];
  /** The launches' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: not a fused member). */
  readonly place: Int32Array;
}

/** `frame`: the plan's member arrays come from it; absent, fresh ones. */
export function planVbatchedFused(p: VbatchedFusedProblem, frame?: HostFrame): VbatchedFusedPlan {
  const sizes = int32s(p.orders.length, frame);
  const widest = new Int32Array(SMALL_MAX_N / SMALL_CLASS_STEP);
  smallOrders(p.orders, p.nrhs, sizes, widest);
  const { classes, order, place } = planClasses(sizes, frame);
  const launches = classes.map((c): VbatchedFusedLaunch => {
    const nrhsMax = widest[c.bound / SMALL_CLASS_STEP - 1]!;
    return { ...c, nrhsMax, params: fusedParams(p.dtype, c.bound, nrhsMax) };
  });
  return { launches, order, place };
}

/**
 * sizes[i] := orders[i] where it is at most SMALL_MAX_N, else NO_WORK; widest[c] := the most columns
 * of B among the members of class (c + 1) * SMALL_CLASS_STEP. One pass, alone in its function (no code
 * after the loop that never ran).
 */
function smallOrders(orders: Int32Array, nrhs: Int32Array, sizes: Int32Array, widest: Int32Array): void {
  for (let i = 0; i < orders.length; i++) {
    const d = orders[i]!;
    if (d > SMALL_MAX_N) { sizes[i] = NO_WORK; continue; }
    sizes[i] = d;
    const c = d === 0 ? 0 : (d - 1) >> SMALL_CLASS_SHIFT;   // (d - 1) / SMALL_CLASS_STEP: order 0 in the first class
    const w = nrhs[i]!;
    if (w > widest[c]!) widest[c] = w;
  }
}

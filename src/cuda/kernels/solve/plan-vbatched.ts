/**
 * Pure: the fused class launches of a variable-size batched posv (generate-vsmall.ts). The members
 * of order up to SMALL_MAX_N (n = 0 too: its info is written 0) go to the classes of
 * common/vbatch.ts that hold them (8, 16, 24, 32), each with the uniform fused kernel's warps for
 * its bound and right-hand sides per pass for its widest B; the larger members are left to potrf's
 * and trsm's class paths (`place` -1).
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { HostFrame } from '../common/host-scratch.js';
import { int32s } from '../common/members.js';
import { NO_WORK, planClasses, type SizeClass } from '../common/vbatch.js';
import { SMALL_MAX_N, smallWarps } from '../common/warp-slots.js';
import { rhsPerPass } from './generate-small.js';
import type { PosvVbatchedParams } from './params.js';

export interface VbatchedPosvSmallProblem {
  readonly dtype: DType;
  readonly uplo: Uplo;
  /** Per member: A's order and B's columns. */
  readonly orders: Int32Array;
  readonly nrhs: Int32Array;
}

export interface VbatchedPosvSmallLaunch extends SizeClass {
  readonly params: PosvVbatchedParams;
  /** The class's widest B (the passes over right-hand sides run to it). */
  readonly nrhsMax: number;
}

export interface VbatchedPosvSmallPlan {
  readonly launches: readonly VbatchedPosvSmallLaunch[];
  /** The launches' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: not a fused member). */
  readonly place: Int32Array;
}

/** `frame`: the plan's member arrays come from it; absent, fresh ones. */
export function planVbatchedPosvSmall(p: VbatchedPosvSmallProblem, frame?: HostFrame): VbatchedPosvSmallPlan {
  const sizes = int32s(p.orders.length, frame);
  smallOrders(p.orders, sizes);
  const { classes, order, place } = planClasses(sizes, frame);
  const launches = classes.map((c): VbatchedPosvSmallLaunch => {
    const nrhsMax = largestOf(p.nrhs, c.members);
    const rhs = rhsPerPass(nrhsMax);
    return { ...c, nrhsMax, params: { dtype: p.dtype, n: c.bound, uplo: p.uplo, warps: smallWarps(c.bound), rhs, more: nrhsMax > rhs } };
  });
  return { launches, order, place };
}

/** sizes[i] := orders[i] where it is at most SMALL_MAX_N, else NO_WORK (alone in its function: no code after the loop that never ran). */
function smallOrders(orders: Int32Array, sizes: Int32Array): void {
  for (let i = 0; i < orders.length; i++) sizes[i] = orders[i]! <= SMALL_MAX_N ? orders[i]! : NO_WORK;
}

/** The largest values[i] over i in `members` (0 for none). */
function largestOf(values: Int32Array, members: Int32Array): number {
  let most = 0;
  for (let m = 0; m < members.length; m++) { const v = values[members[m]!]!; if (v > most) most = v; }
  return most;
}

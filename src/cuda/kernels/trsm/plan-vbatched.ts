/**
 * Pure: the launches of a variable-size batched trsm. A member's size is its triangle's order t
 * (m for side left, n for right); members with nothing to solve (m = 0 or n = 0) are left out;
 * the rest go to the classes of common/vbatch.ts. A class runs the recursion of plan.ts over its
 * bound (recursionSteps with the table's leafMax and split alignment), every step over all its
 * members: a leaf is one launch of the class kernel (generate-vbatched.ts) on the step's diagonal
 * block cut at each member's triangle; an update is one variable-size GEMM over the members' cut
 * blocks (memberUpdate). Cutting the class's recursion at a member's order is a recursion over the
 * member (some blocks empty), so every member gets the same leaves and updates as a triangle split
 * at those points. The leaves' launch shape (vectors and matrices per block) is leafShape's for the
 * class's widest B (B's other dimension varies per member; a narrower member leaves threads idle
 * and its blocks beyond its own vectors exit at once). Members beyond VBATCH_MAX: the per-size path.
 * alpha = 0 is not planned here (B := 0 without reading A: the per-size path's zero kernel).
 */
import type { DType } from '../../../core/dtype.js';
import type { MatrixView } from '../../../core/batch.js';
import type { TrsmRequest } from '../../../core/ops.js';
import type { TrsmTuning } from '../../model/tuning/index.js';
import type { HostFrame } from '../common/host-scratch.js';
import { int32s } from '../common/members.js';
import { NO_WORK, planClasses, type SizeClass } from '../common/vbatch.js';
import { updateOf } from './blocks.js';
import type { Span, TrsmForce, TrsmLeafShape, TrsmStep, TrsmVariant, TrsmVbatchedLeafParams } from './params.js';
import { leafShape, recursionSteps, solvesForward } from './plan.js';

export interface VbatchedTrsmProblem extends TrsmVariant {
  readonly dtype: DType;
  /**
   * Per member i: its triangle's order t[i] and B's other dimension nvec[i] (side left: B is t x
   * nvec; right: nvec x t), as flat arrays (a launcher's member fields: no object per member).
   */
  readonly members: { readonly t: ArrayLike<number>; readonly nvec: ArrayLike<number> };
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

export interface VbatchedTrsmLaunch extends SizeClass {
  /** The recursion over the class bound, in launch order. */
  readonly steps: readonly TrsmStep[];
  /** The leaf's launch shape by the size of its block. */
  readonly shapes: ReadonlyMap<number, TrsmLeafShape>;
  /** The widest B of the class (the leaves' walk over vectors and their grid.y). */
  readonly nvecMax: number;
}

export interface VbatchedTrsmPlan {
  readonly leaf: TrsmVbatchedLeafParams;
  readonly launches: readonly VbatchedTrsmLaunch[];
  /** The launches' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: in no launch). */
  readonly place: Int32Array;
  /** Batch indices of members beyond the largest class (the per-size path takes them). */
  readonly large: readonly number[];
}

/**
 * The part of a plan that depends on the members alone (their triangles' orders and B's other
 * dimension), not on uplo, transA, diag or alpha: the classes, each with its widest B, and the
 * launch order. Two solves on the same batches (posv's, gesv's) share it, and their tables.
 */
export interface TrsmClassing {
  readonly classes: readonly (SizeClass & { readonly nvecMax: number })[];
  readonly order: Int32Array;
  readonly place: Int32Array;
  readonly large: readonly number[];
}

/** `frame`: the classing's arrays come from it (valid until it ends); absent, fresh arrays. */
export function classifyTrsm(members: VbatchedTrsmProblem['members'], frame?: HostFrame): TrsmClassing {
  const { t, nvec } = members;
  const { classes, order, place, large } = planClasses(memberSizes(t, nvec, frame), frame);
  return { classes: classes.map((c) => ({ ...c, nvecMax: largestOf(nvec, c.members) })), order, place, large };
}

/** Each member's size, its triangle's order (NO_WORK where it has no triangle or no vectors), the loop alone in a function. */
function memberSizes(t: ArrayLike<number>, nvec: ArrayLike<number>, frame: HostFrame | undefined): Int32Array {
  const sizes = int32s(t.length, frame);
  for (let i = 0; i < t.length; i++) sizes[i] = t[i] === 0 || nvec[i] === 0 ? NO_WORK : t[i]!;
  return sizes;
}

/** The largest values[i] over i in `members` (0 for none). */
function largestOf(values: ArrayLike<number>, members: Int32Array): number {
  let most = 0;
  for (let m = 0; m < members.length; m++) { const v = values[members[m]!]!; if (v > most) most = v; }
  return most;
}

/** The plan of one solve; `classing`: classifyTrsm(p.members), where the caller has it already. */
export function planVbatchedTrsm(
  p: VbatchedTrsmProblem, tuning: TrsmTuning, force: Pick<TrsmForce, 'leafMax' | 'vectorsMax'> = {}, classing: TrsmClassing = classifyTrsm(p.members),
): VbatchedTrsmPlan {
  const { classes, order, place, large } = classing;
  const leafMax = force.leafMax ?? tuning.leafMax[p.dtype];
  const vectorsMax = force.vectorsMax ?? tuning.vectorsMax;
  const forward = solvesForward(p);
  const launches = classes.map((c): VbatchedTrsmLaunch => {
    const steps = recursionSteps(c.bound, leafMax, tuning.splitAlign, forward, 'trsm');
    const shapes = new Map<number, TrsmLeafShape>();
    for (const s of steps) {
      if (s.kind === 'leaf' && !shapes.has(s.span.size))
        shapes.set(s.span.size, leafShape(p.dtype, s.span.size, c.nvecMax, c.members.length, vectorsMax, tuning, p.sharedLimit));
    }
    return { bound: c.bound, members: c.members, steps, shapes, nvecMax: c.nvecMax };
  });
  return { leaf: { dtype: p.dtype, side: p.side, uplo: p.uplo, transA: p.transA, diag: p.diag }, launches, order, place, large };
}

/** The part of a class's span inside a member's triangle of order t (size 0 where t <= off). */
export function cutSpan(s: Span, t: number): Span {
  return { off: s.off, size: Math.max(0, Math.min(s.size, t - s.off)) };
}

/** The rows x cols block at (r0, c0) of one matrix. */
export function viewBlock<S>(v: MatrixView<S>, r0: number, c0: number, rows: number, cols: number): MatrixView<S> {
  return { data: v.data, offset: v.offset + r0 + c0 * v.ld, ld: v.ld, rows, cols };
}

/**
 * One member's GEMM of an update step of its class, the step's spans cut at its triangle (m x n
 * is its B): the per-size path's update (blocks.ts) on those spans; C is empty where the target
 * lies beyond its triangle, and k is 0 where the source does (C is then only scaled by beta).
 */
export function memberUpdate<S>(
  r: Pick<TrsmRequest, 'side' | 'transA' | 'alpha'>, a: MatrixView<S>, b: MatrixView<S>, step: Extract<TrsmStep, { kind: 'update' }>,
): ReturnType<typeof updateOf<MatrixView<S>>> {
  return memberUpdateOf(r, b.rows, b.cols, step, (r0, c0, rows, cols) => viewBlock(a, r0, c0, rows, cols), (r0, c0, rows, cols) => viewBlock(b, r0, c0, rows, cols));
}

/**
 * memberUpdate for a member whose B is m x n, its blocks as `cutA` and `cutB` make them (views, or
 * the launcher's flat fields): the one rule the launcher and its tests share.
 */
export function memberUpdateOf<X>(
  r: Pick<TrsmRequest, 'side' | 'transA' | 'alpha'>, m: number, n: number, step: Extract<TrsmStep, { kind: 'update' }>,
  cutA: (r0: number, c0: number, rows: number, cols: number) => X, cutB: (r0: number, c0: number, rows: number, cols: number) => X,
): ReturnType<typeof updateOf<X>> {
  const t = r.side === 'left' ? m : n;
  const cut = { ...step, target: cutSpan(step.target, t), source: cutSpan(step.source, t) };
  return updateOf('trsm', r, cutA, cutB, m, n, cut);
}

/**
 * Pure: the launches of a variable-size batched trtri. A member's size is its order n; the members
 * go to the classes of common/vbatch.ts (n = 0 in class 8, whose leaf writes its info 0), members
 * beyond VBATCH_MAX to the per-size path.
 *
 * A class whose bound fits one leaf (nb = leafSize(bound), the table's leafMax: classes up to 32)
 * is one launch of the class leaf with info: the per-size leaf's work, masked to each member.
 *
 * A class above one leaf runs the recursion of plan.ts over its bound, cut at each member's order,
 * in the order that needs no inverted block: with A = [A11 0; A21 A22] (lower),
 * inv(A)21 = -inv(A22) A21 inv(A11), that is two triangular solves with the ORIGINAL diagonal
 * blocks, A21 := A22 \ A21, then A21 := -A21 / A11, done top-down (depth 0, the split of the class
 * bound, first; the blocks of one depth are disjoint and lie in no other's diagonal blocks, whose
 * contents their solves read unchanged), and the diagonal leaves inverted last. Upper is the
 * mirror image: A12 := A11 \ A12, A12 := -A12 / A22. So a depth is two variable-size trsm over
 * every member of every class at that depth (trsm's class launches, through its public face), and
 * the leaves one launch per class. The per-size path multiplies by the inverted blocks instead
 * (trmm bottom-up, LAPACK's dtrtri): the same flops; a variable-size trmm would need class
 * kernels of its own, where trsm's class path exists. Launches: a depth costs the trsm classes of
 * its triangles (each its recursion's leaves and updates), so the recursion's launches grow with
 * the depths (log2(512 / 32) = 4 at most), not with the distinct sizes.
 *
 * Before the recursion touches a member, the scan writes every such member's info (non-unit: the
 * first zero diagonal element); the launcher waits for it, as the per-size path does, and runs the
 * recursion over the non-singular members only, so a singular member is left untouched.
 */
import type { DType } from '../../../core/dtype.js';
import type { Diag, Uplo } from '../../../core/enums.js';
import type { TrtriTuning } from '../../model/tuning/index.js';
import type { HostFrame } from '../common/host-scratch.js';
import { planClasses, type SizeClass } from '../common/vbatch.js';
import type { TrtriForce, TrtriSpan, TrtriStep, TrtriVbatchedLeafParams } from './params.js';
import { leafLaunchShape, leafSize, trtriStepsByDepth } from './plan.js';

export interface VbatchedTrtriProblem {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly diag: Diag;
  /** Each member's order (flat: a launcher's member fields, no object per member). */
  readonly n: ArrayLike<number>;
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

export interface VbatchedTrtriClass extends SizeClass {
  /** The class leaf: its size and launch shape (blockDim = (nb, matrices)). */
  readonly leaf: TrtriVbatchedLeafParams;
  readonly matrices: number;
  readonly sharedBytes: number;
  /** Leaves along the class bound's diagonal (gridDim.y). */
  readonly leaves: number;
  /** The recursion's off-diagonal blocks by depth (empty where the class is one leaf). */
  readonly depths: readonly (readonly TrtriStep[])[];
}

export interface VbatchedTrtriPlan {
  /** Classes, largest bound first: those above one leaf (depths non-empty) before the rest. */
  readonly classes: readonly VbatchedTrtriClass[];
  /** The classes' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: in no class). */
  readonly place: Int32Array;
  /** The members of the classes above one leaf: the first `recursive` of `order`. */
  readonly recursive: number;
  /** Batch indices of members beyond the largest class (the per-size path takes them). */
  readonly large: readonly number[];
}

/** `frame`: the plan's order and place come from it (valid until it ends); absent, fresh arrays. */
export function planVbatchedTrtri(p: VbatchedTrtriProblem, tuning: TrtriTuning, force: TrtriForce = {}, frame?: HostFrame): VbatchedTrtriPlan {
  const { classes, order, place, large } = planClasses(p.n, frame);
  const leafMax = force.leafMax ?? tuning.leafMax[p.dtype];
  let recursive = 0;
  const planned = classes.map((c): VbatchedTrtriClass => {
    const nb = leafSize(c.bound, leafMax);
    const depths = trtriStepsByDepth(c.bound, nb);
    if (depths.length > 0) recursive += c.members.length;
    return {
      ...c, ...leafLaunchShape(p.dtype, nb, c.members.length, tuning, p.sharedLimit),
      leaf: { dtype: p.dtype, uplo: p.uplo, diag: p.diag, nb }, leaves: Math.ceil(c.bound / nb), depths,
    };
  });
  return { classes: planned, order, place, recursive, large };
}

/** A block of one member: rows x cols at (r0, c0). */
export interface MemberBlock {
  readonly r0: number;
  readonly c0: number;
  readonly rows: number;
  readonly cols: number;
}

/**
 * One member's two solves of a recursion step, the class's spans cut at its order n: B, the
 * off-diagonal block (lower: A21 at (hi, lo); upper: A12 at (lo, hi)), B := left \ B, then
 * B := -B / right, with the original diagonal blocks `left` (lower: A22; upper: A11) and `right`
 * (lower: A11; upper: A22). undefined where the step's second half lies beyond the member.
 */
export function memberOffDiagonal(uplo: Uplo, n: number, step: TrtriStep): { b: MemberBlock; left: TrtriSpan; right: TrtriSpan } | undefined {
  const { lo } = step;
  const hi = { off: step.hi.off, size: Math.max(0, Math.min(step.hi.size, n - step.hi.off)) };
  if (hi.size === 0) return undefined;
  return uplo === 'lower'
    ? { b: { r0: hi.off, c0: lo.off, rows: hi.size, cols: lo.size }, left: hi, right: lo }
    : { b: { r0: lo.off, c0: hi.off, rows: lo.size, cols: hi.size }, left: lo, right: hi };
}

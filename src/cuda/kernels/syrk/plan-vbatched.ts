/**
 * Pure: the launches of a variable-size batched syrk. A member's size is C's order n; members with
 * nothing to do (n = 0, or k = 0 with beta = 1; k counts as 0 where alpha = 0) are left out; the
 * rest go to the classes of common/vbatch.ts (gemm's and trsm's: 8, 16, 24, 32, 48, 64, 128, 256,
 * 512), whose bounds up to 32 are the per-size leaf's tiles of those orders, so a member up to 32
 * gets the per-size path's leaf arithmetic. A class runs the per-size recursion (plan.ts's
 * syrkSteps with the table's leafMax and split alignment) over its bound: its leaf steps are
 * launches of the class kernel (generate-vbatched.ts) on the diagonal blocks cut at each member's
 * order; its off-diagonal steps are GEMMs on the members' cut blocks (memberOffdiagOf), which the
 * launcher gathers, every class's and every step's, into one variable-size GEMM (the blocks are
 * disjoint, so their order is free). Members beyond VBATCH_MAX: the per-size path.
 */
import type { DType } from '../../../core/dtype.js';
import type { Op } from '../../../core/ops.js';
import type { SyrkTuning } from '../../model/tuning/index.js';
import type { HostFrame } from '../common/host-scratch.js';
import { int32s } from '../common/members.js';
import { NO_WORK, planClasses, type SizeClass } from '../common/vbatch.js';
import type { Span, SyrkForce, SyrkLeafShape, SyrkStep, SyrkVariant, SyrkVbatchedLeafParams } from './params.js';
import { leafTile, syrkLeafShape, syrkSteps } from './plan.js';

export interface VbatchedSyrkProblem extends SyrkVariant {
  readonly dtype: DType;
  /** Per member i: C's order n[i] and op(A)'s columns k[i] (0 where alpha = 0), flat arrays. */
  readonly members: { readonly n: ArrayLike<number>; readonly k: ArrayLike<number> };
  readonly beta: number;
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

export interface VbatchedSyrkLaunch extends SizeClass {
  /** The recursion over the class bound: leaf steps (launches of the class kernel) and off-diagonal blocks (GEMMs). */
  readonly steps: readonly SyrkStep[];
  /** The class kernel's parameters and launch shape per leaf size. */
  readonly leaves: ReadonlyMap<number, { readonly params: SyrkVbatchedLeafParams; readonly shape: SyrkLeafShape }>;
}

export interface VbatchedSyrkPlan {
  readonly launches: readonly VbatchedSyrkLaunch[];
  /** The launches' members one after another (their `members` are views of it). */
  readonly order: Int32Array;
  /** Per batch index, its place in `order` (-1: in no launch). */
  readonly place: Int32Array;
  /** Batch indices of members beyond the largest class (the per-size path takes them). */
  readonly large: readonly number[];
}

/** What a plan may be told to use instead of the table's choice (tests): the recursion's largest leaf and the leaf's chunk. */
export type VbatchedSyrkForce = Pick<SyrkForce, 'leafMax' | 'chunk'>;

/** `frame`: the plan's order and place come from it (valid until it ends); absent, fresh arrays. */
export function planVbatchedSyrk(p: VbatchedSyrkProblem, tuning: SyrkTuning, force: VbatchedSyrkForce = {}, frame?: HostFrame): VbatchedSyrkPlan {
  const { classes, order, place, large } = planClasses(memberSizes(p.members.n, p.members.k, p.beta, frame), frame);
  const leafMax = force.leafMax ?? tuning.leafMax[p.dtype];
  const chunk = force.chunk ?? tuning.chunk[p.dtype];
  const launches = classes.map((c): VbatchedSyrkLaunch => {
    const steps = syrkSteps(c.bound, leafMax, tuning.splitAlign, p.uplo);
    const leaves = new Map<number, { params: SyrkVbatchedLeafParams; shape: SyrkLeafShape }>();
    for (const s of steps) {
      if (s.kind !== 'leaf' || leaves.has(s.size)) continue;
      const params: SyrkVbatchedLeafParams = { dtype: p.dtype, uplo: p.uplo, trans: p.trans, ...leafTile(s.size), chunk };
      leaves.set(s.size, { params, shape: syrkLeafShape(params, c.members.length, tuning, p.sharedLimit) });
    }
    return { bound: c.bound, members: c.members, steps, leaves };
  });
  return { launches, order, place, large };
}

/** Each member's size, C's order (NO_WORK where it has nothing to do), the loop alone in a function. */
function memberSizes(n: ArrayLike<number>, k: ArrayLike<number>, beta: number, frame: HostFrame | undefined): Int32Array {
  const sizes = int32s(n.length, frame);
  for (let i = 0; i < n.length; i++) sizes[i] = n[i] === 0 || (k[i] === 0 && beta === 1) ? NO_WORK : n[i]!;
  return sizes;
}

/** The part of a class's span inside a member's C of order n (size 0 where n <= off). */
export function cutSpan(s: Span, n: number): Span {
  return { off: s.off, size: Math.max(0, Math.min(s.size, n - s.off)) };
}

/** A block of one member's matrix: at (r0, c0), rows x cols. */
export interface BlockCut {
  readonly r0: number;
  readonly c0: number;
  readonly rows: number;
  readonly cols: number;
}

/** The GEMM's transposes of an off-diagonal block: trans N, A(rows, :) A(cols, :)^T; trans T, A(:, rows)^T A(:, cols). */
export const offdiagTransposes = (trans: Op): { readonly transA: Op; readonly transB: Op } => (trans === 'N' ? { transA: 'N', transB: 'T' } : { transA: 'T', transB: 'N' });

/** The spans of an off-diagonal step cut at a member's order n; undefined where C's block is empty (the step lies beyond n). */
export function offdiagSpansOf(n: number, step: Extract<SyrkStep, { kind: 'offdiag' }>): { readonly rows: Span; readonly cols: Span } | undefined {
  const rows = cutSpan(step.rows, n), cols = cutSpan(step.cols, n);
  return rows.size === 0 || cols.size === 0 ? undefined : { rows, cols };
}

/** op(A)'s rows `s` (op(A) is n x k) as a block of A: trans N, A(s, 0:k); trans T, A(0:k, s). */
export const opBlock = (trans: Op, s: Span, k: number): BlockCut => (trans === 'N' ? { r0: s.off, c0: 0, rows: s.size, cols: k } : { r0: 0, c0: s.off, rows: k, cols: s.size });

/**
 * One member's GEMM of an off-diagonal step of its class (blocks.ts's offdiagRequest on the step's
 * spans cut at the member's order n; op(A) is n x k): the blocks of A that are the GEMM's A and B,
 * and C's block; undefined where C's block is empty.
 */
export function memberOffdiagOf(trans: Op, n: number, k: number, step: Extract<SyrkStep, { kind: 'offdiag' }>): { readonly a: BlockCut; readonly b: BlockCut; readonly c: BlockCut } | undefined {
  const s = offdiagSpansOf(n, step);
  if (s === undefined) return undefined;
  return { a: opBlock(trans, s.rows, k), b: opBlock(trans, s.cols, k), c: { r0: s.rows.off, c0: s.cols.off, rows: s.rows.size, cols: s.cols.size } };
}

/**
 * The complex inverses (ztrtri, zlauum, zpotri, poti, zgetri) as lists of steps over a whole batch,
 * on sub-blocks of every matrix: the complex trsm, herk and gemm families' requests, the complex
 * Cholesky factorisation, and this family's scan, moves and column interchanges. Pure, over any
 * storage (tests run the same steps on the CPU reference). The products never touch A's matrices that must come back unchanged: they run on
 * workspace copies, and the result is moved into A only where info is 0.
 *
 * trtri, T of order n, X = inv(T) (ztrtri's n^3/6 complex multiply-adds):
 *   W := T's triangle; then the recursion on W, halves split at multiples of 32 near the middle:
 *   lower [T11 0; T21 T22]: X21 = -inv(T22) T21 inv(T11), so W21 := W21 T11^-1 (trsm right) and
 *   W21 := -T22^-1 W21 (trsm left) while T11 and T22 are still as given, then both halves inverted
 *   (upper: W12 := -T11^-1 W12, then W12 := W12 T22^-1); the off-diagonal solves cost n^3/6 as
 *   ztrtri's. A leaf (order s <= 32) is a trsm against the identity in a small workspace E, whose
 *   triangle is moved back (s^3/2 against s^3/6: the leaves add n s^2/3, 2 s^2/n^2 of the whole:
 *   3% at n = 256; at n <= 32 the one leaf is 3 times ztrtri's). n <= 32: one leaf straight from A, moved into A where info is 0.
 * lauum, C = U U^H or L^H L (zlauum's n^3/6): W := the triangle with the rest zero and a real
 *   diagonal (zlauu2 reads only the diagonal's real parts); C is written into A by the recursion
 *   lower: C11 = lauum(L11) + L21^H L21 (herk, beta 1), C21 = L22^H L21 (gemm over W's zero-padded
 *   L22), C22 = lauum(L22); upper: C11 = lauum(U11) + U12 U12^H, C12 = U12 U22^H. Leaves are herk
 *   of W's diagonal blocks (beta 0). n^3/4 in all: 1.5 times zlauum's (the gemm does not skip the
 *   zeros of the triangle it multiplies).
 * potri: the scan, W := A's triangle (rest zero), trtri's recursion on W with the leaves writing a
 *   real diagonal, lauum from W into a second workspace V, V's triangle moved into A where info is
 *   0 (a failing trtri leaves A unchanged, as the reference): about 1.25 times zpotri's n^3/3.
 * poti: potrf (the complex Cholesky family), then potri with the scan keeping potrf's info, so a
 *   matrix that failed potrf is left as potrf leaves it.
 * getri (the real family's order): W := L (a unit diagonal, zeros above), W := inv(L) by trtri's
 *   recursion (unit), W := inv(U) W (trsm with A's U), the scan of U's diagonal, then W's columns
 *   interchanged by the pivots and W moved into A where info is 0: inv(A) = inv(U) inv(L) P in
 *   n^3/6 + n^3/2 = 2 n^3/3, zgetri's count (plus the leaves').
 */
import type { Diag, Uplo } from '../../../core/enums.js';
import type { ComplexGemmRequest, ComplexHerkRequest, ComplexScalar, ComplexTrsmRequest } from '../../../core/op-specs.js';
import { splitPoint } from '../common/split.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import type { ZdiagonalMove, ZmoveOp } from './params.js';

/** The largest order a leaf takes: the complex trsm's and herk's one-kernel order. */
export const ZINVERSE_LEAF = 32;

const ONE: ComplexScalar = [1, 0];
const MINUS_ONE: ComplexScalar = [-1, 0];

/** One step, in launch order. */
export type ZinverseStep<S> =
  /** info := the first exactly zero diagonal of every matrix of `a` (keep: a non-zero info stays). */
  | { readonly kind: 'scan'; readonly a: BlockBatch<S>; readonly keep: boolean }
  /** info := 0 (a unit triangle, lauum). */
  | { readonly kind: 'zero-info' }
  /** B (square, every matrix) from A as `move` says. */
  | { readonly kind: 'move'; readonly move: ZmoveOp; readonly from: BlockBatch<S>; readonly to: BlockBatch<S> }
  | { readonly kind: 'trsm'; readonly request: ComplexTrsmRequest<S> }
  | { readonly kind: 'herk'; readonly request: ComplexHerkRequest<S> }
  | { readonly kind: 'gemm'; readonly request: ComplexGemmRequest<S> }
  /** getri's finish: W's columns interchanged by the pivots (last first), then A := W, where info is 0. */
  | { readonly kind: 'columns'; readonly w: BlockBatch<S>; readonly a: BlockBatch<S> }
  /** The Cholesky factorisation of `a` (info: the call's). */
  | { readonly kind: 'potrf'; readonly uplo: Uplo; readonly a: BlockBatch<S> };

const square = <S>(b: BlockBatch<S>, off: number, size: number): BlockBatch<S> => block(b, off, off, size, size);

const triangle = (uplo: Uplo, diagonal: ZdiagonalMove, zeroOther: boolean, onlyOk: boolean): ZmoveOp =>
  ({ op: 'triangle', uplo, diagonal, zeroOther, onlyOk });

/**
 * The leaf of trtri: the triangle of `t` (order s <= ZINVERSE_LEAF) inverted into the triangle of
 * `into` (the diagonal as `diagonal` says), through E (s x s of the small workspace).
 */
function leafSteps<S>(uplo: Uplo, diag: Diag, t: BlockBatch<S>, into: BlockBatch<S>, e: BlockBatch<S>, diagonal: ZdiagonalMove, onlyOk: boolean): ZinverseStep<S>[] {
  const s = t.rows;
  const es = square(e, 0, s);
  return [
    { kind: 'move', move: { op: 'identity' }, from: es, to: es },
    { kind: 'trsm', request: { side: 'left', uplo, transA: 'N', diag, alpha: ONE, a: t, b: es } },
    { kind: 'move', move: triangle(uplo, diagonal, false, onlyOk), from: es, to: into },
  ];
}

/**
 * inv(T) in place over the triangle of W (every matrix), T as W holds it: the off-diagonal solves
 * of each split before its halves are inverted, the leaves through E.
 */
function triangularInverseSteps<S>(uplo: Uplo, diag: Diag, w: BlockBatch<S>, e: BlockBatch<S>, diagonal: ZdiagonalMove): ZinverseStep<S>[] {
  const steps: ZinverseStep<S>[] = [];
  const run = (off: number, size: number): void => {
    if (size <= ZINVERSE_LEAF) {
      const t = square(w, off, size);
      steps.push(...leafSteps(uplo, diag, t, t, e, diagonal, false));
      return;
    }
    const h = splitPoint(size, 32);
    const rest = size - h;
    const lo = square(w, off, h);
    const hi = square(w, off + h, rest);
    const solve = (side: 'left' | 'right', a: BlockBatch<S>, b: BlockBatch<S>, alpha: ComplexScalar): ZinverseStep<S> =>
      ({ kind: 'trsm', request: { side, uplo, transA: 'N', diag, alpha, a, b } });
    if (uplo === 'lower') {
      const b = block(w, off + h, off, rest, h);
      steps.push(solve('right', lo, b, ONE), solve('left', hi, b, MINUS_ONE));
    } else {
      const b = block(w, off, off + h, h, rest);
      steps.push(solve('left', lo, b, MINUS_ONE), solve('right', hi, b, ONE));
    }
    run(off, h);
    run(off + h, rest);
  };
  if (w.rows > 0) run(0, w.rows);
  return steps;
}

/**
 * C := U U^H (upper) or L^H L (lower) over the triangle of C, the factor read from W (its other
 * triangle zero, its diagonal real); C and W do not overlap.
 */
function lauumProductSteps<S>(uplo: Uplo, w: BlockBatch<S>, c: BlockBatch<S>): ZinverseStep<S>[] {
  const steps: ZinverseStep<S>[] = [];
  const trans = uplo === 'upper' ? 'N' : 'C';
  const run = (off: number, size: number): void => {
    if (size <= ZINVERSE_LEAF) {
      steps.push({ kind: 'herk', request: { uplo, trans, alpha: 1, a: square(w, off, size), beta: 0, c: square(c, off, size) } });
      return;
    }
    const h = splitPoint(size, 32);
    const rest = size - h;
    run(off, h);
    if (uplo === 'lower') {
      const l21 = block(w, off + h, off, rest, h);
      steps.push({ kind: 'herk', request: { uplo, trans, alpha: 1, a: l21, beta: 1, c: square(c, off, h) } });
      steps.push({ kind: 'gemm', request: { transA: 'C', transB: 'N', alpha: ONE, a: square(w, off + h, rest), b: l21, beta: [0, 0], c: block(c, off + h, off, rest, h) } });
    } else {
      const u12 = block(w, off, off + h, h, rest);
      steps.push({ kind: 'herk', request: { uplo, trans, alpha: 1, a: u12, beta: 1, c: square(c, off, h) } });
      steps.push({ kind: 'gemm', request: { transA: 'N', transB: 'C', alpha: ONE, a: u12, b: square(w, off + h, rest), beta: [0, 0], c: block(c, off, off + h, h, rest) } });
    }
    run(off + h, rest);
  };
  if (w.rows > 0) run(0, w.rows);
  return steps;
}

/** The workspaces a plan needs, per matrix (pairs): W and V of n x n, E of ZINVERSE_LEAF x ZINVERSE_LEAF. */
export interface ZinverseWorkspace {
  readonly w: boolean;
  readonly v: boolean;
  readonly e: boolean;
}

export function trtriWorkspace(n: number): ZinverseWorkspace {
  return { w: n > ZINVERSE_LEAF, v: false, e: n > 0 };
}
export const lauumWorkspace = (n: number): ZinverseWorkspace => ({ w: n > 0, v: false, e: false });
export const potriWorkspace = (n: number): ZinverseWorkspace => ({ w: n > 0, v: n > 0, e: n > 0 });
export const getriWorkspace = (n: number): ZinverseWorkspace => ({ w: n > 0, v: false, e: n > 0 });

/** trtri of A (w: n x n where n > ZINVERSE_LEAF; e: ZINVERSE_LEAF square). */
export function ztrtriSteps<S>(uplo: Uplo, diag: Diag, a: BlockBatch<S>, w: BlockBatch<S> | undefined, e: BlockBatch<S>): ZinverseStep<S>[] {
  const n = a.rows;
  const unit = diag === 'unit';
  const steps: ZinverseStep<S>[] = [unit ? { kind: 'zero-info' } : { kind: 'scan', a, keep: false }];
  if (n === 0) return steps;
  const diagonal = unit ? 'skip' : 'copy';
  if (n <= ZINVERSE_LEAF) return [...steps, ...leafSteps(uplo, diag, a, a, e, diagonal, true)];
  return [
    ...steps,
    { kind: 'move', move: triangle(uplo, 'copy', false, false), from: a, to: w! },
    ...triangularInverseSteps(uplo, diag, w!, e, diagonal),
    { kind: 'move', move: triangle(uplo, diagonal, false, true), from: w!, to: a },
  ];
}

/** lauum of A (w: n x n). */
export function zlauumSteps<S>(uplo: Uplo, a: BlockBatch<S>, w: BlockBatch<S> | undefined): ZinverseStep<S>[] {
  if (a.rows === 0) return [{ kind: 'zero-info' }];
  return [
    { kind: 'zero-info' },
    { kind: 'move', move: triangle(uplo, 'real', true, false), from: a, to: w! },
    ...lauumProductSteps(uplo, w!, a),
  ];
}

/**
 * Where potri's factor comes from: 'given' (potri: A holds it), 'here' (poti: potrf first), 'before'
 * (poti after another route's potrf, which wrote info). Where A was factored in the call, a matrix
 * whose potrf failed keeps its info and is left as potrf leaves it.
 */
export type ZpotriFactor = 'given' | 'here' | 'before';

/** potri of A, or poti (w, v: n x n; e: ZINVERSE_LEAF square). */
export function zpotriSteps<S>(uplo: Uplo, a: BlockBatch<S>, w: BlockBatch<S> | undefined, v: BlockBatch<S> | undefined, e: BlockBatch<S> | undefined, factor: ZpotriFactor): ZinverseStep<S>[] {
  const steps: ZinverseStep<S>[] = factor === 'here' ? [{ kind: 'potrf', uplo, a }] : [];
  steps.push({ kind: 'scan', a, keep: factor !== 'given' });
  if (a.rows === 0) return steps;
  return [
    ...steps,
    { kind: 'move', move: triangle(uplo, 'copy', true, false), from: a, to: w! },
    ...triangularInverseSteps(uplo, 'nonunit', w!, e!, 'real'),
    ...lauumProductSteps(uplo, w!, v!),
    { kind: 'move', move: triangle(uplo, 'copy', false, true), from: v!, to: a },
  ];
}

/** getri of A from getrf's factors (w: n x n; e: ZINVERSE_LEAF square). */
export function zgetriSteps<S>(a: BlockBatch<S>, w: BlockBatch<S> | undefined, e: BlockBatch<S> | undefined): ZinverseStep<S>[] {
  if (a.rows === 0) return [{ kind: 'zero-info' }];
  return [
    { kind: 'move', move: triangle('lower', 'one', true, false), from: a, to: w! },
    ...triangularInverseSteps('lower', 'unit', w!, e!, 'skip'),
    { kind: 'trsm', request: { side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', alpha: ONE, a, b: w! } },
    { kind: 'scan', a, keep: false },
    { kind: 'columns', w: w!, a },
  ];
}

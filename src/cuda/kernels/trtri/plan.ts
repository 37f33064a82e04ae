/**
 * The batched triangular inverse's plan for one group of equal-size matrices: the paper's
 * recursion (batched-triangular-kblas, TRTRI; LAPACK's dtrtri) flattened on the host. Lower,
 * A = [A11 0; A21 A22]: inv(A) = [X11 0; -X22 A21 X11  X22] with Xkk = inv(Akk). The diagonal
 * blocks do not depend on each other, so every leaf of the recursion is inverted by one launch
 * (gridDim.y = the leaves), and then, from the smallest blocks up, each off-diagonal block is
 * A21 := X22 A21 (trmm, left) and A21 := -A21 X11 (trmm, right): multiplications only, with
 * diagonal blocks already inverted, in place (A21 is not part of A11 or A22). Upper is the mirror
 * image: A12 := -X11 A12 X22.
 */
import type { DType } from '../../../core/dtype.js';
import type { Diag, Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { TrtriTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { elementBytes } from '../common/precision.js';
import { LEAF_MAX_THREADS, LEAF_SIZES, leafTileBytes } from './generate-leaf.js';
import type { TrtriForce, TrtriPlan, TrtriSpan, TrtriStep } from './params.js';

export interface TrtriProblem {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly diag: Diag;
  readonly n: number;
  readonly count: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

/** The smallest leaf size (a power of two) that holds n, or the largest leaf. */
export function leafSize(n: number, leafMax: number): number {
  if (!LEAF_SIZES.includes(leafMax)) throw new MyriadError('INVALID_ARGUMENT', `trtri leaf size must be one of ${LEAF_SIZES.join(', ')}, got ${leafMax}`, 'leafMax');
  let nb = 1;
  while (nb < n && nb < leafMax) nb *= 2;
  return nb;
}

/** Where the recursion splits a span of more than one leaf: the first ceil(leaves / 2) leaves, and the rest. */
function splitSpan(span: TrtriSpan, nb: number): TrtriStep {
  const h = Math.ceil(Math.ceil(span.size / nb) / 2) * nb;
  return { lo: { off: span.off, size: h }, hi: { off: span.off + h, size: span.size - h } };
}

/** The off-diagonal blocks of the recursion over [0, n), smallest first, splitting at multiples of nb. */
export function trtriSteps(n: number, nb: number): TrtriStep[] {
  const steps: TrtriStep[] = [];
  const run = (span: TrtriSpan): void => {
    if (span.size <= nb) return;
    const step = splitSpan(span, nb);
    run(step.lo);
    run(step.hi);
    steps.push(step);
  };
  run({ off: 0, size: n });
  return steps;
}

/**
 * The same blocks by depth in the recursion: [d] holds the splits of depth d (0: the split of
 * [0, n)), left to right. The blocks of one depth are disjoint and none lies inside another's
 * diagonal blocks.
 */
export function trtriStepsByDepth(n: number, nb: number): TrtriStep[][] {
  const depths: TrtriStep[][] = [];
  const run = (span: TrtriSpan, d: number): void => {
    if (span.size <= nb) return;
    const step = splitSpan(span, nb);
    (depths[d] ??= []).push(step);
    run(step.lo, d + 1);
    run(step.hi, d + 1);
  };
  run({ off: 0, size: n }, 0);
  return depths;
}

/** Matrices a block of the leaf of size nb holds for `count` matrices (blockDim.y), and its shared bytes. */
export function leafLaunchShape(dtype: DType, nb: number, count: number, tuning: TrtriTuning, sharedLimit: number): { matrices: number; sharedBytes: number } {
  const tile = leafTileBytes(nb, elementBytes(dtype));
  if (tile > sharedLimit) throw new MyriadError('UNSUPPORTED', `a trtri leaf of ${nb} does not fit ${sharedLimit} shared bytes`, 'a.rows');
  const matrices = Math.max(1, Math.min(Math.floor(Math.min(tuning.blockThreads, LEAF_MAX_THREADS) / nb), Math.floor(sharedLimit / tile), count));
  return { matrices, sharedBytes: matrices * tile };
}

export function planTrtri(problem: TrtriProblem, tuning: TrtriTuning, options: { readonly force?: TrtriForce } = {}): TrtriPlan {
  const { dtype, uplo, diag, kind, n } = problem;
  const nb = leafSize(n, options.force?.leafMax ?? tuning.leafMax[dtype]);
  const { matrices, sharedBytes } = leafLaunchShape(dtype, nb, problem.count, tuning, problem.sharedLimit);
  return {
    leaf: { dtype, uplo, diag, kind, nb },
    matrices,
    sharedBytes,
    leaves: Math.max(1, Math.ceil(n / nb)),
    steps: trtriSteps(n, nb),
  };
}

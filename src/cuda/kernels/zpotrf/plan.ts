/**
 * Which complex Cholesky kernel serves one group, and with which parameters. One design (the warp
 * design of generate-small.ts, n <= 32); above it the recursion of zpotrfSteps (leaves on that
 * design, the panel by the complex trsm, the trailing update by the complex herk) and the solves
 * as two complex trsm (zpotrsSteps). No tuning table: the choices below are the real kernels'
 * (warps per block: common/warp-slots.ts smallWarps), not swept for pairs.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { ComplexHerkRequest, ComplexScalar, ComplexTrsmRequest } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import { potrfRecursionSteps } from '../potrf/index.js';
import { SMALL_MAX_N, smallWarps } from '../common/warp-slots.js';
import type { ZpotrfSmallParams, ZsolveSmallParams } from './params.js';

/** The largest order the complex kernels take. */
export const ZCHOLESKY_MAX_N = SMALL_MAX_N;

/**
 * Most right-hand sides per pass, as the real solves (solve/generate-small.ts): each is three pairs
 * of registers per thread; at complex128 n = 32 the factor row already holds 128 registers.
 */
export const ZRHS_MAX = 4;

/** Whether the complex kernels take matrices of order n. */
export const zcholeskyServes = (n: number): boolean => n >= 0 && n <= ZCHOLESKY_MAX_N;

export interface ZpotrfProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
}

export interface ZsolveProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly nrhs: number;
  readonly uplo: Uplo;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
}

export function planZpotrf(p: ZpotrfProblem): ZpotrfSmallParams {
  return { dtype: p.dtype, n: p.n, uplo: p.uplo, kind: p.kind, warps: smallWarps(p.n) };
}

/** potrs and posv: right-hand sides per pass min(nrhs, ZRHS_MAX), at least 1. */
export function planZsolve(p: ZsolveProblem): ZsolveSmallParams {
  return {
    dtype: p.dtype, n: p.n, uplo: p.uplo, kindA: p.kindA, kindB: p.kindB, warps: smallWarps(p.n),
    rhs: Math.max(1, Math.min(ZRHS_MAX, p.nrhs)),
  };
}

/** One step of the recursive factorisation, in launch order. */
export type ZpotrfStep<S> =
  /** Factor the diagonal block whose first column is `off` (order <= ZCHOLESKY_MAX_N); its info, relative to the block, is offset by `off`. */
  | { readonly kind: 'leaf'; readonly off: number; readonly a: BlockBatch<S> }
  /** The panel below (lower) or right of (upper) a factored diagonal block. */
  | { readonly kind: 'trsm'; readonly request: ComplexTrsmRequest<S> }
  /** The trailing matrix's update by the panel. */
  | { readonly kind: 'herk'; readonly request: ComplexHerkRequest<S> };

const ONE: ComplexScalar = [1, 0];

/**
 * The recursive Cholesky of the real family's large path (potrf/plan.ts potrfRecursionSteps:
 * halves split at multiples of 32, leaves of at most ZCHOLESKY_MAX_N) with the complex updates:
 * lower A = L L^H: factor A11, L21 := A21 L11^-H (trsm 'right', 'C'), A22 -= L21 L21^H (herk 'N'),
 * factor A22; upper A = U^H U: U12 := U11^-H A12 (trsm 'left', 'C'), A22 -= U12^H U12 (herk 'C').
 * Only the `uplo` triangle is read or written. A matrix whose leaf fails goes on being updated
 * (its content past the failing column is unspecified, as the real family's) and keeps the info of
 * its first failure (the launcher's combine); every step is per matrix, so nothing of it reaches
 * the others. Pure, over any storage (tests run the same steps on the CPU reference).
 */
export function zpotrfSteps<S>(uplo: Uplo, a: BlockBatch<S>): ZpotrfStep<S>[] {
  const steps: ZpotrfStep<S>[] = [];
  for (const s of potrfRecursionSteps(a.rows, ZCHOLESKY_MAX_N)) {
    if (s.kind === 'leaf') {
      steps.push({ kind: 'leaf', off: s.off, a: block(a, s.off, s.off, s.size, s.size) });
      continue;
    }
    const { off, top, rest } = s;
    const a11 = block(a, off, off, top, top);
    const a22 = block(a, off + top, off + top, rest, rest);
    if (uplo === 'lower') {
      const a21 = block(a, off + top, off, rest, top);
      steps.push({ kind: 'trsm', request: { side: 'right', uplo, transA: 'C', diag: 'nonunit', alpha: ONE, a: a11, b: a21 } });
      steps.push({ kind: 'herk', request: { uplo, trans: 'N', alpha: -1, a: a21, beta: 1, c: a22 } });
    } else {
      const a12 = block(a, off, off + top, top, rest);
      steps.push({ kind: 'trsm', request: { side: 'left', uplo, transA: 'C', diag: 'nonunit', alpha: ONE, a: a11, b: a12 } });
      steps.push({ kind: 'herk', request: { uplo, trans: 'C', alpha: -1, a: a12, beta: 1, c: a22 } });
    }
  }
  return steps;
}

/**
 * A X = B with A's Cholesky factor as two triangular solves, in order: lower L (L^H X) = B, so L
 * then L^H ('C'); upper U^H (U X) = B, so U^H ('C') then U.
 */
export function zpotrsSteps<S>(uplo: Uplo, a: BlockBatch<S>, b: BlockBatch<S>): ComplexTrsmRequest<S>[] {
  const solve = (transA: 'N' | 'C'): ComplexTrsmRequest<S> => ({ side: 'left', uplo, transA, diag: 'nonunit', alpha: ONE, a, b });
  return uplo === 'lower' ? [solve('N'), solve('C')] : [solve('C'), solve('N')];
}

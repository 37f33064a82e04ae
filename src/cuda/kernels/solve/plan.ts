/**
 * Which solve kernel serves one group: for n <= 32 the register designs (potrs/getrs with the
 * factor read once, posv/gesv fused with the factorisation), right-hand sides RB at a time;
 * beyond, the factorisation's family and then the substitution kernel, as many right-hand sides
 * per block as fit in shared memory. No tuning table yet (no measured alternatives).
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { SMALL_MAX_N, SMALL_WARPS, smallWarps } from '../common/warp-slots.js';
import { rhsPerPass } from './generate-small.js';
import { substituteSharedBytes } from './generate-substitute.js';
import type { FusedSolveParams, PosvSmallParams, SmallSolveParams, SolveVariant, SubstituteParams } from './params.js';

export interface SolveProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly nrhs: number;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
}

const SUBSTITUTE_MAX_RHS = 16;

/**
 * From how many right-hand sides the solves of n > 32 run as batched trsm (the paper's recursion
 * onto GEMM, src/cuda/kernels/trsm/) instead of the substitution kernel, which rereads the factor
 * for every 16 right-hand sides and works on CUDA cores one row at a time.
 */
export const TRSM_ROUTE_MIN_RHS = 8;

/**
 * Whether every matrix of a request (its n and right-hand sides) takes the trsm route: from
 * TRSM_ROUTE_MIN_RHS right-hand sides, or with fewer where `chained` says trsm solves that shape
 * by the flag-chained substitution (one launch a solve, no reread of the factor by row blocks; trsm's
 * table takes it for small batches only, `chainMaxPerSm`: in batches large enough to fill the GPU
 * with one block a matrix the substitution kernel was the faster, getrs float64 128-192 x 4096 with
 * one column 0.65-1.32 against 1.00-1.84 ms on an H200).
 */
export function trsmRouteApplies(
  shapes: Iterable<{ readonly n: number; readonly nrhs: number }>, chained: (n: number, nrhs: number) => boolean = () => false,
): boolean {
  let any = false;
  for (const s of shapes) {
    if (s.n <= SMALL_MAX_N || (s.nrhs < TRSM_ROUTE_MIN_RHS && !chained(s.n, s.nrhs))) return false;
    any = true;
  }
  return any;
}

/** Whether the n <= 32 register designs take the problem. */
export const smallSolveApplies = (p: SolveProblem): boolean => p.n >= 1 && p.n <= SMALL_MAX_N && p.nrhs >= 1;

/** potrs / getrs for n <= 32. */
export function planSmallSolve(p: SolveProblem, variant: SolveVariant): SmallSolveParams {
  return { dtype: p.dtype, n: p.n, variant, kindA: p.kindA, kindB: p.kindB, warps: SMALL_WARPS, rhs: rhsPerPass(p.nrhs) };
}

/** gesv (and, with uplo, posv) for n <= 32. */
export function planFusedSolve(p: SolveProblem): FusedSolveParams {
  const rhs = rhsPerPass(p.nrhs);
  return { dtype: p.dtype, n: p.n, kindA: p.kindA, kindB: p.kindB, warps: smallWarps(p.n), rhs, more: p.nrhs > rhs };
}
export function planPosvSolve(p: SolveProblem, uplo: Uplo): PosvSmallParams {
  return { ...planFusedSolve(p), uplo };
}

/** Right-hand sides per block: as many as fit (at most 16), at least 1; 0 if n does not fit. */
export function chooseRhsTile(dtype: DType, n: number, nrhs: number, limit: number): number {
  for (let jt = Math.min(SUBSTITUTE_MAX_RHS, Math.max(1, nrhs)); jt >= 1; jt--) if (substituteSharedBytes(dtype, n, jt) <= limit) return jt;
  return 0;
}

/** The substitution kernel and its right-hand sides per block (rhsTile 0: n does not fit). */
export function planSubstitute(p: SolveProblem, variant: SolveVariant, sharedLimit: number): { params: SubstituteParams; rhsTile: number } {
  return { params: { dtype: p.dtype, variant, kindA: p.kindA, kindB: p.kindB }, rhsTile: chooseRhsTile(p.dtype, p.n, p.nrhs, sharedLimit) };
}

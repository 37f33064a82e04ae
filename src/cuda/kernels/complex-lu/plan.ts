/**
 * Which complex LU kernel serves a request: the register designs for n <= 32 on strided and list
 * batches (a list becomes the pointer form: the API's list batches share rows, cols and ld), right-hand
 * sides RB at a time; larger orders the blocked steps (plan-blocked.ts). Variable batches are not
 * taken here: the router runs them by shape groups as list batches (ownComplex). No tuning table yet (no measured
 * alternatives): the warps per block are the real designs' (common/warp-slots.ts).
 */
import type { Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { ComplexOp } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { SMALL_MAX_N, SMALL_WARPS, smallWarps } from '../common/warp-slots.js';
import type { ComplexGesvParams, ComplexGetrfParams, ComplexGetrsParams } from './params.js';

/** The largest order (rows and cols of getrf, n of the solves) the register designs take; above, the blocked steps. */
export const COMPLEX_LU_MAX = SMALL_MAX_N;

/** Most right-hand sides per pass (as the real designs; complex128 n = 32 keeps 4 in registers without spills). */
const RHS_MAX = 4;

/** Right-hand sides per pass for `nrhs` columns (>= 1). */
const complexRhsPerPass = (nrhs: number): number => Math.max(1, Math.min(RHS_MAX, nrhs));

/** Whether the complex getrf kernels take A: a uniform batch (strided or list), any shape. */
export const complexGetrfCovers = (a: Batch<unknown>): boolean => a.kind !== 'variable';

/** Whether the complex getrs / gesv kernels take A (n x n, any n) and B (n x nrhs, any nrhs: the register designs' columns go RB a pass). */
export const complexSolveCovers = (a: Batch<unknown>, b: Batch<unknown>): boolean => a.kind !== 'variable' && b.kind !== 'variable';

export function planComplexGetrf(dtype: DType, rows: number, cols: number, kind: OperandKind): ComplexGetrfParams {
  return { dtype, rows, cols, kind, warps: SMALL_WARPS };
}

export function planComplexGesv(dtype: DType, n: number, nrhs: number, kindA: OperandKind, kindB: OperandKind): ComplexGesvParams {
  const rhs = complexRhsPerPass(nrhs);
  return { dtype, n, kindA, kindB, warps: smallWarps(n), rhs, more: nrhs > rhs };
}

export function planComplexGetrs(dtype: DType, n: number, nrhs: number, trans: ComplexOp, kindA: OperandKind, kindB: OperandKind): ComplexGetrsParams {
  return { dtype, n, trans, kindA, kindB, warps: SMALL_WARPS, rhs: complexRhsPerPass(nrhs) };
}

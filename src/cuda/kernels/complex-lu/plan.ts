/**
 * Which complex LU kernel serves a request: the register designs for n <= 32 on strided and list
 * batches (a list becomes the pointer form: the API's list batches share rows, cols and ld), right-hand
 * sides RB at a time; larger orders the blocked steps (plan-blocked.ts). Variable batches are not
 * taken here: the router runs them by shape groups as list batches (ownComplex). No tuning table yet (no measured
 * alternatives): the group step's warps per block are the real designs' (common/warp-slots.ts); from
 * WARP_STEP_FROM rows getrf and gesv take the warp step (warp-step.ts).
 */
import type { Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { ComplexOp } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { SMALL_MAX_N, SMALL_WARPS, smallWarps } from '../common/warp-slots.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexGesvParams, ComplexGetrfParams, ComplexGetrsParams, ComplexRegisterStep } from './params.js';

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

/**
 * The smallest row count the warp step (warp-step.ts) serves: from 17 rows a matrix fills a warp in
 * either step, and there the group step's kernels grow past the real getrf's (SASS of the getrf
 * kernels, sm_90, CUDA 13: complex128 n = 16 115 KB, 24 183 KB, 32 253 KB; complex64 32 180 KB;
 * the real getrf's n = 32 98 KB) while they fall from 45% of the roofline at 16 to 10.7% at 32 (H200,
 * BENCHMARKS.md). Not yet timed on a card: scripts/probe/zlu-small.mjs times both steps and the
 * warps per block against the vendor's.
 */
export const WARP_STEP_FROM = 17;

/**
 * Warps per block of the warp step: 2, so that whole blocks lose no warp the register file would hold
 * (ptxas, sm_90: complex128 n = 32 194 registers a thread, 10 warps an SM by registers: 5 blocks of
 * 2, but 2 blocks of 4 = 8 warps; n = 24 157 registers: 12 warps either way). Timed (H200,
 * scripts/probe/zlu-small.mjs, optimised builds): 1, 2 and 4 within 2% of each other at 32 (getrf
 * complex128 0.498, 0.492, 0.500 ms; gesv 0.863, 0.837, 0.858 ms).
 */
export const WARP_STEP_WARPS = 2;

/** A design forced for tests, benchmarks and the probe: the step and the warps per block (n <= 32). */
export interface ComplexLuForce {
  readonly step?: ComplexRegisterStep;
  readonly warps?: number;
  /** The warp step's reciprocal out of line (complex128 n = 32 getrf: 8,736 -> 7,312 SASS instructions, 194 -> 202 registers); false keeps it inline. */
  readonly reciprocalCall?: boolean;
  /** gesv: the LU of A alone, then the sweeps (ComplexGesvParams.solveAfter); getrf ignores it. */
  readonly solveAfter?: boolean;
  /** The warp step's L2 prefetch this many warps an SM ahead (1 ... 64; ComplexGetrfParams.prefetchWarps). */
  readonly prefetchWarps?: number;
}

function checkPrefetchWarps(w: number): number {
  if (!Number.isInteger(w) || w < 1 || w > 64) throw new MyriadError('INVALID_ARGUMENT', `prefetch warps must be an integer in 1 ... 64, got ${w}`, 'force.prefetchWarps');
  return w;
}

/**
 * The order from which complex128's warp step takes its reciprocal out of line unless forced: timed on
 * an H200 (scripts/probe/zlu-small.mjs, optimised builds, 2026-11-29), complex128 n = 32 getrf 0.418 ms
 * against 0.507 inline, gesv 0.462 against 0.881 (the smaller kernel: 7,312 SASS instructions against
 * 8,736); at 17 and 24 inline was faster (getrf 0.568 / 0.449 against 0.640 / 0.504), as for complex64
 * at every order timed. 25-31 not timed: inline.
 */
export const RECIPROCAL_CALL_FROM: Readonly<Partial<Record<DType, number>>> = { float64: 32 };

/** The warp step's optional fields: the force's, else the reciprocal out of line from RECIPROCAL_CALL_FROM. */
const warpExtras = (dtype: DType, rows: number, force: ComplexLuForce | undefined): { reciprocalCall?: boolean; prefetchWarps?: number } => ({
  ...((force?.reciprocalCall ?? rows >= (RECIPROCAL_CALL_FROM[dtype] ?? Infinity)) ? { reciprocalCall: true } : {}),
  ...(force?.prefetchWarps !== undefined ? { prefetchWarps: checkPrefetchWarps(force.prefetchWarps) } : {}),
});

/** The step for `rows` rows (the factorisation's lanes hold rows): forced, or the warp step from WARP_STEP_FROM. */
function stepFor(rows: number, force: ComplexLuForce | undefined): ComplexRegisterStep {
  return force?.step ?? (rows >= WARP_STEP_FROM ? 'warp' : 'group');
}

function checkWarps(warps: number): number {
  if (!Number.isInteger(warps) || warps < 1 || warps > 8) throw new MyriadError('INVALID_ARGUMENT', `warps per block must be an integer in 1 ... 8, got ${warps}`, 'force.warps');
  return warps;
}

export function planComplexGetrf(dtype: DType, rows: number, cols: number, kind: OperandKind, force?: ComplexLuForce): ComplexGetrfParams {
  if (stepFor(rows, force) === 'group') return { dtype, rows, cols, kind, warps: checkWarps(force?.warps ?? SMALL_WARPS) };
  return { dtype, rows, cols, kind, warps: checkWarps(force?.warps ?? WARP_STEP_WARPS), step: 'warp', ...warpExtras(dtype, rows, force) };
}

export function planComplexGesv(dtype: DType, n: number, nrhs: number, kindA: OperandKind, kindB: OperandKind, force?: ComplexLuForce): ComplexGesvParams {
  const rhs = complexRhsPerPass(nrhs);
  const after = force?.solveAfter ? { solveAfter: true } : {};
  if (stepFor(n, force) === 'group') return { dtype, n, kindA, kindB, warps: checkWarps(force?.warps ?? smallWarps(n)), rhs, more: nrhs > rhs, ...after };
  return { dtype, n, kindA, kindB, warps: checkWarps(force?.warps ?? WARP_STEP_WARPS), rhs, more: nrhs > rhs, step: 'warp', ...warpExtras(dtype, n, force), ...after };
}

export function planComplexGetrs(dtype: DType, n: number, nrhs: number, trans: ComplexOp, kindA: OperandKind, kindB: OperandKind): ComplexGetrsParams {
  return { dtype, n, trans, kindA, kindB, warps: SMALL_WARPS, rhs: complexRhsPerPass(nrhs) };
}

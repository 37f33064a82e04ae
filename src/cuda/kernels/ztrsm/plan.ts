/**
 * Which complex trsm kernel serves one launch group, and its grid. One design (generate-small.ts,
 * a warp slot per matrix for triangles of order <= 32); larger orders and variable batches are not
 * taken (the router's `covers`, ztrsmCovers, leaves them to the CPU reference). No tuning table:
 * the warps per block are the real small designs' (common/warp-slots.ts smallWarps), the vectors
 * per pass the complex solves' (four, as complex-lu and zpotrf), not swept for this kernel.
 */
import type { Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Diag, Side, Uplo } from '../../../core/enums.js';
import type { ComplexOp } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { SMALL_MAX_N, smallWarps } from '../common/warp-slots.js';
import type { ZtrsmSmallParams } from './params.js';

/** The largest triangle the kernels take. */
export const ZTRSM_MAX_N = SMALL_MAX_N;

/** Most right-hand-side vectors per pass: each is two registers (complex64) or four (complex128) beside the row of T (N pairs). */
export const ZTRSM_RHS_MAX = 4;

/** Blocks per SM the grid aims at before it splits the vectors of each matrix over blockIdx.y. */
const BLOCKS_PER_SM = 4;

/** The largest gridDim.y. */
const GRID_Y_MAX = 65535;

/** Order of the triangle and number of right-hand-side vectors of a trsm on B (rows x cols). */
export function trsmShape(side: Side, rows: number, cols: number): { order: number; vectors: number } {
  return side === 'left' ? { order: rows, vectors: cols } : { order: cols, vectors: rows };
}

/** Whether the kernels take a triangle of order n. */
export const ztrsmServes = (n: number): boolean => n >= 0 && n <= ZTRSM_MAX_N;

/** Whether the kernels take a request: strided or list batches (one shape for all) whose triangle is of order at most ZTRSM_MAX_N. */
export function ztrsmCovers(r: { side: Side; a: Batch<unknown>; b: Batch<unknown> }): boolean {
  if (r.a.kind === 'variable' || r.b.kind === 'variable') return false;
  return ztrsmServes(trsmShape(r.side, r.b.rows, r.b.cols).order);
}

export interface ZtrsmProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly vectors: number;
  readonly side: Side;
  readonly uplo: Uplo;
  readonly transA: ComplexOp;
  readonly diag: Diag;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
}

/** Vectors per pass min(vectors, ZTRSM_RHS_MAX), at least 1. */
export function planZtrsm(p: ZtrsmProblem): ZtrsmSmallParams {
  return {
    dtype: p.dtype, n: p.n, side: p.side, uplo: p.uplo, transA: p.transA, diag: p.diag, kindA: p.kindA, kindB: p.kindB,
    warps: smallWarps(p.n), rhs: Math.max(1, Math.min(ZTRSM_RHS_MAX, p.vectors)),
  };
}

/**
 * Blocks along y: the passes of each matrix's vectors spread over blockIdx.y where the matrices
 * alone give fewer than BLOCKS_PER_SM blocks an SM (each y block reads its matrices' triangles
 * again, so a batch that fills the device keeps one).
 */
export function ztrsmGridY(blocksX: number, passes: number, smCount: number): number {
  const want = Math.ceil((BLOCKS_PER_SM * smCount) / Math.max(1, blocksX));
  return Math.max(1, Math.min(passes, want, GRID_Y_MAX));
}

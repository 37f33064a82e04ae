/**
 * Parameter objects of the tsqr family: QR of a few very tall and skinny matrices (m up to 1e7,
 * n <= 32) by CholeskyQR2, with shifted CholeskyQR3 where the first Cholesky factor says the
 * matrix is too ill-conditioned (see launch.ts for the passes and the bytes they move).
 */
import type { DType } from '../../../core/dtype.js';

/** Widest matrix the family takes (the row kernels hold one row of A in registers). */
export const TSQR_MAX_N = 32;

/**
 * The row kernel (generate-rows.ts): each thread one row of A per tile of `threads` rows; the
 * row goes through `stage - 1` triangular solves in registers, then either into a shared tile
 * whose Gram matrix the block accumulates ('gram'), or back to A as Q ('store').
 */
export interface TsqrRowsParams {
  readonly dtype: DType;
  readonly mode: 'gram' | 'store';
  /** Columns (compile-time: the row is unrolled into registers). */
  readonly n: number;
  /** Threads per block = rows per tile: a multiple of 32, <= 256. */
  readonly threads: number;
  /** Gram mode: each thread accumulates a tile x tile block of the n x n Gram matrix (1, 2 or 4). */
  readonly tile: number;
}

/** The Cholesky kernel (generate-chol.ts): one warp per matrix. */
export interface TsqrCholParams {
  readonly dtype: DType;
  readonly n: number;
}

/** The fixed-order second-stage sum of the Gram partials (generate-reduce.ts). */
export interface TsqrReduceParams {
  readonly dtype: DType;
  /** Threads summing one entry (blockDim.y): a power of two <= 32. */
  readonly slices: number;
}

/** The problem a plan answers: one group of `count` matrices of m x n. */
export interface TsqrProblem {
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly count: number;
  readonly smCount: number;
}

export interface TsqrPlan {
  readonly gram: TsqrRowsParams;
  readonly store: TsqrRowsParams;
  readonly chol: TsqrCholParams;
  readonly reduce: TsqrReduceParams;
  /** Blocks per matrix of the Gram passes (= partial sums per matrix). */
  readonly gramBlocks: number;
  /** Blocks per matrix of the store pass. */
  readonly storeBlocks: number;
  /** The limit of ||R1||_F ||R1^{-1}||_F above which shifted CholeskyQR3 runs: `fallbackRatio / sqrt(u)`. */
  readonly conditionLimit: number;
}

/** What tests and benchmarks may force instead of the plan's choice. */
export interface TsqrForce {
  readonly threads?: number;
  readonly tile?: number;
  readonly gramBlocks?: number;
  readonly storeBlocks?: number;
  readonly reduceSlices?: number;
  /** Always take the shifted CholeskyQR3 route (limit 0), or never (limit infinite). */
  readonly route?: 'cholqr2' | 'shifted';
}

export type { TsqrTuning } from '../../model/tuning/tsqr-types.js';

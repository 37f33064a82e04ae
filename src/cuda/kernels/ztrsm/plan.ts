/**
 * Which complex trsm kernel serves a request, and its parameters. Two designs for triangles of
 * order <= 32: the warp design (generate-small.ts, a lane per row of T, T's row in registers) and
 * the columns design (generate-columns.ts, the triangles in shared memory, a thread per vector of B
 * in registers); larger triangles by the recursion of ztrsmSteps, whose leaves are those kernels
 * and whose updates are the complex GEMM. Variable batches are the router's (shape groups as list
 * batches: ownComplex).
 *
 * The warp design's warps per block are the real small designs' (common/warp-slots.ts smallWarps),
 * its vectors per pass the complex solves' (four, as complex-lu and zpotrf). The columns design
 * serves from ZTRSM_COLUMNS_FROM's order with at least COLUMNS_MIN_VECTORS vectors (fewer leave
 * most of its threads idle while each reads a whole triangle); its matrices a block, threads a
 * matrix, vectors a thread and the order of its loads follow the constants below, every choice
 * forceable (ZtrsmForce; scripts/probe/ztrsm-small.mjs times the variants against cuBLAS). None of
 * the columns design's constants is measured yet.
 */
import type { ComplexScalar } from '../../../core/op-specs.js';
import { recursionSteps } from '../trsm/index.js';
import {
  planTriangleWarp, TRIANGLE_WARP_MAX, triangleRunsForward, triangleShape, triangleSteps, type TriangleBlockRequest, type TriangleStep, type TriangleWarpProblem,
} from '../common/triangle-warp.js';
import { COLUMNS_SHARED_MAX, columnsSlot } from './generate-columns.js';
import { complexBytes } from '../common/complex.js';
import type { ZtrsmColumnsParams, ZtrsmSmallParams } from './params.js';

/** The largest triangle the kernels take. */
export const ZTRSM_MAX_N = TRIANGLE_WARP_MAX;

/** Most right-hand-side vectors per pass: each is two registers (complex64) or four (complex128) beside the row of T (N pairs). */
export const ZTRSM_RHS_MAX = 4;

/** Whether the kernels take a triangle of order n. */
export const ztrsmServes = (n: number): boolean => n >= 0 && n <= ZTRSM_MAX_N;

export type ZtrsmProblem = TriangleWarpProblem;

/** Vectors per pass min(vectors, ZTRSM_RHS_MAX), at least 1. */
export const planZtrsm = (p: ZtrsmProblem): ZtrsmSmallParams => planTriangleWarp(p, ZTRSM_RHS_MAX);

/** The order from which the columns design serves, by the parts' dtype: 8, where it beat the warp design on an H200 (the timings at columnsBlockThreads); the warp design below. */
export const ZTRSM_COLUMNS_FROM: Readonly<Record<string, number>> = { float64: 8, float32: 8 };

/** The fewest vectors the columns design takes (below, the warp design). */
export const COLUMNS_MIN_VECTORS = 8;

/**
 * Threads a block the columns design aims at (its matrices a block follow from its lanes): a warp,
 * two from order 32. Measured on an H200, 2026-11-29 (`node scripts/probe/ztrsm-small.mjs
 * 8,9,12,16,24,32 complex128|complex64`: left, lower, B n x n, about 256 MiB of A; speed-up over
 * z/ctrsmBatched by matrices a block, one vector a thread): complex128 n = 8 m1-m16 1.83-2.08, 9 m1
 * 5.02 / m4 4.13, 12 m1 3.14 / m4 2.78, 16 m1 1.86 / m2 1.70 / m8 1.58, 24 m1 1.60 / m4 1.53, 32 m1
 * 1.47 / m2 1.58 / m4 1.54; complex64 8 m4 2.85, 9 m4 6.39, 12 m2 3.86, 16 m1 1.93 / m2 1.40, 24 m1
 * 1.68, 32 m2 1.34 / m4 1.42. The warp design it replaces from order 8: 1.16 / 1.94 at 8, 0.08-0.96
 * above. Two vectors a thread won only at complex64 8 (m4: 3.03).
 */
const columnsBlockThreads = (n: number): number => (n >= 32 ? 64 : 32);

/** Vectors a thread of the columns design holds, unless forced. */
const COLUMNS_RHS = 1;

/** Whether the columns design loads B's first pass before the triangles, unless forced. */
const COLUMNS_EARLY = true;

/** Choices a caller (a probe, a test) may pin; the plan fills in the rest. */
export interface ZtrsmForce {
  readonly design?: 'warp' | 'columns';
  /** Columns design: matrices a block. */
  readonly matrices?: number;
  /** Columns design: vectors a thread. */
  readonly rhs?: number;
  /** Columns design: B's first pass loaded before the triangles. */
  readonly early?: boolean;
}

/** The most triangles of order n a block's static shared memory holds. */
export const columnsMatricesMax = (dtype: ZtrsmProblem['dtype'], n: number): number =>
  Math.max(1, Math.floor(COLUMNS_SHARED_MAX / (columnsSlot(dtype, n) * complexBytes(dtype))));

/**
 * The columns design for a problem: `rhs` vectors a thread; the passes as few as 32 lanes allow
 * and the lanes spread evenly over them (33 vectors: two passes of 17 lanes, not 32 and 1); matrices
 * a block to fill columnsBlockThreads, within the shared memory.
 */
export function planZtrsmColumns(p: ZtrsmProblem, force: ZtrsmForce = {}): ZtrsmColumnsParams {
  const rhs = force.rhs ?? COLUMNS_RHS;
  const vectors = Math.max(1, p.vectors);
  const passes = Math.ceil(vectors / (32 * rhs));
  const lanes = Math.min(32, Math.ceil(vectors / (passes * rhs)));
  const matrices = force.matrices ?? Math.min(columnsMatricesMax(p.dtype, p.n), Math.max(1, Math.floor(columnsBlockThreads(p.n) / lanes)));
  return { dtype: p.dtype, n: p.n, side: p.side, uplo: p.uplo, transA: p.transA, diag: p.diag, kindA: p.kindA, kindB: p.kindB, matrices, lanes, rhs, early: force.early ?? COLUMNS_EARLY };
}

/** Whether the columns design serves a problem (unless forced). */
export const columnsServe = (p: Pick<ZtrsmProblem, 'dtype' | 'n' | 'vectors'>): boolean =>
  p.n >= (ZTRSM_COLUMNS_FROM[p.dtype] ?? Infinity) && p.vectors >= COLUMNS_MIN_VECTORS;

/** The design of a request's launches: the columns design where it serves (or is forced), else the warp design. */
export const ztrsmLeafDesign = (p: Pick<ZtrsmProblem, 'dtype' | 'n' | 'vectors'>, force: ZtrsmForce = {}): 'warp' | 'columns' =>
  force.design ?? (columnsServe(p) ? 'columns' : 'warp');

/** Where the recursion splits a triangle: at multiples of 32 (the leaf kernel's largest order) near the half. */
const ZTRSM_SPLIT_ALIGN = 32;

/** A complex trsm on strided or list batches (sub-blocks of them: common/sub-blocks.ts). */
export type BlockTrsmRequest<S> = TriangleBlockRequest<S>;

const ONE: ComplexScalar = [1, 0];
const ZERO: ComplexScalar = [0, 0];
const MINUS_ONE: ComplexScalar = [-1, 0];

/**
 * The recursion of the real trsm (trsm/plan.ts recursionSteps: split the triangle near the half at
 * a multiple of ZTRSM_SPLIT_ALIGN, solve the block that depends on no other, take its solution off
 * the rest of B with one GEMM, solve the rest) as requests on sub-blocks of every matrix
 * (common/triangle-warp.ts triangleSteps).
 *
 * alpha is applied once: the first leaf scales its block as it loads it, and each update scales its
 * target by beta = alpha the first time the target is touched (B2 := alpha B2 - op(A)21 X1), after
 * which the target's own leaves run with alpha 1. alpha = 0: every leaf writes zeros into its block
 * of B (A and B not read, as BLAS) and no update runs.
 */
export function ztrsmSteps<S>(r: BlockTrsmRequest<S>): TriangleStep<S>[] {
  const zero = r.alpha[0] === 0 && r.alpha[1] === 0;
  const { order } = triangleShape(r.side, r.b.rows, r.b.cols);
  return triangleSteps(r, recursionSteps(order, ZTRSM_MAX_N, ZTRSM_SPLIT_ALIGN, triangleRunsForward(r), 'trsm'), {
    leaf: (scaled) => (zero ? ZERO : scaled ? r.alpha : ONE),
    update: (scaled) => ({ alpha: MINUS_ONE, beta: scaled ? r.alpha : ONE }),
  });
}

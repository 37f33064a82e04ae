/**
 * Parameter objects of the Jacobi kernels (syev, gesvd). A generator is a pure function of its
 * parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { GesvdShape } from '../common/gesvd-shape.js';

/** What every syev kernel is generated for, whatever its design. */
export interface SyevKernel {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
  readonly maxSweeps: number;
}

/** What every gesvd kernel is generated for, whatever its design. */
export interface GesvdKernel extends GesvdShape {
  readonly maxSweeps: number;
}

/** Layout of the warp designs: `threads` lanes (a power of two <= 32) per matrix, `perBlock` matrices per block. */
export interface WarpShape {
  readonly threads: number;
  readonly perBlock: number;
}

/** n <= 32: two-sided parallel-order Jacobi in shared memory (generate-warp.ts). */
export interface SyevWarpParams extends WarpShape, SyevKernel {}

/** max(m, n) <= 32: one-sided parallel-order Jacobi in shared memory (generate-warp.ts). */
export interface GesvdWarpParams extends WarpShape, GesvdKernel {}

/**
 * syev for n <= THREAD_MAX: one thread per matrix, its matrix in registers (generate-thread.ts).
 * `staged`: A and W move between global and shared memory by block-wide copies
 * (common/span-stage.ts), each thread then reading and writing only its own slot; `denseA` /
 * `denseW`: that operand densely packed (the block's matrices one contiguous span, moved by 16-byte
 * vectors where aligned; otherwise element by element, coalesced along columns).
 */
export interface SyevThreadParams extends SyevKernel {
  readonly staged: boolean;
  readonly denseA: boolean;
  readonly denseW: boolean;
}

/**
 * How the rows design finds a pair's (c, s): 'tangent', t from cot(2 theta) (a division, a square
 * root and a division) and c by a reciprocal square root; 'halfAngle', half-angle formulas on two
 * reciprocal square roots (common/rotation.ts).
 */
export type RowsAngle = 'tangent' | 'halfAngle';

/** syev for n <= 32: a lane per row, A and V in registers, each round's pairs fixed register slots (generate-rows.ts; its shape follows from n). */
export interface SyevRowsParams extends SyevKernel {
  readonly angle: RowsAngle;
  /** Blocks an SM asked of ptxas by `__launch_bounds__` (registers capped to fit them); absent: no request. */
  readonly minBlocks?: number;
}

/** gesvd for max(m, n) <= 32: a lane per row of G and of V, registers, each round's pairs fixed register slots (generate-gesvd-rows.ts; its shape follows from m and n). */
export type GesvdRowsParams = GesvdKernel;

/**
 * Layout of the one-block-per-matrix designs (n = 33 ... 512; generate-block.ts): `threads` per
 * block, and where the matrix (A for syev, G for gesvd) and V live: shared memory where they fit
 * the problem's `sharedLimit`, else a workspace in global memory (one slice per block, kept in L2).
 */
export interface BlockShape {
  readonly threads: number;
  readonly aShared: boolean;
  readonly vShared: boolean;
}

/** Two-sided parallel-order Jacobi, one block per matrix (generate-block.ts). */
export interface SyevBlockParams extends BlockShape, SyevKernel {}

/** One-sided parallel-order Jacobi, one block per matrix (generate-block.ts). */
export interface GesvdBlockParams extends BlockShape, GesvdKernel {}

/** What a plan may be told instead of its own choice (tests, benchmarks). */
export interface JacobiForce {
  readonly perBlock?: number;
  /** syev: the warp design even where the per-thread one applies. */
  readonly design?: 'warp' | 'thread' | 'rows' | 'block';
  /** Block designs: threads per block (a multiple of 32, at most 1024). */
  readonly threads?: number;
  /** Block designs: keep A (G) and V in global memory even where they fit shared memory. */
  readonly global?: boolean;
  /** Rows design: the angle's formulas instead of the half-angle rotation. */
  readonly angle?: RowsAngle;
  /** Rows design: the blocks an SM asked of ptxas instead of the card's table's (0: no request). */
  readonly minBlocks?: number;
  /** Per-thread design: stage A and W through shared memory (true) or not (false) instead of the plan's choice. */
  readonly stage?: boolean;
}

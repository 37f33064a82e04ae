/**
 * Parameter objects of the batched symmetric rank-k update (syrk) and the plan that strings its
 * launches together. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { OperandKind } from '../common/batch-pointer.js';

/** The operation's variant, as in BLAS: C's triangle and whether op(A) is A (N) or A^T (T). */
export interface SyrkVariant {
  readonly uplo: Uplo;
  readonly trans: Op;
}

/**
 * The leaf (generate-leaf.ts): diagonal blocks of C of up to `tile` (t at run time), computed as a
 * tile x tile square by (tile / reg)^2 threads of reg x reg accumulators each, op(A) staged in
 * shared memory `chunk` columns at a time; only the triangle is stored.
 */
export interface SyrkLeafParams extends SyrkVariant {
  readonly dtype: DType;
  /** How A and C are found: both strided, or both pointer arrays (list and variable batches). */
  readonly kind: OperandKind;
  /** The largest diagonal block (a power of two). */
  readonly tile: number;
  /** Accumulators per thread along each side (divides tile). */
  readonly reg: number;
  /** Columns of op(A) per shared-memory step. */
  readonly chunk: number;
}

/**
 * The tile design's shape (generate-tiles.ts): C's tile edge, accumulators per thread along each
 * side, columns of op(A) per k-step, and the blocks per SM asked of ptxas in `__launch_bounds__`
 * (0: none; it caps the registers, so that a register-heavy shape keeps more matrices' loads in
 * flight per SM).
 */
export interface SyrkTilesShape {
  readonly tile: number;
  readonly reg: number;
  readonly chunk: number;
  readonly minBlocks: number;
}

/**
 * The tile design (generate-tiles.ts): the whole of C's triangle in one launch, a block per group
 * of matrices and tile of the triangle, n and k kernel arguments.
 */
export interface SyrkTilesParams extends SyrkVariant, SyrkTilesShape {
  readonly dtype: DType;
  readonly kind: OperandKind;
}

/** A range [off, off + size) of C's rows and columns. */
export interface Span {
  readonly off: number;
  readonly size: number;
}

/**
 * One launch over the whole batch (the paper's recursion flattened on the host; the steps write
 * disjoint blocks of C, so their order is free):
 * - 'leaf': the diagonal blocks [off + b size, off + (b + 1) size), b < blocks, by the leaf kernel;
 * - 'offdiag': the block C(rows, cols) (lower: rows after cols; upper: before) by the batched GEMM,
 *   alpha op(A)(rows, :) op(A)(cols, :)^T + beta C(rows, cols).
 */
export type SyrkStep =
  | { readonly kind: 'leaf'; readonly off: number; readonly size: number; readonly blocks: number }
  | { readonly kind: 'offdiag'; readonly rows: Span; readonly cols: Span }
  /** The whole of C's triangle by one GEMM launch restricted to it (large n: every tile at once). */
  | { readonly kind: 'triangle' }
  /** The whole of C's triangle by one launch of the tile design (small n), the plan's `tiles`. */
  | { readonly kind: 'tiles' };

/** The tile design's launch shape for one problem. */
export interface SyrkTilesLaunch {
  readonly params: SyrkTilesParams;
  /** Threads per matrix along each side: blockDim.x = blockDim.y. */
  readonly side: number;
  /** Matrices per block: blockDim.z. */
  readonly matrices: number;
  /** Tiles of C's triangle per matrix: nt (nt + 1) / 2, nt = ceil(n / tile). */
  readonly tiles: number;
  /** Blocks of the launch (gridDim.x): ceil(count / matrices) tiles. */
  readonly blocks: number;
  readonly sharedBytes: number;
}

/** The leaf's launch shape for one problem. */
export interface SyrkLeafShape {
  /** Threads per matrix along each side: blockDim.x = blockDim.y. */
  readonly side: number;
  /** Matrices per block: blockDim.z. */
  readonly matrices: number;
  /** Dynamic shared bytes per block. */
  readonly sharedBytes: number;
}

export interface SyrkPlan {
  /** The leaf's parameters per leaf size, and its launch shape. */
  readonly leaves: ReadonlyMap<number, { readonly params: SyrkLeafParams; readonly shape: SyrkLeafShape }>;
  readonly steps: readonly SyrkStep[];
  /** The tile design's launch, where a step is 'tiles'. */
  readonly tiles?: SyrkTilesLaunch;
}

/** What a plan may be told to use instead of the tuning table's choice (tests, benchmarks). */
export interface SyrkForce {
  /** The largest leaf (at most 64). */
  readonly leafMax?: number;
  /** Columns of op(A) per shared-memory step. */
  readonly chunk?: number;
  /** One GEMM over C's triangle (true) or the recursion (false), whatever n is; a forced leafMax or chunk alone means the recursion. */
  readonly triangle?: boolean;
  /**
   * The tile design (generate-tiles.ts) whatever n is: true with the table's shape for n, or this
   * shape; false: never (the leaf or the triangle GEMM as before). Takes precedence over the rest.
   */
  readonly tiles?: boolean | SyrkTilesShape;
}

/**
 * The class kernel of variable-size batches (generate-vbatched.ts): the leaf's design for diagonal
 * blocks up to `tile`, the members' pointers and sizes read from device tables.
 */
export type SyrkVbatchedLeafParams = Omit<SyrkLeafParams, 'kind'>;

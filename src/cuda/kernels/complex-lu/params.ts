/**
 * Parameter objects of the complex LU kernels for n <= 32 (zgetrf, zgetrs, zgesv on complex128 and
 * complex64): the warp-slot register designs of getrf/generate-small.ts and solve/generate-small.ts
 * over `real2` pairs. `dtype` is the parts' type (float64 for complex128, float32 for complex64).
 * A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { ComplexOp } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * How a step of the in-register LU runs. 'group' (the default, absent from the parameters): a
 * power-of-two group of lanes a matrix, several matrices a warp where they fit, the pivot by a
 * butterfly of shuffles and each row dividing by the pivot itself. 'warp' (warp-step.ts): a matrix a
 * warp, the pivot by warp reductions, one reciprocal a step published with the pivot row.
 */
export type ComplexRegisterStep = 'group' | 'warp';

/** zgetrf of rows x cols matrices, rows, cols <= 32: a row a lane, a power-of-two group of lanes a matrix. */
export interface ComplexGetrfParams {
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  readonly kind: OperandKind;
  readonly warps: number;
  /** Absent: 'group'. */
  readonly step?: ComplexRegisterStep;
  /** The warp step's per-lane reciprocal as an out-of-line call (less code, more registers); absent: inline. */
  readonly reciprocalCall?: boolean;
  /** The warp step's L2 prefetch of the matrix this many warps an SM ahead (warp-step.ts warpPrefetchSource); absent: none. */
  readonly prefetchWarps?: number;
}

/**
 * zgesv of n x n matrices, n <= 32: the LU of the bordered [A | B(:, 0..rhs)], then the backward
 * sweep; `more`: nrhs may exceed `rhs` (further passes, forward and backward sweeps).
 */
export interface ComplexGesvParams {
  readonly dtype: DType;
  readonly n: number;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  readonly warps: number;
  /** Right-hand sides per pass (1 ... 4). */
  readonly rhs: number;
  readonly more: boolean;
  /** Absent: 'group'. */
  readonly step?: ComplexRegisterStep;
  /** As ComplexGetrfParams's. */
  readonly reciprocalCall?: boolean;
  /** As ComplexGetrfParams's (A's columns and B's). */
  readonly prefetchWarps?: number;
  /**
   * The LU of A alone, then every pass of right-hand sides by the forward and backward sweeps (as
   * the passes after the first of the bordered form): the rows hold n pairs, not n + rhs. Absent:
   * the bordered [A | B(:, 0..rhs)].
   */
  readonly solveAfter?: boolean;
}

/** zgetrs of n x n factors, n <= 32: op(A) X = B with op 'N', 'T' or 'C', `rhs` columns a pass. */
export interface ComplexGetrsParams {
  readonly dtype: DType;
  readonly n: number;
  readonly trans: ComplexOp;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  readonly warps: number;
  readonly rhs: number;
}

/**
 * The blocked zgetrf's panel (generate-panel.ts): zgetf2 on the m x w panel (w <= nb) below and
 * at the diagonal, one block of `threads` threads per matrix, the panel in global memory.
 */
export interface ComplexPanelParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  /** Widest panel (the pivot row's shared buffer); a launch factors w <= nb columns. */
  readonly nb: number;
  /** Threads per block (a multiple of 32, at most 1024). */
  readonly threads: number;
}

/** The blocked LU's row interchanges over pairs (common/laswp.ts): forward (getrf, getrs 'N') or backward (getrs 'T' / 'C'). */
export interface ComplexLaswpParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  readonly reverse: boolean;
}

/**
 * Parameter objects of the complex Householder QR family (zgeqrf, zungqr, zunmqr over (re, im)
 * pairs). A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * Where a matrix's lanes synchronise: 'warp' (max(m, n) <= 32: a matrix per group of `threads`
 * <= 32 lanes, several matrices per block, __syncwarp) or 'block' (a matrix per thread block,
 * __syncthreads).
 */
export type ZqrScope = 'warp' | 'block';

/** The operation and the size of one group of matrices (`dtype`: the parts' type). */
export interface ZqrShape {
  readonly op: 'geqrf' | 'orgqr';
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  /** Reflectors: min(m, n) for geqrf, tau's rows for orgqr (k <= n <= m). */
  readonly k: number;
  readonly kind: OperandKind;
}

/**
 * The shared-memory kernel (generate-shared.ts): each matrix's m x n tile of pairs in its own slot
 * of shared memory, `threads` threads per matrix split into `threads / rowLanes` column groups of
 * `rowLanes` lanes (a power of two <= 32: one column's dot product reduced by shuffles).
 */
export interface ZqrSharedParams extends ZqrShape {
  readonly scope: ZqrScope;
  readonly threads: number;
  readonly rowLanes: number;
  /** Matrices per thread block (1 for 'block'). */
  readonly perBlock: number;
}

/** One group's shared kernel and launch. */
export interface ZqrPlan {
  readonly params: ZqrSharedParams;
  readonly blockThreads: number;
  readonly sharedBytes: number;
}

/**
 * The blocked driver of one group (zgeqrf / zungqr's order): panels of `nb` columns on the shared
 * kernel over a view of A, each block reflector applied to the rest of A by two complex GEMMs, and
 * from column `tail` on one shared kernel on the trailing (m - tail) x (n - tail) matrix where
 * `tailKernel`.
 */
export interface ZqrBlockedPlan {
  readonly design: 'blocked';
  readonly op: 'geqrf' | 'orgqr';
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly nb: number;
  readonly tail: number;
  readonly tailKernel: boolean;
}

/** A group's design: one shared-memory kernel per matrix, or the blocked driver. */
export type ZqrDesign = ({ readonly design: 'shared' } & ZqrPlan) | ZqrBlockedPlan;

/** What a plan may be told instead of its own choice (tests, benchmarks, sweeps). */
export interface ZqrForce {
  readonly design?: 'shared' | 'blocked';
  /** The blocked driver's panel width (1..ZPANEL_MAX). */
  readonly panel?: number;
  /** The blocked driver's tail bound (0: no shared-memory tail, panels to the end). */
  readonly tailMax?: number;
  readonly scope?: ZqrScope;
  readonly threads?: number;
  readonly rowLanes?: number;
  readonly perBlock?: number;
}

/** zunm2r's kernel (generate-ormqr.ts): sizes are kernel arguments. */
export interface ZormqrParams {
  readonly dtype: DType;
  readonly side: Side;
  readonly trans: 'N' | 'C';
  /** The form of all three operands (A, tau, C). */
  readonly kind: OperandKind;
}

/** Launch shape of one zunm2r group: `threads` per matrix (blockDim.x), up to `matrices` per block (blockDim.y). */
export interface ZormqrShape {
  readonly threads: number;
  readonly matrices: number;
  /** Leading dimension of the C tile in shared memory (threads + 1). */
  readonly ldt: number;
  /** Shared bytes of one matrix: packed reflectors, tau, the C tile (pairs). */
  readonly bytesPerMatrix: number;
}

export interface ZormqrPlan {
  readonly params: ZormqrParams;
  readonly shape: ZormqrShape;
}

export interface ZormqrForce {
  readonly design?: 'shared' | 'blocked';
  readonly panel?: number;
  readonly threads?: number;
}

/** The compact WY kernel (generate-wy.ts): V explicit and Y = V T or V T^H of a block of <= nb reflectors. */
export interface ZwyParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  readonly nb: number;
  /** Y = V T^H instead of V T (C Q on the right: C - (C V) (V T^H)^H). */
  readonly conjT: boolean;
}

/** zlaset on a view: 0 off the diagonal, a real value on it. */
export interface ZlasetParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
}

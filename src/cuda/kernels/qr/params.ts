/**
 * Parameter objects of the batched Householder QR kernels (geqrf, orgqr). A generator is a pure
 * function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * Where a group's lanes synchronise: 'warp' (max(m, n) <= 32: a matrix per group of `threads`
 * <= 32 lanes, several matrices per block, __syncwarp) or 'block' (a matrix per thread block of
 * `threads` > 32, __syncthreads).
 */
export type QrScope = 'warp' | 'block';

/** The operation and the size of one group of matrices (a plan's problem and a kernel's). */
export interface QrShape {
  readonly op: 'geqrf' | 'orgqr';
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  /** Reflectors: min(m, n) for geqrf, tau's rows for orgqr (k <= n <= m). */
  readonly k: number;
  readonly kind: OperandKind;
}

/**
 * The shared-memory Householder kernel (generate-shared.ts): each matrix in its own slot of
 * shared memory, `threads` threads per matrix split into `threads / rowLanes` column groups of
 * `rowLanes` lanes (a power of two <= 32: one column's dot product reduced by shuffles).
 */
export interface QrSharedParams extends QrShape {
  readonly scope: QrScope;
  /** Threads per matrix (a power of two; <= 32 for 'warp', a multiple of 32 for 'block'). */
  readonly threads: number;
  /** Lanes that share one column of the trailing update (a power of two dividing threads, <= 32). */
  readonly rowLanes: number;
  /** Matrices per thread block (1 for 'block'). */
  readonly perBlock: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks, sweeps). */
export interface QrForce {
  /** One shared-memory kernel per matrix, or the blocked compact-WY driver (launch-blocked.ts). */
  readonly design?: 'shared' | 'blocked';
  /** The blocked driver's panel width (at most 64). */
  readonly panel?: number;
  /** The blocked driver's tail bound (0: no shared-memory tail, panels to the end). */
  readonly tailMax?: number;
  readonly scope?: QrScope;
  readonly threads?: number;
  readonly rowLanes?: number;
  readonly perBlock?: number;
}

/** One group's kernel and launch: the parameters, the block size and the dynamic shared bytes. */
export interface QrPlan {
  readonly params: QrSharedParams;
  readonly blockThreads: number;
  readonly sharedBytes: number;
}

/**
 * The blocked driver of one group (LAPACK's dgeqrf / dorgqr order): panels of `nb` columns, each
 * factored (geqrf) or formed (orgqr) by the shared-memory kernel on a view of A, the block
 * reflector applied to the rest of A by two GEMMs, and from column `tail` on (a multiple of nb, or
 * k) one shared-memory kernel on the trailing (m - tail) x (n - tail) matrix where `tailKernel`.
 */
export interface QrBlockedPlan {
  readonly design: 'blocked';
  readonly op: 'geqrf' | 'orgqr';
  readonly dtype: QrShape['dtype'];
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly nb: number;
  readonly tail: number;
  /** Whether the shared kernel finishes from `tail` on (else: nothing left (geqrf), unit columns by laset (orgqr)). */
  readonly tailKernel: boolean;
}

/** A group's design: one shared-memory kernel per matrix, or the blocked driver. */
export type QrDesign = ({ readonly design: 'shared' } & QrPlan) | QrBlockedPlan;

/**
 * Parameter objects of the complex heev's tridiagonal design (heev on complex128 and complex64 data,
 * n = 33 ... 512 by the router): the reduction to a real tridiagonal (generate-reduce.ts) and the
 * back-transformation and store (generate-store.ts) around the tridiag family's values and vectors
 * kernels. `dtype` is the parts' type of the data (float64: complex128, float32: complex64); the
 * arithmetic is float64 for both. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { SteinKernels } from '../tridiag/index.js';

/** zhetd2 'L' on the `uplo` triangle mirrored, one block of `threads` per matrix. */
export interface ZheevReduceParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  readonly threads: number;
}

/** Eigenvalues (and with `vectors` V = Q Z by the reflectors) into W and A, info; with vectors ceil(n / threads) blocks per matrix (a thread per column), else one. */
export interface ZheevStoreParams {
  readonly dtype: DType;
  readonly n: number;
  readonly vectors: boolean;
  /** The form of A and of W (one launch takes both in one form). */
  readonly kind: OperandKind;
  readonly threads: number;
}

/** The launches of one group: reduce, the tridiag family's values (and vectors) kernels, store; the workspace per matrix. */
export interface ZheevTridiagPlan {
  readonly reduce: ZheevReduceParams;
  readonly stein: SteinKernels;
  readonly store: ZheevStoreParams;
  /** float64 elements of the real slice per matrix (tridiag's `steinSlice`). */
  readonly slice: number;
  /** float64 elements of the complex slice per matrix (snippets.ts `complexSlice`). */
  readonly cslice: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks). */
export interface ZheevForce {
  /** Threads per block of the reduce kernel (a multiple of 32, at most 1024; the store's: at most ZHEEV_STORE_THREADS of them). */
  readonly threads?: number;
  /** Inverse iterations per eigenvector (dstein's MAXITS, 5). */
  readonly steinMaxits?: number;
  /** Workspace bytes a chunk may take (the chunk-boundary tests; else the card's share, common/block-launch.ts `cardChunkBytes`). */
  readonly chunkBytes?: number;
}

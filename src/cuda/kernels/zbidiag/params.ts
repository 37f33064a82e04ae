/**
 * Parameter objects of the complex gesvd's bidiagonalization design (zgesvd, cgesvd; m x n, k =
 * min(m, n) = 33 ... 512 by the router): G = A (m >= n) or A^H (m < n), M x K with M = max(m, n),
 * reduced to a REAL upper bidiagonal B = Q_B^H G P_B (generate-reduce.ts), the singular values and
 * real vectors of B by the tridiag family's values and vectors kernels on its Golub-Kahan tridiagonal
 * and the bidiag family's vectors kernel, unchanged, the real vectors widened to pairs
 * (generate-widen.ts), the complex reflectors applied by the zqr family's unmqr, the outputs written
 * (generate-store.ts). Arithmetic in float64 for both dtypes. A generator is a pure function of its
 * parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { BidiagVectorsParams } from '../bidiag/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { SteinKernels } from '../tridiag/index.js';

/** zgebd2 on G, one block of `threads` per matrix; m x n the problem's shape (A's); `dtype` the parts' type of the data. */
export interface ZbidiagReduceParams {
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly kind: OperandKind;
  readonly threads: number;
}

/** U_B (`left`) and V_B (`right`) copied as pairs into the complex slice, one block of `threads` per matrix. */
export interface ZbidiagWidenParams {
  readonly k: number;
  readonly rows: number;
  readonly left: boolean;
  readonly right: boolean;
  readonly threads: number;
}

/** S, U and VT (those asked) and info, one block of `threads` per matrix. */
export interface ZbidiagStoreParams {
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly kind: OperandKind;
  readonly wantU: boolean;
  readonly wantVt: boolean;
  readonly threads: number;
}

/** The launches of one group and the workspace per matrix (float64 elements). */
export interface ZgesvdBidiagPlan {
  readonly reduce: ZbidiagReduceParams;
  /** The tridiag family's kernels on the Golub-Kahan tridiagonal of order 2K, its upper half only. */
  readonly stein: SteinKernels;
  /** The bidiag family's vectors kernel (U_B, V_B real, sig). */
  readonly vectors: BidiagVectorsParams;
  /** Absent where no vectors are asked. */
  readonly widen?: ZbidiagWidenParams;
  readonly store: ZbidiagStoreParams;
  /** The tridiag family's slice of order 2K (its `steinSlice`). */
  readonly slice: number;
  /** The bidiag family's slice (its `bidiagSlice`). */
  readonly bslice: number;
  /** This family's complex slice (snippets.ts `zbidiagSlice`). */
  readonly cslice: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks). */
export interface ZbidiagForce {
  /** Threads per block of the reduce kernel (a multiple of 32, at most 1024). */
  readonly threads?: number;
  /** Inverse iterations per eigenvector (dstein's MAXITS, 5). */
  readonly steinMaxits?: number;
  /** Workspace bytes a chunk may take (chunk-boundary tests; else the card's share). */
  readonly chunkBytes?: number;
}

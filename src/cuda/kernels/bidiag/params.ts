/**
 * Parameter objects of gesvd's bidiagonalization design (m x n, k = min(m, n) = 96 ... 512 by the
 * router): G = A (m >= n) or A^T (m < n), M x K with M = max(m, n), reduced to an upper bidiagonal B
 * (generate-reduce.ts), the singular values and vectors of B from the upper half of its Golub-Kahan
 * tridiagonal by the tridiag family's values and vectors kernels, the vectors split and made
 * orthonormal (generate-vectors.ts), the reflectors applied by the project's ormqr, the outputs
 * written (generate-store.ts). Arithmetic in float64 for both dtypes. A generator is a pure function
 * of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { SteinKernels } from '../tridiag/index.js';

/**
 * dgebd2 on G, one block of `threads` per matrix; m x n the problem's shape (A's). `stage` absent: the
 * whole reduction (load, every column, handover); with the blocked reduction 'load' (G loaded, checked
 * and scaled only: the panels follow) and 'tail' (columns `from` ... K-1 unblocked and the handover,
 * after the panels of columns 0 ... from-1).
 */
export interface BidiagReduceParams {
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly kind: OperandKind;
  readonly threads: number;
  readonly stage?: 'load' | 'tail';
  readonly from?: number;
}

/**
 * The blocked reduction's panel kernel (generate-panel.ts, LAPACK's dlabrd): one block of `threads`
 * per matrix, `nb` columns of G (M x K) a launch; the trailing update by two GEMMs after each.
 */
export interface BidiagPanelParams {
  readonly rows: number;
  readonly k: number;
  readonly threads: number;
  readonly nb: number;
}

/** How G becomes B: dgebd2 in one kernel, or dgebrd's panels of nb columns and GEMMs, the last columns by dgebd2. */
export type BidiagReduction = 'unblocked' | 'panels';

/**
 * The singular vectors of B from the Golub-Kahan eigenvectors, one block of `threads` per matrix:
 * `k` B's order, `rows` G's (M); `left` U_B into the slice's M x K matrix (rows K ... M-1 zero),
 * `right` V_B; neither: the singular values sorted only.
 */
export interface BidiagVectorsParams {
  readonly k: number;
  readonly rows: number;
  readonly threads: number;
  readonly left: boolean;
  readonly right: boolean;
}

/** S, U and VT (those asked) and info, one block of `threads` per matrix. */
export interface BidiagStoreParams {
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly kind: OperandKind;
  readonly wantU: boolean;
  readonly wantVt: boolean;
  readonly threads: number;
}

/** The launches of one group and the workspace per matrix (float64 elements). */
export interface GesvdBidiagPlan {
  /** The whole reduction, or with `blocked` the load stage. */
  readonly reduce: BidiagReduceParams;
  /** The blocked reduction: panels of `panel.nb` columns at 0, nb, ... below `tail.from`, then the tail stage. */
  readonly blocked?: { readonly panel: BidiagPanelParams; readonly tail: BidiagReduceParams };
  /** The tridiag family's kernels on the Golub-Kahan tridiagonal of order 2K, its upper half only. */
  readonly stein: SteinKernels;
  readonly vectors: BidiagVectorsParams;
  readonly store: BidiagStoreParams;
  /** The tridiag family's slice of order 2K (its `steinSlice`). */
  readonly slice: number;
  /** This family's slice (snippets.ts `bidiagSlice`). */
  readonly bslice: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks). */
export interface BidiagForce {
  /** Threads per block of the reduce kernel (a multiple of 32, at most 1024). */
  readonly threads?: number;
  /** Inverse iterations per eigenvector (dstein's MAXITS, 5). */
  readonly steinMaxits?: number;
  /** Workspace bytes a chunk may take (chunk-boundary tests; else the card's share). */
  readonly chunkBytes?: number;
  /** The reduction whatever the table's `panelsFrom` says. */
  readonly reduction?: BidiagReduction;
  /** Columns of a panel of the blocked reduction (else the table's `panelColumns`). */
  readonly nb?: number;
}

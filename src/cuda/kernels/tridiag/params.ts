/**
 * Parameter objects of the tridiagonal-QL syev kernel (generate-syev.ts). A generator is a pure
 * function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * syev by Householder tridiagonalization and implicit QL/QR, one thread block per matrix
 * (generate-syev.ts). `dtype` is the data's (the arithmetic is float64 whatever it is);
 * `threads` per block (a multiple of 32); `shared`: the n x n working matrix (A, then Q, then the
 * eigenvectors) in dynamic shared memory, else in a per-block slice of the global workspace;
 * `maxit`: QL/QR iterations allowed per row (dsteqr's MAXIT: maxit * n in all, then info n + 1).
 */
export interface SyevTridiagParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
  readonly threads: number;
  readonly shared: boolean;
  readonly maxit: number;
  /**
   * Absent: the one-kernel design (the rotations applied by the block as they are made). Present:
   * one stage of the split design for large n (generate-apply.ts's header): 'record' runs steps 1-3
   * and the scalar chain, writing up to `cap` rotations into the matrix's workspace slice and saving
   * the chain's state there when the buffer fills; 'finish' resumes a chain that stopped (the
   * one-kernel way, rotations applied as made) and sorts and stores. Both keep Z in the slice.
   */
  readonly split?: { readonly stage: 'record' | 'finish'; readonly cap: number };
  /**
   * Present: one stage of the inverse-iteration design (generate-stein.ts's header), Z in the matrix's
   * workspace slice (snippets.ts `steinSlice`): 'reduce' runs steps 1-2 (dsytd2) and saves d, e, tau
   * and the state; 'load' step 1 alone and the state (the panels of generate-panel.ts reduce); 'store' sorts and stores the eigenvalues and the vectors V = Q Y the vectors kernel and ormqr made.
   */
  readonly stein?: 'reduce' | 'load' | 'store';
}

/** The blocked tridiagonalization's panel kernel (generate-panel.ts): one block of `threads` per matrix, `nb` columns a launch. */
export interface TridiagPanelParams {
  readonly n: number;
  readonly threads: number;
  readonly nb: number;
}

/**
 * The inverse-iteration design's kernels on the tridiagonal (generate-stein.ts), a thread per
 * eigenvalue, `threads` a block, ceil(n / threads) blocks per matrix: stage 'values', eigenvalue k by
 * bisection on its unreduced block; stage 'vectors', eigenvector k by inverse iteration (dstein), the
 * eigenvectors of a cluster of at most `serialCluster` by one thread in turn, of a larger one a thread
 * each, `maxits` iterations at most (dstein's MAXITS), then the matrix reports no convergence; stage
 * 'clusters' (one block a matrix), the larger clusters' eigenvectors orthogonalised by the whole block.
 */
export interface TridiagSteinParams {
  readonly stage: 'values' | 'vectors' | 'clusters';
  readonly n: number;
  readonly threads: number;
  readonly maxits: number;
  /**
   * Present: only the upper half of each unreduced block's eigenvalues, offsets (s + 1) / 2 ... s - 1 of a
   * block of s rows (the positive eigenvalues of a Golub-Kahan tridiagonal, whose diagonal is zero:
   * +-sigma pairs, and one zero more in a block of odd order); the values kernel writes SKIPPED_VALUE
   * for the other rows, the vectors kernel leaves their columns untouched, and a cluster never starts
   * below the block's first computed row (a +sigma is never orthogonalised against a -sigma).
   */
  readonly upperHalf?: true;
  /**
   * The largest cluster the vectors kernel computes on one thread in turn (1 ... 64; absent:
   * generate-stein.ts SERIAL_CLUSTER); the vectors and clusters kernels of a plan must agree.
   */
  readonly serialCluster?: number;
}

/** The inverse-iteration design's kernels on the tridiagonal: values, and vectors and clusters where asked (plan.ts `planSteinKernels`). */
export interface SteinKernels {
  readonly values: TridiagSteinParams;
  /** Absent: values only. */
  readonly vectors?: TridiagSteinParams;
  /** With vectors: the clusters of more than `serialCluster` vectors orthogonalised, one block a matrix. */
  readonly clusters?: TridiagSteinParams;
}

/**
 * The inverse-iteration design's launches for one group: reduce (stage 'reduce': dsytd2 in one
 * kernel; or stage 'load' and, with `panel`, the blocked reduction's panels and GEMMs), values,
 * vectors, clusters, ormqr (V := Q V), store.
 */
export interface SyevSteinPlan {
  readonly reduce: SyevTridiagParams;
  readonly panel?: TridiagPanelParams;
  readonly values: TridiagSteinParams;
  /** Absent: values only (no vectors kernel, no ormqr). */
  readonly vectors?: TridiagSteinParams;
  /** With vectors: the clusters kernel, right after the vectors kernel. */
  readonly clusters?: TridiagSteinParams;
  readonly store: SyevTridiagParams;
  /** float64 elements per matrix (snippets.ts `steinSlice`). */
  readonly slice: number;
}

/**
 * The apply kernel of the split design (generate-apply.ts): the recorded rotations of each matrix
 * applied to its Z's rows, `rows` rows of one matrix per block (a thread per row), the rotations
 * staged through shared memory in tiles of `tile`, `unroll` rotations of a sweep at once; `cap` and n
 * fix the workspace slice's layout.
 */
export interface TridiagApplyParams {
  readonly n: number;
  readonly cap: number;
  readonly rows: number;
  readonly tile: number;
  /** Rotations of one sweep applied at once (their fresh elements loaded together). */
  readonly unroll: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks, sweeps). */
export interface TridiagForce {
  /** Threads per block (a multiple of 32, at most 1024). */
  readonly threads?: number;
  /** Keep the working matrix in the global workspace even where it fits shared memory. */
  readonly global?: boolean;
  /** Vectors by the split design (record, apply, finish) or not, whatever the table's `splitFrom`. */
  readonly split?: boolean;
  /** The split design's rotation buffer per matrix (rotations; at least 2n: a sweep makes at most n - 1). */
  readonly cap?: number;
  /** The split design's rows of Z per apply block. */
  readonly applyRows?: number;
  /** The split design's rotations of a sweep applied at once (1: one at a time). */
  readonly applyUnroll?: number;
  /** Vectors by inverse iteration (reduce, vectors, GEMM, store) or not, whatever the table's `steinFrom`. */
  readonly stein?: boolean;
  /** The inverse iteration's iterations per eigenvector (dstein's MAXITS, 5). */
  readonly steinMaxits?: number;
  /** The inverse-iteration design's tridiagonalization blocked (panels and GEMMs) or not, whatever the table's `steinPanelFrom`. */
  readonly steinPanel?: boolean;
  /** The inverse iteration's largest cluster computed on one thread in turn (TridiagSteinParams `serialCluster`). */
  readonly steinSerialCluster?: number;
  /** Threads of the clusters kernel's block (a multiple of 32, at most 512; else plan.ts STEIN_CLUSTER_THREADS, or fewer where n is small). */
  readonly steinClusterThreads?: number;
  /**
   * Workspace bytes a chunk of matrices may take (else common/block-launch.ts `cardChunkBytes`; the
   * split design's BLOCK_WORKSPACE_BYTES): tests of the chunk boundaries.
   */
  readonly chunkBytes?: number;
}

/** The three kernels of the split design for one group, and the workspace slice per matrix (float64 elements). */
export interface SyevSplitPlan {
  readonly record: SyevTridiagParams;
  readonly apply: TridiagApplyParams;
  readonly finish: SyevTridiagParams;
  readonly slice: number;
}

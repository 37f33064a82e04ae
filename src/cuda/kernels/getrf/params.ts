/**
 * Parameter objects of the batched LU kernels (one per design) and the plan that picks one.
 * A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { RegisterShape, SpreadExchange } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';

/** rows, cols <= 32: the warp design (generate-small.ts). */
export interface GetrfSmallParams {
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  readonly kind: OperandKind;
  readonly warps: number;
}


/** 32 < max(rows, cols) <= 128: one block per matrix, the matrix in registers (generate-register.ts). */
export interface GetrfRegisterParams {
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  readonly kind: OperandKind;
  /** Warps per block = column groups (TC). */
  readonly warps: number;
  /** Panel width: columns per warp block and per barrier (default 1). */
  readonly nb?: number;
  /** Blocks per SM asked of the compiler (__launch_bounds__; caps registers; default 1). */
  readonly minBlocks?: number;
}


/** Any size: the blocked right-looking fallback, a panel kernel and a trailing update (generate-panel.ts). */
export interface GetrfPanelParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  readonly ib: number;
}


/**
 * The recursive driver's leaf (generate-tall.ts): an m x w panel (w <= nb) of every matrix, one
 * block of `threads` per matrix, each thread holding `rowsPerThread` rows of nb values in registers.
 */
export interface GetrfTallParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  /** Widest panel (compile-time; a launch factors w <= nb columns). */
  readonly nb: number;
  /** Threads per block (a multiple of 32, at most 1024). */
  readonly threads: number;
  /** Rows per thread: the panel holds at most threads * rowsPerThread rows. */
  readonly rowsPerThread: number;
}

/**
 * The blocked driver's wide leaf (generate-wide.ts): an m x w panel (w <= width) of every matrix in
 * one launch, in sub-blocks of nb columns held in registers (the tall leaf's shape for m rows).
 */
export interface GetrfWideParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  /** Widest panel (compile-time: L11 in shared memory), at most WIDE_MAX. */
  readonly width: number;
  readonly nb: number;
  readonly threads: number;
  readonly rowsPerThread: number;
}

/**
 * The blocked driver's spread leaf (generate-spread.ts): an m x w panel (w <= width) of a few
 * matrices, each over ceil(m / rowsPerBlock) blocks holding their rows in shared memory.
 */
export interface GetrfSpreadParams {
  readonly dtype: DType;
  /** Widest panel (compile-time: the slots hold this many values a row). */
  readonly width: number;
  /** Rows of the panel a block holds (a power of two from 32). */
  readonly rowsPerBlock: number;
  readonly threads: number;
  /** The grid form's blocks a matrix at most (warp 0 polls maxBlocks / 32 of them a lane; a multiple of 32); the cluster form ignores it. */
  readonly maxBlocks: number;
  /**
   * 0: the grid-wide exchange through global memory (tickets, tagged words). G > 0: a matrix's blocks
   * are one thread-block cluster of G (sm_90) and exchange through distributed shared memory.
   */
  readonly cluster: number;
  /**
   * The cluster form's exchange of a column (absent: 'pull'). 'pull': each block leaves its
   * candidate in its own shared memory; one cluster barrier; warp 0 loads the G keys, then the
   * winner's row, from the other blocks. 'push': each block stores its candidate (and row k, from
   * its owner) into every block's shared memory before the barrier, so that after it every read is
   * local. 'signal': as 'push', with a per-block mbarrier that the G blocks arrive on remotely in place
   * of the cluster barrier (only warp 0 waits; no barrier of all the cluster's threads a column).
   */
  readonly exchange?: SpreadExchange;
  /**
   * Each column's block candidate found during the previous column's update, by the column group
   * that owns the column, instead of in a phase of its own after it: one block barrier fewer a
   * column (absent: false).
   */
  readonly fusedSearch?: boolean;
}

/** The recursive driver's row interchanges (generate-laswp.ts): dlaswp on a range of columns. */
export interface GetrfLaswpParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
}


/** The blocked driver's row interchanges (generate-swaps.ts): many pivots on a range of columns at once. */
export interface GetrfSwapsParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
}

export type GetrfVariant = 'small' | 'register' | 'blocked';

/** What a plan may be told to use instead of the tuning table's choice (tests, benchmarks, sweeps). */
export interface GetrfForce {
  /** The design; it must accept the size. */
  readonly variant?: GetrfVariant;
  /** The register design's shape, for every size. */
  readonly register?: RegisterShape;
  /** The blocked design's widest panel. */
  readonly panelWidest?: number;
  /** Strided batches: the recursive driver (true) or never (false), whatever the size and count. */
  readonly recursive?: boolean;
  /** The recursive driver's widest leaf panel (a power of two, 1 ... 32). */
  readonly tallWidest?: number;
  /** The large path panel by panel (the blocked driver, true) or by halves (the recursion, false). */
  readonly panels?: boolean;
  /** The blocked driver's panel width (a multiple of 32). */
  readonly panelWidth?: number;
  /** The blocked driver's leaves: this wide by the wide leaf kernel (<= WIDE_MAX), or 0: the tall leaves only. */
  readonly wideLeaf?: number;
  /** The blocked driver's leaves over many blocks (generate-spread.ts) wherever the shape allows (true), or never (false). */
  readonly spreadLeaf?: boolean;
  /** The spread leaves as thread-block clusters (sm_90) wherever the shape allows (true), or the grid-wide exchange (false). */
  readonly spreadCluster?: boolean;
  /** The cluster form's exchange (in place of the table's). */
  readonly spreadExchange?: SpreadExchange;
  /** The spread leaves' search fused into the previous column's update (true) or not (false), in place of the table's. */
  readonly spreadFusedSearch?: boolean;
  /** The blocked driver's lookahead (the trailing update beyond the next panel on a side stream), or never. */
  readonly lookahead?: boolean;
}

export type GetrfPlan =
  | { readonly variant: 'small'; readonly params: GetrfSmallParams }
  | { readonly variant: 'register'; readonly params: GetrfRegisterParams }
  /** ib 0: no panel fits the device's shared memory. */
  | { readonly variant: 'blocked'; readonly params: GetrfPanelParams };

/**
 * One size class of a variable batch (common/vbatch.ts; generate-vbatched.ts): members m x n with
 * max(m, n) at most `bound`, pointers and (m, n, ld, batch index) from device tables. Classes up to
 * 32 the warp design (`vsmall`), up to the table's registerMax the register design (`vregister`),
 * each compiled for bound x bound and masked to the member; larger classes the blocked design
 * (`vpanel`: a panel and an update launch per panel of the class, m and n read at run time).
 */
export type GetrfVbatchedParams =
  | { readonly variant: 'vsmall'; readonly bound: number; readonly params: GetrfSmallParams }
  | { readonly variant: 'vregister'; readonly bound: number; readonly params: GetrfRegisterParams }
  | { readonly variant: 'vpanel'; readonly bound: number; readonly params: GetrfPanelParams };

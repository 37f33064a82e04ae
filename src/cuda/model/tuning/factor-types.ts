/**
 * The tuning tables' shape for the factorisations (kernels/potrf/, kernels/getrf/): which design
 * serves which size, and each design's block shape, per precision.
 */
import type { PerDType } from '../../../core/dtype.js';

export type { PerDType };

/** Shape of a register-design launch: warps (column groups), panel width, blocks per SM asked. */
export interface RegisterShape {
  readonly warps: number;
  readonly nb: number;
  readonly minBlocks: number;
}

/** A register shape used while the size is <= maxN (the first band that matches wins). */
export interface RegisterBand {
  readonly maxN: number;
  readonly shape: RegisterShape;
}

/** getrf's register band: its uniform planner knows the batch's count. */
export interface GetrfRegisterBand extends RegisterBand {
  /**
   * Batches of at most `maxPerSm` matrices an SM take this shape instead (more warps a matrix where
   * there are too few matrices to fill the SMs' block slots). Variable batches' classes take `shape`.
   */
  readonly few?: { readonly maxPerSm: number; readonly shape: RegisterShape };
}

/** A widest panel used while n <= maxN. */
export interface PanelBand {
  readonly maxN: number;
  readonly widest: number;
}

export interface PotrfTuning {
  /** The block register design serves 32 < n <= registerMax (at most REGISTER_DESIGN_MAX). */
  readonly registerMax: PerDType<number>;
  readonly registerShapes: PerDType<readonly RegisterBand[]>;
  /** The warp kernel uses the classic step (sqrt then divide) for n <= classicMax (0: never). */
  readonly classicMax: PerDType<number>;
  /** The panel design's widest panel, by n. */
  readonly panelWidest: PerDType<readonly PanelBand[]>;
  /** Loop-inclusive panel kernel (one launch runs every panel) instead of one launch per panel. */
  readonly panelLoop: boolean;
  /** Large strided batches (kernels/potrf/plan.ts): the right-looking blocked driver instead of the recursion. */
  readonly blocked: PotrfBlockedTuning;
}

/** Where the large Cholesky runs panel by panel (right-looking, blocked) rather than by halves. */
export interface PotrfBlockedTuning {
  /** n from which a strided batch that takes the large path takes the blocked driver. */
  readonly minN: number;
  /** Its panel width (a multiple of 32). */
  readonly panel: number;
  /** The panel's trsm by its inverted diagonal block (one GEMM) whatever trsm's own threshold, or as trsm's table says. */
  readonly invertPanel: boolean;
  /**
   * The blocked driver's panels by the fused factor-and-inverse kernel of this width, by n (the
   * panel's solve one GEMM with the inverse), or 0: the panel by the recursion and trsm.
   */
  readonly diagonal: PerDType<readonly { readonly maxN: number; readonly nb: number }[]>;
  /** The fused-diagonal driver's inner panels per outer panel, by n (the trailing update's k = panels x nb; 1: one level). */
  readonly outerPanels: PerDType<readonly { readonly maxN: number; readonly panels: number }[]>;
  /** n from which a strided group on the large path takes the fused-diagonal driver (where `diagonal` gives a width). */
  readonly diagonalMinN: number;
  /** n from which the fused-diagonal driver overlaps each panel with the trailing update (a side stream). */
  readonly lookaheadFrom: PerDType<number>;
  /**
   * The fused-diagonal driver's panel in one launch (the diagonal block and the solve below it,
   * generate-fused-panel.ts) for batches of at most fusedPanelMaxCount matrices of at most
   * fusedPanelMaxN; two launches beyond.
   */
  readonly fusedPanelMaxCount: number;
  readonly fusedPanelMaxN: PerDType<number>;
  /** Both large paths, fewer matrices than SMs: leaves of 33 ... 128 by the register design whatever registerMax says. */
  readonly registerLeavesFew: boolean;
}

export interface GetrfTuning {
  /** The block register design serves 32 < max(rows, cols) <= registerMax. */
  readonly registerMax: PerDType<number>;
  /** By max(rows, cols). */
  readonly registerShapes: PerDType<readonly GetrfRegisterBand[]>;
  /** The blocked fallback's widest panel. */
  readonly panelWidest: PerDType<number>;
  /** The recursive driver (kernels/getrf/plan.ts), for strided batches. */
  readonly recursion: GetrfRecursionTuning;
  /** The large path panel by panel (kernels/getrf/plan.ts getrfBlockedSteps) instead of by halves. */
  readonly blocked: GetrfBlockedTuning;
}

/** A band of the blocked LU's panel widths for batches: up to maxN, panels of nb columns, leaves as wideLeaf says (absent: the table's). */
export interface GetrfPanelBand {
  readonly maxN: number;
  readonly nb: number;
  readonly wideLeaf?: number;
}

/** Where the large LU runs panel by panel (right-looking, blocked; each panel by the recursion). */
export interface GetrfBlockedTuning {
  /** max(rows, cols) from which a strided batch on the large path takes the blocked driver. */
  readonly minN: PerDType<number>;
  /** Its panel width (a multiple of 32) by max(rows, cols): the first band with n <= maxN. */
  readonly panel: PerDType<readonly { readonly maxN: number; readonly nb: number }[]>;
  /**
   * The panel width for batches of two or more matrices, likewise (more GEMM work per panel, wider
   * panels pay sooner); a band's `wideLeaf`, where present, replaces the table's for its batches.
   */
  readonly panelBatch: PerDType<readonly GetrfPanelBand[]>;
  /** max(rows, cols) from which it overlaps each panel with the trailing update (a side stream). */
  readonly lookaheadFrom: PerDType<number>;
  /** Its leaves this wide by the wide leaf kernel (kernels/getrf/generate-wide.ts), or 0: the tall leaves only. */
  readonly wideLeaf: PerDType<number>;
  /**
   * The widest register sub-block of its leaves (the tall leaves and the wide leaf's sub-blocks; a
   * power of two), in place of the recursion's `widest`; narrower where the rows do not fit the registers.
   */
  readonly widest: PerDType<number>;
  /** Where its wide leaves spread over many blocks (kernels/getrf/generate-spread.ts) instead of one. */
  readonly spreadLeaf: GetrfSpreadTuning;
}

/** The spread leaf's cluster exchange of a column's candidates (kernels/getrf/params.ts GetrfSpreadParams.exchange). */
export type SpreadExchange = 'pull' | 'push' | 'signal';

/** The spread leaf: from how many panel rows, for how many matrices, over how many blocks a matrix. */
export interface GetrfSpreadTuning {
  /** Panels of at least this many rows (Infinity: never). */
  readonly minRows: PerDType<number>;
  /** Batches of at most this many matrices. */
  readonly maxCount: number;
  /** Blocks a matrix at most (fewer rows a block below it; never more than the SMs). */
  readonly maxBlocks: number;
  /** Each column's candidate found during the previous column's update (GetrfSpreadParams.fusedSearch; absent: false), by dtype. */
  readonly fusedSearch?: PerDType<boolean>;
  /**
   * The cluster form (sm_90; a matrix's blocks one thread-block cluster, the exchange through
   * distributed shared memory): blocks a cluster (0: never; above 8 a non-portable size), from
   * how many panel rows (Infinity: never for that dtype, even forced), and threads a block.
   * Batches up to maxCount, as the grid form; panels taller than its blocks hold take the grid form.
   */
  readonly cluster: {
    readonly blocks: number; readonly minRows: PerDType<number>; readonly threads: number;
    /** How a column's candidates cross the cluster (kernels/getrf/params.ts GetrfSpreadParams.exchange; absent: 'pull'). */
    readonly exchange?: SpreadExchange;
  };
}

/** From max(rows, cols) = minN, batches of at least perSm matrices an SM take the recursive LU. */
export interface GetrfMidBand {
  readonly minN: number;
  readonly perSm: number;
}

/** When the recursive LU replaces the one-block-per-matrix designs, and its leaf panels' shape. */
export interface GetrfRecursionTuning {
  /** max(rows, cols) from which it always applies, per dtype... */
  readonly minN: PerDType<number>;
  /** ... and from which it applies when the batch has fewer matrices than the device has SMs... */
  readonly minNFew: PerDType<number>;
  /** ... or at least as many (absent: minN). */
  readonly minNMany?: PerDType<number>;
  /**
   * ... and to batches of mid sizes with at least a band's `perSm` matrices an SM (absent: never):
   * where the launches of the recursion over the whole batch cost less than the waves of one block
   * a matrix. Per dtype, bands by ascending minN; the last band whose minN <= max(rows, cols) applies.
   */
  readonly mid?: PerDType<readonly GetrfMidBand[]>;
  /** The widest leaf panel (a power of two); narrower where the rows do not fit the registers. */
  readonly widest: PerDType<number>;
  /** Most threads per leaf block (a multiple of 32, at most 1024). */
  readonly maxThreads: number;
  /** 32-bit registers per thread the leaf's panel values may take at `maxThreads` threads (the rest: addresses, the reduction). */
  readonly valueRegisters: number;
}

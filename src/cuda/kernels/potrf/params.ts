/**
 * Parameter objects of the batched Cholesky kernels (one per design) and the plan that picks
 * one. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { RegisterShape } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { TrsmForce } from '../trsm/index.js';

/** n <= 32: the warp design (generate-small.ts). */
export interface PotrfSmallParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  readonly warps: number;
  /** The classic step (sqrt, then divide by the pivot) instead of rsqrt; from the tuning table. */
  readonly classic: boolean;
}


/** 32 < n <= 128: one block per matrix, the factor in registers (generate-register.ts). */
export interface PotrfRegisterParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  /** Warps per block = column groups (TC). */
  readonly warps: number;
  /** Panel width: columns per warp block and per barrier (default 1). */
  readonly nb?: number;
  /** Blocks per SM asked of the compiler (__launch_bounds__; caps registers; default 1). */
  readonly minBlocks?: number;
}


/** Any n: the left-looking fused panel design (generate-panel.ts), one launch per panel. */
export interface PotrfPanelParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  /** Panel width (compile-time). */
  readonly ib: number;
  /** Columns of the left part per shared-memory stage. */
  readonly kb: number;
  /**
   * Loop-inclusive (the paper's alternative): one launch loops over all panels from i0, shared
   * memory sized for the first; default false: loop-exclusive, one launch per panel.
   */
  readonly loop?: boolean;
}


/**
 * The large path's diagonal block of NB (a multiple of 4), factored and inverted by one thread
 * block per matrix (generate-diagonal.ts); strided batches only.
 */
export interface PotrfDiagonalParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly nb: number;
}

export type PotrfVariant = 'small' | 'register' | 'panel';

/** What a plan may be told to use instead of the tuning table's choice (tests, benchmarks, sweeps). */
export interface PotrfForce {
  /** The design; it must accept the size. */
  readonly variant?: PotrfVariant;
  /** The register design's shape, for every n. */
  readonly register?: RegisterShape;
  /** The panel design's widest panel and loop-inclusive switch. */
  readonly panelWidest?: number;
  readonly panelLoop?: boolean;
  /** Strided batches: the recursion over trsm and syrk (true) or never (false), whatever n and count. */
  readonly recursive?: boolean;
  /** Where the large path runs: panel by panel (true, the blocked driver) or by halves (false, the recursion). */
  readonly blocked?: boolean;
  /** The blocked driver's panel width (a multiple of 32). */
  readonly panel?: number;
  /**
   * The blocked driver's panels by the fused factor-and-inverse kernel of this width (then each
   * panel's solve is one GEMM with the inverse), or 0: the panel by the recursion and trsm.
   */
  readonly diagonal?: number;
  /** The fused-diagonal driver's inner panels per outer panel (the trailing update's k is their sum; 1: one level). */
  readonly outerPanels?: number;
  /** The fused-diagonal driver overlaps each panel with the previous trailing update (default true where the device has a side stream). */
  readonly lookahead?: boolean;
  /**
   * The fused-diagonal driver's panel in one launch, the diagonal block and the solve below it
   * (generate-fused-panel.ts), or in two (false); default: the table's fusedPanelMaxCount and
   * fusedPanelMaxN.
   */
  readonly fusedPanel?: boolean;
  /** Passed to the large path's triangular solves (e.g. `invertFrom`: Infinity keeps the substitution leaves). */
  readonly trsm?: TrsmForce;
}

export type PotrfPlan =
  | { readonly variant: 'small'; readonly params: PotrfSmallParams }
  | { readonly variant: 'register'; readonly params: PotrfRegisterParams }
  /** ib 0: no panel fits the device's shared memory. */
  | { readonly variant: 'panel'; readonly params: PotrfPanelParams };

/**
 * One size class of a variable batch (common/vbatch.ts; generate-vbatched.ts): members of order
 * at most `bound`, pointers and (n, ld, batch index) from device tables. Classes up to 32 the warp
 * design (`vsmall`), up to 128 the register design (`vregister`), larger the loop-inclusive panel
 * design (`vpanel`), each masked to the member's order.
 */
export type PotrfVbatchedParams =
  | { readonly variant: 'vsmall'; readonly bound: number; readonly params: PotrfSmallParams }
  | { readonly variant: 'vregister'; readonly bound: number; readonly params: PotrfRegisterParams }
  | { readonly variant: 'vpanel'; readonly bound: number; readonly params: PotrfPanelParams };

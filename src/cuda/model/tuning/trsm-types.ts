/** The batched triangular solve's table (src/cuda/kernels/trsm/). */
import type { PerDType } from './factor-types.js';
import type { MmaBand, TiledBand } from './gemm-types.js';

export interface TrsmTuning {
  /** The largest triangle the shared-memory leaf kernel solves; above it the recursion splits. */
  readonly leafMax: PerDType<number>;
  /** Right-hand-side vectors (columns for side left, rows for side right) per matrix and block, at most. */
  readonly vectorsMax: number;
  /** Threads per block the leaf aims at when several matrices share a block. */
  readonly blockThreads: number;
  /** Shared bytes per block the leaf aims at when several matrices share a block (occupancy). */
  readonly sharedTarget: number;
  /** The recursion splits a triangle at a multiple of this (GEMM-friendly block sizes). */
  readonly splitAlign: number;
  /** trsm on strided batches: triangles from this size are solved by inverted diagonal blocks (kernels/trsm/plan.ts). */
  readonly invertFrom: PerDType<number>;
  /** The inverted diagonal blocks' size (a multiple of the trtri leaf: trtri inverts them in one batched call). */
  readonly invertBlock: number;
  /** Workspace bytes the inverted blocks and the copy of B's block may take; beyond, the recursion. */
  readonly invertMaxBytes: number;
  /**
   * Side left: where the flag-chained substitution (generate-chain.ts) takes a problem, by the
   * right-hand sides: the first band whose `maxRhs` holds n, from its triangle's order `from`
   * (bands in increasing maxRhs; more columns than the last band's: never).
   */
  readonly chain: PerDType<readonly TrsmChainBand[]>;
  /** ... and at most this many elements of B (m x n): beyond, each chain's own tile products outweigh the launches it saves. */
  readonly chainMaxElements: number;
  /**
   * ... and batches of at most this many matrices per SM: a chain walks its matrix's row blocks in
   * turn, which fills the GPU where a batch is too small for the recursion's launches to; a batch
   * large enough to fill it runs faster on the recursion.
   */
  readonly chainMaxPerSm: number;
  /**
   * trmm side left as one launch of the gemm family's product with a triangular op(A)
   * (kernels/trsm/plan.ts trmmProductTakes), by precision: double on the tensor cores (the mma
   * kernel's tiles), single on the CUDA cores (the tiled kernel's). Where a precision is absent,
   * only where forced.
   */
  readonly trmmProduct?: {
    readonly double?: TrmmProductTuning<MmaBand>;
    readonly single?: TrmmProductTuning<TiledBand>;
  };
}

/** Where trmm takes the one-launch product by default, and its tiles. */
export interface TrmmProductTuning<Band extends MmaBand | TiledBand> {
  /** The smallest triangle (order) that takes it. */
  readonly from: number;
  /** The fewest column panels of 64 over the batch (a block walks one panel's row tiles in turn). */
  readonly panels: number;
  /** The kernel's tiles by the triangle's order (ascending maxDim, the last Infinity), for op(A) = A ('N') and A^T ('T'). */
  readonly tiles: { readonly N: readonly Band[]; readonly T: readonly Band[] };
}

/** Up to `maxRhs` right-hand sides, the chained substitution from triangles of order `from`. */
export interface TrsmChainBand {
  readonly maxRhs: number;
  readonly from: number;
}

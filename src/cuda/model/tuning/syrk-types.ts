/** The symmetric rank-k update's table (src/cuda/kernels/syrk/) and lauum's (src/cuda/kernels/lauum/). */
import type { PerDType } from './factor-types.js';

export interface SyrkTuning {
  /** The largest diagonal block the leaf kernel computes; above it the recursion splits C. */
  readonly leafMax: PerDType<number>;
  /** Columns of op(A) the leaf stages in shared memory per step. */
  readonly chunk: PerDType<number>;
  /** Threads per block the leaf aims at (several matrices share a block where one is smaller). */
  readonly blockThreads: number;
  /** The recursion splits C at a multiple of this (GEMM-friendly block sizes). */
  readonly splitAlign: number;
  /**
   * n from which C is one GEMM launch over its triangle (tiles outside it exit at once) instead of
   * the recursion, whose small off-diagonal GEMMs and CUDA-core leaves leave a large C's SMs idle.
   */
  readonly triangleFrom: PerDType<number>;
  /**
   * n up to which C is one launch of the tile design (kernels/syrk/generate-tiles.ts) instead of the
   * leaf or the triangle GEMM, unless n's band is off; 0: never.
   */
  readonly tilesUpTo: PerDType<number>;
  /**
   * The tile design's shape by n: the first band whose `upTo` holds n; an `off` band sends its n to
   * the leaf or the triangle GEMM (a forced tile design takes the next band with a shape, or the last).
   */
  readonly tiles: PerDType<readonly (SyrkTilesBand | SyrkTilesOff)[]>;
}

/** n up to `upTo` (above the band before) without the tile design, where it measured slower. */
export interface SyrkTilesOff {
  readonly upTo: number;
  readonly off: true;
}

/** One band of the tile design's shapes: n up to `upTo`. */
export interface SyrkTilesBand {
  readonly upTo: number;
  readonly off?: undefined;
  /** C's tile edge (a power of two, 8 to 64). */
  readonly tile: number;
  /** Accumulators per thread along each side. */
  readonly reg: number;
  /** Columns of op(A) per k-step. */
  readonly chunk: number;
  /** Blocks per SM asked of ptxas (0: none). */
  readonly minBlocks: number;
}

export interface LauumTuning {
  /** The largest triangle the shared-memory leaf computes; above it the recursion splits. */
  readonly leafMax: PerDType<number>;
  /** Threads per block the leaf aims at (several matrices share a block where one is smaller). */
  readonly blockThreads: number;
  /** Shared bytes per block the leaf aims at when several matrices share a block (occupancy). */
  readonly sharedTarget: number;
  /** The recursion splits a triangle at a multiple of this. */
  readonly splitAlign: number;
  /**
   * The register leaf (kernels/lauum/generate-register-leaf.ts) instead of the shared-memory one,
   * by leaf size: the first band whose `upTo` holds it gives the accumulators a side (`reg`); a
   * size above every band (or no bands) takes the shared-memory leaf.
   */
  readonly registerLeaf: PerDType<readonly LauumRegisterBand[]>;
}

/** The register leaf's accumulators a side for leaves up to `upTo`, and whether it runs pipelined and on a packed triangle. */
export interface LauumRegisterBand {
  readonly upTo: number;
  readonly reg: number;
  readonly pipelined?: boolean;
  readonly packed?: boolean;
}

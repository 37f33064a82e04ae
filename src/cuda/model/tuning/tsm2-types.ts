/**
 * The TSM2 tuning table's shape (kernels/tsm2/): measured winners per GPU architecture (data,
 * not code). Where a row exists it replaces the model's pick for the code parameters; the model
 * still sizes what depends on the problem (the k-split, the grid). The routing thresholds of
 * `isTallSkinny` are entries too.
 */
import type { DType } from '../../../core/dtype.js';

export interface RoutingThresholds {
  /** Widest C (n) the TSM2 kernels take. */
  readonly maxN: number;
  /** TSM2L: k at most this, and m at least `minRowsL`. */
  readonly maxKL: number;
  readonly minRowsL: number;
  /** TSM2R: m at least `minRowsR` and m * k at least `minWorkR` elements of A. */
  readonly minRowsR: number;
  readonly minWorkR: number;
}

/** TSM2R winner for n up to `maxN` (op(A) = N; op(A) = T takes vec 1). */
export interface Tsm2rTuning {
  readonly maxN: number;
  readonly t1: number;
  readonly t3: number;
  readonly tileK: number;
  readonly vec: number;
  /** L2 prefetch distance in tiles (0: off). */
  readonly prefetch: number;
  /** A staged through shared memory in this many slots (0 or absent: register prefetch). */
  readonly stages?: number;
  /** 'dmma': float64 on the tensor cores (staged only); absent: 'fma'. */
  readonly engine?: 'fma' | 'dmma';
}

/** TSM2L winner for k and n up to `maxK`, `maxN`; the grid is `blocksPerSM` x SM count blocks (0: one row tile per thread, tcf = 1). */
export interface Tsm2lTuning {
  readonly maxK: number;
  readonly maxN: number;
  readonly t1: number;
  readonly vec: number;
  readonly variant: 'opt1' | 'opt2';
  readonly blocksPerSM: number;
}

export interface Tsm2Tuning {
  /** Which gemm shapes go to TSM2 (the gemm planner asks). */
  readonly routing: RoutingThresholds;
  /** Measured winners per precision, ascending maxN; the model plans shapes no row covers. */
  readonly tsm2r: Readonly<Partial<Record<DType, readonly Tsm2rTuning[]>>>;
  readonly tsm2l: Readonly<Partial<Record<DType, readonly Tsm2lTuning[]>>>;
}

/** The bidiagonalization gesvd's table (src/cuda/kernels/bidiag/). */
import type { PerDType } from './factor-types.js';

export interface BidiagTuning {
  /**
   * gesvd of m x n goes to the bidiagonalization design where gesvdFrom <= min(m, n) <= gesvdTo (per
   * dtype of the data) and max(m, n) <= `longMax`; elsewhere the Jacobi designs (or the CPU).
   */
  readonly gesvdFrom: PerDType<number>;
  readonly gesvdTo: PerDType<number>;
  /** The longest side the design takes (its reduce kernel keeps a vector of max(m, n) in shared memory). */
  readonly longMax: number;
  /** Threads per block of the reduce kernel at most (a thread per row of G up to this). */
  readonly maxThreads: number;
  /**
   * The blocked reduction (dgebrd: panels of `panelColumns` columns, each followed by two GEMMs on the
   * trailing matrix; the last columns by the unblocked kernel) from this k = min(m, n) on; below it
   * dgebd2 in one kernel.
   */
  readonly panelsFrom: number;
  /** Columns of a panel of the blocked reduction (dlabrd's nb). */
  readonly panelColumns: number;
}

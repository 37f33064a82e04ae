/** The per-thread QL syev's table (src/cuda/kernels/ql-thread/). */
import type { PerDType } from './factor-types.js';

/** Orders of n, with vectors and values only (each within QL_THREAD_LIMIT; an empty list names none). */
export interface QlThreadOrders {
  readonly vectors: readonly number[];
  readonly values: readonly number[];
}

export interface QlThreadTuning {
  /** The orders syev sends to the per-thread QL design instead of the per-thread Jacobi, per dtype of the data. */
  readonly syev: PerDType<QlThreadOrders>;
  /**
   * The orders at which the design computes float32 data in float32 arithmetic (elsewhere float32
   * data is widened to float64 on load and rounded once on store).
   */
  readonly float32Arithmetic: QlThreadOrders;
  /**
   * The orders at which the design, writing vectors over a densely packed batch, stages A and W
   * through shared memory, per the kernel's arithmetic (float64 data, or float32 data in float64
   * arithmetic: `float64`; float32 data in float32 arithmetic: `float32`).
   */
  readonly stagedVectors: PerDType<readonly number[]>;
}

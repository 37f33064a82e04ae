/** The per-thread QL syev's table (src/cuda/kernels/ql-thread/). */
import type { PerDType } from './factor-types.js';

export interface QlThreadTuning {
  /**
   * The orders syev sends to the per-thread QL design instead of the per-thread Jacobi, per dtype
   * of the data, with vectors and values only (each within QL_THREAD_LIMIT; an empty list sends
   * none).
   */
  readonly syev: PerDType<{ readonly vectors: readonly number[]; readonly values: readonly number[] }>;
}

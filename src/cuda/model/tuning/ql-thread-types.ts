/** The per-thread QL syev's table (src/cuda/kernels/ql-thread/). */
import type { PerDType } from './factor-types.js';

export interface QlThreadTuning {
  /**
   * The sizes syev sends to the per-thread QL design instead of the per-thread Jacobi, per dtype
   * of the data: n from `from` to `to` (within QL_THREAD_LIMIT); an empty band (from > to) sends
   * none.
   */
  readonly syev: PerDType<{ readonly from: number; readonly to: number }>;
}

/** The tridiagonal-QL syev's table (src/cuda/kernels/tridiag/). */
import type { PerDType } from './factor-types.js';

export interface TridiagTuning {
  /**
   * The smallest n that syev sends to the tridiagonal-QL kernel instead of the Jacobi designs
   * (jacobi/launch.ts syevCuda asks `tridiagServes`), per dtype of the data.
   */
  readonly syevFrom: PerDType<number>;
  /** Threads per block at most (one thread per row of the working matrix up to this). */
  readonly maxThreads: number;
  /**
   * The largest n whose working matrix goes to shared memory where it fits (above, the global
   * workspace: fewer shared bytes per block let more blocks share an SM while the scalar QL
   * iteration, one thread's latency-bound chain, dominates).
   */
  readonly sharedMax: number;
}

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
  /**
   * The smallest n whose vectors take the split design (kernels/tridiag/generate-apply.ts: record
   * the rotations, apply them over all SMs, finish); below it the one-kernel design.
   */
  readonly splitFrom: number;
  /** The split design's rotation buffer per matrix, in multiples of n^2 rotations (20 bytes each). */
  readonly capFactor: number;
  /** Rows of Z per block of the split design's apply kernel (a thread each), where they fit shared memory. */
  readonly applyRows: number;
  /**
   * The smallest n whose vectors take the inverse-iteration design (kernels/tridiag/generate-stein.ts:
   * bisection and inverse iteration on the tridiagonal, a thread per eigenvector, then V = Q Y by the
   * GEMM) instead of the QL designs; above TRIDIAG_MAX (or Infinity): never.
   */
  readonly steinFrom: number;
  /**
   * The smallest n whose inverse-iteration design reduces to tridiagonal form blocked (dsytrd:
   * panels by kernels/tridiag/generate-panel.ts, the trailing updates by two GEMMs a panel) instead of
   * dsytd2 in one kernel.
   */
  readonly steinPanelFrom: number;
}

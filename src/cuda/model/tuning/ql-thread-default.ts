import type { QlThreadTuning } from './ql-thread-types.js';

/**
 * Measured on an NVIDIA H200, 2026-11-29 (`node scripts/probe/syev-small.mjs`: 1,000,000 matrices,
 * each design forced, ms; QL / per-thread Jacobi). An order goes to QL where it was at least 10%
 * faster (QL gives up Jacobi's relative accuracy on graded matrices, so a tie stays on Jacobi):
 * - float64, vectors: n = 2 0.116 / 0.053, 3 0.152 / 0.159, 4 0.336 / 0.314, 5 0.514 / 0.923,
 *   6 1.503 / 1.440, 7 2.786 / 4.030, 8 1.852 / 4.758;
 * - float64, values: 2 0.047 / 0.045, 3 0.062 / 0.096, 4 0.126 / 0.240, 5 0.219 / 0.472, 6 0.435 /
 *   0.957, 7 0.857 / 1.862, 8 1.556 / 3.259;
 * - float32 (QL computes in float64), vectors: 5 0.354 / 0.437, 8 1.784 / 2.080, elsewhere Jacobi
 *   by 1.1-2.2x; values: within 11% either way (2 0.035 / 0.039, 5 0.220 / 0.231), Jacobi faster
 *   from 6; n = 2's 0.004 ms lies within a run's spread, so float32 values only stays on Jacobi.
 * Re-measure with the probe on a new card and keep its winners.
 *
 * float32Arithmetic: none yet (float32 data in float64 arithmetic everywhere). The probe times the
 * float32-arithmetic variant beside the two designs above; an order goes to it where it is faster.
 */
export const defaultQlThreadTuning: QlThreadTuning = {
  syev: {
    float64: { vectors: [5, 7, 8], values: [3, 4, 5, 6, 7, 8] },
    float32: { vectors: [5, 8], values: [] },
  },
  float32Arithmetic: { vectors: [], values: [] },
};

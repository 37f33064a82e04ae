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
 * float32 data in float32 arithmetic (`float32Arithmetic`): the same card, 2026-11-29, the same probe with
 * the variant beside the two designs (ms, QL in float64 arithmetic / QL in float32 / Jacobi):
 * - vectors: 2 0.023 / 0.022 / 0.022, 3 0.116 / 0.102 / 0.103, 4 0.166 / 0.127 / 0.127, 5 0.354 / 0.336 /
 *   0.417, 6 0.741 / 0.613 / 0.675, 7 2.713 / 1.236 / 1.620, 8 1.774 / 1.239 / 2.060: float32 arithmetic
 *   at 5-8 (Jacobi / it 1.24, 1.10, 1.31, 1.66), Jacobi to 4 (a tie);
 * - values: 2 0.023 / 0.018 / 0.019, 3 0.052 / 0.031 / 0.046, 4 0.123 / 0.075 / 0.117, 5 0.189 / 0.106 /
 *   0.189, 6 0.434 / 0.201 / 0.396, 7 0.634 / 0.272 / 0.539, 8 1.523 / 0.586 / 1.184: float32 arithmetic
 *   at 3-8 (1.46-2.02x Jacobi), Jacobi at 2 (1.06).
 * The float64 rows of that run agree with the ones above except vectors at 6 (QL 0.811 against 1.503,
 * Jacobi 1.436 both times) and 3 (0.154 / 0.183).
 *
 * With vectors again, 2026-12-02, the per-thread Jacobi staged through shared memory where it writes
 * vectors (jacobi/plan.ts planSyevThread), two runs of the probe that agree within 2% (ms, QL / QL in
 * float32 / Jacobi staged): float64 2 0.112 / - / 0.036, 3 0.070 / - / 0.111, 4 0.331 / - / 0.268, 5
 * 0.510 / - / 0.644, 6 0.797 / - / 1.458, 7 1.264 / - / 2.890 (unstaged), 8 1.836 / - / 4.616
 * (unstaged); float32 2 0.023 / 0.023 / 0.026 (unstaged 0.024), 3 0.067 / 0.042 / 0.056, 4 0.166 /
 * 0.118 / 0.125, 5 0.356 / 0.340 / 0.248, 6 0.743 / 0.612 / 0.486, 7 1.241 / 0.876 / 1.005, 8 1.768 /
 * 1.234 / 1.761. So float64 with vectors goes to QL at 3 and 6 as well (the second time QL led there
 * by 1.5-1.8x), float32 with vectors at 3, 7 and 8 (float32 arithmetic), and stays on the staged
 * Jacobi at 4-6 (at 4 QL in float32 led by 6%: a tie).
 *
 * The QL design staged too (`stagedVectors`), 2026-12-02, the same probe timing each design unstaged
 * and staged (ms, unstaged / staged): float64 2 0.148 / 0.054, 3 0.071 / 0.086, 4 0.335 / 0.170, 5
 * 0.515 / 0.388, 6 0.787 / 0.861 (7 and 8: the slots exceed 48 KiB); float32 data in float32
 * arithmetic 2 0.037 / 0.036, 3 0.054 / 0.057, 4 0.132 / 0.092, 5 0.341 / 0.181, 6 0.619 / 0.342, 7
 * 0.877 / 0.713, 8 1.233 / 1.436; in float64 arithmetic at most 1.09x (2). Staged where it led by 10%
 * or more; against the Jacobi of the same run (its best form: float64 2 0.055, 3 0.115, 4 0.269, 5
 * 0.645, 6 1.448; float32 2 0.036, 3 0.056, 4 0.126, 5 0.249, 6 0.486, 7 1.008, 8 1.771) QL then leads
 * at 3-8 for both dtypes (float32 at 3 by 4%, as in one run of three), Jacobi and QL tie at 2.
 */
export const defaultQlThreadTuning: QlThreadTuning = {
  syev: {
    float64: { vectors: [3, 4, 5, 6, 7, 8], values: [3, 4, 5, 6, 7, 8] },
    float32: { vectors: [3, 4, 5, 6, 7, 8], values: [3, 4, 5, 6, 7, 8] },
  },
  float32Arithmetic: { vectors: [3, 4, 5, 6, 7, 8], values: [3, 4, 5, 6, 7, 8] },
  stagedVectors: { float64: [2, 4, 5], float32: [4, 5, 6, 7] },
};

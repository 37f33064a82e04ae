import type { MultiTuning } from './multi-types.js';

/**
 * Measured on 2 x NVIDIA H200 (BENCHMARKS.md, "Several GPUs and the host path"; sm_90, the only
 * card measured, so every architecture uses these values until its own are measured):
 * - the rates: a little above the fastest float64 rows of one GPU (potrf n = 16 moved 1.07 GB, read
 *   and written, at 3.0 TB/s: 0.61 of the H200's 4.9; gemm n = 32 ran at 4.1 TFLOP/s: 0.124 of the
 *   FP64 pipes' 33.4), so the estimate stays below the measured time of every row (gemm n = 8 and
 *   getrf n = 128: 3.5-4x below; test/cuda/multi-crossover.test.ts checks the rows);
 * - the link: 55 GB/s each way per GPU (scripts/probe-pinned.mjs);
 * - perExtraGpuMs: the host cost of one more GPU on a host-data call, taken as 0.15 ms from the
 *   device-resident rows (calls of 0.25-0.7 ms gained 1.1-1.6x on two GPUs); `scripts/multi-gpu-scaling.sh`
 *   measures what a card's own value would rest on.
 */
export const defaultMultiTuning: MultiTuning = {
  perExtraGpuMs: 0.15,
  bandwidthShare: 0.7,
  flopShare: 0.13,
  linkGBs: 55,
};

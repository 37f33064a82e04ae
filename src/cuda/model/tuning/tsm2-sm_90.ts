import type { Tsm2Tuning } from './tsm2-types.js';

/**
 * sm_90: winners of the sweep on an H100 80GB HBM3 (2026-11-25), TSM2R at m = k = 20480, TSM2L at
 * m = 1e7; then (H100 80GB HBM3, tune/tsm2-sweep.ts's staged grid, best mean GB/s over m = k = 10240 and
 * 30720) the rows with `stages`: A staged through shared memory won float64 n = 4, 16, 32 (32 on
 * the tensor cores) and float32 n = 4 ... 32; float64 n = 1, 2, 8 and float32 n = 1, 2 were not
 * re-swept or kept the register path. A sweep on an H200 preferred tileK 64 / t1 128 nearly
 * everywhere for the register path; not adopted. Shapes outside these rows: the model.
 */
export const sm90Tsm2Tuning: Partial<Tsm2Tuning> = {
  tsm2r: {
    float64: [
      { maxN: 1, t1: 256, t3: 8, tileK: 32, vec: 1, prefetch: 0 },
      { maxN: 2, t1: 256, t3: 8, tileK: 32, vec: 1, prefetch: 0 },
      { maxN: 4, t1: 128, t3: 4, tileK: 64, vec: 2, prefetch: 0, stages: 4 },
      { maxN: 8, t1: 128, t3: 4, tileK: 64, vec: 2, prefetch: 0 },
      { maxN: 16, t1: 128, t3: 8, tileK: 64, vec: 2, prefetch: 0, stages: 5 },
      { maxN: 32, t1: 128, t3: 16, tileK: 32, vec: 1, prefetch: 0, stages: 3, engine: 'dmma' },
    ],
    float32: [
      { maxN: 1, t1: 256, t3: 8, tileK: 32, vec: 4, prefetch: 0 },
      { maxN: 2, t1: 256, t3: 8, tileK: 32, vec: 4, prefetch: 0 },
      { maxN: 4, t1: 128, t3: 4, tileK: 32, vec: 4, prefetch: 0, stages: 4 },
      { maxN: 8, t1: 128, t3: 4, tileK: 32, vec: 4, prefetch: 0, stages: 4 },
      { maxN: 16, t1: 128, t3: 8, tileK: 32, vec: 4, prefetch: 0, stages: 3 },
      { maxN: 32, t1: 128, t3: 8, tileK: 32, vec: 4, prefetch: 0, stages: 3 },
    ],
  },
  tsm2l: {
    float64: [
      { maxK: 8, maxN: 8, t1: 128, vec: 1, variant: 'opt1', blocksPerSM: 0 },
      { maxK: 16, maxN: 16, t1: 128, vec: 1, variant: 'opt2', blocksPerSM: 8 },
    ],
    float32: [
      { maxK: 8, maxN: 8, t1: 128, vec: 1, variant: 'opt1', blocksPerSM: 0 },
      { maxK: 16, maxN: 16, t1: 128, vec: 1, variant: 'opt1', blocksPerSM: 0 },
    ],
  },
};

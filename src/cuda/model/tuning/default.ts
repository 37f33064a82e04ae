/** Defaults for any architecture: rules of thumb from the paper and the occupancy model. */
import type { GemmTuning } from './types.js';

export const defaultGemmTuning: GemmTuning = {
  // Paper, section 4.2: the unrolled design targets sizes up to 32.
  smallMaxDim: 32,
  smallThreadsPerBlock: 256,
  smallItemsPerThread: 1,
  smallMaxThreadsPerMatrix: 128,
  smallMaxColumnsPerThread: 8,
  // One 128-byte line: shorter columns would be written in pieces by single threads.
  smallStageCBelowBytes: 128,
  smallMinBlocksPerSM: 2,
  smallWinners: [],
  // A100 and later have FP64 tensor cores (DMMA), at twice the DFMA rate.
  mmaMinMajor: 8,
  mma: [
    { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2 } },
    { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2 } },
  ],
  tiled: {
    float64: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
    ],
    float32: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
      { maxDim: Infinity, config: { bm: 128, bn: 128, bk: 16, tm: 8, tn: 8 } },
    ],
  },
};

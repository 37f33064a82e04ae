/** Defaults for any architecture: rules of thumb from the paper and the occupancy model. */
import type { GemmTuning } from './gemm-types.js';

export const defaultGemmTuning: GemmTuning = {
  // Paper, section 4.2: the unrolled design targets sizes up to 32.
  smallMaxDim: { float64: 32, float32: 32 },
  // Small blocks of many matrices, 4 work items per thread: more bytes in flight per load
  // instruction, and one block's barrier stalls few threads (sweep of 2026-11-25, H200).
  smallThreadsPerBlock: 128,
  smallItemsPerThread: 4,
  smallMaxThreadsPerMatrix: 64,
  smallMaxColumnsPerThread: 8,
  // Staging C through shared memory measured no faster, even for 2 x 2 (the L2 merges the
  // partial-line writes): off by default.
  smallStageCBelowBytes: 0,
  smallMinBlocksPerSM: 2,
  smallWinners: [],
  // A100 and later have FP64 tensor cores (DMMA), at twice the DFMA rate; sm_80 has only the
  // m8n8k4 shape (mmaK 4), sm_90 adds m16n8k8 / m16n8k16 (its table leaves mmaK at 8).
  mmaMinMajor: 8,
  mma: [
    { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3, mmaK: 4 } },
    { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3, mmaK: 4 } },
    { maxDim: Infinity, config: { bm: 128, bn: 128, bk: 16, wm: 2, wn: 4, stages: 3, mmaK: 4 } },
  ],
  // tm, tn (and bk) are multiples of the 16-byte vector: 2 doubles, 4 floats.
  tiled: {
    float64: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
    ],
    float32: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 } },
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
      { maxDim: Infinity, config: { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 } },
    ],
  },
  // Chosen, not swept: the real designs' shapes with the pairs' doubled bytes (a 2 x 2 complex block
  // is a real 4 x 2 one's registers; 64 x 64 tiles of 4 x 4 hold 32 complex accumulators a thread).
  complex: {
    smallMaxDim: { float64: 16, float32: 16 },
    tiled: {
      float64: [
        { maxDim: 32, config: { bm: 32, bn: 32, bk: 8, tm: 2, tn: 2 } },
        { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 8, tm: 4, tn: 4 } },
      ],
      float32: [
        { maxDim: 32, config: { bm: 32, bn: 32, bk: 8, tm: 2, tn: 2 } },
        { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 8, tm: 4, tn: 4 } },
      ],
    },
  },
};

/**
 * Hopper (H100/H200): 132 SMs, 2048 threads, 64K registers, 228 KiB shared memory per SM.
 * Only what differs from the defaults; measured winners go here.
 */
import type { GemmTuningOverrides } from './types.js';

export const sm90GemmTuning: GemmTuningOverrides = {
  tiled: {
    float64: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
      { maxDim: Infinity, config: { bm: 128, bn: 64, bk: 16, tm: 8, tn: 4 } },
    ],
    float32: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
      { maxDim: Infinity, config: { bm: 128, bn: 128, bk: 16, tm: 8, tn: 8 } },
    ],
  },
};

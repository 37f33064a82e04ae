/**
 * Hopper (H100/H200): 132 SMs, 2048 threads, 64K registers, 228 KiB shared memory per SM.
 * Only what differs from the defaults; measured winners go here.
 */
import type { GemmTuningOverrides } from './types.js';

export const sm90GemmTuning: GemmTuningOverrides = {
  // float64 beyond 24 goes to the tensor cores: at 32 the mma kernel measured 9.2 vs 7.7 TFLOP/s.
  smallMaxDim: { float64: 24, float32: 32 },
  smallWinners: [
    { dtype: 'float32', minDim: 25, maxDim: 32, threadsPerBlock: 128, itemsPerThread: 2, maxThreadsPerMatrix: 128 },
  ],
  tiled: {
    float64: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
      { maxDim: Infinity, config: { bm: 64, bn: 128, bk: 8, tm: 4, tn: 8 } },
    ],
    float32: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
      { maxDim: Infinity, config: { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 } },
    ],
  },
};

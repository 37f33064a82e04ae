/**
 * trsm defaults for any architecture (not yet swept): a leaf of up to 64 (f64: 64 x 65 / 2 + 64 x 65
 * elements = 50 KiB of shared memory at 64 vectors per block), 64 vectors per block, splits at
 * multiples of 16.
 */
import type { TrsmTuning } from './trsm-types.js';

export const defaultTrsmTuning: TrsmTuning = {
  leafMax: { float64: 64, float32: 64 },
  vectorsMax: 64,
  blockThreads: 256,
  sharedTarget: 48 * 1024,
  splitAlign: 16,
};

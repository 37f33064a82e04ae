/**
 * trtri and poti defaults for any architecture (not swept; `myriad bench trtri|potri|poti --backend
 * cuda` times them against the vendor): leaves and fused kernels of up to
 * 32 (one column of the inverse per thread, 32 registers of it), 256 threads per block.
 */
import type { TrtriTuning } from './trtri-types.js';

export const defaultTrtriTuning: TrtriTuning = {
  leafMax: { float64: 32, float32: 32 },
  blockThreads: 256,
  fusedMax: { float64: 32, float32: 32 },
};

import type { TsqrTuning } from './tsqr-types.js';

/**
 * Not swept (re-measure with `myriad bench tsqr --backend cuda`, which times the routed shapes
 * against cuSOLVER; BENCHMARKS.md has its H100 rows): the routing rule follows the design
 * (TSQR reads A three times and writes Q once; the Householder kernels need the matrix in shared
 * memory), `fallbackRatio` the stability argument of tsqr-types.ts, `blocksPerSm` the occupancy
 * of the Gram kernel (about 33 KiB of shared memory per block).
 */
export const defaultTsqrTuning: TsqrTuning = {
  minRows: 8192,
  minAspect: 64,
  maxCount: 16,
  fallbackRatio: 1 / 16,
  blocksPerSm: 4,
};

/** TSM2 defaults for any architecture: the routing rule only; every kernel parameter from the model. */
import type { Tsm2Tuning } from './tsm2-types.js';

export const defaultTsm2Tuning: Tsm2Tuning = {
  routing: { maxN: 32, maxKL: 32, minRowsL: 8192, minRowsR: 512, minWorkR: 1 << 20 },
  tsm2r: {},
  tsm2l: {},
};

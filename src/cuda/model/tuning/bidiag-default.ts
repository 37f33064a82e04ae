import type { BidiagTuning } from './bidiag-types.js';

/**
 * `gesvdFrom` 33 ... `gesvdTo` 512: the whole range of the Jacobi block design (n = 33 ... 512), which
 * the inverse-iteration syev replaced for syev; not yet measured against it on a GPU (the probe
 * scripts/probe/gesvd-bidiag.mjs re-measures: own gesvd, Jacobi forced, own syev with vectors, the
 * vendor). `longMax` 4096: the reduce kernel's shared vector of max(m, n) float64 (32 KiB).
 * `maxThreads` 512: a thread per row of G to 512 rows.
 */
export const defaultBidiagTuning: BidiagTuning = {
  gesvdFrom: { float64: 33, float32: 33 },
  gesvdTo: { float64: 512, float32: 512 },
  longMax: 4096,
  maxThreads: 512,
};

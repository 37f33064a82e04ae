import type { BidiagTuning } from './bidiag-types.js';

/**
 * `gesvdFrom` ... `gesvdTo` 512 (k = min(m, n)): where the design measured ahead of the Jacobi block
 * design on an H200 (2026-11-29, `node scripts/probe/gesvd-bidiag.mjs both`, square, U and VT): at 64 the
 * Jacobi block design is ahead (13.2 against 14.4 ms, 2,000 matrices, both dtypes), at 128 this design
 * (16.7 against 43.3 ms, 500), 6.4x at 256 and 12x at 512; the switch at 96 lies between the measured
 * orders. Below `gesvdFrom` the Jacobi designs run. `longMax` 4096: the reduce kernel's shared vector of
 * max(m, n) float64 (32 KiB). `maxThreads` 512: a thread per row of G to 512 rows. `panelsFrom` 192 and
 * `panelColumns` 32: the blocked reduction as the tridiag family's (its `steinPanelFrom`, STEIN_NB),
 * where dgebd2's reads and writes of the trailing matrix from L2 and HBM take about half the design's
 * time; not yet measured against the unblocked kernel (`node scripts/probe/gesvd-bidiag.mjs both --reduction`).
 */
export const defaultBidiagTuning: BidiagTuning = {
  gesvdFrom: { float64: 96, float32: 96 },
  gesvdTo: { float64: 512, float32: 512 },
  longMax: 4096,
  maxThreads: 512,
  panelsFrom: 192,
  panelColumns: 32,
};

import type { BidiagTuning } from './bidiag-types.js';

/**
 * `gesvdFrom` ... `gesvdTo` 512 (k = min(m, n)): where the design measured ahead of the Jacobi block
 * design on an H200 (2026-11-29, `node scripts/probe/gesvd-bidiag.mjs both`, square, U and VT): at 64 the
 * Jacobi block design is ahead (13.2 against 14.4 ms, 2,000 matrices, both dtypes), at 128 this design
 * (16.7 against 43.3 ms, 500), 6.4x at 256 and 12x at 512; the switch at 96 lies between the measured
 * orders. Below `gesvdFrom` the Jacobi designs run. `longMax` 4096: the reduce kernel's shared vector of
 * max(m, n) float64 (32 KiB). `maxThreads` 512: a thread per row of G to 512 rows. `panelsFrom` 256 and
 * `panelColumns` 32: the blocked reduction (dgebrd's panels) where it measured ahead of dgebd2 in one
 * kernel (H200, 2026-11-30, `node scripts/probe/gesvd-bidiag.mjs both --reduction=32`, float64, U and
 * VT / values only, ms, unblocked against panels): 128 x 500 16.8 / 7.17 against 17.7 / 7.98 (behind),
 * 192 x 200 20.8 / 9.43 against 20.9 / 9.52 (even), 256 x 100 26.6 / 12.2 against 25.9 / 11.4, 384 x 40
 * 46.8 / 21.9 against 43.9 / 19.0, 512 x 20 71.7 / 35.2 against 63.9 / 27.2, 512 x 264 378 / 224
 * against 280 / 126; float32 alike.
 */
export const defaultBidiagTuning: BidiagTuning = {
  gesvdFrom: { float64: 96, float32: 96 },
  gesvdTo: { float64: 512, float32: 512 },
  longMax: 4096,
  maxThreads: 512,
  panelsFrom: 256,
  panelColumns: 32,
};

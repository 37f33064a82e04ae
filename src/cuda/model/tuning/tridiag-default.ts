import type { TridiagTuning } from './tridiag-types.js';

/**
 * `syevFrom` 33: the tridiagonal route replaces the Jacobi block design wherever that served
 * (n >= 33). `maxThreads` 512: a thread per row to n = 512. `sharedMax` 96: the working matrix in
 * shared memory up to n = 96, in the global workspace above. H100, float64, ms, vectors / values
 * (scripts/probe/syev-tridiag.mjs, 2026-11-26; tridiag in shared memory, in the workspace, the
 * Jacobi block design, the vendor's XsyevBatched with vectors): 64 x 2000 9.22 / 1.59, 9.64 /
 * 2.07, 10.07 / 5.26, 7.00; 128 x 500 31.0 / 4.43, 19.6 / 2.58, 29.1 / 12.6, 6.50 (one block per SM
 * with the matrix in shared memory); 256 x 100 49.3 / 5.62, 49.2 / 5.62, 217.7 / 113.4, 12.6; 512 x
 * 20 171.8 / 17.5, 171.4 / 17.5, 748.0 / 341.2, 28.3.
 */
export const defaultTridiagTuning: TridiagTuning = {
  syevFrom: { float64: 33, float32: 33 },
  maxThreads: 512,
  sharedMax: 96,
};

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
 *
 * The split design (record, apply, finish; kernels/tridiag/generate-apply.ts): `splitFrom` 256,
 * measured on the H100 (2026-11-26, scripts/probe/syev-split.mjs, float64 vectors, ms, one kernel /
 * split / XsyevBatched): 64 x 2000 9.28 / 10.80 / 6.95; 128 x 500 19.49 / 21.88 / 6.44; 256 x 100
 * 49.19 / 40.12 / 12.08; 512 x 20 170.2 / 128.5 / 29.4 (float32 alike). The crossover lies between
 * 128 and 256; at 512 record takes 94.6 ms (the one-thread chain ~75 of it) and apply 35.1 (rows of
 * 32: 141.9 in all, worse; at 256 39.8 against 40.1).
 * `capFactor` 1.5: the buffer holds 1.5 n^2 rotations, above the host-measured counts (random
 * matrices 1.06 n^2 at 512 ... 1.26 n^2 at 40, graded and clustered fewer: generate-apply.ts), so the
 * finish kernel's resume is the exception (and costs only the rotations past the buffer); `applyRows` 16: at 512 x 20 a
 * block of 16 rows takes 69 KiB, three per SM, 640 blocks in 2 waves (32 rows: one per SM, 3 waves).
 */
/*
 * The inverse-iteration design (kernels/tridiag/generate-stein.ts): `steinFrom` 33, it replaces both QL
 * designs at every order it was measured at. H200, 2026-11-29, `node scripts/probe/syev-stein.mjs both`,
 * vectors, ms, inverse iteration (unblocked / blocked reduction) against the one-kernel QL design and
 * the split design: float64 33 x 10000 5.17 / 5.87 against 7.74 and 11.9; 64 x 2000 3.90 / 4.18 against
 * 9.33 and 10.8; 96 x 1000 5.86 / 5.80 against 18.3 and 16.9; 128 x 500 5.47 / 6.14 against 19.0 and
 * 21.9; 192 x 200 7.43 / 7.16 against 37.6 and 46.8; 256 x 100 9.43 / 8.08 against 43.7 and 38.0; 384
 * x 40 16.5 / 12.7 against 92.8 and 74.3; 512 x 20 26.1 / 18.3 against 158 and 122 (float32 alike: the
 * arithmetic is float64). `steinPanelFrom` 160: the blocked reduction (panels and GEMMs) from 192 on,
 * dsytd2 in one kernel below (128: 5.47 against 6.14; float32 4.93 against 5.62).
 */
export const defaultTridiagTuning: TridiagTuning = {
  syevFrom: { float64: 33, float32: 33 },
  maxThreads: 512,
  sharedMax: 96,
  splitFrom: 256,
  capFactor: 1.5,
  applyRows: 16,
  steinFrom: 33,
  steinPanelFrom: 160,
};

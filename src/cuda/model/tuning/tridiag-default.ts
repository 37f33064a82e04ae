import type { TridiagTuning } from './tridiag-types.js';

/**
 * Not measured yet (written without a GPU, 2026-11-26). `syevFrom` 33: the tridiagonal route
 * replaces the Jacobi block design wherever that served (n >= 33), by the cost estimates of
 * docs/PERF-NOTES.md (issue 17); the lead's H100 runs decide the crossover. `maxThreads` 512: a
 * thread per row to n = 512. `sharedMax` 512: the working matrix in shared memory wherever it fits
 * (f64 to n = 165 at 227 KiB).
 */
export const defaultTridiagTuning: TridiagTuning = {
  syevFrom: { float64: 33, float32: 33 },
  maxThreads: 512,
  sharedMax: 512,
};

/**
 * syrk and lauum defaults for any architecture (not yet swept). syrk: diagonal blocks of up to 64
 * in the leaf (a 64 x 64 tile: 16 x 16 threads of 4 x 4 accumulators), op(A) staged 32 columns at
 * a time (64 x 32 float64 = 16 KiB), splits at multiples of 16. lauum: triangles of up to 32 in
 * the leaf (32 x 33 float64 = 8 KiB of shared memory per matrix).
 */
import type { LauumTuning, SyrkTuning } from './syrk-types.js';

export const defaultSyrkTuning: SyrkTuning = {
  leafMax: { float64: 64, float32: 64 },
  chunk: { float64: 32, float32: 32 },
  blockThreads: 256,
  splitAlign: 16,
  // Measured on an H100 (2026-11-26, one matrix, float64, k = n): the recursion took 4.39 ms at
  // n = 2048 and 1.14 ms at 1024 against 0.49 and 0.08 ms for the full GEMM of the same shape.
  triangleFrom: { float64: 256, float32: 256 },
};

export const defaultLauumTuning: LauumTuning = {
  leafMax: { float64: 32, float32: 32 },
  blockThreads: 256,
  sharedTarget: 48 * 1024,
  splitAlign: 16,
};

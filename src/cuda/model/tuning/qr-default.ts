/**
 * QR defaults for every architecture: guesses that await a measurement (the sweep of blockedFrom,
 * panel and tailMax at 64...512 against the shared-memory kernels, `myriad bench geqrf|orgqr|ormqr
 * --backend cuda`). Reasoning: the shared kernel runs one matrix per block and one block per SM
 * from about 96 x 96 (float64), its column loop serial; the blocked driver's trailing updates run on
 * the GEMM kernels (tensor cores in float64) with nb = 32 (LAPACK's default block is 32, its nx 128).
 */
import type { QrTuning } from './qr-types.js';

export const defaultQrTuning: QrTuning = {
  // The per-thread kernel up to 8 x 8: not measured yet (re-measure with scripts/probe/qr-thread.mjs,
  // the per-thread, shared and cuBLAS geqrfBatched times at n = 2..8). Reasoning: at these sizes the
  // shared kernel spends two barriers and shuffle reductions a column on a few dozen flops (float32
  // 4 x 4, 1,000,000 matrices: 0.231 ms on an H200, about 550 GB/s); the per-thread kernel moves the
  // same bytes by coalesced block copies with no barrier per column, 8 x 8 float64 at about 170
  // registers and no spills (ptxas, sm_90), its flops (under 1,000 a matrix) far below the bytes' time.
  threadMax: { float64: 8, float32: 8 },
  blockedFrom: { float64: 128, float32: 128 },
  panel: { float64: 32, float32: 32 },
  tailMax: { float64: 64, float32: 64 },
  ormqrBlockedFrom: { float64: 64, float32: 64 },
};

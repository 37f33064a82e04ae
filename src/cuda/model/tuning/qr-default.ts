/**
 * QR defaults for every architecture: guesses that await a measurement (the sweep of blockedFrom,
 * panel and tailMax at 64...512 against the shared-memory kernels, `myriad bench geqrf|orgqr|ormqr
 * --backend cuda`). Reasoning: the shared kernel runs one matrix per block and one block per SM
 * from about 96 x 96 (float64), its column loop serial; the blocked driver's trailing updates run on
 * the GEMM kernels (tensor cores in float64) with nb = 32 (LAPACK's default block is 32, its nx 128).
 */
import type { QrTuning } from './qr-types.js';

export const defaultQrTuning: QrTuning = {
  blockedFrom: { float64: 128, float32: 128 },
  panel: { float64: 32, float32: 32 },
  tailMax: { float64: 64, float32: 64 },
  ormqrBlockedFrom: { float64: 64, float32: 64 },
};

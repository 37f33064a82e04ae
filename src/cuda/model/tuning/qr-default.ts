/**
 * QR defaults for every architecture: guesses that await a measurement (the sweep of blockedFrom,
 * panel and tailMax at 64...512 against the shared-memory kernels, `myriad bench geqrf|orgqr|ormqr
 * --backend cuda`). Reasoning: the shared kernel runs one matrix per block and one block per SM
 * from about 96 x 96 (float64), its column loop serial; the blocked driver's trailing updates run on
 * the GEMM kernels (tensor cores in float64) with nb = 32 (LAPACK's default block is 32, its nx 128).
 */
import type { QrTuning } from './qr-types.js';

export const defaultQrTuning: QrTuning = {
  // The per-thread kernel up to 8 x 8. NVIDIA H200, 2026-11-30, `MYRIAD_QUICK_FIRST=0 node
  // scripts/probe/qr-thread.mjs` (geqrf of n x n, ms per-thread staged / shared kernel / cuBLAS
  // geqrfBatched): the shared kernel took 1.21-5.8x the per-thread kernel's time at every n = 2 ... 8,
  // both dtypes, 100,000 and 1,000,000 matrices (float64 8 x 1,000,000 0.375 / 1.551 / 1.785; float32
  // 4 x 1,000,000 0.049 / 0.181 / 0.199, about 2,900 GB/s); orgqr 1.26-4.1x. cuBLAS was faster at n = 2
  // and 3 with 100,000 matrices (float64 0.093 / 0.025 and 0.056 / 0.032; float32 0.035 / 0.019 and
  // 0.035 / 0.026 ms: calls of a few tens of microseconds), slower everywhere else measured.
  threadMax: { float64: 8, float32: 8 },
  // geqrf's per-thread generator (generate-thread-fast.ts: whole 16-byte vectors, every layout staged,
  // per column no division per element and no hypot on ordinary data). On an H200 (2026-11-30,
  // `MYRIAD_QUICK_FIRST=0 node scripts/probe/geqrf-tiny.mjs`, ten calls back to back) classic / fast
  // kernel time 0.97-1.38 (float64 8 x 1,000,000 0.375 / 0.273 ms). One random float64 4 x 4 member
  // of 1,000,003 in the GPU suite had factors 66 eps units from the reference's, its residuals within
  // bounds: its R has a condition number of 674, and the same arithmetic in JavaScript gives 44 units
  // with residual and orthogonality ratios of 0.3 and 0.5: the member's conditioning, not the kernel.
  threadVariant: { float64: 'fast', float32: 'fast' },
  blockedFrom: { float64: 128, float32: 128 },
  panel: { float64: 32, float32: 32 },
  tailMax: { float64: 64, float32: 64 },
  ormqrBlockedFrom: { float64: 64, float32: 64 },
};

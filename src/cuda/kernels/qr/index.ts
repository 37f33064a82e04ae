/** Batched Householder QR (geqrf, orgqr) on the GPU: the family's public face. */
export type { QrForce, QrPlan, QrScope, QrShape, QrSharedParams } from './params.js';
export { geqrfSharedSource, orgqrSharedSource, qrSharedBytes, qrSharedName, sharedLd } from './generate-shared.js';
export { WARP_MAX, WARP_SHARED, planQr, qrFits, type QrProblem } from './plan.js';
export { geqrfCuda, orgqrCuda, qrCovers, type QrOptions } from './launch.js';

/** Batched Householder QR (geqrf, orgqr) on the GPU: the family's public face. */
export type { QrBlockedPlan, QrDesign, QrForce, QrPlan, QrScope, QrShape, QrSharedParams } from './params.js';
export { geqrfSharedSource, orgqrSharedSource, qrSharedBytes, qrSharedName, sharedLd } from './generate-shared.js';
export { PANEL_MAX, PANEL_MIN, WARP_MAX, WARP_SHARED, planQr, planQrBlocked, planQrDesign, qrBlockedFits, qrFits, type QrProblem } from './plan.js';
export { geqrfCuda, orgqrCuda, qrCovers, type QrOptions } from './launch.js';
export { applyWy, QR_FAMILY, wyTransT, type WyApply } from './launch-blocked.js';

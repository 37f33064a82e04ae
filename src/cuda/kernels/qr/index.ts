/** Batched Householder QR (geqrf, orgqr) on the GPU: the family's public face. */
export type { QrBlockedPlan, QrDesign, QrForce, QrPlan, QrScope, QrShape, QrSharedParams, QrThreadDesign, QrThreadParams, QrThreadPlan, QrThreadVariant } from './params.js';
export { geqrfSharedSource, orgqrSharedSource, qrSharedBytes, qrSharedName, sharedLd } from './generate-shared.js';
export { geqrfThreadFastSource } from './generate-thread-fast.js';
export { QR_THREAD_LIMIT, geqrfThreadSource, orgqrThreadSource, qrThreadName, qrThreadSharedBytes, qrThreadSlots } from './generate-thread.js';
export {
  PANEL_MAX, PANEL_MIN, WARP_MAX, WARP_SHARED, planQr, planQrBlocked, planQrDesign, planQrThread, qrBlockedFits, qrFits, qrThreadFits,
  type QrProblem, type QrThreadProblem,
} from './plan.js';
export { geqrfCuda, orgqrCuda, qrCovers, type QrOptions } from './launch.js';
export { applyWy, QR_FAMILY, wyTransT, type WyApply } from './launch-blocked.js';

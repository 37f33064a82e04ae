/** Batched complex Householder QR (zgeqrf, zungqr, zunmqr; and zgels composed of them) on the GPU: the family's public face. */
export type { ZlasetParams, ZormqrForce, ZormqrParams, ZormqrPlan, ZqrBlockedPlan, ZqrDesign, ZqrForce, ZqrPlan, ZqrShape, ZqrSharedParams, ZwyParams } from './params.js';
export { zgeqrfSharedSource, zorgqrSharedSource, zqrSharedBytes } from './generate-shared.js';
export { ZORMQR_MAX_THREADS, zforwardOrder, zormqrSlotPairs, zormqrSource, zpackedPairs } from './generate-ormqr.js';
export { ZWY_NB_MAX, ZWY_THREADS, zlasetName, zlasetSource, zwySource } from './generate-wy.js';
export {
  ZPANEL_MIN, ZQR_BLOCKED_FROM, ZQR_PANEL, ZWARP_MAX, planZormqr, planZqr, planZqrBlocked, planZqrDesign,
  zormqrBlocked, zqrBlockedFits, zqrFits, type ZormqrProblem, type ZqrProblem,
} from './plan.js';
export { complexGeqrfCuda, complexOrgqrCuda, complexOrmqrCuda, zormqrCovers, zqrCovers, type ZormqrOptions, type ZqrOptions } from './launch.js';
export {
  ZGELS_CHECK_THREADS, ZGELS_FINISH_THREADS, ZGELS_MOVE_THREADS, zconjTransposeSource, zgelsCheckSource, zgelsFinishSource,
  type ZconjTransposeParams, type ZgelsCheckParams, type ZgelsFinishParams,
} from './generate-gels.js';
export { complexGelsCuda, zgelsCovers } from './launch-gels.js';

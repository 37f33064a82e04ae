/** Batched complex Householder QR (zgeqrf, zungqr, zunmqr; and zgels composed of them) on the GPU: the family's public face. */
export type { ZlasetParams, ZormqrForce, ZormqrParams, ZormqrPlan, ZqrBlockedPlan, ZqrDesign, ZqrForce, ZqrPlan, ZqrScope, ZqrShape, ZqrSharedParams, ZwyParams } from './params.js';
export { zgeqrfSharedSource, zorgqrSharedSource, zqrSharedBytes, zqrSharedName, zsharedLd } from './generate-shared.js';
export { ZORMQR_MAX_THREADS, zforwardOrder, zormqrName, zormqrSlotPairs, zormqrSource, zpackedPairs } from './generate-ormqr.js';
export { ZWY_NB_MAX, ZWY_THREADS, zlasetName, zlasetSource, zwyName, zwySource } from './generate-wy.js';
export {
  ZORMQR_BLOCKED_FROM, ZPANEL_MIN, ZQR_BLOCKED_FROM, ZQR_PANEL, ZQR_TAIL_MAX, ZWARP_MAX, planZormqr, planZqr, planZqrBlocked, planZqrDesign,
  zormqrBlocked, zqrBlockedFits, zqrFits, type ZormqrProblem, type ZqrProblem,
} from './plan.js';
export { complexGeqrfCuda, complexOrgqrCuda, complexOrmqrCuda, zormqrCovers, zqrCovers, type ZormqrOptions, type ZqrOptions } from './launch.js';
export {
  ZGELS_CHECK_THREADS, ZGELS_FINISH_THREADS, ZGELS_MOVE_THREADS, ZGELS_SINGULAR, ZGELS_SOLVE, ZGELS_ZERO, zconjTransposeSource, zgelsCheckSource, zgelsFinishSource,
  type ZconjTransposeParams, type ZgelsCheckParams, type ZgelsFinishParams,
} from './generate-gels.js';
export { complexGelsCuda, zgelsCovers } from './launch-gels.js';

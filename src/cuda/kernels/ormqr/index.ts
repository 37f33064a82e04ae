/** Batched ormqr on the GPU: the family's public face. */
export type { OrmqrForce, OrmqrParams, OrmqrPlan, OrmqrShape } from './params.js';
export { ORMQR_MAX_THREADS, forwardOrder, ormqrBlockSource, ormqrSlotElements, packedElements } from './generate-block.js';
export {
  ORMQR_COVER_SHARED, ORMQR_THREADS_MAX, ORMQR_THREADS_MIN, blockMatrices, ormqrFits, planOrmqr, type OrmqrProblem,
} from './plan.js';
export { ormqrBlocked, ormqrCovers, ormqrCuda, type OrmqrOptions } from './launch.js';

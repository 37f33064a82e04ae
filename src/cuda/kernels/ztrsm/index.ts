/**
 * Complex triangular solve on the GPU for triangles of order <= 32 (ztrsm, ctrsm; every side,
 * uplo, transA and diag, complex alpha): the design's public face.
 */
export type { ZtrsmSmallParams } from './params.js';
export { ztrsmEntry, ztrsmLayout, ztrsmSmallSource, ztrsmView, type ZtrsmView } from './generate-small.js';
export { planZtrsm, trsmShape, ZTRSM_MAX_N, ZTRSM_RHS_MAX, ztrsmCovers, ztrsmGridY, ztrsmServes, type ZtrsmProblem } from './plan.js';
export { complexTrsmCuda } from './launch.js';

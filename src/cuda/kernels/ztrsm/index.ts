/**
 * Complex triangular solve on the GPU (ztrsm, ctrsm; every side, uplo, transA and diag, complex
 * alpha): the warp design for triangles of order <= 32, the recursion over it and the complex GEMM
 * beyond. The family's public face.
 */
export type { ZtrsmSmallParams } from './params.js';
export { ztrsmSmallSource } from './generate-small.js';
export {
  planZtrsm, ZTRSM_MAX_N, ZTRSM_RHS_MAX, ztrsmServes, ztrsmSteps,
  type BlockTrsmRequest, type ZtrsmProblem,
} from './plan.js';
export { complexTrsmCuda } from './launch.js';

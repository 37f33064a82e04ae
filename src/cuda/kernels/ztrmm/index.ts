/**
 * Complex triangular multiply on the GPU (ztrmm, ctrmm; every side, uplo, transA and diag, complex
 * alpha): the warp design for triangles of order <= 32, the recursion over it and the complex GEMM
 * beyond, in place on B. The family's public face.
 */
export type { ZtrmmSmallParams } from './params.js';
export { ztrmmSmallSource } from './generate-small.js';
export {
  planZtrmm, ZTRMM_MAX_N, ZTRMM_RHS_MAX, ztrmmSteps,
  type BlockTrmmRequest, type ZtrmmProblem,
} from './plan.js';
export { complexTrmmCuda } from './launch.js';

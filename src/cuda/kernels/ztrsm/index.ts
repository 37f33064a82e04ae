/**
 * Complex triangular solve on the GPU (ztrsm, ctrsm; every side, uplo, transA and diag, complex
 * alpha): the columns and warp designs for triangles of order <= 32, the recursion over it and the complex GEMM
 * beyond. The family's public face.
 */
export type { ZtrsmColumnsParams, ZtrsmSmallParams } from './params.js';
export { ztrsmSmallSource } from './generate-small.js';
export { columnsLayout, columnsSlot, ztrsmColumnsSource } from './generate-columns.js';
export {
  COLUMNS_MIN_VECTORS, columnsMatricesMax, columnsServe, planZtrsm, planZtrsmColumns, ZTRSM_COLUMNS_FROM, ZTRSM_MAX_N, ZTRSM_RHS_MAX,
  ztrsmLeafDesign, ztrsmServes, ztrsmSteps, type BlockTrsmRequest, type ZtrsmForce, type ZtrsmProblem,
} from './plan.js';
export { complexTrsmCuda, type ZtrsmOptions } from './launch.js';

/**
 * Complex Cholesky on the GPU (zpotrf, zpotrs, zposv and the complex64 forms): the warp design for
 * n <= 32, the recursion over it with the complex trsm and herk beyond. The family's public face.
 */
export type { ZpotrfSmallParams, ZsolveSmallParams } from './params.js';
export { keptStride, zposvSmallSource, zpotrfSmallSource, zpotrsSmallSource, zsmallLayout } from './generate-small.js';
export {
  planZpotrf, planZsolve, zcholeskyServes, ZCHOLESKY_MAX_N, ZRHS_MAX, zpotrfSteps, zpotrsSteps, type ZpotrfProblem, type ZpotrfStep, type ZsolveProblem,
} from './plan.js';
export { complexPosvCuda, complexPosvSolve, complexPotrfCuda, complexPotrsCuda } from './launch.js';

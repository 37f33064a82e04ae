/**
 * Complex Cholesky on the GPU (zpotrf, zpotrs, zposv and the complex64 forms, n <= 32): the
 * family's public face.
 */
export type { ZpotrfSmallParams, ZsolveSmallParams } from './params.js';
export { keptStride, zposvSmallSource, zpotrfSmallSource, zpotrsSmallSource, zsmallLayout } from './generate-small.js';
export { planZpotrf, planZsolve, zcholeskyServes, ZCHOLESKY_MAX_N, ZRHS_MAX, type ZpotrfProblem, type ZsolveProblem } from './plan.js';
export { complexPosvCuda, complexPotrfCuda, complexPotrsCuda, zcholeskyCovers } from './launch.js';

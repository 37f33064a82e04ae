/** Tall-and-skinny QR (CholeskyQR2, shifted CholeskyQR3 fallback): the family's public face. */
export type { TsqrCholParams, TsqrForce, TsqrPlan, TsqrProblem, TsqrReduceParams, TsqrRowsParams, TsqrTuning } from './params.js';
export { TSQR_MAX_N } from './params.js';
export { checkRowsParams, generateRows, groupThreads, paddedColumns, rowsName, rowsSharedBytes } from './generate-rows.js';
export { cholName, cholSharedBytes, generateChol } from './generate-chol.js';
export { generateReduce, reduceName, reduceSharedBytes, REDUCE_SLICES } from './generate-reduce.js';
export { gramChain, planTsqr, routesToTsqr, shiftScale, tsqrBytes, unitRoundoff } from './plan.js';
export { ROUTE_CHOLQR2, ROUTE_SHIFTED, tsqrCuda, type TsqrOptions, type TsqrReport, type TsqrRequest } from './launch.js';

/**
 * Complex Hermitian rank-k update on the GPU for C of order <= 32 (zherk, cherk; lower and upper,
 * 'N' and 'C', real alpha and beta): the design's public face.
 */
export type { ZherkSmallParams } from './params.js';
export { columnsPerThread, zherkEntry, zherkSmallSource } from './generate-small.js';
export { planZherk, ZHERK_MAX_N, zherkCovers, zherkServes, type ZherkProblem } from './plan.js';
export { complexHerkCuda } from './launch.js';

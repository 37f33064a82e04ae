/**
 * Complex Hermitian rank-k update on the GPU (zherk, cherk; lower and upper, 'N' and 'C', real
 * alpha and beta): the kernel for C of order <= 32, the recursion over it and the complex GEMM
 * beyond. The family's public face.
 */
export type { ZherkSmallParams } from './params.js';
export { columnsPerThread, zherkEntry, zherkSmallSource } from './generate-small.js';
export { planZherk, ZHERK_MAX_N, zherkCovers, zherkServes, zherkSteps, type BlockHerkRequest, type ZherkProblem, type ZherkStep } from './plan.js';
export { complexHerkCuda } from './launch.js';

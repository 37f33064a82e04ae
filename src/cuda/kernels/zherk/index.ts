/**
 * Complex rank-k updates on the GPU: the Hermitian one (zherk, cherk; lower and upper, 'N' and 'C',
 * real alpha and beta) and the complex symmetric one (zsyrk, csyrk; 'N' and 'T', complex alpha and
 * beta, nothing conjugated): the kernel for C of order <= 32, the recursion over it and the complex
 * GEMM beyond. The family's public face.
 */
export type { ZherkSmallParams } from './params.js';
export { columnsPerThread, zherkSmallSource } from './generate-small.js';
export {
  planZherk, ZHERK_MAX_N, zherkSteps, zsyrkSteps, type BlockHerkRequest, type BlockSyrkRequest, type ZherkProblem, type ZherkStep, type ZsyrkStep,
} from './plan.js';
export { complexHerkCuda, complexSyrkCuda } from './launch.js';

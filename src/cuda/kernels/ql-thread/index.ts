/** Batched syev for n <= 8 by Householder tridiagonalization and implicit QL, one thread per matrix: the family's public face. */
export type { QlThreadForce, QlThreadParams } from './params.js';
export { QL_THREAD_BLOCK, QL_THREAD_COMPUTE, qlThreadEntry, qlThreadSharedBytes, qlThreadSource } from './generate.js';
export { QL_THREAD_LIMIT, QL_THREAD_MAXIT, planQlThread, qlThreadServes, type QlThreadProblem } from './plan.js';
export { syevQlThreadCuda, type QlThreadOptions } from './launch.js';

/** Batched syev by Householder tridiagonalization and implicit QL/QR on the GPU: the family's public face. */
export type { SyevTridiagParams, TridiagForce } from './params.js';
export { TRIDIAG_COMPUTE, syevTridiagSource, tridiagEntry, tridiagLayout, type TridiagLayout } from './generate-syev.js';
export { TRIDIAG_MAX, TRIDIAG_MAXIT, planSyevTridiag, tridiagServes, tridiagThreads, type TridiagProblem } from './plan.js';
export { syevTridiagCuda, syevTridiagGroup, type SyevGroup, type TridiagOptions } from './launch.js';

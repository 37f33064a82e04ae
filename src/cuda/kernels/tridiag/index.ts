/** Batched syev by Householder tridiagonalization and implicit QL/QR on the GPU: the family's public face. */
export type { SyevSplitPlan, SyevTridiagParams, TridiagApplyParams, TridiagForce } from './params.js';
export { applyEntry, applySharedBytes, tridiagApplySource } from './generate-apply.js';
export { splitSlice, type SliceLayout } from './snippets.js';
export { TRIDIAG_COMPUTE, syevTridiagSource, tridiagEntry, tridiagLayout, type TridiagLayout } from './generate-syev.js';
export { TRIDIAG_MAX, TRIDIAG_MAXIT, planSyevSplit, planSyevTridiag, tridiagServes, tridiagSplits, tridiagThreads, type TridiagProblem } from './plan.js';
export { syevTridiagCuda, syevTridiagGroup, type SyevGroup, type TridiagOptions } from './launch.js';

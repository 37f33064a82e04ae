/** Batched syev by Householder tridiagonalization on the GPU (eigenvectors by inverse iteration, or where forced implicit QL/QR): the family's public face. */
export type { SteinKernels, SyevSplitPlan, SyevSteinPlan, SyevTridiagParams, TridiagApplyParams, TridiagForce, TridiagPanelParams, TridiagSteinParams } from './params.js';
export { clusterPanel, STEIN_SKIPPED, steinEntry, steinParts, tridiagSteinSource } from './generate-stein.js';
export { panelEntry, tridiagPanelSource } from './generate-panel.js';
export { applyEntry, applySharedBytes, tridiagApplySource } from './generate-apply.js';
export { STEIN_NB, splitSlice, steinSlice, type SliceLayout, type SteinLayout } from './snippets.js';
export { TRIDIAG_COMPUTE, syevTridiagSource, tridiagEntry, tridiagLayout, type TridiagLayout } from './generate-syev.js';
export { TRIDIAG_MAX, TRIDIAG_MAXIT, planSteinKernels, planSyevSplit, planSyevStein, planSyevTridiag, STEIN_MAXITS, STEIN_THREADS, tridiagServes, tridiagSplits, tridiagSteins, tridiagThreads, type TridiagProblem } from './plan.js';
export { steinOnSlices, syevTridiagCuda, syevTridiagGroup, type SyevGroup, type TridiagOptions } from './launch.js';

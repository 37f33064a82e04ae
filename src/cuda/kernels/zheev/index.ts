/** Complex heev above order 32 on the GPU (complex128, complex64): reduction to a real tridiagonal, the tridiag family's inverse iteration, V = Q Z. The family's public face. */
export type { ZheevForce, ZheevReduceParams, ZheevStoreParams, ZheevTridiagPlan } from './params.js';
export { zheevReduceSource } from './generate-reduce.js';
export { storeParts, zheevStoreSource } from './generate-store.js';
export { complexSlice, ZHEEV_COMPUTE, ZHEEV_RANGE } from './snippets.js';
export { planZheevTridiag, zheevTridiagServes, ZHEEV_TRIDIAG_FROM, ZHEEV_TRIDIAG_MAX, ZHEEV_STORE_THREADS, type ZheevTridiagProblem } from './plan.js';
export { complexHeevTridiagCuda, heevTridiagCovers } from './launch.js';

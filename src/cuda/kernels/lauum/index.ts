/**
 * Batched lauum (the triangle of U U^T or L^T L) on the GPU: the family's public face. A
 * shared-memory or register leaf for triangles up to the table's leafMax, and above it the paper's recursion
 * planned on the host into leaves, SYRKs (the syrk family) and TRMMs (the trsm family).
 */
export type { LauumForce, LauumLeafParams, LauumLeafShape, LauumPlan, LauumRegisterLeafParams, LauumStep } from './params.js';
export { lauumLeafSource, LAUUM_LEAF_MAX_THREADS } from './generate-leaf.js';
export { lauumRegisterLeafSource, lauumRegisterLeafError, lauumRegisterThreads, LAUUM_REGISTER_TILE_MAX } from './generate-register-leaf.js';
export { planLauum, lauumSteps, lauumLeafShape, lauumRegisterChoice, lauumRegisterShape, type LauumProblem } from './plan.js';
export { syrkStep, trmmStep } from './blocks.js';
export { lauumCuda, lauumTriangles, type LauumOptions } from './launch.js';

/**
 * Batched least squares and minimum norm (gels) on the GPU: the family's public face. A composition
 * of the qr (geqrf), ormqr and trsm families with two small kernels of its own (generate-steps.ts).
 */
export type { GelsCheckParams, GelsFinishParams, GelsPlan } from './params.js';
export { CHECK_THREADS, FINISH_THREADS, GELS_SINGULAR, GELS_SOLVE, GELS_ZERO, gelsCheckSource, gelsFinishSource } from './generate-steps.js';
export { planGels, type GelsProblem } from './plan.js';
export { gelsCovers, gelsCuda } from './launch.js';

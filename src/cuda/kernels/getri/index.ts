/**
 * Batched inverse from LU factors (getri) on the GPU: the family's public face. A composition of the
 * trtri and trsm families with two small kernels of its own (generate-steps.ts).
 */
export type { GetriForce, GetriShape, GetriStepParams } from './params.js';
export { GETRI_MATRICES_MAX, GETRI_THREADS, getriFinishSharedBytes, getriFinishSource, getriPrepareSource } from './generate-steps.js';
export { GETRI_MIN_COLUMNS, GETRI_WORKSPACE_BYTES, getriChunks, getriFits, planGetriShape } from './plan.js';
export { getriCovers, getriCuda, type GetriOptions } from './launch.js';

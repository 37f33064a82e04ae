/**
 * Batched SPD inverse on the GPU (poti = potrf + trtri + lauum, and potri = trtri + lauum): the
 * family's public face. A fused kernel for small n (the paper's POTI), the composition above.
 */
export type { PotiForce, PotiFusedParams, PotiPlan, PotiStage } from './params.js';
export { potiFusedSource, potiFusedName, FUSED_MAX_THREADS } from './generate-fused.js';
export { planPoti, type PotiProblem } from './plan.js';
export { potiCuda, potriCuda, type PotiOptions } from './launch.js';

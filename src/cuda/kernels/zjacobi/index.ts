/** Complex Jacobi on the GPU (heev on complex128 and complex64 data, n <= 32): the family's public face. */
export type { HeevWarpParams, ZjacobiForce } from './params.js';
export { heevWarpEntry, heevWarpSharedBytes, heevWarpSource } from './generate-heev.js';
export { heevLanes, planHeev, zheevServes, ZHEEV_MAX, type HeevProblem } from './plan.js';
export { complexHeevCuda, heevCovers } from './launch.js';

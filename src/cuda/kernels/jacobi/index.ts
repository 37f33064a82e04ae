/** Batched Jacobi (syev, gesvd) on the GPU: the family's public face. */
export type { GesvdWarpParams, JacobiForce, SyevWarpParams, WarpShape } from './params.js';
export { gesvdWarpSharedBytes, gesvdWarpSource, syevWarpSharedBytes, syevWarpSource } from './generate-warp.js';
export { WARP_MAX, planGesvd, planSyev, type GesvdProblem, type SyevProblem } from './plan.js';
export { gesvdCuda, jacobiCovers, syevCuda, type JacobiOptions } from './launch.js';

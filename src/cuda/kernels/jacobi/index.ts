/** Batched Jacobi (syev, gesvd) on the GPU: the family's public face. */
export type { GesvdWarpParams, JacobiForce, SyevThreadParams, SyevWarpParams, WarpShape } from './params.js';
export { gesvdWarpSharedBytes, gesvdWarpSource, syevWarpSharedBytes, syevWarpSource } from './generate-warp.js';
export { syevThreadSource, THREAD_BLOCK } from './generate-thread.js';
export { THREAD_MAX, WARP_MAX, planGesvd, planSyev, selectSyev, type GesvdProblem, type SyevProblem } from './plan.js';
export { gesvdCuda, jacobiCovers, syevCuda, type JacobiOptions } from './launch.js';

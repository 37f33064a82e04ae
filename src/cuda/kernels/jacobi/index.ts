/** Batched Jacobi (syev, gesvd) on the GPU: the family's public face. */
export type { BlockShape, GesvdBlockParams, GesvdRowsParams, GesvdWarpParams, JacobiForce, RowsAngle, SyevBlockParams, SyevRowsParams, SyevThreadParams, SyevWarpParams, WarpShape } from './params.js';
export { BLOCK_COMPUTE, gesvdBlockLayout, gesvdBlockSource, gesvdGroup, syevBlockLayout, syevBlockSource, type BlockLayout } from './generate-block.js';
export { gesvdWarpSharedBytes, gesvdWarpSource, syevWarpSharedBytes, syevWarpSource } from './generate-warp.js';
export { syevThreadSharedBytes, syevThreadSource, THREAD_BLOCK } from './generate-thread.js';
export { ROWS_WARPS, rowsShape, syevRowsSource } from './generate-rows.js';
export { GESVD_ROWS_WARPS, gesvdRowsShape, gesvdRowsSource } from './generate-gesvd-rows.js';
export {
  BLOCK_MAX, GESVD_ROWS_FROM, GESVD_SMALL_DESIGN, THREAD_LIMIT, THREAD_MAX, WARP_MAX, blockThreads, planGesvd, planGesvdBlock, planSyev, planSyevBlock, planSyevThread, selectGesvd, selectSyev,
  type GesvdProblem, type SyevProblem,
} from './plan.js';
export { gesvdCuda, jacobiCovers, syevCuda, type JacobiOptions } from './launch.js';

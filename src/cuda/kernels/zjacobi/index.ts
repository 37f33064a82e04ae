/** Complex Jacobi on the GPU (heev, n <= 32; gesvd, max(m, n) <= 32; complex128 and complex64): the family's public face. */
export type { GesvdWarpParams, HeevRowsParams, HeevWarpParams, ZjacobiForce } from './params.js';
export { heevRowsShape, heevRowsSharedBytes, heevRowsSource } from './generate-heev-rows.js';
export { heevWarpSharedBytes, heevWarpSource } from './generate-heev.js';
export { gesvdWarpSharedBytes, gesvdWarpSource } from './generate-gesvd.js';
export { HEEV_ROWS_V_REGISTERS_MAX, HEEV_SMALL_DESIGN, heevSmallDesign, planGesvd, planHeev, planHeevRows, selectHeev, zgesvdServes, zheevServes, ZGESVD_MAX, ZHEEV_MAX, type GesvdProblem, type HeevProblem } from './plan.js';
export { complexGesvdCuda, complexHeevCuda, heevCovers, zgesvdCovers } from './launch.js';

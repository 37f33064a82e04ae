/**
 * Batched triangular inverse (trtri) on the GPU: the family's public face. A register leaf for
 * triangles up to the table's leafMax; above it the paper's recursion, every leaf in one launch and
 * the off-diagonal blocks by trmm (the trsm family's launcher).
 */
export type { TrtriForce, TrtriLeafParams, TrtriPlan, TrtriScanParams, TrtriSpan, TrtriStep } from './params.js';
export { trtriLeafSource, trtriLeafName, inverseColumnSource, tileKernelHead, INVERT_IN_TILE, leafTileBytes, LEAF_MAX_THREADS, LEAF_SIZES } from './generate-leaf.js';
export { trtriScanSource, SCAN_THREADS } from './generate-scan.js';
export { planTrtri, leafSize, trtriSteps, type TrtriProblem } from './plan.js';
export { trtriCuda, trtriUnchecked, trtriGroup, trtriGroups, survivors, hostInfo, type TrtriGroup, type TrtriOptions } from './launch.js';

/**
 * Batched triangular inverse (trtri) on the GPU: the family's public face. A register leaf for
 * triangles up to the table's leafMax; above it the paper's recursion, every leaf in one launch and
 * the off-diagonal blocks by trmm (the trsm family's launcher). Variable-size batches by size class
 * of the order: a class leaf, and above one leaf the recursion's off-diagonal blocks by trsm's
 * variable-size solves.
 */
export type { TrtriForce, TrtriLeafParams, TrtriPlan, TrtriScanParams, TrtriSpan, TrtriStep, TrtriVbatchedLeafParams, TrtriVbatchedScanParams } from './params.js';
export { trtriLeafSource, trtriLeafName, inverseColumnSource, tileKernelHead, INVERT_IN_TILE, leafTileBytes, LEAF_MAX_THREADS, LEAF_SIZES } from './generate-leaf.js';
export { trtriScanSource, SCAN_THREADS } from './generate-scan.js';
export { planTrtri, leafSize, leafLaunchShape, trtriSteps, trtriStepsByDepth, type TrtriProblem } from './plan.js';
export { trtriVbatchedLeafSource, trtriVbatchedLeafName, trtriVbatchedScanSource, TRTRI_VBATCH_INTS, TRTRI_VBATCH_POINTERS, VSCAN_THREADS } from './generate-vbatched.js';
export { planVbatchedTrtri, memberOffDiagonal, type MemberBlock, type VbatchedTrtriClass, type VbatchedTrtriPlan, type VbatchedTrtriProblem } from './plan-vbatched.js';
export { trtriVbatchedCuda, trtriVbatchedCovers, trtriMemberTables, vbatchedTrtriLaunch, type TrtriVbatchedOptions } from './launch-vbatched.js';
export { trtriCuda, trtriUnchecked, trtriGroup, trtriGroups, survivors, hostInfo, type TrtriGroup, type TrtriOptions } from './launch.js';
export { generateTrtriClassify, generateTrtriSolveRows, type TrtriClassifyParams, type TrtriSolveRowsParams } from './generate-vdevice.js';
export { trtriDeviceVariableCuda, trtriDeviceClasses, type TrtriDeviceClass, type TrtriDeviceOptions } from './launch-vdevice.js';

/**
 * Batched symmetric rank-k update (syrk) on the GPU: the family's public face. For small n, where
 * the tuning table says, one launch of the tile design over C's triangle. A leaf kernel for
 * diagonal blocks up to the table's leafMax, and above it the paper's recursion planned on the
 * host into leaves and off-diagonal GEMMs (the gemm family's launcher). Variable batches of several
 * shapes by size class (plan-, generate-, launch-vbatched.ts): the leaf in a class frame, the
 * off-diagonal blocks of every class in one variable-size GEMM.
 */
export type { Span, SyrkForce, SyrkLeafParams, SyrkLeafShape, SyrkPlan, SyrkStep, SyrkTilesLaunch, SyrkTilesParams, SyrkTilesShape, SyrkVariant } from './params.js';
export { syrkTilesSource, syrkTilesShapeError, syrkTilesThreads, SYRK_TILES_MAX_THREADS } from './generate-tiles.js';
export { syrkLeafSource, syrkVariantTag, SYRK_LEAF_MAX_THREADS } from './generate-leaf.js';
export { planSyrk, syrkSteps, leafTile, syrkLeafShape, syrkTilesLaunch, syrkTilesShapeFor, syrkTilesTake, SYRK_TILE_MAX, type SyrkProblem } from './plan.js';
export { offdiagRequest, leafOffsets } from './blocks.js';
export { syrkCuda, type SyrkOptions } from './launch.js';
export type { SyrkVbatchedLeafParams } from './params.js';
export { syrkVbatchedLeafSource, SYRK_VBATCH_INTS, SYRK_VBATCH_POINTERS } from './generate-vbatched.js';
export {
  planVbatchedSyrk, memberOffdiagOf, offdiagSpansOf, offdiagTransposes, opBlock, cutSpan,
  type BlockCut, type VbatchedSyrkForce, type VbatchedSyrkLaunch, type VbatchedSyrkPlan, type VbatchedSyrkProblem,
} from './plan-vbatched.js';
export { syrkVbatchedCuda, syrkVbatchedCovers, syrkMemberTables, vbatchedSyrkLaunch, type SyrkVbatchedOptions } from './launch-vbatched.js';
export { generateSyrkClassify, generateSyrkOffdiagRows, type SyrkClassifyParams, type SyrkOffdiagRowsParams } from './generate-vdevice.js';
export { syrkDeviceVariableCuda, syrkDeviceBounds, syrkDeviceClasses, type SyrkDeviceClass, type SyrkDeviceOptions } from './launch-vdevice.js';

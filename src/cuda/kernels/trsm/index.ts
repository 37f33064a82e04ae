/**
 * Batched triangular solve (trsm) and multiply (trmm) on the GPU: the family's public face. A shared-memory leaf for
 * triangles up to the table's leafMax, and above it the paper's recursion planned on the host into
 * leaves and GEMM updates (the gemm family's launcher); variable-size batches by size class of the
 * triangle (the same recursion over the class bound, a class leaf, variable-size GEMM updates).
 */
export type { TriangularOp, Span, TrsmChainParams, TrsmCopyParams, TrsmDiagonalParams, TrsmInverted, TrsmForce, TrsmLeafParams, TrsmLeafShape, TrmmLeaf, TrmmPipelinedParams, TrmmProductLeafParams, TrmmRegisterLeafParams, TrmmRegisterLeafShape, TrsmPlan, TrsmStep, TrsmVariant, TrsmZeroParams } from './params.js';
export { trsmLeafSource, leafMapping, variantTag, LEAF_MAX_THREADS } from './generate-leaf.js';
export { trmmRegisterLeafSource, registerLeafOrder, registerLeafWarpElements, REGISTER_LEAF_MAX, REGISTER_LEAF_LANES } from './generate-register-leaf.js';
export { trmmProductLeafSource, productLeafOrder, productLeafShape, PRODUCT_LEAF_MAX, PRODUCT_LEAF_VECTORS, type ProductLeafShape } from './generate-product-leaf.js';
export { trmmPipelinedSource, pipelinedOrder, pipelinedSharedBytes, pipelinedTile, type PipelinedTile, PIPELINED_MAX, PIPELINED_STAGES_MAX, PIPELINED_THREADS, PIPELINED_VECTORS } from './generate-pipelined.js';
export { trsmZeroSource } from './generate-zero.js';
export { trsmChainSource, trsmChainSharedBytes, chainSyncInts, CHAIN_NB, CHAIN_THREADS, CHAIN_RHS_MAX } from './generate-chain.js';
export { trsmDiagonalSource, trsmCopySource, BLOCKS_THREADS } from './generate-blocks.js';
export { planTrsm, opLower, trmmProductTakes, defaultTrmmLeaf, trmmLeafFor, PIPELINED_LEAF_MAX, PIPELINED_STAGES, chainRhs, invertsBlocks, invertedElements, recursionSteps, leafChunk, leafShape, registerLeafShape, solvesForward, type TrsmProblem } from './plan.js';
export { updateRequest, invertedLeaf, leafOffsets } from './blocks.js';
export { trmmCuda, type TrsmOptions } from './launch.js';
export { trsmCuda } from './launch-trsm.js';
export type { TrsmVbatchedLeafParams } from './params.js';
export { trsmVbatchedLeafSource, TRSM_VBATCH_INTS, TRSM_VBATCH_POINTERS } from './generate-vbatched.js';
export { planVbatchedTrsm, classifyTrsm, type TrsmClassing, cutSpan, memberUpdate, viewBlock, type VbatchedTrsmLaunch, type VbatchedTrsmPlan, type VbatchedTrsmProblem } from './plan-vbatched.js';
export { trsmVbatchedCuda, trsmVbatchedMembers, trsmVbatchedSolve, trsmMemberTables, type TrsmVbatchedMembers, trsmVbatchedCovers, vbatchedTrsmLaunch, type TrsmVbatchedOptions } from './launch-vbatched.js';
export { trsmDeviceClassify, trsmDeviceSolve, trsmDeviceVariableCuda, type TrsmDeviceMembers, type TrsmDeviceOptions } from './launch-vdevice.js';
export { generateTrsmClassify, generateTrsmUpdateRows, generateTrsmZeroDevice, type TrsmClassifyParams, type TrsmUpdateRowsParams, type TrsmZeroDeviceParams } from './generate-vdevice.js';

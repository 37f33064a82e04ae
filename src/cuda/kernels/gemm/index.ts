/** Batched GEMM on the GPU: generators, planner, launcher. */
export type { GemmParams, SmallGemmParams, TiledGemmParams, MmaGemmParams, TmaGemmParams, GemmVariant, GemmOperandLayouts, OperandLayout, TriangularOperand } from './params.js';
export { generateSmallGemm, smallGemmShape, smallGemmWork } from './generate-small.js';
export { generateTiledGemm, tiledGemmShape } from './generate-tiled.js';
export { generateMmaGemm, mmaGemmShape, MMA_DTYPE } from './generate-mma.js';
export { generateTmaGemm, tmaGemmShape, tmaOperandFits, tmaOperandMap, TMA_BK, type TmaOperandLayout, type TmaOperandMap } from './generate-tma.js';
export { planGemm, tmaTakes, tmaUsable, defaultLayouts, type GemmProblem, type GemmShape, type PlanOptions } from './plan.js';
export { complexGemmCuda, gemmCuda, gemmSource, type GemmCudaOptions } from './launch.js';
export type { VbatchedGemmParams, VmmaGemmParams, VsmallGemmParams, VstagedGemmParams, VtiledGemmParams } from './params.js';
export { generateVstagedGemm, vstagedGemmShape, vstagedProblem, vstagedSharedBytes, vstagedTeam } from './generate-vstaged.js';
export { classTiles, generateVmmaGemm, generateVsmallGemm, generateVtiledGemm, vsmallGemmShape, vtiledGemmShape, GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS } from './generate-vbatched.js';
export { planVbatchedGemm, gemmMemberSize, effectiveK, type VbatchedGemmPlan, type VbatchedGemmLaunch, type VbatchedGemmProblem } from './plan-vbatched.js';
export { gemmVbatchedCuda, gemmVbatchedCovers, gemmVbatchedFields, vbatchedGemmLaunch, vbatchedGemmSource, type GemmVbatchedOptions, type VbatchedGemmScalars } from './launch-vbatched.js';
export { gemmDeviceVariableCuda, gemmDeviceMaxSize, launchGemmRegions, type GemmDeviceOptions } from './launch-vdevice.js';
export { generateGemmClassify, type GemmClassifyParams } from './generate-vdevice.js';
export { gemmClassParams, VBATCHED_SMALL_MAX } from './plan-vbatched.js';

/** Batched GEMM on the GPU: generators, planner, launcher. */
export type { GemmParams, SmallGemmParams, TiledGemmParams, MmaGemmParams, GemmVariant, GemmOperandLayouts, OperandLayout } from './params.js';
export { generateSmallGemm, smallGemmShape } from './generate-small.js';
export { generateTiledGemm, tiledGemmShape } from './generate-tiled.js';
export { generateMmaGemm, mmaGemmShape, MMA_DTYPE } from './generate-mma.js';
export { planGemm, defaultLayouts, type GemmProblem, type GemmShape, type PlanOptions } from './plan.js';
export { gemmCuda, gemmSource, type GemmCudaOptions } from './launch.js';

/** Batched solves on the GPU (potrs, posv, getrs, gesv): the family's public face. */
export type { FusedSolveParams, PosvSmallParams, FusedVbatchedParams, PosvVbatchedParams, SmallSolveParams, SolveVariant, SubstituteParams } from './params.js';
export { planFusedSolve, planPosvSolve, planSmallSolve, planSubstitute, type SolveProblem } from './plan.js';
export { gesvSmallSource, posvSmallSource, smallSolveSource } from './generate-small.js';
export { substituteSource } from './generate-substitute.js';
export { gesvCuda, getrsCuda, posvCuda, potrsCuda } from './launch.js';
export { copyVbatchedSource, COPY_VBATCH_INTS, COPY_VBATCH_POINTERS } from './generate-copy-vbatched.js';
export { fusedTables, keptMembers, posvVbatchedCovers, posvVbatchedCuda, potrsVbatchedCuda, solveVbatchedCovers, vbatchedCopyLaunch, vbatchedFusedLaunch, type KeptMembers } from './launch-vbatched.js';
export { FUSED_VBATCH_INTS, FUSED_VBATCH_POINTERS, gesvSmallVbatchedSource, posvSmallVbatchedSource } from './generate-vsmall.js';
export { planVbatchedFused, type VbatchedFusedLaunch, type VbatchedFusedPlan, type VbatchedFusedProblem } from './plan-vbatched.js';
export { permuteVbatchedCap, permuteVbatchedSharedBytes, permuteVbatchedSource, PERMUTE_VBATCH_CHUNKS, PERMUTE_VBATCH_THREADS, type PermuteVbatchedParams } from './generate-permute-vbatched.js';
export { gesvVbatchedCuda, getrsVbatchedCuda, permuteConfig, permuteKernel, permuteLaunches, type PermuteLaunch } from './launch-vbatched-lu.js';
export { posvDeviceVariableCuda, potrsDeviceVariableCuda, type SolveDeviceOptions } from './launch-vdevice.js';
export { generateSolveCheck } from './generate-vdevice.js';
export { gesvDeviceVariableCuda, getrsDeviceVariableCuda, luOrderMax } from './launch-vdevice-lu.js';
export { generateLuSolveCheck, type LuSolveCheckParams } from './generate-vdevice-lu.js';

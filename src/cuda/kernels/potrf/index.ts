/**
 * Batched Cholesky on the GPU: the family's public face. Other families (the solves) use it only
 * through this file: the launcher of one group, and the in-register Cholesky building blocks
 * that the fused posv kernel borders with its right-hand sides.
 */
export type { PotrfForce, PotrfPanelParams, PotrfPlan, PotrfRegisterParams, PotrfSmallParams, PotrfVariant } from './params.js';
export { potrfSmallSource, choleskyRowsSource, loadFactorRows, storeFactorRows } from './generate-small.js';
export { potrfRegisterSource } from './generate-register.js';
export { potrfPanelSource } from './generate-panel.js';
export { planPotrf, selectPotrf, potrfBlocked, potrfBlockedSteps, potrfRecursionSteps, potrfRecursive, RECURSIVE_LEAF, type PotrfProblem, type PotrfRecursionStep } from './plan.js';
export { infoCombineSource } from '../common/info-combine.js';
export { potrfCuda, potrfGroup, potrfLargePath, type PotrfOptions } from './launch.js';
export { loadMemberRows, potrfSmallVbatchedSource, POTRF_VBATCH_INTS } from './generate-vbatched.js';
export { potrfRegisterVbatchedSource } from './generate-register.js';
export { potrfPanelVbatchedSource } from './generate-panel.js';
export { planVbatchedPotrf, potrfClassParams, type VbatchedPotrfPlan, type VbatchedPotrfLaunch, type VbatchedPotrfProblem } from './plan-vbatched.js';
export { potrfVbatchedCuda, potrfVbatchedFields, potrfVbatchedCovers, vbatchedPotrfLaunch, vbatchedPotrfSource, type PotrfVbatchedOptions } from './launch-vbatched.js';
export { launchPotrfRegions, potrfDeviceDesigns, potrfDeviceVariableCuda, type PotrfDeviceOptions } from './launch-vdevice.js';
export { generatePotrfClassify } from './generate-vdevice.js';

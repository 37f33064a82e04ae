/**
 * Batched LU with partial pivoting on the GPU: the family's public face. Other families (the
 * solves) use it only through this file: the launcher of one group, and the in-register LU
 * building blocks that the fused gesv kernel borders with its right-hand sides.
 */
export type { GetrfForce, GetrfSpreadParams, GetrfLaswpParams, GetrfSwapsParams, GetrfWideParams, GetrfPanelParams, GetrfTallParams, GetrfPlan, GetrfRegisterParams, GetrfSmallParams, GetrfVariant } from './params.js';
export { getrfSmallSource, getrfSmallLayout, luPrelude } from './generate-small.js';
export { getrfRegisterSource } from './generate-register.js';
export { getrfPanelSource, getrfUpdateSource } from './generate-panel.js';
export { getrfTallSource } from './generate-tall.js';
export { getrfWideSource, WIDE_MAX, wideSharedBytes, wideSubBlock } from './generate-wide.js';
export { getrfSpreadSource, SPREAD_THREADS, SPREAD_WIDTH, spreadSharedBytes, spreadSlotReals, spreadSyncInts } from './generate-spread.js';
export { getrfLaswpSource } from './generate-laswp.js';
export { getrfSwapsSource, SWAPS_MAX_PIVOTS, SWAPS_THREADS, SWAPS_TILE } from './generate-swaps.js';
export { planGetrf, selectGetrf, registerShapeFor, getrfRecursive, getrfMidBand, getrfRecursionSteps, getrfBlocked, getrfBlockedSteps, getrfPanelWidth, getrfWideLeaf, spreadShape, tallShape, type GetrfBlockedStep, type SpreadShape, type GetrfProblem, type GetrfRecursionStep, type TallShape } from './plan.js';
export { getrfCuda, getrfGroup, getrfLargePath, type GetrfOptions } from './launch.js';
export type { GetrfVbatchedParams } from './params.js';
export { getrfSmallVbatchedSource, GETRF_VBATCH_INTS } from './generate-vbatched.js';
export { getrfRegisterVbatchedSource } from './generate-register.js';
export { planVbatchedGetrf, planVbatchedGetrfSizes, getrfClassParams, getrfRegisterClassMax, getrfMemberSize, type VbatchedGetrfPlan, type VbatchedGetrfLaunch, type VbatchedGetrfProblem } from './plan-vbatched.js';
export { getrfVbatchedCuda, getrfVbatchedFields, getrfMemberTables, getrfVbatchedCovers, vbatchedGetrfLaunch, vbatchedGetrfPanelSteps, vbatchedGetrfSource, type GetrfVbatchedOptions, type PanelStep } from './launch-vbatched.js';
export { getrfPanelVbatchedSource, getrfUpdateVbatchedSource } from './generate-panel.js';
export { getrfDeviceDesigns, getrfDeviceVariableCuda, launchGetrfRegions, type GetrfDeviceOptions, type GetrfDeviceOutputs } from './launch-vdevice.js';
export { generateGetrfClassify } from './generate-vdevice.js';

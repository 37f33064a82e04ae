/** Tall-and-skinny GEMM (TSM2X paper): TSM2R, TSM2L, their model, planner and launcher. */
export type { Tsm2rParams, Tsm2lParams, ScaleParams } from './params.js';
export { TSM2L_MAX_K, TSM2L_MAX_N, TSM2R_MAX_SPLIT } from './params.js';
export { generateTsm2r, tsm2rName, tsm2rSharedBytes, checkTsm2rParams } from './generate-r.js';
export { generateTsm2l, tsm2lName, checkTsm2lParams } from './generate-l.js';
export { DMMA_DTYPE } from './generate-r-staged.js';
export { generateScale } from './generate-scale.js';
export * from './model.js';
export {
  classifyTallSkinny, isTallSkinny, planTsm2r, planTsm2l,
  type Tsm2Kind, type Tsm2Problem, type Tsm2rPlan, type Tsm2lPlan, type Tsm2rOverrides, type Tsm2lOverrides,
} from './plan.js';
export { tsm2Cuda, tsm2Serves, setMeasuredBandwidth, modelBandwidth, type Tsm2Options } from './launch.js';

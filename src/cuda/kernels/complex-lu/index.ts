/**
 * Complex LU on the GPU (zgetrf, zgetrs 'N' / 'T' / 'C', zgesv; complex128 and complex64): the
 * register designs for n <= 32 (the group step to 16 rows, the warp step from 17), the blocked steps above; the design's public face.
 */
export type { ComplexGesvParams, ComplexGetrfParams, ComplexGetrsParams, ComplexLaswpParams, ComplexPanelParams, ComplexRegisterStep } from './params.js';
export { complexGesvLayout, complexGesvSource, complexGetrfLayout, complexGetrfSource } from './generate-factor.js';
export { complexGetrsLayout, complexGetrsSource } from './generate-solve.js';
export { complexLaswpSource, complexPanelSource } from './generate-panel.js';
export { COMPLEX_LU_MAX, WARP_STEP_FROM, WARP_STEP_WARPS, complexGetrfCovers, complexSolveCovers, planComplexGesv, planComplexGetrf, planComplexGetrs, type ComplexLuForce } from './plan.js';
export { COMPLEX_PANEL_WIDTH, complexLuSteps, complexSolveSteps, planComplexPanel, type ComplexLuStep, type ComplexSolveStep } from './plan-blocked.js';
export { complexGesvCuda, complexGetrfCuda, complexGetrsCuda, type ComplexLuOptions } from './launch.js';

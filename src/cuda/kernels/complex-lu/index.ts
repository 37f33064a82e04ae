/**
 * Complex LU on the GPU (zgetrf, zgetrs 'N' / 'T' / 'C', zgesv; complex128 and complex64): the
 * register designs for n <= 32, the blocked steps above; the design's public face.
 */
export type { ComplexGesvParams, ComplexGetrfParams, ComplexGetrsParams, ComplexLaswpParams, ComplexPanelParams } from './params.js';
export { complexGesvLayout, complexGesvSource, complexGetrfLayout, complexGetrfSource } from './generate-factor.js';
export { complexGetrsLayout, complexGetrsSource } from './generate-solve.js';
export { complexLaswpSource, complexPanelSource } from './generate-panel.js';
export { COMPLEX_LU_MAX, complexGetrfCovers, complexSolveCovers, planComplexGesv, planComplexGetrf, planComplexGetrs } from './plan.js';
export { COMPLEX_PANEL_WIDTH, complexLuSteps, complexSolveSteps, planComplexPanel, type ComplexLuStep, type ComplexSolveStep } from './plan-blocked.js';
export { complexGesvCuda, complexGetrfCuda, complexGetrsCuda } from './launch.js';

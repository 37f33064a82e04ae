/**
 * Complex LU on the GPU for n <= 32 (zgetrf, zgetrs 'N' / 'T' / 'C', zgesv; complex128 and
 * complex64): the design's public face.
 */
export type { ComplexGesvParams, ComplexGetrfParams, ComplexGetrsParams } from './params.js';
export { complexGesvLayout, complexGesvSource, complexGetrfLayout, complexGetrfSource } from './generate-factor.js';
export { complexGetrsLayout, complexGetrsSource } from './generate-solve.js';
export { COMPLEX_LU_MAX, complexGetrfCovers, complexRhsPerPass, complexSolveCovers, planComplexGesv, planComplexGetrf, planComplexGetrs } from './plan.js';
export { complexGesvCuda, complexGetrfCuda, complexGetrsCuda } from './launch.js';

/** Batched solves on the GPU (potrs, posv, getrs, gesv): the family's public face. */
export type { FusedSolveParams, SmallSolveParams } from './generate-small.js';
export type { SolveVariant, SubstituteParams } from './generate-substitute.js';
export { gesvSmallSource, posvSmallSource, smallSolveSource } from './generate-small.js';
export { substituteSource } from './generate-substitute.js';
export { gesvCuda, getrsCuda, posvCuda, potrsCuda } from './launch.js';

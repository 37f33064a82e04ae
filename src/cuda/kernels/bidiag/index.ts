/** gesvd of min(m, n) = 96 ... 512 (by default; the design takes 1 ... 512) by bidiagonalization and the Golub-Kahan tridiagonal's inverse iteration: the family's public face. */
export type { BidiagForce, BidiagPanelParams, BidiagReduceParams, BidiagReduction, BidiagStoreParams, BidiagVectorsParams, GesvdBidiagPlan } from './params.js';
export { bidiagReduceSource, reduceEntry } from './generate-reduce.js';
export { bidiagPanelSource, panelEntry } from './generate-panel.js';
export { bidiagVectorsSource, vectorsEntry } from './generate-vectors.js';
export { bidiagStoreSource, storeEntry } from './generate-store.js';
export { BIDIAG_COMPUTE, BIDIAG_RANGE, bidiagSlice, type BidiagSlice } from './snippets.js';
export { BIDIAG_STORE_THREADS, bidiagReduction, bidiagServes, planGesvdBidiag, type BidiagProblem } from './plan.js';
export { gesvdBidiagCuda, type BidiagOptions } from './launch.js';

/** Complex gesvd of min(m, n) = 33 ... 512 on the GPU (complex128, complex64): zgebd2 to a real bidiagonal, the real Golub-Kahan kernels, the complex reflectors by unmqr. The family's public face. */
export type { ZbidiagForce, ZbidiagReduceParams, ZbidiagStoreParams, ZbidiagWidenParams, ZgesvdBidiagPlan } from './params.js';
export { zbidiagReduceSource, zreduceEntry } from './generate-reduce.js';
export { widenEntry, zbidiagWidenSource } from './generate-widen.js';
export { zbidiagStoreSource, zstoreEntry } from './generate-store.js';
export { ZBIDIAG_COMPUTE, zbidiagSlice, type ZbidiagSlice } from './snippets.js';
export { planZgesvdBidiag, zbidiagServes, ZBIDIAG_FROM, ZBIDIAG_LONG_MAX, ZBIDIAG_MAX, ZBIDIAG_STORE_THREADS, type ZbidiagProblem } from './plan.js';
export { complexGesvdBidiagCuda, zgesvdBidiagCovers } from './launch.js';

/**
 * The CPU reference for the BLAS-3 operations: one file per operation, each a batched entry
 * point (`cpuGemm`, ...) over a per-matrix kernel (`gemm1`, ...) that LAPACK code reuses.
 */
export { cpuGemm, gemm1 } from './gemm.js';
export { cpuSyrk, syrk1 } from './syrk.js';
export { cpuTrmm, trmm1 } from './trmm.js';
export { cpuTrsm, trsm1 } from './trsm.js';

/** Vendor libraries (cuBLAS, cuSOLVER): baselines for benchmarks, oracles for tests. */
export { Cublas } from './cublas.js';
export { Cusolver } from './cusolver.js';
export { BatchPointers, batchPointers, checkStrided } from './pointers.js';

import type { VendorTable } from './vendor-types.js';

/**
 * NVIDIA H200 (sm_90, 132 SMs), 2026-11-28. Measured with `node dist/scripts/vendor-sweep.js --ops gemm,potrf,getrf,syev --dtype float64,float32 --repeats 5`: each vendor route against the own route on the same
 * device-resident data (CUDA events, the median after a warm-up). A rule spans the measured orders
 * of one series where the vendor took less than 0.97 of the own time (to Infinity where
 * it won at the largest order measured), counts from the smallest measured up; single-matrix rules
 * take one matrix. Elsewhere the own routes run.
 */
export const h200VendorTable: VendorTable = {
  card: "NVIDIA H200",
  provenance: "NVIDIA H200 (sm_90, 132 SMs), 2026-11-28; node dist/scripts/vendor-sweep.js --ops gemm,potrf,getrf,syev --dtype float64,float32 --repeats 5",
  rules: [
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [96, Infinity], count: [42, Infinity],
      measured: [{ n: 96, count: 1213, ratio: 0.78 }, { n: 128, count: 682, ratio: 0.91 }, { n: 192, count: 303, ratio: 0.92 }, { n: 256, count: 170, ratio: 0.91 }, { n: 384, count: 75, ratio: 0.88 }, { n: 512, count: 42, ratio: 0.86 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [96, 96], count: [2427, Infinity],
      measured: [{ n: 96, count: 2427, ratio: 0.76 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [192, 192], count: [606, Infinity],
      measured: [{ n: 192, count: 606, ratio: 0.64 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [512, Infinity], count: [85, Infinity],
      measured: [{ n: 512, count: 85, ratio: 0.94 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [256, 512], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.96 }, { n: 512, count: 1, ratio: 0.78 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [1536, Infinity], count: [1, 1],
      measured: [{ n: 1536, count: 1, ratio: 0.72 }, { n: 2048, count: 1, ratio: 0.74 }, { n: 4096, count: 1, ratio: 0.72 }, { n: 8192, count: 1, ratio: 0.74 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.6 }, { n: 512, count: 1, ratio: 0.45 }, { n: 768, count: 1, ratio: 0.52 }, { n: 1024, count: 1, ratio: 0.61 }, { n: 1536, count: 1, ratio: 0.66 }, { n: 2048, count: 1, ratio: 0.86 }, { n: 4096, count: 1, ratio: 0.84 }, { n: 8192, count: 1, ratio: 0.86 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'float64', n: [128, Infinity], count: [1, 1],
      measured: [{ n: 128, count: 1, ratio: 0.41 }, { n: 256, count: 1, ratio: 0.85 }, { n: 384, count: 1, ratio: 0.85 }, { n: 512, count: 1, ratio: 0.82 }, { n: 768, count: 1, ratio: 0.78 }, { n: 1024, count: 1, ratio: 0.74 }, { n: 1536, count: 1, ratio: 0.76 }, { n: 2048, count: 1, ratio: 0.71 }, { n: 4096, count: 1, ratio: 0.53 }, { n: 8192, count: 1, ratio: 0.72 }, { n: 12288, count: 1, ratio: 0.77 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'float32', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.85 }, { n: 384, count: 1, ratio: 0.86 }, { n: 512, count: 1, ratio: 0.77 }, { n: 768, count: 1, ratio: 0.76 }, { n: 1024, count: 1, ratio: 0.72 }, { n: 1536, count: 1, ratio: 0.7 }, { n: 2048, count: 1, ratio: 0.66 }, { n: 4096, count: 1, ratio: 0.62 }, { n: 8192, count: 1, ratio: 0.79 }, { n: 12288, count: 1, ratio: 0.81 }] },
    { op: 'getrf', route: 'cusolver', dtype: 'float64', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.64 }, { n: 384, count: 1, ratio: 0.64 }, { n: 512, count: 1, ratio: 0.59 }, { n: 768, count: 1, ratio: 0.59 }, { n: 1024, count: 1, ratio: 0.7 }, { n: 1536, count: 1, ratio: 0.74 }, { n: 2048, count: 1, ratio: 0.77 }, { n: 4096, count: 1, ratio: 0.83 }, { n: 8192, count: 1, ratio: 0.69 }, { n: 12288, count: 1, ratio: 0.7 }] },
    { op: 'getrf', route: 'cusolver', dtype: 'float32', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.58 }, { n: 384, count: 1, ratio: 0.6 }, { n: 512, count: 1, ratio: 0.56 }, { n: 768, count: 1, ratio: 0.5 }, { n: 1024, count: 1, ratio: 0.65 }, { n: 1536, count: 1, ratio: 0.65 }, { n: 2048, count: 1, ratio: 0.68 }, { n: 4096, count: 1, ratio: 0.77 }, { n: 8192, count: 1, ratio: 0.84 }, { n: 12288, count: 1, ratio: 0.85 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float64', jobz: 'vectors', n: [64, Infinity], count: [20, Infinity],
      measured: [{ n: 64, count: 2000, ratio: 0.78 }, { n: 128, count: 500, ratio: 0.35 }, { n: 256, count: 100, ratio: 0.39 }, { n: 512, count: 20, ratio: 0.24 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float32', jobz: 'vectors', n: [56, Infinity], count: [20, Infinity],
      measured: [{ n: 56, count: 3000, ratio: 0.73 }, { n: 64, count: 2000, ratio: 0.49 }, { n: 128, count: 500, ratio: 0.2 }, { n: 256, count: 100, ratio: 0.12 }, { n: 512, count: 20, ratio: 0.17 }] },
  ],
};

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
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [512, Infinity], count: [42, Infinity],
      measured: [{ n: 512, count: 42, ratio: 0.95 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [512, Infinity], count: [85, Infinity],
      measured: [{ n: 512, count: 85, ratio: 0.89 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [2048, Infinity], count: [1, 1],
      measured: [{ n: 2048, count: 1, ratio: 0.75 }, { n: 4096, count: 1, ratio: 0.74 }, { n: 8192, count: 1, ratio: 0.73 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [1024, Infinity], count: [1, 1],
      measured: [{ n: 1024, count: 1, ratio: 0.59 }, { n: 2048, count: 1, ratio: 0.87 }, { n: 4096, count: 1, ratio: 0.83 }, { n: 8192, count: 1, ratio: 0.86 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'float64', n: [1024, Infinity], count: [1, 1],
      measured: [{ n: 1024, count: 1, ratio: 0.74 }, { n: 2048, count: 1, ratio: 0.7 }, { n: 4096, count: 1, ratio: 0.53 }, { n: 8192, count: 1, ratio: 0.72 }, { n: 12288, count: 1, ratio: 0.76 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'float32', n: [1024, Infinity], count: [1, 1],
      measured: [{ n: 1024, count: 1, ratio: 0.73 }, { n: 2048, count: 1, ratio: 0.67 }, { n: 4096, count: 1, ratio: 0.62 }, { n: 8192, count: 1, ratio: 0.79 }, { n: 12288, count: 1, ratio: 0.82 }] },
    { op: 'getrf', route: 'cusolver', dtype: 'float64', n: [1024, Infinity], count: [1, 1],
      measured: [{ n: 1024, count: 1, ratio: 0.71 }, { n: 2048, count: 1, ratio: 0.77 }, { n: 4096, count: 1, ratio: 0.83 }, { n: 8192, count: 1, ratio: 0.69 }, { n: 12288, count: 1, ratio: 0.7 }] },
    { op: 'getrf', route: 'cusolver', dtype: 'float32', n: [1024, Infinity], count: [1, 1],
      measured: [{ n: 1024, count: 1, ratio: 0.62 }, { n: 2048, count: 1, ratio: 0.68 }, { n: 4096, count: 1, ratio: 0.77 }, { n: 8192, count: 1, ratio: 0.84 }, { n: 12288, count: 1, ratio: 0.85 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float64', jobz: 'vectors', n: [64, Infinity], count: [20, Infinity],
      measured: [{ n: 64, count: 2000, ratio: 0.78 }, { n: 128, count: 500, ratio: 0.35 }, { n: 256, count: 100, ratio: 0.35 }, { n: 512, count: 20, ratio: 0.27 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float32', jobz: 'vectors', n: [64, Infinity], count: [20, Infinity],
      measured: [{ n: 64, count: 2000, ratio: 0.49 }, { n: 128, count: 500, ratio: 0.2 }, { n: 256, count: 100, ratio: 0.12 }, { n: 512, count: 20, ratio: 0.2 }] },
  ],
};

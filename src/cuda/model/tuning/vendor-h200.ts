import type { VendorTable } from './vendor-types.js';

/**
 * NVIDIA H200 (one card), driver 580, CUDA 13.0; 2026-11-28. Not yet a sweep: the ratios (vendor
 * time / own time) of device-resident runs of this project's code beside the vendor's routines in
 * the same run: PyTorch 2.11 for cuBLAS and cuSOLVER (gemm, potrf, getrf), JAX for
 * cusolverDnXsyevBatched (syev). Re-measure and rewrite with the sweep, which times both routes
 * in one process on the same data:
 * `node dist/scripts/vendor-sweep.js --ops gemm,potrf,getrf,syev --out <file>`.
 *
 * A rule spans the measured orders from the smallest to the largest where the vendor won (between
 * two such orders it is interpolated; never beyond the largest) and the counts from the smallest
 * measured winning count up; single-matrix rules take one matrix. Elsewhere the own routes run
 * until a sweep measures them.
 */
export const h200VendorTable: VendorTable = {
  card: 'NVIDIA H200',
  provenance: 'NVIDIA H200, driver 580, CUDA 13.0, 2026-11-28; own runs beside PyTorch 2.11 (cuBLAS/cuSOLVER) and JAX (XsyevBatched) in the same run; not yet a sweep',
  rules: [
    // cublasDgemmStridedBatched, about 1 GiB of matrices per call.
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [32, 256], count: [1000, Infinity],
      measured: [{ n: 32, count: 100000, ratio: 0.84 }, { n: 128, count: 4000, ratio: 0.83 }, { n: 256, count: 1000, ratio: 0.87 }] },
    // cublas?gemm, one matrix (float32 batched: 1.04-1.06, the own kernels).
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [4096, 16384], count: [1, 1],
      measured: [{ n: 4096, count: 1, ratio: 0.69 }, { n: 8192, count: 1, ratio: 0.79 }, { n: 16384, count: 1, ratio: 0.75 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [4096, 8192], count: [1, 1],
      measured: [{ n: 4096, count: 1, ratio: 0.81 }, { n: 8192, count: 1, ratio: 0.86 }] },
    // cusolverDn?potrf, one matrix.
    { op: 'potrf', route: 'cusolver', dtype: 'float64', n: [4096, 20480], count: [1, 1],
      measured: [{ n: 4096, count: 1, ratio: 0.60 }, { n: 10240, count: 1, ratio: 0.86 }, { n: 20480, count: 1, ratio: 0.88 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'float32', n: [10240, 10240], count: [1, 1],
      measured: [{ n: 10240, count: 1, ratio: 0.88 }] },
    // cusolverDn?getrf, one matrix.
    { op: 'getrf', route: 'cusolver', dtype: 'float64', n: [4096, 20480], count: [1, 1],
      measured: [{ n: 4096, count: 1, ratio: 0.74 }, { n: 10240, count: 1, ratio: 0.57 }, { n: 20480, count: 1, ratio: 0.66 }] },
    { op: 'getrf', route: 'cusolver', dtype: 'float32', n: [10240, 10240], count: [1, 1],
      measured: [{ n: 10240, count: 1, ratio: 0.75 }] },
    // cusolverDnXsyevBatched with vectors (values only: the own routes are 2-4x faster), each order
    // band from the count measured there up; beyond 512 (the CPU reference) unmeasured.
    { op: 'syev', route: 'cusolver', dtype: 'float64', jobz: 'vectors', n: [64, 127], count: [2000, Infinity],
      measured: [{ n: 64, count: 2000, ratio: 0.78 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float64', jobz: 'vectors', n: [128, 255], count: [500, Infinity],
      measured: [{ n: 128, count: 500, ratio: 0.35 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float64', jobz: 'vectors', n: [256, 511], count: [100, Infinity],
      measured: [{ n: 256, count: 100, ratio: 0.37 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float64', jobz: 'vectors', n: [512, 512], count: [20, Infinity],
      measured: [{ n: 512, count: 20, ratio: 0.29 }] },
  ],
};

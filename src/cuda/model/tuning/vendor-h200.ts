import type { VendorTable } from './vendor-types.js';

/**
 * NVIDIA H200 (sm_90, 132 SMs), 2026-11-29. Measured with `node dist/scripts/vendor-sweep.js --ops gemm,potrf,getrf,syev,trsm,getrs,gesv --dtype float64,float32 --repeats 5`: each vendor route against the own route on the same
 * device-resident data (CUDA events, the median after a warm-up). A rule spans the measured orders
 * of one series where the vendor took less than 0.97 of the own time (to Infinity where
 * it won at the largest order measured), counts from the smallest measured up; single-matrix rules
 * take one matrix; a solve's rule spans the right-hand sides from its series' count to the next
 * series' (1, 2, 4, 8, 16 and more; trsm: the side measured; rules measured before the series
 * between 1 and 16 existed say 1 or 16 and more). Elsewhere the own routes run. Rules from other commands (the comments above each say
 * which: the syev probes, the complex bench, the tsm2 bench) are merged by hand: a new sweep's table
 * must carry them over.
 */
export const h200VendorTable: VendorTable = {
  card: "NVIDIA H200",
  provenance: "NVIDIA H200 (sm_90, 132 SMs), 2026-11-29; node dist/scripts/vendor-sweep.js --ops gemm,potrf,getrf,syev,trsm,getrs,gesv --dtype float64,float32 --repeats 5",
  rules: [
    // gemm in the real types, batched and one matrix, each way: C = A B (betaZero: true) and C = A B + C
    // (betaZero: false; the own kernels' epilogue reads C, cuBLAS's rate differs too). The same card, 2026-12-02,
    // `node dist/scripts/vendor-sweep.js --ops gemm --dtype float64,float32 --repeats 5`, code of the padding
    // rule to 512 and C's prefetch (commit 0b9949f and the sweep's beta series); batched orders every few to 96,
    // past the tiles' edges, every 16 to 192 and every 32 to 512, 256 MiB of A, B and C.
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [52, 56], betaZero: true, count: [3566, Infinity],
      measured: [{ n: 52, count: 4136, ratio: 0.967 }, { n: 56, count: 3566, ratio: 0.96 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [112, 128], betaZero: true, count: [682, Infinity],
      measured: [{ n: 112, count: 891, ratio: 0.92 }, { n: 128, count: 682, ratio: 0.955 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [160, 176], betaZero: true, count: [361, Infinity],
      measured: [{ n: 160, count: 436, ratio: 0.817 }, { n: 176, count: 361, ratio: 0.827 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [224, Infinity], betaZero: true, count: [42, Infinity],
      measured: [{ n: 224, count: 222, ratio: 0.827 }, { n: 256, count: 170, ratio: 0.905 }, { n: 288, count: 134, ratio: 0.938 }, { n: 320, count: 109, ratio: 0.922 }, { n: 384, count: 75, ratio: 0.841 }, { n: 448, count: 55, ratio: 0.858 }, { n: 512, count: 42, ratio: 0.842 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [63, 63], betaZero: true, count: [5636, Infinity],
      measured: [{ n: 63, count: 5636, ratio: 0.95 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [65, 72], betaZero: true, count: [4315, Infinity],
      measured: [{ n: 65, count: 5294, ratio: 0.876 }, { n: 72, count: 4315, ratio: 0.914 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [88, 88], betaZero: true, count: [2888, Infinity],
      measured: [{ n: 88, count: 2888, ratio: 0.946 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [288, Infinity], betaZero: true, count: [85, Infinity],
      measured: [{ n: 288, count: 269, ratio: 0.968 }, { n: 320, count: 218, ratio: 0.953 }, { n: 384, count: 151, ratio: 0.942 }, { n: 448, count: 111, ratio: 0.964 }, { n: 512, count: 85, ratio: 0.885 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [256, Infinity], betaZero: true, count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.709 }, { n: 512, count: 1, ratio: 0.551 }, { n: 768, count: 1, ratio: 0.793 }, { n: 1024, count: 1, ratio: 0.882 }, { n: 1536, count: 1, ratio: 0.699 }, { n: 2048, count: 1, ratio: 0.732 }, { n: 4096, count: 1, ratio: 0.879 }, { n: 8192, count: 1, ratio: 0.934 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [768, Infinity], betaZero: true, count: [1, 1],
      measured: [{ n: 768, count: 1, ratio: 0.848 }, { n: 1024, count: 1, ratio: 0.81 }, { n: 1536, count: 1, ratio: 0.819 }, { n: 2048, count: 1, ratio: 0.857 }, { n: 4096, count: 1, ratio: 0.845 }, { n: 8192, count: 1, ratio: 0.852 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [24, 28], betaZero: false, count: [14266, Infinity],
      measured: [{ n: 24, count: 19418, ratio: 0.682 }, { n: 28, count: 14266, ratio: 0.944 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [44, 44], betaZero: false, count: [5777, Infinity],
      measured: [{ n: 44, count: 5777, ratio: 0.883 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [52, 64], betaZero: false, count: [2730, Infinity],
      measured: [{ n: 52, count: 4136, ratio: 0.774 }, { n: 56, count: 3566, ratio: 0.865 }, { n: 60, count: 3106, ratio: 0.901 }, { n: 63, count: 2818, ratio: 0.774 }, { n: 64, count: 2730, ratio: 0.875 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [88, Infinity], betaZero: false, count: [42, Infinity],
      measured: [{ n: 88, count: 1444, ratio: 0.902 }, { n: 96, count: 1213, ratio: 0.904 }, { n: 112, count: 891, ratio: 0.801 }, { n: 128, count: 682, ratio: 0.802 }, { n: 144, count: 539, ratio: 0.948 }, { n: 160, count: 436, ratio: 0.664 }, { n: 176, count: 361, ratio: 0.699 }, { n: 192, count: 303, ratio: 0.738 }, { n: 224, count: 222, ratio: 0.782 }, { n: 256, count: 170, ratio: 0.757 }, { n: 288, count: 134, ratio: 0.882 }, { n: 320, count: 109, ratio: 0.784 }, { n: 384, count: 75, ratio: 0.799 }, { n: 448, count: 55, ratio: 0.81 }, { n: 512, count: 42, ratio: 0.798 }] },
    // float32 C = A B + C at 24-32 since the small kernel stages C there (gemm-sm_90.ts): the same card,
    // 2026-12-02, `node scripts/probe/gemm-small-beta.mjs float32 4,8,9,...,32` (cuBLAS against the
    // planned kernel on the sweep's data, every order; 24, 25 and 27 now the own route's: vendor / own 1.06, 1.08, 0.99).
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [26, 26], betaZero: false, count: [33091, Infinity],
      measured: [{ n: 26, count: 33091, ratio: 0.93 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [28, 32], betaZero: false, count: [21845, Infinity],
      measured: [{ n: 28, count: 28532, ratio: 0.859 }, { n: 29, count: 26598, ratio: 0.843 }, { n: 30, count: 24855, ratio: 0.824 }, { n: 31, count: 23277, ratio: 0.796 }, { n: 32, count: 21845, ratio: 0.893 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [40, 65], betaZero: false, count: [5294, Infinity],
      measured: [{ n: 40, count: 13981, ratio: 0.946 }, { n: 44, count: 11554, ratio: 0.901 }, { n: 48, count: 9709, ratio: 0.958 }, { n: 52, count: 8272, ratio: 0.893 }, { n: 56, count: 7133, ratio: 0.909 }, { n: 60, count: 6213, ratio: 0.9 }, { n: 63, count: 5636, ratio: 0.656 }, { n: 64, count: 5461, ratio: 0.871 }, { n: 65, count: 5294, ratio: 0.875 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [128, 128], betaZero: false, count: [1365, Infinity],
      measured: [{ n: 128, count: 1365, ratio: 0.921 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [176, 320], betaZero: false, count: [218, Infinity],
      measured: [{ n: 176, count: 722, ratio: 0.852 }, { n: 192, count: 606, ratio: 0.851 }, { n: 224, count: 445, ratio: 0.938 }, { n: 256, count: 341, ratio: 0.942 }, { n: 288, count: 269, ratio: 0.835 }, { n: 320, count: 218, ratio: 0.928 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [448, Infinity], betaZero: false, count: [85, Infinity],
      measured: [{ n: 448, count: 111, ratio: 0.879 }, { n: 512, count: 85, ratio: 0.952 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float64', n: [256, Infinity], betaZero: false, count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.617 }, { n: 512, count: 1, ratio: 0.53 }, { n: 768, count: 1, ratio: 0.735 }, { n: 1024, count: 1, ratio: 0.826 }, { n: 1536, count: 1, ratio: 0.669 }, { n: 2048, count: 1, ratio: 0.721 }, { n: 4096, count: 1, ratio: 0.867 }, { n: 8192, count: 1, ratio: 0.907 }] },
    { op: 'gemm', route: 'cublas', dtype: 'float32', n: [768, Infinity], betaZero: false, count: [1, 1],
      measured: [{ n: 768, count: 1, ratio: 0.945 }, { n: 1024, count: 1, ratio: 0.815 }, { n: 1536, count: 1, ratio: 0.859 }, { n: 2048, count: 1, ratio: 0.806 }, { n: 4096, count: 1, ratio: 0.815 }, { n: 8192, count: 1, ratio: 0.843 }] },
    // One product of the TSM2R shape (m = k = 10240-30720, C's n columns): the same card, 2026-11-29, `MYRIAD_QUICK_FIRST=0 node
    // dist/src/cli.js bench tsm2 --backend cuda` (cublasDgemm against the TSM2R kernels, optimised builds): float64 n = 8 0.88-0.95,
    // 16 0.66-0.70, 32 0.45-0.51 (the staged and DMMA kernels at 44-74% of the copy rate, cuBLAS near it); n = 1-4 mixed (0.85-1.05),
    // own (a rule holds the points where the vendor won, and these depend on m). float32 n = 32 to cuBLAS (0.82 and 0.85 at
    // 20480 and 30720; 0.97 at 10240), 1-16 own (0.91-1.85, 1.05-1.27 at 16).
    { op: 'tsm2r', route: 'cublas', dtype: 'float64', n: [8, 32], count: [1, 1],
      measured: [{ n: 8, count: 1, ratio: 0.92 }, { n: 8, count: 1, ratio: 0.95 }, { n: 8, count: 1, ratio: 0.88 }, { n: 16, count: 1, ratio: 0.66 },
        { n: 16, count: 1, ratio: 0.67 }, { n: 16, count: 1, ratio: 0.7 }, { n: 32, count: 1, ratio: 0.51 }, { n: 32, count: 1, ratio: 0.47 }, { n: 32, count: 1, ratio: 0.45 }] },
    { op: 'tsm2r', route: 'cublas', dtype: 'float32', n: [32, 32], count: [1, 1],
      measured: [{ n: 32, count: 1, ratio: 0.82 }, { n: 32, count: 1, ratio: 0.85 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'float64', n: [128, Infinity], count: [1, 1],
      measured: [{ n: 128, count: 1, ratio: 0.4 }, { n: 256, count: 1, ratio: 0.86 }, { n: 384, count: 1, ratio: 0.94 }, { n: 512, count: 1, ratio: 0.83 }, { n: 768, count: 1, ratio: 0.78 }, { n: 1024, count: 1, ratio: 0.74 }, { n: 1536, count: 1, ratio: 0.76 }, { n: 2048, count: 1, ratio: 0.71 }, { n: 4096, count: 1, ratio: 0.54 }, { n: 8192, count: 1, ratio: 0.72 }, { n: 12288, count: 1, ratio: 0.77 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'float32', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.82 }, { n: 384, count: 1, ratio: 0.83 }, { n: 512, count: 1, ratio: 0.75 }, { n: 768, count: 1, ratio: 0.75 }, { n: 1024, count: 1, ratio: 0.72 }, { n: 1536, count: 1, ratio: 0.7 }, { n: 2048, count: 1, ratio: 0.66 }, { n: 4096, count: 1, ratio: 0.63 }, { n: 8192, count: 1, ratio: 0.79 }, { n: 12288, count: 1, ratio: 0.82 }] },
    { op: 'getrf', route: 'cusolver', dtype: 'float64', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.65 }, { n: 384, count: 1, ratio: 0.65 }, { n: 512, count: 1, ratio: 0.61 }, { n: 768, count: 1, ratio: 0.58 }, { n: 1024, count: 1, ratio: 0.7 }, { n: 1536, count: 1, ratio: 0.75 }, { n: 2048, count: 1, ratio: 0.77 }, { n: 4096, count: 1, ratio: 0.83 }, { n: 8192, count: 1, ratio: 0.69 }, { n: 12288, count: 1, ratio: 0.7 }] },
    { op: 'getrf', route: 'cusolver', dtype: 'float32', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.58 }, { n: 384, count: 1, ratio: 0.6 }, { n: 512, count: 1, ratio: 0.56 }, { n: 768, count: 1, ratio: 0.5 }, { n: 1024, count: 1, ratio: 0.65 }, { n: 1536, count: 1, ratio: 0.65 }, { n: 2048, count: 1, ratio: 0.69 }, { n: 4096, count: 1, ratio: 0.77 }, { n: 8192, count: 1, ratio: 0.84 }, { n: 12288, count: 1, ratio: 0.85 }] },
    // syev with vectors after the own route from 33 became the tridiagonal family's inverse-iteration
    // design (the same card, 2026-11-29, `node scripts/probe/syev-stein.mjs both`, the sweep's counts):
    // float64 runs on it at every order measured (XsyevBatched / own 1.15-3.9 at 33-512); float32 from
    // 96 to 256 on cuSOLVER (0.50-0.91: its float32 arithmetic against the design's float64), 33-64 and
    // 384-512 on the own design (1.24-2.9).
    { op: 'syev', route: 'cusolver', dtype: 'float32', jobz: 'vectors', n: [96, 256], count: [100, Infinity],
      measured: [{ n: 96, count: 1000, ratio: 0.91 }, { n: 128, count: 500, ratio: 0.72 }, { n: 192, count: 200, ratio: 0.86 }, { n: 256, count: 100, ratio: 0.5 }] },
    // Large counts (`node scripts/probe/stein-chunks.mjs both 512:264,384:300,256:600,512:1000,128:4000`, the same card,
    // 2026-11-29, after the design's chunks grew to an eighth of the card's memory): float32 512 x 1000 259.8 ms
    // against the own 277.3 (0.94); 512 x 264 0.98 and 384 x 300 1.17 stay own. float64 own at every count measured
    // (128 x 4000 47.7 against 49.0: 0.97, the table's line).
    { op: 'syev', route: 'cusolver', dtype: 'float32', jobz: 'vectors', n: [512, 512], count: [1000, Infinity],
      measured: [{ n: 512, count: 1000, ratio: 0.94 }] },
    // Values only, float32 256 x 100 (`node scripts/probe/syev-values.mjs both 128:500,192:200,256:100,512:20`, the same
    // card and day): XsyevBatched's values 3.45 ms against the own 3.92 (the blocked reduction and the values
    // kernel, float64 arithmetic); 192 (1.5x) and 512 (2.1x) own, float64 own at every order (2.5-3.5x).
    { op: 'syev', route: 'cusolver', dtype: 'float32', jobz: 'values', n: [256, 256], count: [100, Infinity],
      measured: [{ n: 256, count: 100, ratio: 0.88 }] },
    // The real solves, orders 8-512 with the halfway orders, 1, 2, 4, 8 and 16 right-hand sides, at two counts:
    // 256 MiB of A and 16 matrices an SM (2,112), the same card, 2026-12-01, `node dist/scripts/vendor-sweep.js --ops
    // trsm,getrs,gesv --dtype float64,float32 --repeats 5`, code of commit 8f83085 (BENCHMARKS.md, "The vendor
    // sweep of the solves at two counts"). The run stopped before gesv's 16 right-hand sides at float64 128 x
    // 2,112 and above and at float32: those rules are the single-count sweep's before it (commit b1a2db7, float32
    // 48-128 at 1,024 and more) and float64's stops at the 128 measured. getrs with one column also holds from 1,536
    // (`COUNT=1536 NRHS=1 node scripts/probe/solve-counts.mjs`, commit 48a0bd5: the vendor ahead there too).
    { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'left', n: [384, 384], nrhs: [1, 1], count: [2112, Infinity],
      measured: [{ n: 384, count: 2112, ratio: 0.964 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float32', side: 'left', n: [192, Infinity], nrhs: [1, 1], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.586 }, { n: 256, count: 2112, ratio: 0.677 }, { n: 384, count: 2112, ratio: 0.562 }, { n: 512, count: 2112, ratio: 0.616 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float32', side: 'left', n: [192, Infinity], nrhs: [2, 3], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.658 }, { n: 256, count: 2112, ratio: 0.818 }, { n: 384, count: 2112, ratio: 0.715 }, { n: 512, count: 2112, ratio: 0.811 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'left', n: [192, 192], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.933 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'left', n: [384, 384], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 384, count: 2112, ratio: 0.958 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float32', side: 'left', n: [192, Infinity], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.868 }, { n: 256, count: 2112, ratio: 0.872 }, { n: 384, count: 2112, ratio: 0.768 }, { n: 512, count: 2112, ratio: 0.848 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'left', n: [128, Infinity], nrhs: [8, 15], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.84 }, { n: 192, count: 2112, ratio: 0.768 }, { n: 256, count: 2112, ratio: 0.852 }, { n: 384, count: 2112, ratio: 0.831 }, { n: 512, count: 2112, ratio: 0.899 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float32', side: 'left', n: [192, Infinity], nrhs: [8, 15], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.893 }, { n: 256, count: 2112, ratio: 0.766 }, { n: 384, count: 2112, ratio: 0.705 }, { n: 512, count: 2112, ratio: 0.779 }] },
    { op: 'trsm', route: 'cublas', dtype: 'float32', side: 'left', n: [384, Infinity], nrhs: [16, Infinity], count: [2112, Infinity],
      measured: [{ n: 384, count: 2112, ratio: 0.863 }, { n: 512, count: 2112, ratio: 0.938 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float64', n: [256, Infinity], nrhs: [1, 1], count: [1536, Infinity],
      measured: [{ n: 256, count: 1536, ratio: 0.949 }, { n: 384, count: 1536, ratio: 0.89 }, { n: 512, count: 1536, ratio: 0.851 }, { n: 256, count: 2112, ratio: 0.722 }, { n: 384, count: 2112, ratio: 0.669 }, { n: 512, count: 2112, ratio: 0.671 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float32', n: [192, Infinity], nrhs: [1, 1], count: [1536, Infinity],
      measured: [{ n: 192, count: 1536, ratio: 0.874 }, { n: 256, count: 1536, ratio: 0.918 }, { n: 384, count: 1536, ratio: 0.771 }, { n: 512, count: 1536, ratio: 0.693 }, { n: 192, count: 2112, ratio: 0.897 }, { n: 256, count: 2112, ratio: 0.905 }, { n: 384, count: 2112, ratio: 0.722 }, { n: 512, count: 2112, ratio: 0.717 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float64', n: [256, Infinity], nrhs: [2, 3], count: [2112, Infinity],
      measured: [{ n: 256, count: 2112, ratio: 0.785 }, { n: 384, count: 2112, ratio: 0.687 }, { n: 512, count: 2112, ratio: 0.697 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float32', n: [256, Infinity], nrhs: [2, 3], count: [2112, Infinity],
      measured: [{ n: 256, count: 2112, ratio: 0.906 }, { n: 384, count: 2112, ratio: 0.815 }, { n: 512, count: 2112, ratio: 0.82 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float64', n: [192, Infinity], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.891 }, { n: 256, count: 2112, ratio: 0.603 }, { n: 384, count: 2112, ratio: 0.622 }, { n: 512, count: 2112, ratio: 0.616 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float32', n: [192, Infinity], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.836 }, { n: 256, count: 2112, ratio: 0.795 }, { n: 384, count: 2112, ratio: 0.689 }, { n: 512, count: 2112, ratio: 0.711 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float64', n: [192, Infinity], nrhs: [8, 15], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.886 }, { n: 256, count: 2112, ratio: 0.884 }, { n: 384, count: 2112, ratio: 0.845 }, { n: 512, count: 2112, ratio: 0.871 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float32', n: [192, Infinity], nrhs: [8, 15], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.852 }, { n: 256, count: 2112, ratio: 0.833 }, { n: 384, count: 2112, ratio: 0.708 }, { n: 512, count: 2112, ratio: 0.744 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float64', n: [96, 128], nrhs: [16, Infinity], count: [512, 2111],
      measured: [{ n: 96, count: 910, ratio: 0.893 }, { n: 128, count: 512, ratio: 0.897 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float32', n: [192, Infinity], nrhs: [16, Infinity], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.862 }, { n: 256, count: 2112, ratio: 0.899 }, { n: 384, count: 2112, ratio: 0.824 }, { n: 512, count: 2112, ratio: 0.837 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float64', n: [96, 96], nrhs: [1, 1], count: [2112, Infinity],
      measured: [{ n: 96, count: 2112, ratio: 0.961 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float32', n: [128, Infinity], nrhs: [1, 1], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.945 }, { n: 192, count: 2112, ratio: 0.909 }, { n: 256, count: 2112, ratio: 0.936 }, { n: 384, count: 2112, ratio: 0.94 }, { n: 512, count: 2112, ratio: 0.95 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float32', n: [128, 384], nrhs: [2, 3], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.918 }, { n: 192, count: 2112, ratio: 0.929 }, { n: 256, count: 2112, ratio: 0.956 }, { n: 384, count: 2112, ratio: 0.96 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float64', n: [64, 96], nrhs: [4, 7], count: [910, Infinity],
      measured: [{ n: 64, count: 2048, ratio: 0.959 }, { n: 96, count: 910, ratio: 0.955 }, { n: 96, count: 2112, ratio: 0.95 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float64', n: [192, 192], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.969 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float32', n: [128, 384], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.932 }, { n: 192, count: 2112, ratio: 0.931 }, { n: 256, count: 2112, ratio: 0.961 }, { n: 384, count: 2112, ratio: 0.962 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float64', n: [48, 96], nrhs: [8, 15], count: [910, Infinity],
      measured: [{ n: 48, count: 3640, ratio: 0.859 }, { n: 64, count: 2048, ratio: 0.782 }, { n: 96, count: 910, ratio: 0.89 }, { n: 96, count: 2112, ratio: 0.881 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float64', n: [128, 256], nrhs: [8, 15], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.903 }, { n: 192, count: 2112, ratio: 0.926 }, { n: 256, count: 2112, ratio: 0.951 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float32', n: [48, 96], nrhs: [8, 15], count: [1820, Infinity],
      measured: [{ n: 48, count: 7281, ratio: 0.724 }, { n: 64, count: 4096, ratio: 0.763 }, { n: 96, count: 1820, ratio: 0.834 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float32', n: [128, Infinity], nrhs: [8, 15], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.885 }, { n: 192, count: 2112, ratio: 0.9 }, { n: 256, count: 2112, ratio: 0.932 }, { n: 384, count: 2112, ratio: 0.943 }, { n: 512, count: 2112, ratio: 0.957 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float64', n: [48, 128], nrhs: [16, Infinity], count: [512, Infinity],
      measured: [{ n: 48, count: 3640, ratio: 0.898 }, { n: 64, count: 2048, ratio: 0.946 }, { n: 96, count: 910, ratio: 0.871 }, { n: 128, count: 512, ratio: 0.926 }, { n: 96, count: 2112, ratio: 0.944 }] },
    { op: 'gesv', route: 'cublas', dtype: 'float32', n: [48, 128], nrhs: [16, Infinity], count: [1024, Infinity],
      measured: [{ n: 48, count: 7281, ratio: 0.839 }, { n: 64, count: 4096, ratio: 0.862 }, { n: 96, count: 1820, ratio: 0.866 }, { n: 128, count: 1024, ratio: 0.863 }] },
    // Complex gemm: the same card, 2026-11-29, `node dist/scripts/vendor-sweep.js --ops gemm --dtype complex128,complex64`
    // (cuBLAS's z/cgemm against the own kernels over pairs); complex128 measured again after its own
    // kernel moved to the tensor cores (the mma kernel on the real embedding, `--dtype complex128`). Measured with
    // C = A B; the rules hold for C = A B + C too (not measured: no betaZero).
    { op: 'gemm', route: 'cublas', dtype: 'complex128', n: [32, 32], count: [5461, Infinity],
      measured: [{ n: 32, count: 5461, ratio: 0.74 }, { n: 32, count: 21845, ratio: 0.90 }] },
    // Orders 29-31 where the very-small kernel took complex gemm to 32 (2026-11-30, `GRID=plan
    // N=17,19,...,32 node scripts/probe/zgemm-small.mjs`, the bench's counts: vendor / own complex128
    // 27 1.00, 28 1.11, 29 0.77, 31 0.70; complex64 28 1.49, 29 0.97, 31 0.89, 32 1.03), measured at these counts only.
    { op: 'gemm', route: 'cublas', dtype: 'complex128', n: [29, 31], count: [23277, Infinity],
      measured: [{ n: 29, count: 26598, ratio: 0.77 }, { n: 31, count: 23277, ratio: 0.70 }] },
    { op: 'gemm', route: 'cublas', dtype: 'complex64', n: [31, 31], count: [46554, Infinity],
      measured: [{ n: 31, count: 46554, ratio: 0.89 }] },
    { op: 'gemm', route: 'cublas', dtype: 'complex128', n: [96, Infinity], count: [21, Infinity],
      measured: [{ n: 96, count: 606, ratio: 0.83 }, { n: 128, count: 341, ratio: 0.95 }, { n: 192, count: 151, ratio: 0.85 }, { n: 256, count: 85, ratio: 0.89 }, { n: 384, count: 37, ratio: 0.79 }, { n: 512, count: 21, ratio: 0.79 }] },
    { op: 'gemm', route: 'cublas', dtype: 'complex128', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.65 }, { n: 512, count: 1, ratio: 0.65 }, { n: 768, count: 1, ratio: 0.69 }, { n: 1024, count: 1, ratio: 0.66 }, { n: 1536, count: 1, ratio: 0.76 }, { n: 2048, count: 1, ratio: 0.76 }, { n: 4096, count: 1, ratio: 0.77 }, { n: 8192, count: 1, ratio: 0.82 }] },
    // complex64 32 left cuBLAS (2026-11-30) when the very-small kernel took 17-32 (model/tuning/gemm-sm_90.ts,
    // `GRID=wide N=32 DTYPES=complex64 node scripts/probe/zgemm-small.mjs`: 0.377 ms against cuBLAS's 0.412
    // on 43,690 matrices); complex128 32 stays (0.343 against 0.326).
    { op: 'gemm', route: 'cublas', dtype: 'complex64', n: [33, 96], count: [1213, Infinity],
      measured: [{ n: 64, count: 2730, ratio: 0.93 }, { n: 96, count: 1213, ratio: 0.66 }] },
    { op: 'gemm', route: 'cublas', dtype: 'complex64', n: [192, Infinity], count: [42, Infinity],
      measured: [{ n: 192, count: 303, ratio: 0.89 }, { n: 256, count: 170, ratio: 0.88 }, { n: 384, count: 75, ratio: 0.87 }, { n: 512, count: 42, ratio: 0.87 }] },
    { op: 'gemm', route: 'cublas', dtype: 'complex64', n: [256, Infinity], count: [1, 1],
      measured: [{ n: 256, count: 1, ratio: 0.63 }, { n: 512, count: 1, ratio: 0.64 }, { n: 768, count: 1, ratio: 0.63 }, { n: 1024, count: 1, ratio: 0.9 }, { n: 1536, count: 1, ratio: 0.69 }, { n: 2048, count: 1, ratio: 0.85 }, { n: 4096, count: 1, ratio: 0.85 }, { n: 8192, count: 1, ratio: 0.87 }] },
    // Complex trsm (left; 1, 2, 4, 8 and 16 right-hand sides, the base counts and 2,112 matrices): the same
    // card, 2026-12-02, code of commit `6c13707` (the complex route's diagonal scan, vendor/trsm.ts:
    // its flags read back before the vendor's call, a wait inside the route's time), `node dist/scripts/vendor-sweep.js --ops trsm --dtype complex128,complex64` (185 cases,
    // 292 s). Orders to 64 stay own everywhere (1.4-159x); the vendor leads from 96-192 up with more
    // right-hand sides and larger counts (0.37-0.96).
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [192, Infinity], nrhs: [1, 1], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.726 }, { n: 256, count: 2112, ratio: 0.584 }, { n: 384, count: 2112, ratio: 0.504 }, { n: 512, count: 2112, ratio: 0.43 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex64', side: 'left', n: [192, Infinity], nrhs: [1, 1], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.724 }, { n: 256, count: 2112, ratio: 0.61 }, { n: 384, count: 2112, ratio: 0.45 }, { n: 512, count: 2112, ratio: 0.372 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [128, 128], nrhs: [2, 3], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.95 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [192, 192], nrhs: [2, 3], count: [113, Infinity],
      measured: [{ n: 192, count: 113, ratio: 0.948 }, { n: 192, count: 2112, ratio: 0.745 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [256, Infinity], nrhs: [2, 3], count: [2112, Infinity],
      measured: [{ n: 256, count: 2112, ratio: 0.696 }, { n: 384, count: 2112, ratio: 0.585 }, { n: 512, count: 2112, ratio: 0.539 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex64', side: 'left', n: [192, Infinity], nrhs: [2, 3], count: [2112, Infinity],
      measured: [{ n: 192, count: 2112, ratio: 0.823 }, { n: 256, count: 2112, ratio: 0.831 }, { n: 384, count: 2112, ratio: 0.663 }, { n: 512, count: 2112, ratio: 0.658 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [96, 96], nrhs: [4, 7], count: [455, 2111],
      measured: [{ n: 96, count: 455, ratio: 0.822 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [128, 128], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 128, count: 2112, ratio: 0.751 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [192, 192], nrhs: [4, 7], count: [113, Infinity],
      measured: [{ n: 192, count: 113, ratio: 0.582 }, { n: 192, count: 2112, ratio: 0.625 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [256, 256], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 256, count: 2112, ratio: 0.598 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [384, 384], nrhs: [4, 7], count: [28, Infinity],
      measured: [{ n: 384, count: 28, ratio: 0.935 }, { n: 384, count: 2112, ratio: 0.537 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [512, Infinity], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 512, count: 2112, ratio: 0.492 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex64', side: 'left', n: [192, 192], nrhs: [4, 7], count: [227, Infinity],
      measured: [{ n: 192, count: 227, ratio: 0.695 }, { n: 192, count: 2112, ratio: 0.705 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex64', side: 'left', n: [256, Infinity], nrhs: [4, 7], count: [2112, Infinity],
      measured: [{ n: 256, count: 2112, ratio: 0.736 }, { n: 384, count: 2112, ratio: 0.595 }, { n: 512, count: 2112, ratio: 0.598 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [96, 96], nrhs: [8, 15], count: [455, 2111],
      measured: [{ n: 96, count: 455, ratio: 0.932 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [128, Infinity], nrhs: [8, 15], count: [16, Infinity],
      measured: [{ n: 128, count: 256, ratio: 0.782 }, { n: 192, count: 113, ratio: 0.653 }, { n: 256, count: 64, ratio: 0.623 }, { n: 384, count: 28, ratio: 0.619 }, { n: 512, count: 16, ratio: 0.639 }, { n: 128, count: 2112, ratio: 0.661 }, { n: 192, count: 2112, ratio: 0.581 }, { n: 256, count: 2112, ratio: 0.568 }, { n: 384, count: 2112, ratio: 0.518 }, { n: 512, count: 2112, ratio: 0.503 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex64', side: 'left', n: [128, Infinity], nrhs: [8, 15], count: [32, Infinity],
      measured: [{ n: 128, count: 512, ratio: 0.684 }, { n: 192, count: 227, ratio: 0.469 }, { n: 256, count: 128, ratio: 0.454 }, { n: 384, count: 56, ratio: 0.458 }, { n: 512, count: 32, ratio: 0.459 }, { n: 128, count: 2112, ratio: 0.79 }, { n: 192, count: 2112, ratio: 0.476 }, { n: 256, count: 2112, ratio: 0.517 }, { n: 384, count: 2112, ratio: 0.469 }, { n: 512, count: 2112, ratio: 0.492 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [96, 96], nrhs: [16, Infinity], count: [455, 2111],
      measured: [{ n: 96, count: 455, ratio: 0.96 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: [128, Infinity], nrhs: [16, Infinity], count: [16, Infinity],
      measured: [{ n: 128, count: 256, ratio: 0.79 }, { n: 192, count: 113, ratio: 0.727 }, { n: 256, count: 64, ratio: 0.696 }, { n: 384, count: 28, ratio: 0.699 }, { n: 512, count: 16, ratio: 0.688 }, { n: 128, count: 2112, ratio: 0.923 }, { n: 192, count: 2112, ratio: 0.805 }, { n: 256, count: 2112, ratio: 0.763 }, { n: 384, count: 2112, ratio: 0.672 }, { n: 512, count: 2112, ratio: 0.626 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex64', side: 'left', n: [128, 128], nrhs: [16, Infinity], count: [512, 2111],
      measured: [{ n: 128, count: 512, ratio: 0.964 }] },
    { op: 'trsm', route: 'cublas', dtype: 'complex64', side: 'left', n: [192, Infinity], nrhs: [16, Infinity], count: [32, Infinity],
      measured: [{ n: 192, count: 227, ratio: 0.724 }, { n: 256, count: 128, ratio: 0.711 }, { n: 384, count: 56, ratio: 0.632 }, { n: 512, count: 32, ratio: 0.65 }, { n: 192, count: 2112, ratio: 0.697 }, { n: 256, count: 2112, ratio: 0.722 }, { n: 384, count: 2112, ratio: 0.625 }, { n: 512, count: 2112, ratio: 0.625 }] },
    // Complex potrf, batched: the same card, 2026-11-29, `node dist/src/cli.js bench potrf --backend cuda
    // --dtype complex128|complex64 --sizes 64,128,256,512 --repeats 3` (the own complex Cholesky against
    // cuSOLVER's z/cpotrfBatched on the same data, 512 MiB of matrices; vendor ms / own ms). n = 64 stays
    // with the own kernels (complex128 1.12, complex64 1.20); complex64 was measured at 64 and 256 alone.
    // The vendor sweep's complex potrf series measures them again: `node dist/scripts/vendor-sweep.js --ops potrf --dtype complex128,complex64`.
    { op: 'potrf', route: 'cusolver', dtype: 'complex128', n: [128, Infinity], count: [128, Infinity],
      measured: [{ n: 128, count: 2048, ratio: 0.63 }, { n: 256, count: 512, ratio: 0.46 }, { n: 512, count: 128, ratio: 0.44 }] },
    { op: 'potrf', route: 'cusolver', dtype: 'complex64', n: [256, Infinity], count: [1024, Infinity],
      measured: [{ n: 256, count: 1024, ratio: 0.43 }] },
    // Complex heev with vectors (op 'syev' on the complex type): the same card, 2026-11-29, `node dist/src/cli.js bench heev
    // --backend cuda --dtype complex128|complex64 --sizes 33,64,128,256,512 --repeats 3` (cusolverDnXsyevBatched on the complex
    // type against the own tridiagonal design, the bench's counts). 33 own (4.7x, 2.9x); complex128 64 own (1.12x).
    // Above 512 no own design runs complex heev (the CPU reference is the alternative).
    { op: 'syev', route: 'cusolver', dtype: 'complex128', jobz: 'vectors', n: [128, Infinity], count: [20, Infinity],
      measured: [{ n: 128, count: 500, ratio: 0.61 }, { n: 256, count: 100, ratio: 0.53 }, { n: 512, count: 20, ratio: 0.45 }] },
    // At and below 32 the own route is the Jacobi rows design (zjacobi/generate-heev-rows.ts) from 9: `MYRIAD_QUICK_FIRST=0
    // node scripts/probe/zjacobi-rows.mjs` (the same card, 2026-11-30, ms own / XsyevBatched): complex128 24 x 7,281 3.565 /
    // 5.599, 32 x 10,000 7.215 / 10.970 (1.52x); complex64 24 x 14,563 2.619 / 7.284, 32 x 10,000 3.323 / 6.478 (1.95x). No
    // vendor rule at 32 any more (the warp design had taken 17.983 and 7.903 ms there, 0.61x and 0.88x).
    { op: 'syev', route: 'cusolver', dtype: 'complex64', jobz: 'vectors', n: [64, Infinity], count: [20, Infinity],
      measured: [{ n: 64, count: 2000, ratio: 0.67 }, { n: 128, count: 500, ratio: 0.33 }, { n: 256, count: 100, ratio: 0.4 }, { n: 512, count: 20, ratio: 0.51 }] },
  ],
};

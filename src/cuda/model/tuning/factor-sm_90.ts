/**
 * Hopper (H100/H200): the factorisations' measured choices (H100 80GB HBM3, 2026-11-25 ...
 * 2026-11-27, ~0.5 GB batches unless said). No other architecture has been measured: they inherit
 * these (index.ts). Each entry names the probe that re-measures it (scripts/probe/, see
 * scripts/README.md) or `node dist/src/cuda/tune/main.js potrf|getrf`; the figures are ms on the
 * GPU, cuSOLVER from the same run in parentheses or named.
 */
import type { GetrfTuning, PotrfTuning } from './factor-types.js';

export const sm90PotrfTuning: PotrfTuning = {
  // f32 to 128; f64 to 96, since at 128 the panel kernel measured faster (0.87-0.99 ms against
  // 1.04-1.36 ms for the register shapes tried).
  registerMax: { float64: 96, float32: 128 },
  // n = 33..128 is latency-bound (one serial chain of n pivots per matrix), so the shapes favour
  // matrices in flight per SM (few warps per matrix, a register cap that fits several blocks,
  // checked spill-free with ptxas) and panels of 8 columns per barrier.
  registerShapes: {
    float64: [{ maxN: 64, shape: { warps: 4, nb: 8, minBlocks: 5 } }, { maxN: Infinity, shape: { warps: 4, nb: 8, minBlocks: 2 } }],
    float32: [{ maxN: 64, shape: { warps: 4, nb: 8, minBlocks: 6 } }, { maxN: Infinity, shape: { warps: 4, nb: 8, minBlocks: 2 } }],
  },
  // Classic vs rsqrt step, % of the bandwidth bound: f64 n = 3: 63.0 vs 60.2, 5: 57.6 vs 56.0,
  // 6: 59.0 vs 57.5, 8: 57.3 vs 59.7, 16: 51.5 vs 56.7; f32 n = 3: 56.8 vs 53.7, 4: 60.5 vs 54.5,
  // 6: 52.0 vs 43.5, 8: 53.1 vs 51.7, 12: 37.1 vs 39.5. (The fused solves always use rsqrt.)
  classicMax: { float64: 6, float32: 8 },
  // The paper picks 8 on a P100; 16 measured faster at every n from 64 to 512 in f64 (1.08-1.29x);
  // f32 at n >= 512: 8-column panels ran 1.23x faster than 16 (f64 0.79x).
  panelWidest: {
    float64: [{ maxN: Infinity, widest: 16 }],
    float32: [{ maxN: 511, widest: 16 }, { maxN: Infinity, widest: 8 }],
  },
  // Loop-inclusive was slower in f64 (n = 128, 256, 512: 1.17x, 1.29x, 1.28x the time) and mixed
  // in f32 (1.00x, 0.94x, 0.88x): one launch per panel, each with shared memory sized to its panel.
  panelLoop: false,
  // The blocked Cholesky for large n (re-measure: scripts/probe/potrf-blocked.mjs, one matrix and
  // batches, cuSOLVER in the same run). The recursion it replaced spent its time in the top-level
  // trsm and its 32 serial leaves (H100, 2026-11-26, docs/large-factorizations.md); panels of 256
  // keep every trsm at t = 256 and make the trailing update one triangle GEMM of k = 256. The
  // panel's trsm by its inverted diagonal block (invertPanel) makes 482 launches for one n = 2048
  // matrix against 321 by substitution leaves (counted on a stub device: trtri of a 256 block is a
  // chain of ~24 trmm leaves): off. Leaves of 128 by the register design for few matrices: 0.07 ms
  // against the panel design's 0.2 (H100, 2026-11-26, scripts/probe/potrf-large-parts.mjs).
  // Panels by the fused factor-and-inverse diagonal kernel (generate-diagonal.ts, H100, 2026-11-26), its
  // solve one GEMM with the inverse. One float64 matrix, H100, ms (potrf-blocked.mjs; cuSOLVER
  // 0.42 / 1.82 / 7.26): blocked 256 as above 2.07 / 10.5 / 26.6; fused 64 0.99 / 5.66 / 23.3;
  // fused 96 0.95 / 5.17 / 19.2; fused 128 1.09 / 5.53 / 18.2 at n = 1024 / 4096 / 8192 (before the
  // kernel's steps were unrolled by tile columns: 96 then measured 4.59 ms at 4096 against 4.69 for
  // 128 and 4.97 for 64). float32 4096: 64 3.88, 96 3.74, 128 3.77 (cuSOLVER 1.56). With the kernel
  // blocked by tile columns (two barriers a panel of 4, no division): 64 0.97 / 4.49, 96 0.80 /
  // 4.54, 128 0.95 / 4.92 at 1024 / 4096 (cuSOLVER 0.43 / 1.83); the kernel alone, one 64 / 96 /
  // 128 block: 22 / 50 / 91 us (diag-steps.mjs).
  // Shared memory without bank conflicts, one register tile a thread up to 96: 1.00 / 0.69 / 0.80
  // (64 / 96 / 128) at 1024, 4.42 / 4.03 / 4.27 at 4096, 20.9 / 17.0 / 15.8 at 8192. Lookahead (the
  // trailing update beside the next panel, on a side stream): 4096 96 3.83 (4.10 without), 8192 128
  // 14.76 (15.88); at 1024 and 2048 it lost (1.34 vs 0.69, 1.71 vs 1.51: more launches and stream
  // waits on a host-bound path). float32 4096: 96 3.45 with, 3.28 without.
  blocked: {
    minN: 1024, panel: 256, invertPanel: false, registerLeavesFew: true,
    // Two levels (H100, 2026-11-26, scripts/probe/potrf-blocked.mjs, one matrix, ms; cuSOLVER 1.83 / 7.27 /
    // 36.96 at 4096 / 8192 / 16384): float64 96 one level 3.87 at 4096 (outer 2 / 4 / 6: 4.03 / 4.03 /
    // 4.06); at 8192 96 outer 4 / 6 12.51 / 12.34, 128 outer 1 / 2 / 4 15.09 / 13.65 / 12.92; at 16384
    // 96 outer 4 / 6 60.95 / 60.03, 128 outer 1 / 2 / 4 84.5 / 66.4 / 60.6. The trailing SYRK is then
    // bounded by the FP64 GEMM itself: 31-33 TFLOP/s at k = 512 for every mma configuration swept
    // (gemm-configs.mjs), cuBLAS 55. Lookahead with two levels: float64 96 12.58 vs 12.38 without at
    // 8192, 60.95 vs 60.83 at 16384 (kept from 4096, where one level gains by it); float32 128 10.98 vs
    // 10.59 at 8192, 48.39 vs 47.60 at 16384: off.
    // float64 panels of 64 to 640 (H100, 2026-11-26, potrf-blocked.mjs, ms, 64 / 96, no lookahead):
    // 256 x 16 0.166 / 0.179, 256 x 1024 1.43 / 2.07, 512 x 16 0.334 / 0.368, 512 x 1024 6.36 /
    // 6.83; 96 from 768 (768 x 256 4.38 against 4.71) and for one large matrix.
    diagonal: { float64: [{ maxN: 640, nb: 64 }, { maxN: Infinity, nb: 96 }], float32: [{ maxN: 6143, nb: 96 }, { maxN: Infinity, nb: 128 }] },
    lookaheadFrom: { float64: 4096, float32: Infinity },
    outerPanels: { float64: [{ maxN: 6143, panels: 1 }, { maxN: 8191, panels: 4 }, { maxN: Infinity, panels: 6 }], float32: [{ maxN: 6143, panels: 1 }, { maxN: Infinity, panels: 4 }] },
    // The fused driver for every n on the large path (from 256 with fewer matrices than SMs): 256 x 16
    // 0.206 ms, 512 x 16 0.377 against the recursion's 0.413 and 0.980 (float64, no lookahead).
    diagonalMinN: 256,
    // The panel in one launch (H100, 2026-11-27, potrf-blocked.mjs "default plan" rows, ms, one launch /
    // two): one matrix float64 2048 1.280 / 1.344, 4096 3.557 / 3.580, 8192 10.40 / 10.67, but 12288
    // 25.41 / 24.79 and 16384 51.26 / 49.94 (the row blocks spin on SMs the side stream's trailing
    // update would use while the diagonal block is factored; 8192-12288 not measured); float32 2048
    // 1.065 / 1.112, 4096 2.585 / 2.682, 8192 9.78 / 9.91, 16384 46.20 / 46.19; 1024 x 16 float64
    // 0.976 / 1.011; but 256 matrices: float64 256 0.362 / 0.362, 512 1.702 / 1.653, float32 256
    // 0.306 / 0.389, 512 1.197 / 1.074 (the row blocks wait on SMs other matrices' diagonal blocks
    // could use).
    fusedPanelMaxCount: 131,
    fusedPanelMaxN: { float64: 10239, float32: Infinity },
  },
};

export const sm90GetrfTuning: GetrfTuning = {
  // f64 and f32 alike: RB <= 4 row registers.
  registerMax: { float64: 128, float32: 128 },
  // Up to 64: 4 warps, 4-column panels and a register cap for 5 (f64) or 6 (f32) blocks per SM;
  // 65-112 (f64 and f32; f64 113-120 for two matrices an SM or fewer): 4-8 warps and 2-4 blocks per SM; beyond, 16 warps (the
  // whole square matrix in registers leaves 1 or 2 blocks per SM). Up to 64 (H200, 2026-11-29, scripts/probe/getrf-register-shapes.mjs, 10,000
  // matrices, ms; warps x nb x blocks): f64 n = 40 / 48 / 56 / 64: 4x4x5 0.680 / 0.798 / 1.095 /
  // 1.263, 4x4x4 0.762 / 0.903 / 1.210 / 1.339, the earlier 4x8x4 0.862 / 1.088 / 1.293 / 1.428,
  // 8 warps (nb 2, 4, 8) 0.86-2.12; f32 n = 40 / 64: 4x4x6 0.471 / 0.813, 4x8x6 0.560 / 0.860, 8
  // warps 0.70-1.13. NVRTC compile time about the same or less (f64 48: 632 ms against 1,156; 64: 920
  // and 963 against 902-1,322 in four runs; 4x4x4 at 64 took 1,181-1,587). Under 5 blocks' cap of 96
  // registers the f64 kernel spills 112-168 bytes from n = 56 (the variable-size class kernel of 64,
  // 852: it keeps 4 blocks, plan-vbatched.ts), the f32 one 12-16 bytes at 56-63, and the f32 65..128
  // shape 12 bytes under its 64 (16x2x2, now from 113), yet each measured fastest of those tried.
  // 65..128 (same run and probe): f64 n = 96 / 128: 16x2x1 6.99 / 12.02, 16x4x1 7.78 / 12.27, 16x8x1
  // 9.34 / 13.83, 8x4x1 7.52 / 13.71, 32 warps (nb 2, 4) 7.38-13.78. f32 128: 16x2x2 5.85, 16x4x2
  // 6.08, 16x4x1 9.76, 32x4x1 9.69, 8x4x1 10.93.
  // Several blocks an SM from 65 (H200, 2026-12-01, scripts/probe/getrf-batched-paths.mjs, the bench's
  // matrices unless "uniform", ms; cuBLAS getrfBatched in the same run): f64 72 x 528 / 1,056 / 2,000 /
  // 4,000: 16x2x1 0.263 / 0.515 / - / - (10,000: 4.83), 4x2x4 0.146 / 0.258 / 0.517 / 1.047, 8x2x2
  // 0.179 / 0.302 / 0.593 / 1.164, 4x4x4 0.146 / 0.273 / 0.552 / 1.123, 8x2x3 0.189 / 0.300 / 0.559 /
  // 1.035, cuBLAS 0.153 / 0.294 / 0.553 / 0.990; uniform 1,056 / 4,000: 4x2x4 0.277 / 1.055, 8x2x2
  // 0.363 / 1.216 (cuBLAS 0.413 / 1.294). 80: 4x2x4 and 8x2x2 alike (0.178 / 0.333 / 0.669 against
  // 0.178 / 0.336 / 0.656 at 528 / 1,056 / 2,000). 88 and 96 x 528 / 1,056 / 2,000 / 4,000: 8x2x2 0.196
  // / 0.387 / 0.762 / 1.489 and 0.247 / 0.422 / 0.827 / 1.618, 4x2x4 0.217-1.802 and 0.329-2.172
  // (slower), cuBLAS 0.201 / 0.422 / 0.787 / 1.418 and 0.232 / 0.467 / 0.870 / 1.566; uniform 96 x
  // 1,056 / 4,000 8x2x2 0.460 / 1.754 (cuBLAS 0.696 / 2.344). 4x2x4 spills 480 bytes at 72 (ptxas,
  // sm_90) yet runs fastest there. f32 72 x 1,056 / 10,000 and 96 x 528 / 1,056 / 4,000 / 10,000:
  // 16x2x2 0.268 / 2.185 and 0.187 / 0.307 / 1.158 / 2.805, 4x4x4 0.182 / 1.519 and 0.129 / 0.235 /
  // 0.932 / 2.202 (no spills), 8x2x3 0.224 / 1.673 and 0.190 / 0.275 / 0.983 / 2.351, cuBLAS 0.259 /
  // 1.542 and 0.199 / 0.381 / 1.060 / 2.457. f32 104 and 112 x 528 / 4,000 / 10,000: 16x2x2 0.290 /
  // 1.793 / 4.355 and 0.267 / 1.930 / 4.685, 8x2x3 0.278 / 1.531 / 3.682 and 0.296 / 1.655 / 3.980
  // (uniform 112 x 1,056 / 4,000: 0.498 / 1.774 against 0.561 / 2.063), cuBLAS 0.233 / 1.291 / 3.013 and
  // 0.242 / 1.409 / 3.264 (0.82-0.85x: on the bench's matrices no rows are swapped). f32 128 x 528:
  // 16x2x2 0.311, 8x2x3 0.373 (1,056 alike), so 16x2x2 from 113. Few matrices an SM (`few`; the
  // same probe, another H200 the same day): f64 72 x 132 / 264 / 396 / 528 8x2x2 0.117 / 0.100 / 0.166 /
  // 0.168, 4x2x4 0.134 / 0.128 / 0.130 / 0.134, cuBLAS 0.130 / 0.132 / 0.140 / 0.147; 80 8x2x2 0.100 /
  // 0.111 / 0.197 / 0.192, 4x2x4 0.148 / 0.165 / 0.171 / 0.177, cuBLAS 0.134 / 0.146 / 0.156 / 0.170.
  // f32 104 and 112 x 528 / 2,000 / 10,000: 8x1x3 0.262 / 0.739 / 3.310 and 0.298 / 0.838 / 3.739 (84
  // bytes of spills), 8x2x3 0.293 / 0.823 / 3.683 and 0.294 / 0.889 / 3.981, 8x2x2 0.249 / 0.902 / 4.240
  // and 0.261 / 0.976 / 4.578, cuBLAS 0.266 / 0.736 / 3.023 and 0.244 / 0.807 / 3.278 (uniform 112 x 528 /
  // 4,000: 8x1x3 0.362 / 1.664, 8x2x2 0.339 / 2.031, cuBLAS 0.395 / 2.313).
  // f64 97-120 (H200, 2026-12-01, the same probe, the bench's matrices, ms, 8x2x2 / 16x4x1 (the band's shape
  // before) / the recursion / cuBLAS): 104 x 264 0.199 / 0.303 / - / 0.232, x 528 0.353 / 0.503 / - / 0.288,
  // x 792 0.526 / - / 0.703 / 0.565, x 1,056 0.750 / - / 0.720 / 0.602, x 2,000 1.402 / - / 1.176 / 1.121;
  // 112 x 264 0.192 / 0.280 / - / 0.241, x 528 0.381 / 0.536 / - / 0.320, x 792 0.566 / - / 0.575 / 0.612,
  // x 1,056 0.752 / - / 0.846 / 0.656, x 2,000 1.474 / - / 1.070 / 1.224; 120 x 264 0.374 / 0.630 / - /
  // 0.328, x 528 0.675 / 0.646 / - / 0.415; 128 x 264 0.320 / 0.300 / - / 0.316, x 528 0.631 / 0.597 / - /
  // 0.448 (16x2x1 0.293, 0.587). 8x2x2 spills at 104-120 (ptxas, sm_90: 128 registers, 1,352 bytes of
  // spill stores at 104 and 112, 2,924 at 120), yet is the fastest tried at 97-112 up to 6 an SM and at
  // 112 x 1,056 (at 104 x 1,056 the recursion was 4% faster: the band's count, 10 an SM, splits the two),
  // and at 113-120 for two an SM or fewer; 16x4x1 spills none.
  registerShapes: {
    float64: [
      { maxN: 64, shape: { warps: 4, nb: 4, minBlocks: 5 } },
      { maxN: 80, shape: { warps: 4, nb: 2, minBlocks: 4 }, few: { maxPerSm: 2, shape: { warps: 8, nb: 2, minBlocks: 2 } } },
      { maxN: 112, shape: { warps: 8, nb: 2, minBlocks: 2 } },
      { maxN: 120, shape: { warps: 16, nb: 4, minBlocks: 1 }, few: { maxPerSm: 2, shape: { warps: 8, nb: 2, minBlocks: 2 } } },
      { maxN: Infinity, shape: { warps: 16, nb: 4, minBlocks: 1 } },
    ],
    float32: [
      { maxN: 64, shape: { warps: 4, nb: 4, minBlocks: 6 } }, { maxN: 96, shape: { warps: 4, nb: 4, minBlocks: 4 } },
      { maxN: 112, shape: { warps: 8, nb: 1, minBlocks: 3 }, few: { maxPerSm: 4, shape: { warps: 8, nb: 2, minBlocks: 2 } } },
      { maxN: Infinity, shape: { warps: 16, nb: 2, minBlocks: 2 } },
    ],
  },
  // The trailing update reads and writes the trailing matrix once per panel, so wider panels cut
  // its traffic: f32 32 vs 16 ran 1.13x (n = 256) and 1.31x (512) faster; f64 0.95x and 1.01x.
  panelWidest: { float64: 16, float32: 32 },
  // The recursive LU over the whole batch. Its leaf widths and thread counts were chosen by ptxas
  // spills, not swept on a GPU; the leaf budget is what 1024 threads leave of the 64K registers less
  // the reduction's.
  //
  // float64 from n = 2560 (H100, 2026-11-26, scripts/probe/getrf-recursion.mjs, one matrix, ms
  // default / recursion / cuSOLVER getrf: 1024 4.93 / 7.43 / 2.41, 2048 16.9 / 18.7 / 5.75, 3000
  // 43.4 / 32.3 / 9.62, 4096 146 / 48.8 / 14.1, 6144 367 / 97.3 / 25.1; its factors agree with
  // cuSOLVER's to 1e-10 max|A| at 1000 ... 6144 (CHECK=1), and its GPU tests against the CPU pass at
  // 256 ... 512; those at 1000 ... 2048 spend their time in the host reference). float32 likewise
  // since the blocked driver (its GPU tests pass in float32, timings below).
  recursion: {
    minN: { float64: 2560, float32: 2560 },
    // Few matrices from 1024 on the blocked driver (H100, 2026-11-26, one matrix,
    // scripts/probe/getrf-blocked.mjs): float64 1024 blocked 64 / wide 64 3.91 ms against 4.93 for
    // the one-block design (cuSOLVER 2.42); 4096 28.6 (the recursion 50.5, cuSOLVER 14.2). float32:
    // 1024 3.53 against 4.66 (cuSOLVER 2.09), 4096 23.2 against 70.9 (cuSOLVER 12.5).
    minNFew: { float64: 1024, float32: 1024 },
    // Batches of at least as many matrices as SMs, from 256 (H100, 2026-11-26, getrf-blocked.mjs,
    // float64, 256 matrices, ms; blocked driver / the one-block-per-matrix design / getrfBatched):
    // 256 1.59 (panels of 64) / 1.84 / 2.10; 512 6.56 (panels of 128) / 10.0 / 9.92; 768 15.3 /
    // 29.4 / 27.0.
    minNMany: { float64: 256, float32: 256 },
    // Batches of mid sizes, from 6 matrices an SM (H200, 2026-11-30, scripts/probe/getrf-batched-paths.mjs,
    // the bench's counts, ms, one block a matrix / the recursion over the batch, panels and leaves as
    // blocked.panelBatch / cuBLAS getrfBatched; the bench's matrices, DATA=bench): float64 65 x 15,883
    // 6.796 / 3.214 / 3.276, 72 6.254 / 2.729 / 2.926, 96 x 7,281 4.704 / 2.419 / 2.729, 128 x 4,096
    // 4.612 / 2.438 / 3.102, 192 x 1,820 5.316 / 2.715 / 4.166; uniform entries: 65 6.852 / 4.280 /
    // 4.255, 96 5.141 / 3.402 / 4.133, 128 5.148 / 3.475 / 4.942; float32 160 x 5,242 5.313 / 4.281 /
    // 4.409, 192 5.797 / 4.102 / 5.044 (uniform entries 160 7.893 / 6.208 / 8.215). float32 96 and
    // 128 stay on the register design: 4.083 / 3.925 and 4.440 / 3.848 on the bench's matrices but
    // 4.375 / 5.422 and 4.826 / 5.479 on uniform ones. The count where the recursion's launches
    // (29-39 of them, about 0.25 ms at the least) cost less than the one-block design's waves (the same
    // probe, COUNT=132,264,528,1056, ms, one block a matrix / the recursion): float64 72 0.148 / 0.314
    // at 264, 0.272 / 0.263 at 528, 0.515 / 0.337 at 1,056; 96 0.179 / 0.346, 0.353 / 0.400, 0.686 /
    // 0.501; 128 0.299 / 0.485, 0.597 / 0.565, 1.179 / 0.769; float32 160 0.549 / 0.570, 0.741 /
    // 0.766, 1.321 / 1.055; 224 0.896 / 0.958, 1.403 / 1.326, 2.577 / 2.110: even at about 4 an SM.
    // With several blocks an SM at 65-96 (registerShapes; H200, 2026-12-01, the same probe, the bench's
    // matrices, ms, the register design / the recursion): f64 72 x 1,056 / 2,000 / 4,000 0.258 / 0.672,
    // 0.517 / 0.523, 1.047 / 0.921 (10,000: 2.68 / 2.09); 80 0.333 / 0.602, 0.656 / 0.569; 88 0.387 /
    // 0.468, 0.762 / 0.720, 1.489 / 1.340; 96 0.422 / 0.510, 0.827 / 0.832, 1.618 / 1.456: the recursion
    // pays from about 15 an SM (on uniform matrices the register design is still ahead at 30 an SM, 72
    // x 4,000 1.055 / 1.227, but both beat cuBLAS's 1.294 there). f64 97-112 from 10 an SM: with 8x2x2
    // (registerShapes' comment) the recursion is behind at 6 an SM (104 x 792 0.703 against 0.526), even
    // at 8 (104 0.720 / 0.750, 112 0.846 / 0.752) and ahead from 15 (2,000); 10 splits the two measured counts. f32 113-128: 128 x 1,056 / 2,000 /
    // 3,000 / 4,000 0.593 / 0.646, 1.155 / 1.089, 1.650 / 1.530, 2.208 / 2.023 (cuBLAS 0.713 / 1.106 /
    // 1.541 / 1.970; uniform 4,000 2.405 / 2.782, cuBLAS 3.511); f32 97-112 stay on the register design
    // (112 x 4,000 / 10,000 1.655 / 1.695, 3.980 / 3.781; uniform 4,000 1.774 / 2.311).
    mid: {
      float64: [{ minN: 65, perSm: 15 }, { minN: 97, perSm: 10 }, { minN: 113, perSm: 6 }],
      float32: [{ minN: 113, perSm: 15 }, { minN: 129, perSm: 6 }],
    },
    widest: { float64: 16, float32: 32 },
    maxThreads: 1024,
    valueRegisters: 40,
  },
  // The blocked LU (re-measure: scripts/probe/getrf-blocked.mjs, cuSOLVER in the same run; the
  // entries below give the measured rows). The recursion was host-bound at 4096 (4,099 launches at 12-13
  // us each, laswp alone 1,406). Panel by panel with the recursion's tall leaves inside a panel it
  // is still ~3,600 (704 leaves of 4 columns: what one SM's registers hold of 3,000+ rows, four
  // launches around each); with the wide leaf (generate-wide.ts: the whole 64-column panel in one
  // launch, register sub-blocks of the tall leaf's width, the rest of the panel in L2) 381 for one
  // 4096 float64 matrix, ~6 a panel (counted on the plan, test/cuda/getrf-blocked.test.ts). Panels
  // of 64: one leaf a panel (128: two and the four launches of the split between them, 537).
  // Lookahead as the Cholesky measured it (from 4096 in float64).
  blocked: {
    minN: { float64: 0, float32: 0 },
    // Panels of 128 for the batches of 385-1023 (only batches take the blocked path there): 512 x 256
    // 6.56 ms against 6.99 with 64, 768 x 256 15.3 against 17.6 (float64, H100, 2026-11-26); 64 at 256
    // (1.59 against 1.67) and for one large matrix.
    // Spread leaves, one matrix (H100, 2026-11-27): float64 panels of 256 from 12288, where the trailing
    // GEMM's k = 64 had cost most (16384: 235.7 ms against 257.8 with 128 and 342.9 with 64; 8192:
    // 78.2 against 70.6 with 64). float32 not measured above 8192: 64 kept.
    panel: {
      float64: [{ maxN: 384, nb: 64 }, { maxN: 1023, nb: 128 }, { maxN: 12287, nb: 64 }, { maxN: Infinity, nb: 256 }],
      float32: [{ maxN: 384, nb: 64 }, { maxN: 1023, nb: 128 }, { maxN: Infinity, nb: 64 }],
    },
    // Spread leaves on batches of 2 and 4 (H100, 2026-11-27, getrf-blocked.mjs, float64, lookahead, ms, panels of 64 / 128
    // / 256; cuSOLVER's getrf a matrix in turn): 4096 x 2 30.3 / 32.7 / 35.3 (28.1), 4096 x 4 38.1 /
    // 38.7 / 41.1 (56.4), 8192 x 2 109.9 / 93.1 / 94.2 (78.8), 8192 x 4 188.5 / 145.7 / 128.9 (157.5):
    // batches take panels of 256 from 8192 as one matrix does from 12288 (6144-8191 not measured:
    // the boundary halfway). float32 batches not measured: the one-matrix table.
    // Mid sizes (recursion.mid; H200, 2026-11-30, scripts/probe/getrf-batched-paths.mjs, the bench's
    // counts and matrices, ms): float64 to 256 one panel of 128 with tall leaves only, 96 x 7,281 /
    // 128 x 4,096 / 256 x 1,024 2.419 / 2.438 / 2.823 (panels of 64 with tall leaves 2.418 / 2.429 /
    // 2.980, with wide leaves of 64 3.593 / 3.434 / 3.071); float32 129-255 wide leaves of 32, 160 x
    // 5,242 / 224 x 2,674 4.281 / 4.786 (wide leaves of 64 4.523 / 4.810, tall leaves of 32 4.364 / 5.038).
    panelBatch: {
      float64: [{ maxN: 256, nb: 128, wideLeaf: 0 }, { maxN: 384, nb: 64 }, { maxN: 1023, nb: 128 }, { maxN: 6143, nb: 64 }, { maxN: Infinity, nb: 256 }],
      float32: [{ maxN: 255, nb: 64, wideLeaf: 32 }, { maxN: 384, nb: 64 }, { maxN: 1023, nb: 128 }, { maxN: Infinity, nb: 64 }],
    },
    lookaheadFrom: { float64: 4096, float32: 4096 },
    wideLeaf: { float64: 64, float32: 64 },
    // Leaf sub-block width (H100, 2026-11-27, scripts/probe/getrf-cluster-f32.mjs, one float32 matrix, cluster leaves from
    // 1024 rows, ms, sub-blocks of 16 / the recursion's 32; cuSOLVER in the same run): 1100 3.75 / 3.95
    // (2.38), 2048 7.93 / 8.23 (4.87), 4096 18.89 / 19.14 (12.46). And a cold first call: NVRTC
    // compiles a float32 wide leaf of 32-column sub-blocks in ~10 s (32 unrolled columns; one a
    // thread count, five for n = 1100), one of 16 in ~3: the first float32 LU of n = 1100 took 63 s
    // on a fresh machine; the leaves of 16 compiled in 14 s (the other kernels already compiled).
    // float64 keeps the recursion's 16.
    widest: { float64: 16, float32: 16 },
    // The wide leaf over many blocks (generate-spread.ts; H100, 2026-11-27, scripts/probe/getrf-spread.mjs,
    // one m x 64 panel, H100, ms, wide / spread over at most 32 blocks): float64 1024 0.29 / 0.31,
    // 2048 0.36 / 0.36, 4096 0.58 / 0.37, 8192 1.10 / 0.42, 16384 2.93 / 0.51 (at most 16 / 64 / 128
    // blocks: 0.43 / 0.46 / 0.48 at 4096, 0.40 / 0.46 / 0.49 at 8192, within 6% at 16384); float32 4096
    // 0.45 / 0.33. The spread leaf costs 5-8 us a column whatever m (its grid-wide exchange), the wide leaf grows with m. Whole
    // LU, lookahead (getrf-blocked.mjs): float64 4096 28.98 -> 25.85 ms, 8192 106.0 -> 70.6, 16384
    // 532.7 -> 342.9 (235.7 with panels of 256); float32 4096 23.5 -> 22.4, 8192 72.4 -> 60.7.
    // On for one matrix from 2560 rows: the whole-LU runs above (one matrix; float64 pivots equal to
    // cuSOLVER's, float32 as far from them as the wide leaf's: near ties), the one-panel probe (the
    // spread leaf's output equal to the wide leaf's, both dtypes) and the host emulation with every block at once
    // (test/cuda/getrf-spread-host-emulation.test.ts: partial blocks, several matrices, ties, zero
    // columns, NaN) checked it; so do the GPU tests (test/gpu/getrf-spread.test.ts: the leaf alone
    // against dgetf2 and n = 2600 by residual; factor.test.ts "spread leaves", odd layouts, 1-5
    // matrices, singular and NaN, against the CPU). Batches of up to 4 (32 blocks
    // a matrix: 128 of the 132 SMs; H100, 2026-11-27), float64 lookahead, ms, wide / spread leaves (panels
    // of 64): 4096 x 2 32.1 / 30.3, 4096 x 4 38.7 / 38.1, 8192 x 2 (panels of 128) 125.0 / 93.1,
    // 8192 x 4 (panels of 256 spread, 128 wide) 155.7 / 128.9.
    // The cluster form (generate-spread.ts; H100, 2026-11-27, scripts/probe/getrf-spread.mjs, one
    // m x 64 panel, ms, wide / grid form / cluster of 16 blocks of 512 threads, final kernel):
    // float64 1024 0.524 / 0.365 / 0.233, 2048 0.331 / 0.316 / 0.232, 4096 0.542 / 0.353 / 0.281
    // (factors and pivots equal to the wide leaf's; the wide leaf's 1024 row an outlier: 0.21-0.36
    // in earlier runs); 256 threads a block 2-66% slower (mostly 3-12%), 1024 no faster; at 512
    // rows the wide leaf won (0.173 against 0.203). Whole LU, float64, default plan
    // (getrf-blocked.mjs; cuSOLVER in the same run; each row from a fresh machine of the same
    // type): 2048 9.98-10.26 (wide leaves) -> 8.86 ms (5.78), 4096 25.85 (the grid form from 2560
    // rows; 26.5-26.9 in the same runs) -> 20.36 (14.06), 8192 70.6 (71.0-73.2 in the same runs)
    // -> 65.6 (39.3); pivots equal to cuSOLVER's. float32: the leaf alone (1024 0.326 / 0.296,
    // 4096 0.440 / 0.270, 8192 0.693 / 0.412). A whole float32 LU's first call on a fresh machine
    // spends its time in NVRTC compiling the float32 wide leaves (~10 s each, see `widest`), not on
    // the GPU. Whole float32
    // LU, cluster leaves from 1024 rows / the grid form from 2560 (H100, getrf-cluster-f32.mjs, ms,
    // cuSOLVER in the same run): 1100 4.01 / 3.97 (2.39), 2048 8.28 / 8.75 (4.87), 4096 19.16 /
    // 22.46 (12.43); pivots equal to cuSOLVER's at 1100 and 2048 (4096: near ties, 2584 rows
    // equal on both paths, as for the wide leaf).
    // The exchange (H100, 2026-11-27; scripts/probe/getrf-exchanges.sh, leaf alone, ms, pull / push / signal /
    // pull fused / push fused / signal fused; every output equal to the wide leaf's): float64 1024
    // x 64 0.293 / 0.252 / 0.235 / 0.231 / 0.199 / 0.220, 2048 0.232 / 0.235 / 0.253 / 0.237 /
    // 0.221 / 0.286, 4096 0.284 / 0.254 / 0.294 / 0.272 / 0.250 / 0.305; float32 1024 0.237 / 0.259
    // / 0.212 / 0.213 / 0.193 / 0.223, 4096 0.249 / 0.241 / 0.252 / 0.253 / 0.229 / 0.254, 8192
    // 0.322 / 0.293 / 0.320 / 0.316 / 0.312 / 0.305. Whole LU (getrf-blocked.mjs, one matrix, ms,
    // pull / push / push fused, cuSOLVER in the same run): float64 1024 4.11 / 3.86 / 3.87 (2.41),
    // 2048 8.96 / 8.56 / 8.72 (5.79), 4096 20.66 / 19.42 / 19.62 (14.07); float32 1024 3.47 / 3.48 /
    // 3.46 (2.08), 2048 7.94 / 7.90 / 7.73 (4.89), 4096 18.94 / 18.70 / 17.88 (12.46); pivots equal
    // to cuSOLVER's on every path. signal was slower than push in the whole LU (9.14 / 21.56 ms at
    // 2048 / 4096). So push in both dtypes, the fused search in float32 only (float64: 1-2% slower
    // whole, within the runs' spread; float32 2-4% faster). The grid form (float64 from 8192) is
    // unchanged by the fused search (65.5 / 65.3 ms at 8192).
    // float64 cluster leaves from 513 rows (H200, 2026-11-28, `bench getrf`, two runs each, ms, from 1024 / from
    // 513 rows): 600 x 1 2.09-2.15 / 2.07-2.12, 1024 x 1 3.31 / 3.25-3.32, 1024 x 4 3.40-3.46 / 3.44-3.49, 4096 x 4
    // 25.99-26.10 / 25.94-26.07: the same time, and the 513-1023-row panels no longer need the wide leaf of
    // 1024 threads, the slowest kernel to compile (1.5 s of nvcc; a cold getrf 4096 x 4 waited for it).
    spreadLeaf: {
      minRows: { float64: 2560, float32: 2560 }, maxCount: 4, maxBlocks: 32, fusedSearch: { float64: false, float32: true },
      cluster: { blocks: 16, minRows: { float64: 513, float32: 1024 }, threads: 512, exchange: 'push' },
    },
  },
};

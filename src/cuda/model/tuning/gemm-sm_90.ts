/**
 * Hopper (H100/H200): 132 SMs, 2048 threads, 64K registers, 228 KiB shared memory per SM.
 * Only what differs from the defaults; measured winners go here.
 */
import { defaultGemmTuning } from './gemm-default.js';
import type { GemmTuningOverrides } from './gemm-types.js';

// Winners of the parameter sweep (then in test/gpu/gemm.test.ts, now src/cuda/tune/gemm-sweep.ts) on an NVIDIA
// H200 (sm_90, 132 SMs), 2026-11-25: square N x N, beta = 0, about 1 GB of dense strided matrices.
export const sm90GemmTuning: GemmTuningOverrides = {
  // float64 beyond 24 goes to the tensor cores: at 32 the mma kernel measured 10.2 vs 7.9 TFLOP/s.
  smallMaxDim: { float64: 24, float32: 32 },
  smallWinners: [
    // 2 .. 4: 64-thread blocks (float32 4 x 4: 3040 vs 2940 GB/s).
    { dtype: 'float32', minDim: 1, maxDim: 4, threadsPerBlock: 64 },
    // 9 .. 24: fewer matrices per block (float64 16: 3800 vs 3370 GB/s with 4 items per thread;
    // measured at 16, assumed up to 24).
    { dtype: 'float64', minDim: 9, maxDim: 24, threadsPerBlock: 128, itemsPerThread: 1 },
    { dtype: 'float32', minDim: 9, maxDim: 24, threadsPerBlock: 128, itemsPerThread: 2 },
    { dtype: 'float32', minDim: 25, maxDim: 32, threadsPerBlock: 128, itemsPerThread: 2, maxThreadsPerMatrix: 128 },
  ],
  // C = A B + C: staging C up front against reading it at the tile's end (H200, 2026-12-02, `node
  // scripts/probe/gemm-small-beta.mjs float64 4,8,9,...,24` and `float32 4,8,9,...,32`, NN, 256 MiB of
  // A, B and C, ms unstaged -> staged). float64: 9-15 and 17-23 staged (9 0.178 -> 0.136, 12 0.181 ->
  // 0.124, 20 0.189 -> 0.139, 22 0.222 -> 0.151, 23 0.238 -> 0.134; 21 0.183 -> 0.177), unstaged at
  // 4 (0.124 -> 0.159), 8 (0.116 -> 0.131), 16 (0.105 -> 0.111; 0.097 -> 0.101 in an earlier run) and
  // 24 (0.203 -> 0.228). float32: 9-32 staged (9 0.212 -> 0.137, 16 0.142 -> 0.126, 24 0.259 ->
  // 0.143, 32 0.151 -> 0.134), unstaged at 4 (0.132 -> 0.164) and 8 (0.146 -> 0.149). 5-7 unmeasured.
  smallStageCReadingC: {
    float64: [{ minDim: 9, maxDim: 15 }, { minDim: 17, maxDim: 23 }],
    float32: [{ minDim: 9, maxDim: 32 }],
  },
  // FP64 tensor cores with Hopper's m16n8k8 (the sm_80 m8n8k4 ran at about half the rate: 23.7 vs
  // 37 TFLOP/s at n = 256 for 128x128 tiles). Sweep on an H100 SXM, 2026-11-26, 1 GB per call:
  // n = 32: 32x32x32 s2 0.348 ms (cuBLAS 0.357); n = 64: 64x64x16 w4x2 s3 0.352 (0.353);
  // n = 128: 128x128x16 w2x4 s3 0.368 (0.368; s4 0.360, but TT spills with 4 stages);
  // n = 256: 64x64x8 s4 0.536 (0.416).
  // Variable-size float64 classes above 32 on the tensor cores (H200, 2026-11-29, `myriad bench gemm
  // --vbatched b --dtype float64`, 20,000 members of 1-512): 29.6 -> 16.8 ms with host tables, 29.5
  // -> 15.2 ms with device tables, against the tiled class kernels.
  vbatchedMma: true,
  // The staged class kernels up to 32 (members a block, tm x tn of C a thread), H200, 2026-11-29,
  // `MYRIAD_QUICK_FIRST=0 node scripts/probe/vbatched-small-sweep.mjs` (workload a's members of each
  // class, the class kernel alone), ms of the planner's model shape -> this one: float64 8: 0.045 ->
  // 0.040, 16: 0.078 -> 0.075, 24: 0.206 -> 0.093, 32: 0.311 -> 0.141; float32 16: 0.063 -> 0.053,
  // 24: 0.085 -> 0.076, 32: 0.186 -> 0.092 (float32 8: the model's 0.031, within the noise of the
  // best). A thread count per member that covers the bound's square in one pass (24: 2 x 3 -> 96)
  // beat the larger register tiles. Measured on the H200 only; every sm_90 card takes this table's
  // shapes until its own are measured (an H100's classes are as memory-bound, at 3.35 TB/s).
  vbatchedSmall: {
    float64: {
      8: { design: 'staged', members: 8, tm: 1, tn: 2 },
      16: { design: 'staged', members: 2, tm: 2, tn: 2 },
      24: { design: 'staged', members: 2, tm: 3, tn: 2 },
      32: { design: 'staged', members: 2, tm: 2, tn: 4 },
    },
    float32: {
      16: { design: 'staged', members: 8, tm: 4, tn: 2 },
      24: { design: 'staged', members: 2, tm: 3, tn: 2 },
      32: { design: 'staged', members: 2, tm: 2, tn: 4 },
    },
  },
  // The tensor-core class kernels of 33-48 and 49-64 (float64), H200, 2026-11-29, the same probe's
  // kernel-alone rows (workload a's members of each class, C += A B, NN): 33-48 on the mma band of
  // 48 (32x32x32 w2x2 s2) 1.219 ms, 32x32x16 w2x2 s3 0.858; 49-64 on the band of 64 (64x64x16 w4x2
  // s3) 1.129 ms, 64x32x16 w2x2 s2 0.892.
  //
  // Swept again (H200, 2026-12-01, the same probe with one 64 x 64 tile a member added), kernel ms
  // of the shapes above -> the table's: float64 33-48 0.891 -> 0.851 (64x64x8 w2x2 s4), 49-64
  // 0.924 -> 0.771 (the same); float32 (the planner's bands before) 33-48 0.690 -> 0.579 (48 x 48
  // x 16, 4 x 4 a thread), 49-64 0.595 -> 0.467 (64 x 64 x 8, 8 x 8). Measured NN only; every op
  // pair takes them (16 accumulator tiles a warp: the class kernels of every op pair and beta,
  // both forms, compile for sm_90 in 178-194 registers without spills, float32's in 103-168).
  //
  // float64 33-48 on the uniform padding rule's 48 x 48 x 8 tile of three warps along m (H200,
  // 2026-12-02, the same probe with `DTYPES=float64 FROM=33 MMA48=...`), kernel ms 64 x 64 x 8 ->
  // 48 x 48 x 8: 0.826 -> 0.757 on the workload's members (packed: half of them start off 16 bytes
  // or have an odd ld, and copy in 8-byte halves), 0.762 -> 0.589 with every member aligned
  // (`ALIGN=1`); with two blocks an SM asked of ptxas 0.845. 49-64 stays on 64 x 64 (48 x 48: 1.199).
  // The 48 x 48 class kernels of every op pair and beta, both forms: 130-184 registers, no spill.
  vbatchedLarge: {
    float64: {
      48: { design: 'mma', bm: 48, bn: 48, bk: 8, wm: 3, wn: 1, stages: 4 },
      64: { design: 'mma', bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 },
    },
    float32: {
      48: { design: 'tiled', bm: 48, bn: 48, bk: 16, tm: 4, tn: 4 },
      64: { design: 'tiled', bm: 64, bn: 64, bk: 8, tm: 8, tn: 8 },
    },
  },
  // complex128 without transposes on the tensor cores (the real embedding) from max(m, n, k) = 32.
  complex: {
    ...defaultGemmTuning.complex,
    mmaFrom: 32,
    // The very-small kernel on pairs: one work item a thread, 256-thread blocks. H200, 2026-11-30,
    // `node scripts/probe/zgemm-small.mjs` (the bench's workload: C = A B, 1 GiB of operands; every
    // shape of a grid of threads a block, items a thread and threads a matrix, C staged or not), ms
    // and % of the copy rate, the rule's shape against the default rules' (128-thread blocks, 4
    // items a thread): complex64 12 tbc8 rn6 t192 0.281 (90.8%) against tbc8 rn3 t96 0.401
    // (63.5%); 16 tbc4 rn4 t256 0.289 (88.0%) against tbc8 rn4 t128 0.470 (54.1%); complex128 16
    // tbc4 rn4 t256 0.286 (89.2%) against tbc5 rn4 t96 0.339 (75.4%); the grid's best were within 3%
    // of them (complex64 12 with C staged 0.275). At 12 the narrower column groups (threads a matrix
    // to 32) won, at 16 the default's (64). Measured at 12 and 16; 9-11 and 13-15 take the rule of
    // the nearer size (measured after: every order 9-16 in both types faster than the default
    // rules, 70-94% of the copy rate). Up to 8 the default rules run at 91-98% (not swept).
    //
    // Above 16 the very-small kernel too (to 32, `smallMaxDim`), where the tiled kernel (and
    // complex128's mma kernel at 32) ran: the same probe, `GRID=wide N=20,24,28,32` (128 or 256
    // threads a block, 1 or 2 items a thread, 64-256 threads a matrix), ms of the rule's shape /
    // the kernel it replaced / cuBLAS: complex128 20 0.292 / 0.942 / 0.956, 24 0.322 / 0.636 /
    // 0.504, 28 0.364 / 0.631 / 0.376, 32 0.343 / 0.444 / 0.326 (32 stays cuBLAS's by the card's
    // vendor table); complex64 20 0.346 / 1.092 / 0.840, 24 0.354 / 0.845 / 0.621, 28 0.365 / 0.705
    // / 0.515, 32 0.377 / 0.606 / 0.412. Each rule is its size's best of the grid; the orders
    // between take the rule of the band's measured size.
    smallWinners: [
      { dtype: 'float64', minDim: 9, maxDim: 12, threadsPerBlock: 256, itemsPerThread: 1, maxThreadsPerMatrix: 32 },
      { dtype: 'float32', minDim: 9, maxDim: 12, threadsPerBlock: 256, itemsPerThread: 1, maxThreadsPerMatrix: 32 },
      { dtype: 'float64', minDim: 13, maxDim: 16, threadsPerBlock: 256, itemsPerThread: 1 },
      { dtype: 'float32', minDim: 13, maxDim: 16, threadsPerBlock: 256, itemsPerThread: 1 },
      { dtype: 'float64', minDim: 17, maxDim: 20, threadsPerBlock: 256, itemsPerThread: 1, maxThreadsPerMatrix: 128 },
      { dtype: 'float64', minDim: 21, maxDim: 32, threadsPerBlock: 128, itemsPerThread: 1, maxThreadsPerMatrix: 128 },
      { dtype: 'float32', minDim: 17, maxDim: 20, threadsPerBlock: 128, itemsPerThread: 2, maxThreadsPerMatrix: 128 },
      { dtype: 'float32', minDim: 21, maxDim: 24, threadsPerBlock: 256, itemsPerThread: 2, maxThreadsPerMatrix: 64 },
      { dtype: 'float32', minDim: 25, maxDim: 28, threadsPerBlock: 256, itemsPerThread: 1, maxThreadsPerMatrix: 64 },
      { dtype: 'float32', minDim: 29, maxDim: 32, threadsPerBlock: 256, itemsPerThread: 1, maxThreadsPerMatrix: 256 },
    ],
    smallMaxDim: { float64: 32, float32: 32 },
  },
  // Batched products by C's smaller side (H200, 2026-11-30, `MYRIAD_QUICK_FIRST=0 [TRANSB=T] node
  // scripts/probe/gemm-update-shapes.mjs`: C += A op(B) at trmm's counts, the recursions' update
  // shapes m = k = n / 2 ... 32 for n = 64 ... 512, and squares). Up to 96, 32 x 32 tiles of three
  // stages were the fastest or within 3% in NN and NT (64 x 128 x 64 NN 0.330 ms against 0.871
  // with the band of max(m, n), 128 x 128 tiles; square 32 0.639 against 0.862); at 97-160 64 x
  // 64 tiles (NT 128 x 512 x 128 0.225 against 0.259 for 32 x 32, NN within 3%). Above, `mma`.
  // These bands serve where max(m, n) is above 160 (the padding rule decides below it).
  // Squares by padding (C's tiles' area over C's, times the tile's cost a covered element), H200,
  // 2026-12-01, `MYRIAD_QUICK_FIRST=0 node scripts/probe/gemm-mid-tiles.mjs float64|float32 <orders>
  // 132,528,2112,bytes` (C = A B, every tile forced on the same data beside cuBLAS's strided batched
  // call; 'bytes': the vendor sweep's 256 MiB). float64 to 96: one 64 x 64 x 8 tile (2 x 2 warps, 4
  // stages) a matrix from 33 to 64 at the sweep's counts, ms against the 32 x 32 x 16 s3 band that
  // ran before: 33 0.144 / 0.216, 40 0.103 / 0.133, 48 0.093 / 0.105, 56 0.086 / 0.100, 63 0.103 /
  // 0.114 (cuBLAS 0.205, 0.100, 0.081, 0.082, 0.106); 65-96 the 32 x 32 tiles stay ahead (72 0.136 /
  // 0.159, 96 0.099 / 0.121): per covered element they cost 1.1-1.5 times the 64 x 64 tile's.
  // float32: 64 x 64 x 8 (8 x 8 a thread) from 33 to 64 (40 0.168 against the band's 0.237, cuBLAS
  // 0.183), 32 x 32 x 16 (4 x 4) where it pads least (72 0.270 / 0.386, 80 0.213 / 0.312, 160 0.273
  // / 0.441; cuBLAS 0.242, 0.231, 0.286), 64 x 64 at 192-448 but 384 (288 0.429 / 0.570, 448 0.530 /
  // 0.630; cuBLAS 0.408, 0.491), 128 x 128 where it pads no more (112, 128, 224, 256, 384: 1.01-1.09x
  // cuBLAS in the vendor sweep). Costs fitted to those: 32 x 32 about 1.4 times 64 x 64 a covered
  // element at every order measured, 128 x 128 about 0.95 of it.
  // float64 to 160 (2026-12-01, the same probe with `MMA` naming the tiles, BENCHMARKS.md "other tiles
  // of the mma kernel"): a 48 x 48 x 8 tile of three warps along m (warp tiles 16 x 48, 4 stages,
  // 120-150 registers, no spill) was the fastest tile wherever it pads little (36-48, 72, 96, 144:
  // 1.09-1.85x cuBLAS), at 1.1 times the 64 x 64 tile's cost a covered element; 64 x 64 x 8 with two
  // blocks an SM beat the 97-160 band (64 x 64 x 16, 4 x 2 warps) by 6-11% at 112, 144, 160.
  // float64 161-512 (2026-12-02, the same probe, `MMA` naming 128 x 64, 96 x 64, 64 x 64 three
  // blocks an SM and 48 x 48 beside the plan's band, 64 x 64 x 8 s4): none beat the band where it
  // pads least; the 48 x 48 tile did where it pads less (224 0.160 against 0.172 ms, 288 0.170
  // against 0.199; cuBLAS 0.141, 0.157), at 1.09-1.10 times its cost a covered element where both
  // cover C exactly (192, 384). The 32 x 32 tile's cost grows with the depth: at 160, where it alone
  // covers C exactly, 0.190 ms against 0.156 for 48 x 48 (and 0.152 for 64 x 64 in the run of
  // 2026-12-01: 1.8 times the latter's cost a covered element): it serves C whose smaller side is
  // at most 128 (narrow C, as 32 x 160, where it pads least). Where C's smaller side is within
  // mmaSmallSide's bands and its larger above them, the bands decide (the recursions' updates).
  mmaByPadding: {
    maxDim: 512,
    tiles: [
      // At least two blocks an SM: 151-176 registers and no spill in any op pair (nvcc 13, sm_90).
      // The plain bound gave NN 128 and a 16-byte spill; three blocks, TT a 4-byte one.
      { config: { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4, minBlocks: 2 }, cost: 1 },
      { config: { bm: 48, bn: 48, bk: 8, wm: 3, wn: 1, stages: 4 }, cost: 1.1 },
      { config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 }, cost: 1.3, maxSide: 128 },
    ],
  },
  tiledByPadding: {
    float32: {
      maxDim: Infinity,
      tiles: [
        { config: { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 }, cost: 0.95 },
        { config: { bm: 64, bn: 64, bk: 8, tm: 8, tn: 8 }, cost: 1 },
        { config: { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 }, cost: 1.4 },
      ],
    },
  },
  mmaSmallSide: [
    { maxDim: 96, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 } },
    { maxDim: 160, config: { bm: 64, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 } },
  ],
  // C's triangle alone (syrk's one launch, k = n), by op(A) (H200, 2026-11-30, `MYRIAD_QUICK_FIRST=0
  // node scripts/probe/syrk-triangle-tiles.mjs 36,40,...,128 float64 N|T`: lower, the bench's counts,
  // eight shapes forced; ms, the best shape against `mma`'s band). N: 36 0.521 (16 x 16 x 8, one warp,
  // 4 stages) / 0.900, 40-60 32 x 32 x 8 w2x2 s4 (48 0.402 / 0.541, 60 0.371 / 0.402), 64 64 x 64 x 8
  // w2x2 s4 0.307 / 0.376 (one tile, no waste), 72-96 32 x 32 x 8 (72 0.477 / 0.560, 96 0.399 / 0.413),
  // 104-128 64 x 64 x 8 (104 0.473 / 0.585, 128 0.359 / 0.422). T: 40 16 x 16 x 8 s4 0.399 / 0.676,
  // 48 16 x 16 x 16 s3 0.328 / 0.444, 56-128 32 x 32 x 16 w2x2 s3 (64 0.306 / 0.320, 112 0.460 /
  // 0.676, 128 0.368 / 0.534; the best or within 10%). Above 128, `mma`'s band.
  mmaTriangle: {
    N: [
      { maxDim: 36, config: { bm: 16, bn: 16, bk: 8, wm: 1, wn: 1, stages: 4 } },
      { maxDim: 63, config: { bm: 32, bn: 32, bk: 8, wm: 2, wn: 2, stages: 4 } },
      { maxDim: 64, config: { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 } },
      { maxDim: 96, config: { bm: 32, bn: 32, bk: 8, wm: 2, wn: 2, stages: 4 } },
      { maxDim: 128, config: { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 } },
    ],
    T: [
      { maxDim: 40, config: { bm: 16, bn: 16, bk: 8, wm: 1, wn: 1, stages: 4 } },
      { maxDim: 48, config: { bm: 16, bn: 16, bk: 16, wm: 1, wn: 1, stages: 3 } },
      { maxDim: 128, config: { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 } },
    ],
  },
  mma: [
    { maxDim: 48, config: { bm: 32, bn: 32, bk: 32, wm: 2, wn: 2, stages: 2 } },
    { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 } },
    { maxDim: 160, config: { bm: 128, bn: 128, bk: 16, wm: 2, wn: 4, stages: 3 } },
    { maxDim: 1024, config: { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 } },
    // One large C (the factorizations' trailing updates): tiles in groups of 16 tile rows, so the
    // blocks resident at once share A's and B's panels in L2 (H100, 2026-11-26: C 8192^2 -= A A^T,
    // k = 512, 34.2 -> 37.6 TFLOP/s; potrf 16384 57.2 -> 54.0 ms). Below, the plain order keeps
    // the 128 registers (4 blocks per SM) that batched squares need (the grouping's index
    // arithmetic took 146: 5-13% lost at n = 192 ... 1024).
    { maxDim: Infinity, config: { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4, tileGroup: 16 } },
  ],
  // The TMA-fed design (generate-tma.ts): chosen, not measured, and taken only where forced.
  // 128 x 128 tiles of 8 consumer warps of 64 x 32 (64 accumulators a thread), 4 stages of 32 KiB.
  tma: [
    { maxDim: 256, config: { bm: 128, bn: 64, wm: 2, wn: 2, stages: 4 } },
    { maxDim: Infinity, config: { bm: 128, bn: 128, wm: 2, wn: 4, stages: 4, tileGroup: 16 } },
  ],
  tiled: {
    float64: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 2, tn: 2 } },
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 } },
      { maxDim: Infinity, config: { bm: 64, bn: 128, bk: 8, tm: 4, tn: 8 } },
    ],
    float32: [
      { maxDim: 48, config: { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 } },
      // 64 threads of 8 x 8 (n = 64: 0.369 vs 0.394 ms for 256 threads of 4 x 4, H100, 1 GB).
      { maxDim: 96, config: { bm: 64, bn: 64, bk: 16, tm: 8, tn: 8 } },
      { maxDim: Infinity, config: { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 } },
    ],
  },
};

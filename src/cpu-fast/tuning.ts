/**
 * The cpu-fast backend's tuning as data: where one kernel family hands over to the next and the
 * shapes of its designs, each entry with the measurement that chose it. Nothing here reads the
 * environment: environment.ts turns the MYRIAD_CPU_* switches into overrides of this table, and
 * context.ts reads them once, when the backend first asks (cpuTuning()).
 */
import type { ComplexDType, PerDType } from '../core/dtype.js';

/** An inclusive range of sizes. */
export interface SizeRange { readonly min: number; readonly max: number }

/** What a caller of an op may fix for tests, benchmarks and sweeps: the design, or the whole table. */
export interface OpOptions<Force> { readonly force?: Force; readonly tuning?: CpuTuning }

/** Kernel families with a fused multiply-add form (relaxed SIMD's relaxed_madd / relaxed_nmadd in their updates). */
export type FmaKernel = 'gemm' | 'potrf' | 'potrfInterleaved' | 'getrfBlock';
/** 'auto': the table's ranges where the engine validates relaxed SIMD; 'off': never; 'on': every family at every size. */
export type FmaMode = 'auto' | 'off' | 'on';

/** The WebAssembly gemm's register and cache blocking (kernels/gemm-wasm.ts). */
export interface GemmTiles {
  readonly tile: Readonly<{ rv: number; nr: number }>;
  readonly threeVectorTile: Readonly<{ rv: number; nr: number }>;
  readonly fmaTile: Readonly<{ rv: number; nr: number }>;
  readonly unroll: number;
  readonly blockBytes: number;
}

export interface Blocking { readonly min: number; readonly leaf: number }
export interface InterleavedShape { readonly form: 'locals' | 'loop'; readonly pairsPerTrip: 1 | 2 }

/** The whole table (every field documented with its measurement in DEFAULT_CPU_TUNING). */
export interface CpuTuning {
  readonly fmaMode: FmaMode;
  readonly fma: Readonly<Record<FmaKernel, SizeRange>>;
  readonly unrollMax: Readonly<{ cholesky: number; potrs: number; lu: number; getrsTrans: number; gemm: PerDType<number>; triangular: number; syrk: number; inverse: number }>;
  /** gemm's variant forced for tests and benchmarks (MYRIAD_CPU_GEMM); undefined: the table decides. */
  readonly gemmForce: 'js' | 'wasm' | undefined;
  readonly gemmWasm: PerDType<GemmTiles>;
  readonly gemmWasmChunkBytes: number;
  readonly luWasmMax: number;
  readonly complexUnrollMax: Readonly<{ cholesky: number; potrs: number; lu: number; gesv: number; gemm: number; trsm: number }>;
  readonly complexGemmWasm: Readonly<Record<ComplexDType, SizeRange>>;
  readonly complexGemmWasmBlock: Readonly<{ rows: number; cols: number }>;
  readonly complexCholeskyWasm: Readonly<{
    factor: Readonly<Record<ComplexDType, SizeRange>>; potrs: SizeRange; rows: number; pairs: SizeRange; pairRows: number;
  }>;
  readonly complexLuWasm: Readonly<Record<'getrf' | 'gesv' | 'getrs', SizeRange>>;
  readonly complexLuWasmCols: number;
  readonly complexLuWasmGroup: number;
  readonly complexLuWasmSolveLoopMin: number;
  readonly complexLuWasmFactorLoopMin: number;
  readonly complexLuWasmPairs: SizeRange;
  readonly complexLuWasmPairGroup: number;
  readonly complexLuWasmPairLoopMin: number;
  readonly complexLuWasmPairCrout: Readonly<{ min: number; rows: number }>;
  readonly complexQrWasmPairs: SizeRange;
  readonly complexGetriWasmPairs: SizeRange;
  readonly complexHeevTridiagonal: Readonly<{ vectors: SizeRange; values: SizeRange }>;
  readonly syevTridiagonal: Readonly<{ vectors: SizeRange; values: SizeRange }>;
  readonly complexGesvdWasmPairs: SizeRange;
  readonly luWasmBlock: Readonly<{ min: number; nb: number }>;
  readonly luWasmPairsMax: number;
  readonly luBlocked: Blocking;
  readonly choleskyWasmMax: number;
  readonly triSolveWasmMax: number;
  readonly trsmLeftWasm: PerDType<SizeRange>;
  readonly triangularBlockedMax: number;
  readonly syrkBlockedMax: number;
  readonly inverseBlockedMax: number;
  readonly interleavedNMax: number;
  readonly choleskyInterleaved: PerDType<SizeRange>;
  readonly posvInterleaved: SizeRange;
  readonly posvComposed: SizeRange;
  readonly interleavedMemoryFormMin: number;
  readonly gesvInterleaved: PerDType<SizeRange>;
  readonly gesvInterleavedLoopMin: number;
  readonly gesvInterleavedLocalsMax: number;
  readonly gesvInterleavedPairsPerTrip: 1 | 2;
  readonly interleavedChunkBytes: Readonly<{ potrf: number; posv: number; gesv: number }>;
  readonly interleavedPairsPerTrip: 1 | 2;
}
/**
 * The WebAssembly gemm's register and cache blocking (kernels/gemm-wasm.ts): the micro-tile
 * (rv vectors of rows x nr columns of accumulators) with a multiply then an add, and with
 * relaxed_madd (no temporary, so one more accumulator fits), k steps per loop trip, and the
 * bytes of A's row block kept in L2 across column blocks. Measured on the 2-core EPYC (Node 20,
 * kernel alone, n = 8 ... 128): 2x4 reaches 22-24 GFLOP/s float64 and 44-48 float32 of the
 * 25 / 50 that independent 128-bit multiply-adds reach; 2x5, 2x6, 3x4, 4x3 spill (V8 allocates
 * 15 xmm registers: 8 accumulators + 2 of A + 4 splats of B + a product is 15) and fall to
 * 12-15; with relaxed_madd 3x3 fits (23.9), no faster. Unrolling k in the generator makes
 * TurboFan hoist every load of the unrolled trip to its top and spill (15 GFLOP/s); one step per
 * trip, it unrolls the loop itself without spilling.
 */
const GEMM_TILES: GemmTiles = Object.freeze({
  tile: Object.freeze({ rv: 2, nr: 4 }),
  /** Where m is exactly 3 vectors (float64 m = 5, 6; float32 9 ... 12): one 3 x 2 tile per column pair, 7-15% over 2x4 and its 1-vector edge. */
  threeVectorTile: Object.freeze({ rv: 3, nr: 2 }),
  /**
   * With relaxed_madd, where m is a multiple of 3 vectors (no partial tile); elsewhere the fused
   * kernel keeps the tiles above. Measured (Node 24, one thread, bench gemm ms a call, 9 rounds,
   * fused 3x3 everywhere / fused on the plain tiles): float64 6 1.43 / 1.60, 12 1.72 / 1.85, 8
   * 1.67 / 1.59, 64 4.96 / 4.82; float32 4 1.68 / 1.45, 16 2.34 / 2.01, 64 4.97 / 4.69.
   */
  fmaTile: Object.freeze({ rv: 3, nr: 3 }),
  unroll: 1,
  blockBytes: 256 << 10,
});

/**
 * The table, measured on a 2-core AMD EPYC (Node 20, 2026-11-26 ... 2026-11-27;
 * docs/cpu-backend.md). Re-measure with `scripts/bench-cpu.sh` (every benchmarked op, one thread
 * and all cores, numpy beside it), `node scripts/bench-cpu-ops.mjs` (trsm, trmm, trtri, lauum,
 * potri) or `MYRIAD_BENCH_CLOCK=cpu MYRIAD_THREADS=1 node dist/src/cli.js bench <op> --backend
 * cpu --sizes ...`; the environment switches (environment.ts) force one side of a choice for such
 * comparisons, and each family's plan takes a `force` for tests.
 */
export const DEFAULT_CPU_TUNING: CpuTuning = Object.freeze({
  /**
   * Where the kernels use relaxed SIMD's fused multiply-add, when the engine validates it
   * (wasm/features.ts): per family, the sizes n where it is on by default (gemm: the largest of m,
   * n, k). Fused, each update rounds once instead of twice (a product, then an add or subtract), so
   * the factorisations are no longer bitwise the reference's but within rounding of it (a few ulps
   * per update; info and pivots the same on the tests' data, though a near-tie between pivot
   * candidates may now go the other way), and results may differ between machines in the last
   * bits: relaxed_madd is fused on x86 with FMA3 and on Arm, two roundings elsewhere.
   * Measured on the 2-core EPYC (Zen 4, FMA3; Node 24 against itself with MYRIAD_CPU_FMA=0, one
   * thread, process CPU time, bench ms a call, median of 9 interleaved rounds, ratio fused /
   * plain, two runs; branch relaxed, BENCHMARKS.md): getrf 16 0.95-1.00, 32 0.92-0.95, 64
   * 0.89-0.95, float64 128 0.88, 256 0.83; potrf 4 0.97-1.01, 6-64 0.93-0.97, float64 128 0.92,
   * 256 0.89; gemm 16-64 0.84-0.91, 6-8 0.93-1.03 (its noise: about 10%), float64 4 1.03-1.06
   * (off there). The solves (potrs, getrs, trsm) have no fused form: bitwise the reference.
   * MYRIAD_CPU_FMA=0 turns it off everywhere (fmaMode 'off': every module byte for byte the
   * FMA-less one, results bitwise as documented), =1 on in every family at every size ('on').
   */
  fmaMode: 'auto',
  fma: Object.freeze({
    gemm: Object.freeze({ min: 6, max: Infinity }),
    potrf: Object.freeze({ min: 1, max: Infinity }),
    potrfInterleaved: Object.freeze({ min: 1, max: Infinity }),
    getrfBlock: Object.freeze({ min: 1, max: Infinity }),
  }),
  /**
   * Where one kernel family hands over to the next, as named data (measured on a 2-core AMD EPYC,
   * Node 20, 2026-11-26 ... 2026-11-27; docs/cpu-backend.md). Re-measure with
   * `scripts/bench-cpu.sh` (every benchmarked op, one thread and all cores, numpy beside it),
   * `node scripts/bench-cpu-ops.mjs` (trsm, trmm, trtri, lauum, potri) or `MYRIAD_BENCH_CLOCK=cpu
   * MYRIAD_THREADS=1 node dist/src/cli.js bench <op> --backend cpu --sizes ...`; the environment
   * switches below force one side of a choice for such comparisons. V8 stops optimising generated functions of tens of kilobytes:
   * unrolled Cholesky holds up to n = 16, unrolled LU (its swaps a switch) to about 10; above,
   * the WebAssembly LU (kernels/getrf-wasm.ts) takes over up to luWasmMax.
   */
  unrollMax: Object.freeze({
    /** potrf/posv: the triangle in locals. */
    cholesky: 16,
    /**
     * potrs alone: the WebAssembly solves (kernels/trsm-wasm.ts) above. Measured (2026-11-26,
     * one thread, CPU time, one right-hand side, 8192 matrices, ms unrolled / WebAssembly, two runs
     * on a shared machine): float64 n = 7 0.59 / 0.97, 8 0.97-1.01 / 1.16-1.40, 9 1.60 / 0.92,
     * 10 1.27-1.53 / 1.03-1.04, 12 1.60 / 1.21; float32 8 1.06-1.26 / 0.74-1.13, 10 1.48-1.66 / 1.05-1.53.
     */
    potrs: 8,
    /** getrf/gesv/getrs: the matrix in locals. */
    lu: 10,
    /**
     * getrs 'T' alone: the WebAssembly solves above (same runs: float64 n = 8 0.96-1.12 / 0.68-1.15,
     * 9 1.49 / 0.84, 10 1.34-2.60 / 0.93-1.27; float32 8-10 within noise of each other).
     */
    getrsTrans: 8,
    /**
     * gemm matrices that come one at a time (list and variable batches): A in locals, one column of
     * C at a time; WebAssembly above (float64 JS wins to n = 6 and loses 5x at 8; float32 pays a
     * Math.fround per update and wins only to 3). Strided batches run WebAssembly at every size
     * (one call per chunk beat this JavaScript from n = 2: 1.00 against 1.55 ms for 174,762 2x2).
     */
    gemm: Object.freeze({ float64: 6, float32: 3 }),
    /** trsm/trmm: A's triangle in locals, one vector of B at a time (the triangle's order). */
    triangular: 16,
    /** syrk: C's triangle in locals. */
    syrk: 16,
    /** trtri/lauum/potri: the triangle in locals. */
    inverse: 16,
  }),
  /** MYRIAD_CPU_GEMM=js|wasm forces a variant (tests, benchmarks). */
  gemmForce: undefined,
  gemmWasm: Object.freeze({ float64: GEMM_TILES, float32: GEMM_TILES }),
  /** Packed A, B and C of one wasm gemm chunk: about half of a 512 KiB L2. */
  gemmWasmChunkBytes: 256 << 10,
  /** getrf/gesv in WebAssembly (float64 working copy) up to this size; the reference above. */
  luWasmMax: 512,
  /**
   * Complex (complex128, complex64) potrf/posv/potrs (the triangle in locals) and square
   * getrf/getrs, gesv (a float64 scratch with constant indices) as generated JavaScript up to these
   * orders; the complex reference above (docs/cpu-backend.md, "Complex kernels"). Above them V8
   * no longer optimises the generated function and it runs 20-100x slower than the reference.
   * Measured on the 2-core EPYC (one thread, CPU time, ns a matrix, complex128, generated;
   * reference potrf 66 / 161 / 609 / 3118 and getrf 174 / 398 / 1525 / 7658 at n = 2 / 4 / 8 / 16):
   * potrf 16 / 38 / 172 / 313 / 655 at n = 2 / 4 / 8 / 10 / 12, ~58,000 at 16; potrs 1049 at 16;
   * getrf 36 / 137 / 429 / 905 / 1278 at 2 / 4 / 8 / 10 / 12, ~111,000 at 16; gesv 54 / 336 /
   * 1304 / 1275 at 2 / 4 / 8 / 10, ~72,000 at 12. gemm (kernels/zgemm-js.ts, while none of m, n,
   * k exceeds it; N C, alpha complex, beta 0): 15 / 94 / 713 / 2707 at 2 / 4 / 8 / 12 against the
   * reference's 74 / 299 / 1861 / 5781, 11,400 against 13,500 at 16. trsm (kernels/ztrsm-js.ts, T's
   * order; left, lower, C, nonunit, n right-hand sides, alpha complex): 36 / 111 / 687 / 1978 / 4105 /
   * 7167 at 2 / 4 / 8 / 12 / 16 / 20 against the reference's 94 / 282 / 1742 / 4423 / 9096 / 16,186;
   * 23,000 against 26,000 at 24.
   */
  complexUnrollMax: Object.freeze({ cholesky: 12, potrs: 16, lu: 12, gesv: 10, gemm: 12, trsm: 20 }),
  /**
   * Complex gemm's WebAssembly kernel (kernels/zgemm-wasm.ts, bitwise the reference as the
   * JavaScript kernel is) while max(m, n, k) is in this range, per dtype; the JavaScript kernel
   * below it (it reads the caller's arrays in place, where the WebAssembly kernel pays a copy in
   * and out). Measured on the 2-core EPYC (one thread, CPU time, ns a matrix, square, N N, alpha
   * 1, beta 0, strided batches of min(20,000, 2e6 / n^2), WebAssembly / JavaScript):
   * complex128 n = 3 50 / 45, 4 109 / 95, 5 198 / 186, 6 408 / 302, 8 666 / 732, 10 1229 / 1441,
   * 12 1987 / 2606; complex64 3 43 / 53, 4 104 / 109, 5 196 / 210, 6 306 / 366, 8 659 / 755, 10
   * 1178 / 1472, 12 1968 / 2686. Against the reference (complex128): 16 4,960 / 13,350, 24
   * 19,200 / 43,700, 32 47,500 / 101,300. Of the n = 8 time about 430 ns is the kernel and 230
   * the copies (the batch is out of cache).
   */
  complexGemmWasm: Object.freeze({ complex128: Object.freeze({ min: 8, max: 32 }), complex64: Object.freeze({ min: 5, max: 32 }) }),
  /**
   * The WebAssembly complex gemm's block of C per pass over k (rows x cols accumulators). Measured
   * on the 2-core EPYC (kernel alone, 32 matrices in cache, ns a matrix at n = 4 / 8 / 12 / 16,
   * N N): 1 x 1 50 / 424 / 1482 / 3704; 1 x 2 61 / 436 / 1453 / 4389; 2 x 1 57 / 468 / 1739 /
   * 3765; 4 x 1 68 / 622 / 2549 / 5231; 2 x 2 61 / 512 / 1813 / 6283. One chain per element is
   * not what bounds it (about 0.8 ns a complex multiply-add: two splat loads, two multiplies,
   * two adds, no fused multiply-add allowed); more accumulators only spill.
   */
  complexGemmWasmBlock: Object.freeze({ rows: 1, cols: 1 }),
  /**
   * Complex potrf/posv (`factor`, per dtype) and potrs on the WebAssembly kernel
   * (kernels/zpotrf-wasm.ts, bitwise the reference as the JavaScript kernel is) for orders in these
   * ranges; `rows`: elements of a factor column updated together. Measured on the 2-core EPYC,
   * 2026-11-29 (one thread, CPU time, ns a matrix, strided batches of min(20,000, 2e6 / n^2),
   * 'lower', one right-hand side, WebAssembly / generated JavaScript, the reference where that
   * has fallen off V8's optimising compiler):
   * potrf complex128 8 182 / 165, 10 300 / 285, 12 478 / 540, 14 781 / 864, 16 1309 / 54,680,
   * 20 2568 / 107,165, against the reference 24 4627 / 8170, 32 10,805 / 18,423; complex64 (its
   * copies convert, and the triangle went back element by element) 10 454 / 278, 12 710 / 535,
   * 16 1697 / 54,817; since back-to-back chunks cross in block copies and only the triangle is
   * rounded, in WebAssembly (ops/wasm-staging.ts), two runs: 10 309 / 305, 11 389 / 357, 12 503 /
   * 536, 13 593 / 705. posv complex128 10 553 / 523, 12 761 / 867, 16 1566 / 78,281, 32 13,052 /
   * 24,786 (reference; before posv's forward solve was fused); complex64 12 1025 / 866, 16 2177 /
   * 85,217, with the block copies 11 687 / 692, 12 830 / 860. potrs (the JavaScript kernel runs
   * to 16: complexUnrollMax.potrs) complex128 12 448 / 341, 16 699 / 617, 20 1085 / 29,081, 32
   * 3146 / 7038 (reference). The kernel's row blocks: 1 row measured best (n = 16, 32 matrices
   * in cache: 1 row 760, 2 rows 860-980, 4 rows 960): more accumulators only spill. Re-measure
   * with a strided batch timed through ops/zfactor.ts with `force: { variant }` 'wasm' against
   * 'unrolled', pinned (taskset -c 1, MYRIAD_THREADS=1).
   * `pairs`: potrf and posv two matrices at a time (kernels/zpotrf-interleaved.ts) for n in this
   * range, `pairRows` rows of a column per loop trip. The kernels alone (32 matrices in the module's
   * memory, 'upper', ns a matrix, one-matrix kernel / pairs with 1 row / 2 rows a trip, 2026-11-29,
   * the machine shared and loaded, so a few rows moved by 20%): potrf 12 283 / 222 / 218, 16 715 /
   * 466 / 474, 20 1534 / 946 / 911, 24 2733 / 1597 / 2063, 32 6647 / 6230 / 4776; posv (one
   * right-hand side) 12 561 / 402 / 403, 16 1161 / 798 / 753, 20 2357 / 1317 / 1260, 24 3805 /
   * 2119 / 2853, 32 8667 / 7617 / 5968. End to end see BENCHMARKS.md ("Complex factorisations").
   */
  complexCholeskyWasm: Object.freeze({
    factor: Object.freeze({ complex128: Object.freeze({ min: 12, max: 32 }), complex64: Object.freeze({ min: 12, max: 32 }) }),
    potrs: Object.freeze({ min: 17, max: 32 }),
    rows: 1,
    pairs: Object.freeze({ min: 12, max: 32 }),
    pairRows: 2,
  }),
  /**
   * Complex getrf, gesv and getrs 'N' as WebAssembly SIMD (kernels/zgetrf-wasm.ts, bitwise the
   * reference as the JavaScript kernels are) while n is in these ranges; the JavaScript kernels
   * (complexUnrollMax) below them, the reference above. Measured on the 2-core EPYC (2026-11-29,
   * one thread, CPU time, ns a matrix, strided back-to-back batches of min(20,000, 2e6 / n^2),
   * diagonally weighted as scripts/bench-cpu-complex.mjs makes them, WebAssembly / JavaScript,
   * complex128): getrf 39 / 30 at n = 2, 44 / 62 at 3, 75 / 100 at 4, 285 / 416 at 8, 679 / 1259
   * at 12, 1369 at 16 (reference 7100); gesv 46 / 44, 70 / 96, 125 / 154, 413 / 686, 1104 at 12
   * (JavaScript 66,000: V8 leaves it unoptimised), 2130 at 16; getrs 13 / 20, 24 / 32, 46 / 56,
   * 181 / 188, 376 / 792; complex64 alike (getrf 20 / 27 at 2). Above 16 against the reference:
   * getrf 2333 / 12,647 at 20, 4358 / 21,272 at 24, 9131 / 45,102 at 32; gesv 3000 / 15,802,
   * 5887 / 25,431, 11,743 / 51,896. The range stops at 24, where it was measured (the module was
   * 134 kB at gesv 24 with unrolled solves; 43 kB with the looped ones, 70 kB at 32). Re-measure by forcing each variant ({ force: { variant:
   * 'wasm' | 'unrolled' | 'reference' } } on ops/zfactor.ts's getrf, gesv, getrs).
   */
  complexLuWasm: Object.freeze({
    getrf: Object.freeze({ min: 3, max: 24 }), gesv: Object.freeze({ min: 2, max: 24 }), getrs: Object.freeze({ min: 2, max: 24 }),
  }),
  /**
   * Columns of C per pass of the WebAssembly complex LU's trailing update (kernels/zgetrf-wasm.ts).
   * Measured on the 2-core EPYC (2026-11-29, the kernel alone on 200 matrices in its memory, ns a
   * matrix, n = 16, two runs): 1 1049 / 1050, 2 1050 / 1044, 3 1126 / 1144, 4 1120; n = 12: 1 469,
   * 2 473. The update is bound by its multiplies and adds (two of each per element), not by loads.
   */
  complexLuWasmCols: 1,
  /**
   * Matrices per group whose solves the WebAssembly complex LU interleaves (gesv where all of the
   * group factored, getrs): each substitution is one chain of dependent operations, so a group's
   * chains overlap. Measured on the 2-core EPYC (2026-11-29, the kernel alone on 200 matrices in
   * its memory, gesv, ns a matrix, two runs): n = 16: 1 1422 / 1441, 2 1400 / 1401, 3 1349 / 1340,
   * 4 1486 (more vectors than registers); n = 8: 1 325 / 324, 2 296 / 296, 3 280 / 276.
   */
  complexLuWasmGroup: 3,
  /**
   * From this n the WebAssembly complex LU's solves are runtime loops (kernels/zgetrs-wasm.ts),
   * below it unrolled. Measured on the 2-core EPYC (2026-11-29, the gesv kernel alone in its
   * memory, group 3, ns a matrix, unrolled / looped, two runs alike): n = 2 25 / 27, 3 54 / 55,
   * 4 89 / 89, 5 128 / 127, 6 171 / 168, 8 290 / 275, 16 1375 / 1260 (module 77 / 33 kB).
   */
  complexLuWasmSolveLoopMin: 4,
  /**
   * From this n the WebAssembly complex LU's pivot search and row interchange are runtime loops
   * (kernels/zgetrf-wasm.ts), below it unrolled: a few instructions more a row, and a smaller
   * factor that stays in the instruction cache where the unrolled one no longer does. Measured on
   * the 2-core EPYC (2026-11-29, the getrf kernel alone on 200 matrices in its memory, ns a matrix,
   * unrolled / looped, module kB): n = 12 455 / 465 (18 / 13), 16 980-985 / 980-1015 (31 / 21),
   * 17 1135 / 1205, 20 1665 / 1710-1740, 21 1855 / 1900, 22 2105 / 2130 (55 / 35), 23 3085 / 2450
   * (60 / 38), 24 3400-3450 / 2710 (65 / 41); gesv 24 4015 / 3245.
   */
  complexLuWasmFactorLoopMin: 23,
  /**
   * getrf and gesv two matrices at a time (kernels/zgetrf-interleaved.ts) while n is in this
   * range, the one-matrix kernel beside it (a pair handed back, an odd batch's last matrix).
   * Measured on the 2-core EPYC (2026-11-29, one thread, the kernels alone on 200 diagonally
   * weighted matrices in their memory, ns a matrix, pairs / one matrix): getrf 10 / 15 at n = 2,
   * 42 / 59 at 4, 88 / 119 at 6, 156 / 192 at 8, 404 / 443 at 12, 831 / 969 at 16, 1475 / 1641
   * at 20; gesv 19 / 26, 66 / 89, 137 / 165, 232 / 267, 557 / 599, 1052-1082 / 1251, and 2288 /
   * 2041 at 20 (the unrolled module, 70 kB for gesv at 16, grows with n^2).
   */
  complexLuWasmPairs: Object.freeze({ min: 2, max: 16 }),
  /**
   * Pairs whose solves the two-matrix LU's gesv runs side by side (kernels/zgetrf-interleaved.ts
   * `pairs`). Measured as above, gesv ns a matrix, 1 / 2 / 3 / 4: n = 8 234 / 218 / 236 / 238, 16
   * 1073 / 1054 / 1124 / 1127.
   */
  complexLuWasmPairGroup: 2,
  /**
   * From this order the two-matrix LU's pivot search, column scaling and solves' rows are runtime
   * loops (kernels/zgetrf-interleaved.ts `rowLoops`); below it unrolled. gesv's module at n = 16:
   * 70 kB unrolled, 35 kB so (getrf's 39 / 28). Measured on the 2-core EPYC (2026-11-30, one thread
   * pinned, a machine under heavy load: the two forms alternating in one process on the bench's
   * batches, ns a matrix end to end, best / median of 25 calls, unrolled -> loops): gesv complex128
   * n = 16 1563 / 2074 -> 1483 / 1860 and 1609 / 2136 -> 1572 / 1830, complex64 16 1651 / 1779 ->
   * 1597 / 1713; complex128 12 803 / 863 -> 785 / 877, 10 509 / 630 -> 480 / 545, 8 315 / 368 ->
   * 313 / 368; getrf complex128 16 1322 / 1553 -> 1324 / 1640 (the factor alone: no change).
   */
  complexLuWasmPairLoopMin: 10,
  /**
   * From order `min` the two-matrix LU factors left-looking in Crout's order with its steps a
   * runtime loop (kernels/zgetrf-interleaved.ts `crout`; gesv with one right-hand side solved
   * within it), `rows` rows (or columns) of a step's column (or row of U) side by side; below it
   * right-looking. Measured on the 2-core EPYC (2026-12-01, one thread pinned, the kernels alone on
   * 200 diagonally weighted matrices in their memory, the two alternating in one process, ns a
   * matrix best / median, right-looking -> Crout with 2 rows): getrf n = 16 893 / 943 -> 625 / 667
   * (module 28 -> 4.4 kB), 12 425 / 455 -> 306 / 327, 8 145 / 146 -> 136 / 157, 7 109 / 110 -> 108 /
   * 127, 6 83 / 87 -> 85 / 87, 5 59 / 60 -> 67 / 67; gesv 16 1037 / 1084 -> 758 / 787, 12 492 / 548
   * -> 373 / 408, 8 193 / 214 -> 158 / 168, 7 143 / 163 -> 121 / 135, 6 109 / 128 -> 92 / 111, 5
   * 78 / 79 -> 65 / 92. Rows a trip at 16 (getrf, an earlier form): 1 802 / 835, 2 716 / 772, 3
   * 782 / 830 (V8 spills the accumulators). With the steps unrolled (constant offsets, 45 kB at 16)
   * Crout's order ran slower than right-looking (getrf 16 1130 / 1180), out of the instruction cache.
   * End to end (bench data, this build against the right-looking one alternating in one process,
   * median of 15): gesv 6 10-35% faster but getrf 6 2-5% slower (complex128 135 -> 141), 7 even;
   * so from 7.
   */
  complexLuWasmPairCrout: Object.freeze({ min: 7, rows: 2 }),
  /**
   * Complex geqrf and orgqr two matrices at a time (kernels/zgeqrf-interleaved.ts) while max(m, n)
   * is in this range; the complex reference (zgeqr2, zung2r) beside it. Measurement:
   * docs/cpu-backend.md (Complex kernels, "QR and inverse, two matrices at a time").
   */
  complexQrWasmPairs: Object.freeze({ min: 1, max: 16 }),
  /**
   * Complex getri two matrices at a time (kernels/zgetri-interleaved.ts) while n is in this range;
   * the complex reference beside it. Measurement: docs/cpu-backend.md (Complex kernels, "QR and
   * inverse, two matrices at a time").
   */
  complexGetriWasmPairs: Object.freeze({ min: 1, max: 16 }),
  /**
   * Complex heev by reduction to a real tridiagonal and QL (ops/zheev.ts) while n is in the job's
   * range; the complex reference's Jacobi beside it. Measured on the 2-core EPYC (2026-11-30, one
   * thread, CPU time, ns a matrix, this / the reference, a machine under load): with vectors
   * complex128 n = 1 99 / 58, 2 175-233 / 235-288 (complex64 248-273 / 239-246: n = 2 is the
   * reference's one rotation), 3 558-998 / 1774-3173, 4 1036-1794 / 4901-8087, 8 3172-4673 /
   * 28230-81271, 16 13551-21586 / 196963-784275, 24 32888 / 593173, 32 67062 / 1368790, 48 194720 /
   * 4528090; values only n = 1 64 / 36, 2 102-157 / 173-279, 16 6423-7399 / 426469-450837. Faster
   * from 3 (vectors) and 2 (values) at every order measured, by a growing margin (about 19 n^3
   * flops against the reference's 250 n^3 and its Gram-Schmidt pass above 32); 512 bounds the
   * working memory (two matrices of about 40 n^2 bytes in the wasm memory).
   */
  complexHeevTridiagonal: Object.freeze({ vectors: Object.freeze({ min: 3, max: 512 }), values: Object.freeze({ min: 2, max: 512 }) }),
  /**
   * Real syev's tridiagonal path (ops/syev.ts) against the reference's Jacobi: one thread, the same
   * 2-core EPYC VM, 2026-12-01, float64 random symmetric matrices, the fastest of 7 calls, ns a matrix
   * (path / reference; the path's first build, all in JavaScript but the rotations: its later builds
   * are faster at every order, BENCHMARKS.md "Real syev on the tridiagonal route"): with vectors n = 1 150 / 81, 2 324 / 183, 3 797 / 631, 4 1757 / 1496, 5 1610 /
   * 2180, 6 2524 / 4062, 8 5839 / 12001, 16 20774 / 69803, 32 144896 / 667722, 64 650788 / 3964760, 128
   * 4.83 / 31.9 ms, 256 37.2 / 261 ms, 512 0.49 / 4.79 s (one call); values only n = 1 43 / 54, 2 98 /
   * 133, 3 310 / 564, 4 573 / 1032, 8 2773 / 9060, 16 11493 / 60485, 1024 0.62 / 55.2 s. From 5 with
   * vectors and 2 values only; no upper bound (the working arrays, about 24 n^2 bytes with vectors,
   * are held per thread: ops/syev.ts).
   */
  syevTridiagonal: Object.freeze({ vectors: Object.freeze({ min: 5, max: Infinity }), values: Object.freeze({ min: 2, max: Infinity }) }),
  /**
   * Complex gesvd's Jacobi sweeps four matrices at a time (kernels/zgesvd-interleaved.ts) while
   * max(m, n) is in this range (min(m, n) at most 32 besides: the reference reorthogonalizes V above
   * it); the complex reference beside it. Faster than the reference at every shape measured, 1 x 1
   * to 32 x 32 (one thread, ns a matrix, kernel / reference, complex128: 1 x 1 49 / 97, 2 x 2 153 /
   * 366, 16 x 2 386 / 704, 16 x 8 7450 / 28600, 24 x 24 131000 / 585000, 32 x 32 466000 / 1830000);
   * docs/cpu-backend.md (Complex kernels, "SVD, four matrices at a time").
   */
  complexGesvdWasmPairs: Object.freeze({ min: 1, max: 32 }),
  /**
   * The delayed-update WebAssembly LU (kernels/getrf-block-wasm.ts: panels of nb columns, the
   * trailing matrix updated from 4 x 4 register tiles) from min(m, n) >= min up to luWasmMax, in
   * place of the unblocked kernel and (to 512) the recursive one. Measured on the 2-core EPYC (one
   * thread, CPU time, float64 GFLOP/s, diagonally dominant data as the bench's, this / unblocked):
   * n = 16 3-4 / 2.4-3, 24 7.3-7.7 / 6-6.9, 32 9.4-9.9 / 7.6-8.2, 48 12-13 / 8-9.6, 64 14-14.6 /
   * 10.4, 128 17.7 / 10.9; against the recursive LU (luBlocked, leaf 32): 384 20.2 / 13.2, 512
   * 18.9 / 15.0. nb = 16 was no faster at 64-256 and slower at 512 (10.8); padding the columns
   * against cache-set aliasing (as getrf-blocked.ts does) did not help at nb = 8. MYRIAD_CPU_LU_BLOCK=min,nb
   * overrides (measurements, tests).
   */
  luWasmBlock: Object.freeze({ min: 16, nb: 8 }),
  /**
   * The delayed-update LU factors two matrices at a time (kernels/getrf-block-wasm.ts `pairs`:
   * both panels' steps interleaved, so that one matrix's chain of dependent operations from pivot
   * to pivot overlaps the other's) up to max(m, n) = this; one at a time above. Measured on the
   * 2-core EPYC (2026-11-27, one thread, kernel alone in cache, ns a matrix, gesv float64 with
   * one right-hand side): n = 16 386-391 one at a time / 367-371 in pairs (getrf 300-308 / 292-300),
   * 32 1709-1818 / 1659-1766, 64 10362-10722 / 10115-10334; but the paired kernel is more code
   * for V8 to optimise on a first call: with everything emitted per matrix, calls 2-3 of gesv
   * float64 16 x 8192 took 17-23 ms against 5-6 and the demo's cold gesv 64 x 10,000 234-242 ms
   * against 182-188. Now laswp, U12 and the trailing update are emitted once for both and a last
   * odd matrix calls the one-at-a-time kernel (a function of its own): the first call costs about
   * 10 ms more, the second 2-4; and the pairs stay at the small sizes (the demo's gesv 64 on the
   * one-at-a-time kernel: 173-176 ms against 170-172). MYRIAD_CPU_LU_PAIRS=n overrides (0: never).
   */
  luWasmPairsMax: 32,
  /**
   * Recursive blocked getrf/gesv (ops/getrf-blocked.ts, dgetrf2's recursion on the packed float64
   * copy) from min(m, n) >= min, leaves of at most `leaf` columns on the unblocked WebAssembly LU
   * (and triangular solves of at most `leaf` rows on their kernel), everything else on the
   * WebAssembly gemm. Measured on the 2-core EPYC under heavy load from other jobs (one thread,
   * CPU time, float64 GFLOP/s, blocked with leaf 32 / unblocked, several runs each): n = 64
   * 4.3-4.6 / 6.1-6.6, 96 5.6-6.1 / 7.5-8.9, 128 6.7-6.9 / 5.5-8.4, 192 5.7-8.6 / 9.3-9.5, 256
   * 4.0-11.0 / 5.4-11.3 (no consistent winner), 320 8.7 / 7.5-9.6, 384 10.0-10.9 / 6.4-8.6, 512
   * 9.6-12.8 / 6.2-10.7 (float32 512: 10.3-14.2 / 6.4-9.5). The unblocked kernel wins while the
   * matrix stays in L2 (512 KiB: n <= ~200); the crossovers 48, 64 and 96 that were suggested lose
   * 15-35%. Since then the delayed-update kernel (luWasmBlock) beats it to luWasmMax, so it
   * runs only above (where the unblocked kernels stop). MYRIAD_CPU_LU_BLOCKED=min,leaf overrides
   * (measurements, tests).
   */
  luBlocked: Object.freeze({ min: 512 + 1, leaf: 32 }),
  /** potrf/posv in WebAssembly (float64 working copy; 'upper' through its transpose) up to this size; the reference above. */
  choleskyWasmMax: 512,
  /**
   * potrs above unrollMax.potrs and getrs 'T' above unrollMax.getrsTrans on the WebAssembly
   * solves (kernels/trsm-wasm.ts) up to this order; the reference above (not measured there:
   * 3-5x the reference's code at 512, 2-core EPYC, 2026-11-26).
   */
  triSolveWasmMax: 1024,
  /**
   * trsm 'left' on the WebAssembly solves (kernels/trsm-wasm.ts, bitwise the reference) for
   * A's order in [min, max], in place of the blocked trsm below; above max, the blocked trsm with
   * this solve as its leaf. Measured on the 2-core EPYC (2026-11-27, one thread, CPU time, bench
   * trsm: left lower N, B n x n, GFLOP/s, this / blocked over 16-order leaves): float64 n = 17
   * 2.2 / 2.1, 20 2.9 / 2.4, 28 3.6 / 2.3; float32 17 2.4 / 1.8, 28 3.7 / 2.3. Before B's dense
   * transposition moved into WebAssembly, as the blocked trsm's leaf (max 32 / 64 / 128 / direct):
   * float64 256 8.5 / 9.1 / 9.2 / 11.0, float32 256 10.3 / 11.2 / 10.0 / 7.5; after it, float64
   * 128 13.2 direct / 8.4 leaf 64, 256 14.6 / 7.5; float32 128 6.9 / 6.1, 256 10.1 / 9.0; float64
   * 512 13.0 direct or leaf 256, 12.3 leaf 128.
   * MYRIAD_CPU_TRSM_WASM=min,max overrides (measurements, tests).
   */
  trsmLeftWasm: Object.freeze({
    float64: Object.freeze({ min: 16 + 1, max: 256 }),
    float32: Object.freeze({ min: 16 + 1, max: 256 }),
  }),
  /** trsm/trmm blocked over the fast gemm (recursive halving down to unrollMax.triangular) up to this order; the reference above. */
  triangularBlockedMax: 1024,
  /** syrk blocked over the fast gemm (recursive halving down to unrollMax.syrk) up to this order; the reference above. */
  syrkBlockedMax: 1024,
  /** trtri/lauum/potri blocked over the fast trmm, trsm and syrk down to unrollMax.inverse, up to this order; the reference above. */
  inverseBlockedMax: 1024,
  /**
   * potrf on the interleaved layout (ops/potrf-interleaved.ts: two matrices per f64x2 vector,
   * gathered from the caller's layout) for n in [min, max], per dtype, in place of the unrolled
   * JavaScript; strided runs of at least two matrices. Measured on the 2-core EPYC (Node 20, one
   * thread, BENCHMARKS.md): 1.1-1.6x the unrolled JavaScript from n = 4 to 8, 0.8-0.95x at 2 and 3
   * (the copy in and out and the gathers cost more than the halved arithmetic saves). Also
   * n = 9 ... 16 (the 'loop' form below; measured 2026-11-27, docs/cpu-backend.md).
   * MYRIAD_CPU_INTERLEAVED=1 forces it on for 1 ... interleavedNMax, =0 off (comparisons,
   * tests); MYRIAD_CPU_INTERLEAVED_MAX=m caps every interleaved range at m (8: the earlier, narrower
   * ranges).
   */
  interleavedNMax: 16,
  choleskyInterleaved: Object.freeze({ float64: Object.freeze({ min: 4, max: 16 }), float32: Object.freeze({ min: 4, max: 16 }) }),
  /**
   * posv the same way, the solve fused into the interleaved kernel (each pair solved while its
   * factor is in registers), for n = 4 ... 8 (forced: 1 ... 8). The earlier form (the interleaved
   * potrf, then the unrolled potrs in a second pass that reloaded the factor) measured 0.4-1.6x
   * the unrolled posv and was off by default; the fused kernel: see BENCHMARKS.md (CPU, posv;
   * measured 2026-11-26).
   */
  posvInterleaved: Object.freeze({ min: 4, max: 8 }),
  /**
   * posv for n = 9 ... 16 composed: the interleaved potrf, then the WebAssembly
   * potrs (kernels/trsm-wasm.ts, four matrices' solves per trip) on each run of matrices that
   * factored; float64 chunks that all factored are solved right after their
   * potrf on the factors still in the wasm memory (one copy of A fewer: posv float64 16 at 16 MiB
   * 3.90-4.11 against 4.36-4.82 ms a call, one core, BENCHMARKS.md). The fused kernel loses there: its solve is two chains of divisions and dependent
   * subtractions per pair that nothing overlaps (kernel alone, float64 n = 16: 557 ns a matrix
   * with the solve, 208 without; end to end at 16 MiB: fused 1060-1740 ns, composed 630-670).
   */
  posvComposed: Object.freeze({ min: 9, max: 16 }),
  /**
   * How the interleaved kernel is generated for n (kernels/potrf-interleaved.ts): from
   * interleavedMemoryFormMin the triangle lives in a scratch of the wasm memory and each
   * column's rows are a runtime loop ('loop' form) rather than v128 locals. Measured on the 2-core
   * EPYC (kernel alone, 32 matrices in cache, ns per matrix, potrf float64): n = 16 locals 367-380,
   * unrolled over the scratch 204-220 (R rows a pass: R = 2 209, 4 322, 6 333; that form removed),
   * loop 197, loop with two pairs per trip 296; n = 13 loop 162, two pairs 132; n = 12 locals
   * 119-134, unrolled scratch 127-164, loop 125 (two pairs 137); n = 11 loop 121 / two pairs 103;
   * n = 10 106 / 62; n = 9 94 / 51 (unrolled scratch 75); float32 16: unrolled scratch 578, loop 205. Past about 40 KB of machine code a kernel runs
   * from L2 (two pairs per trip lose there), and a large module's optimised code comes late: V8
   * compiles it in the background after a few calls, whose CPU time (and baseline-tier code) the
   * bench's calls 2 ... 6 carry. MYRIAD_CPU_INTERLEAVED_MEMORY=n overrides the first n of the loop
   * form (measurements, tests).
   */
  interleavedMemoryFormMin: 9,
  /**
   * gesv on the interleaved layout (ops/gesv-interleaved.ts: dgetf2 two matrices per f64x2 vector,
   * the pivot per lane by compare and bitselect, the interchanges per lane in a wasm-memory
   * scratch, the solve fused) for square n in [min, max], per dtype, strided runs of at least two
   * matrices, in place of the unrolled JavaScript and the delayed-update kernel.
   * MYRIAD_CPU_GESV_INTERLEAVED=min,max overrides both dtypes (0,0: off).
   */
  gesvInterleaved: Object.freeze({ float64: Object.freeze({ min: 4, max: 15 }), float32: Object.freeze({ min: 4, max: 15 }) }),
  /**
   * From this n the interleaved gesv's rank-1 updates are runtime loops (kernels/getrf-interleaved.ts
   * loopUpdate). Measured (one thread, 16 MiB of float64 matrices, ms a call once tiered up, and
   * the calls until then): n = 8 unrolled 4.7-5.1 / loops 5.7-6.5; 12 7.0 from call 5 / 6.7 from
   * call 3; 15 8.0 from call 6 / 8.6 from call 4 (the unrolled module is 77 KB there).
   * MYRIAD_CPU_GESV_LOOP=n overrides.
   */
  gesvInterleavedLoopMin: 12,
  /**
   * Up to this n the interleaved gesv holds each pair's matrix in v128 locals
   * (kernels/getrf-interleaved-locals.ts, the interchanges as bitselects over the register rows)
   * rather than in the wasm scratch. Off: measured on the 2-core EPYC (2026-11-27, kernel alone,
   * float64, ns a matrix, scratch / locals) n = 4 27 / 25, 6 63-79 / 68-87, 8 113-145 / 133-172
   * (TurboFan spills the 98 v128 locals); gesv float64 8 end to end 5.5-5.8 / 6.2-6.5 ms a call.
   * MYRIAD_CPU_GESV_LOCALS=n overrides (0: never).
   */
  gesvInterleavedLocalsMax: 0,
  /** Pairs per loop trip of the interleaved gesv (MYRIAD_CPU_GESV_PAIRS=1 or 2 overrides). */
  gesvInterleavedPairsPerTrip: 1,
  /**
   * The caller's matrices copied into the wasm memory per interleaved chunk, inside L2 (1 MiB a
   * core here): potrf and gesv 256 KiB (each chunk costs about a microsecond of JavaScript around
   * its copies: potrf float64 16 at 16 MiB 2.29-2.49 ms a call against 2.44-2.59 at 64 KiB, gesv
   * float64 8 5.8-6.3 against 5.9-6.0, on a loaded machine, 2026-11-27), posv 64 KiB (n <= 8 measured the same
   * either way; from 9 each chunk must fit one chunk of the solve that follows it, ops/potrf.ts).
   */
  interleavedChunkBytes: Object.freeze({ potrf: 256 << 10, posv: 64 << 10, gesv: 256 << 10 }),
  /**
   * Pairs per loop trip of the interleaved potrf: 2 (four matrices, two dependency chains emitted
   * column by column in turn) measured no faster than 1 in cache (0.84-1.0x at n = 4 ... 8).
   */
  interleavedPairsPerTrip: 1,
});

/** Whether kernels of this family for size n fuse multiply-adds, from the engine's support and the table. */
export function fmaDecision(supported: boolean, tuning: Pick<CpuTuning, 'fmaMode' | 'fma'>, kernel: FmaKernel, n: number): boolean {
  if (!supported || tuning.fmaMode === 'off') return false;
  return tuning.fmaMode === 'on' || (n >= tuning.fma[kernel].min && n <= tuning.fma[kernel].max);
}

/** How the interleaved potrf kernel is generated for n (the 'loop' form from interleavedMemoryFormMin). */
export const interleavedShape = (tuning: CpuTuning, n: number, solve: boolean): InterleavedShape =>
  n < tuning.interleavedMemoryFormMin ? { form: 'locals', pairsPerTrip: tuning.interleavedPairsPerTrip }
    : { form: 'loop', pairsPerTrip: !solve && n <= 13 ? 2 : 1 };

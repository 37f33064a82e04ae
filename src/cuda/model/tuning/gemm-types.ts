/**
 * The batched GEMM tuning table: named thresholds and block sizes, as data, per GPU architecture.
 * An architecture's table lists only what differs from its parent (BLIS's config registry:
 * sm_90 -> default); `tuningFor` merges the chain.
 */
import type { DType } from '../../../core/dtype.js';
import type { Op } from '../../../core/ops.js';

/** Block sizes of the tiled kernel (see TiledGemmParams). */
export interface TiledConfig {
  readonly bm: number;
  readonly bn: number;
  readonly bk: number;
  readonly tm: number;
  readonly tn: number;
  /** Where beta != 0, C's tile is prefetched toward L2 as the tile starts (kernels/gemm/prefetch-c.ts); false turns it off (absent: on). */
  readonly prefetchC?: boolean;
}

/** A tiled configuration used while max(m, n) <= maxDim (the first that matches wins). */
export interface TiledBand {
  readonly maxDim: number;
  readonly config: TiledConfig;
}

/** Block sizes of the FP64 tensor-core kernel (see MmaGemmParams). */
export interface MmaConfig {
  readonly bm: number;
  readonly bn: number;
  readonly bk: number;
  readonly wm: number;
  readonly wn: number;
  /** Shared buffers of the cp.async pipeline (1..6; 1: copy, wait, multiply). */
  readonly stages: number;
  /**
   * k per mma instruction: 8 (m16n8k8, the default) or 16 (m16n8k16), shapes of sm_90 and later;
   * 4 is the m8n8k4 of sm_80, which measured at about half the rate on the H100.
   */
  readonly mmaK?: 4 | 8 | 16;
  /**
   * Fragments in two register buffers (CUTLASS's multistage main loop): each slice of k loads the
   * next slice's fragments before its own mma instructions issue, and the barrier and cp.async wait
   * of the next stage sit before the last slice's mma, so neither waits in front of the tensor
   * cores. Needs stages >= 2. Absent: fragments loaded right before the mma that uses them.
   */
  readonly doubleBuffer?: boolean;
  /** Blocks per SM that __launch_bounds__ asks ptxas to fit (caps the registers); absent: as the generator decides. */
  readonly minBlocks?: number;
  /**
   * Where beta != 0 (real data), C's tile is prefetched toward L2 as the tile starts, so the
   * epilogue's reads of C find it there instead of waiting on memory after the last k-step
   * (kernels/gemm/prefetch-c.ts); false turns it off (absent: on).
   */
  readonly prefetchC?: boolean;
  /** Blocks take C's tiles in groups of this many tile rows (L2 reuse for one large C); absent: column by column. */
  readonly tileGroup?: number;
}

/**
 * Block sizes of the TMA-fed FP64 tensor-core kernel (see TmaGemmParams, generate-tma.ts): a
 * bm x bn tile of C per block, k-steps of 16 (one 128-byte swizzled row of doubles), wm x wn
 * mma warps, a ring of `stages` shared buffers.
 */
export interface TmaConfig {
  readonly bm: number;
  readonly bn: number;
  readonly wm: number;
  readonly wn: number;
  /** Shared buffers of the TMA ring (2..8). */
  readonly stages: number;
  /**
   * A warp of its own issues the copies (warp specialisation); absent or false: thread 0 of the
   * first mma warp does, between its k-steps (no extra warp in the register budget).
   */
  readonly producerWarp?: boolean;
  /** Blocks take C's tiles in groups of this many tile rows; absent: column by column. */
  readonly tileGroup?: number;
  /**
   * k per mma instruction: 4 (m16n8k4), 8 (m16n8k8, the default) or 16 (m16n8k16), the f64 shapes
   * of sm_90; the fragments are the same 16-byte shared reads, split or joined.
   */
  readonly mmaK?: 4 | 8 | 16;
  /**
   * A persistent grid: as many blocks as fit the GPU at once, each taking work items (tile,
   * matrix) blockIdx.x, + gridDim.x, ... in the tile order; the producer (warp or thread 0) runs on
   * into the next tile's k-steps while the consumers write C. Absent or false: one block per tile.
   */
  readonly persistent?: boolean;
  /**
   * Register double-buffered fragments (m16n8k8 only, one tile per block): the fragments of the
   * next 8-wide k chunk (of the next stage at a stage's end) are read while the current chunk's
   * mma instructions issue, so no mma waits for a shared read; a stage is released once its last
   * fragments are consumed. Absent or false: each chunk's reads, then its mma instructions.
   */
  readonly pipelined?: boolean;
  /**
   * Thread 0 (no producer warp, one tile per block) refills the buffer of step s - refillLag at the
   * top of step s: 1 (the default) waits there for every warp to release step s - 1, which holds
   * the block in step; 2 waits for step s - 2 only, so warps drift a step apart, at one stage less
   * of prefetch (3 stages or more).
   */
  readonly refillLag?: 1 | 2;
}

export interface TmaBand {
  readonly maxDim: number;
  readonly config: TmaConfig;
}

export interface MmaBand {
  readonly maxDim: number;
  readonly config: MmaConfig;
}

/** A tile and its measured cost per element of the area it covers, relative to the other tiles of its list. */
export interface PaddedTile<C> {
  readonly config: C;
  readonly cost: number;
  /**
   * The tile serves C whose smaller side is at most this (absent: any): a small tile's cost a covered
   * element was measured to grow with C (the 32 x 32 tile: 1.1-1.5 times the 64 x 64 tile's at 65-96,
   * 1.8 times at 160), where both of C's sides take many of its tiles.
   */
  readonly maxSide?: number;
}

/**
 * Tiles chosen by the padding they leave (kernels/gemm/plan.ts tileByPadding), where max(m, n) is
 * at most maxDim: a tile whose side does not divide C's computes the padding too, so 128 x 128
 * tiles on C of 160 cover 2.56 times its area, 32 x 32 tiles none of it; the smaller tile's cost
 * per covered element is higher. Listed larger tiles first (a tie goes to the earlier). Where the
 * table also has `mmaSmallSide`, its bands take C whose smaller side is within them and whose
 * larger side is above them, whatever maxDim says.
 */
export interface PaddedTiles<C> {
  readonly maxDim: number;
  readonly tiles: readonly PaddedTile<C>[];
}

/** A measured winner for the small kernel: used for m, n, k within the bounds. */
export interface SmallWinner {
  readonly dtype: DType;
  /** Applies where minDim <= max(m, n, k) <= maxDim. */
  readonly minDim: number;
  readonly maxDim: number;
  readonly tbc?: number;
  readonly threadsPerBlock?: number;
  readonly itemsPerThread?: number;
  readonly maxThreadsPerMatrix?: number;
  readonly stageC?: boolean;
}

/**
 * A class kernel of variable-size batches up to 32 (gemm/plan-vbatched.ts): the staged design
 * (operands in shared memory, `members` a block, a `tm` x `tn` tile of C a thread) or the team
 * design (`team` threads a member, `tbc` members a block, operands read from memory).
 */
export type VbatchedSmallShape =
  | { readonly design: 'staged'; readonly members: number; readonly tm: number; readonly tn: number }
  | { readonly design: 'team'; readonly team: number; readonly tbc: number };

/**
 * A class kernel of variable-size batches above 32 (gemm/plan-vbatched.ts): the tensor-core
 * design (float64; an mma configuration) or the tiled design (a tiled configuration), in place of
 * the uniform planner's band for the class bound.
 */
export type VbatchedLargeShape =
  | ({ readonly design: 'mma' } & MmaConfig)
  | ({ readonly design: 'tiled' } & TiledConfig);

export interface GemmTuning {
  /** Use the very-small kernel (constant sizes, unrolled) when m, n, k are all <= this (at most 32). */
  readonly smallMaxDim: { readonly [D in DType]: number };
  /** Threads per block the small kernel aims for, filling it with tbc matrices. */
  readonly smallThreadsPerBlock: number;
  /** Work items (row x column group of one C) each thread takes in turn: matrices per block grow with it. */
  readonly smallItemsPerThread: number;
  /** Upper bound on work items per matrix: above it each item takes more columns (rn). */
  readonly smallMaxThreadsPerMatrix: number;
  /** Largest rn (columns of C per thread). */
  readonly smallMaxColumnsPerThread: number;
  /** Stage C through shared memory when one column of C is shorter than this many bytes. */
  readonly smallStageCBelowBytes: number;
  /**
   * Where the small kernel reads C (beta != 0), the bands of orders max(m, n, k) at which it stages C
   * through shared memory (elsewhere it reads C at the tile's end), per real dtype, in place of the
   * two rules above (which were measured with beta = 0); a dtype without an entry keeps them.
   * Complex pairs keep them too.
   */
  readonly smallStageCReadingC?: { readonly [D in DType]?: readonly { readonly minDim: number; readonly maxDim: number }[] };
  /** At least this many blocks per SM for the whole batch before tbc grows (small batches). */
  readonly smallMinBlocksPerSM: number;
  /** Measured exceptions for the small kernel, checked before the rules above. */
  readonly smallWinners: readonly SmallWinner[];
  /** float64 beyond the small kernel uses FP64 tensor cores (mma) from this compute capability (Infinity: never). */
  readonly mmaMinMajor: number;
  /** mma bands, ascending maxDim, as for `tiled`. */
  readonly mma: readonly MmaBand[];
  /**
   * mma bands keyed by C's smaller side, min(m, n), ascending maxDim, checked before `mma`: the
   * recursions' batched updates have one side half the other (trmm and trsm's C h x n, h = n / 2),
   * where `mma`'s band of max(m, n) leaves most of a tile's rows idle. Where min(m, n) is above
   * the last band, or absent, `mma` decides. Real float64 only (complex keeps `mma`).
   */
  readonly mmaSmallSide?: readonly MmaBand[];
  /**
   * The mma kernel's tiles by padding (real float64), checked before `mmaSmallSide` and `mma`
   * where max(m, n) is within its maxDim; absent: the bands decide.
   */
  readonly mmaByPadding?: PaddedTiles<MmaConfig>;
  /**
   * mma bands for C's triangle alone (syrk's one launch over the triangle, m = n), keyed by op(A)
   * and by n, ascending maxDim: smaller tiles waste less of C outside the triangle, and k = n
   * takes few k-steps. Where n is above the last band, or the op is absent, the plan's own tiles.
   * Real float64 only.
   */
  readonly mmaTriangle?: { readonly [op in Op]?: readonly MmaBand[] };
  /**
   * Whether float64 classes of variable-size batches above 32 run on the tensor cores (the mma
   * kernel in a class frame, the band of the class bound) rather than the tiled kernel; absent or
   * false: the tiled kernel (the default table: set per card where it was measured).
   */
  readonly vbatchedMma?: boolean;
  /**
   * The class kernels of variable-size batches up to 32, per dtype and class bound (8, 16, 24,
   * 32); a class absent here takes the planner's staged shape for its bound.
   */
  readonly vbatchedSmall?: { readonly [D in DType]?: Readonly<Record<number, VbatchedSmallShape>> };
  /**
   * The device form's class kernels loop over their class's members on grids of this many times
   * the blocks the GPU holds at once (gemm/launch-vdevice.ts); absent: its DEVICE_CLASS_WAVES.
   */
  readonly vdeviceWaves?: number;
  /**
   * The class kernels of variable-size batches above 32, per dtype and class bound (48, 64, 128,
   * 256, 512, and the device form's large class by its bound): the design and its tile, every op
   * pair; a class absent here takes the uniform planner's band for its bound (`vbatchedMma` then
   * picks the design). 'mma' is float64's alone.
   */
  readonly vbatchedLarge?: { readonly [D in DType]?: Readonly<Record<number, VbatchedLargeShape>> };
  /**
   * Bands of the TMA-fed design (sm_90; float64 strided batches with 16-byte aligned operands),
   * taken only where forced (`variant: 'tma'`) until measured; absent: the design has no table.
   */
  readonly tma?: readonly TmaBand[];
  /** Tiled bands per precision, ascending maxDim; the last should have maxDim Infinity. */
  readonly tiled: { readonly [D in DType]: readonly TiledBand[] };
  /**
   * The tiled kernel's tiles by padding per precision (real data), checked before `tiled` where
   * max(m, n) is within its maxDim; absent: the bands decide.
   */
  readonly tiledByPadding?: { readonly [D in DType]?: PaddedTiles<TiledConfig> };
  /** Complex data, by the dtype of its parts (complex128: float64, complex64: float32). */
  readonly complex: ComplexGemmTuning;
}

/**
 * The complex gemm's choices: the very-small kernel up to `smallMaxDim` (its acc, A and B hold
 * pairs, so it runs out of shared memory and registers at half the real bound), the tiled kernel
 * above (mma.sync has no complex form), or the mma kernel on the real embedding (`mmaFrom`). tm, tn and bk are multiples of the
 * 16-byte vector: 1 complex128 pair, 2 complex64 pairs.
 */
export interface ComplexGemmTuning {
  readonly smallMaxDim: { readonly [D in DType]: number };
  readonly tiled: { readonly [D in DType]: readonly TiledBand[] };
  /**
   * complex128 with op(A) = A (op(B) any) on the FP64 tensor cores (generate-mma.ts's real embedding: the
   * pair a = x + iy is the 2 x 2 block [[x, -y], [y, x]]) from this max(m, n, k) up, where the card
   * has the mma kernel; absent: the tiled kernel at every size above the small one.
   */
  readonly mmaFrom?: number;
  /**
   * Measured exceptions for the very-small kernel on complex data, keyed by the parts' dtype
   * (float64: complex128, float32: complex64); the real `smallWinners` never apply to pairs.
   */
  readonly smallWinners?: readonly SmallWinner[];
}

export type GemmTuningOverrides = Partial<GemmTuning>;

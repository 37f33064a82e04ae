/**
 * Parameter objects of the batched GEMM kernels. A generator is a pure function of one of these;
 * the launcher knows one argument list for both variants (see `kernelArguments` in launch.ts).
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { OperandLayout } from '../common/batch-pointer.js';
import type { Conjugations } from '../common/complex.js';
import type { MmaConfig, TiledConfig, TmaConfig } from '../../model/tuning/index.js';

export type { OperandLayout } from '../common/batch-pointer.js';

export interface GemmOperandLayouts {
  readonly a: OperandLayout;
  readonly b: OperandLayout;
  readonly c: OperandLayout;
}

interface GemmCommon {
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly layouts: GemmOperandLayouts;
  /** beta = 0: C is never read (NaN in C must not leak into the result). */
  readonly betaZero: boolean;
  /**
   * Only this triangle of C (diagonal included; m = n) is read and written, and the tiles wholly
   * outside it exit at once: syrk's update of a large C as one launch (tiled and mma designs).
   */
  readonly triangle?: Uplo;
  /**
   * Complex data (common/complex.ts): elements are `real2` pairs of `dtype`, alpha and beta
   * complex, and op 'C' is transA / transB 'T' with the operand conjugated. Absent: real data
   * (the real kernels' parameters, and so their sources, carry no trace of it).
   */
  readonly complex?: Conjugations;
}

/**
 * Very small sizes (paper section 4.2): m, n, k are compile-time constants and every loop is
 * unrolled; `tbc` matrices share one thread block ("TB-level concurrency").
 * Each thread computes `rn` consecutive columns of one row of one C (fewer in the last group).
 */
export interface SmallGemmParams extends GemmCommon {
  readonly variant: 'small';
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** Matrices per thread block. */
  readonly tbc: number;
  /** Columns of C per thread (the last group of columns may be shorter). */
  readonly rn: number;
  /**
   * Threads per block; each takes ceil(tbc * m * ceil(n / rn) / threads) work items in turn, so
   * a block may hold more matrices than threads (more bytes in flight per load instruction).
   */
  readonly threads: number;
  /** Stage C through shared memory so it is read and written as whole contiguous runs. */
  readonly stageC: boolean;
}

/**
 * Medium and larger sizes: a shared-memory tiled kernel, one block per bm x bn tile of one C
 * (grid x: tiles, y/z: batch), k in steps of bk, double-buffered (the next tile is fetched into
 * registers while the current one is used), each thread a tm x tn register block.
 * m, n, k are runtime arguments, so one compile serves every size.
 */
export interface TiledGemmParams extends GemmCommon, TiledConfig {
  readonly variant: 'tiled';
  /**
   * op(A) is triangular and C is B, overwritten in place: trmm side left as one launch on the CUDA
   * cores (generate-tiled.ts), as MmaGemmParams.triangularA on the tensor cores. Absent: a plain product.
   */
  readonly triangularA?: TriangularOperand;
}

/**
 * The tiled kernel on FP64 tensor cores (mma.sync m16n8k8 or m16n8k16 on sm_90, m8n8k4 on sm_80;
 * float64 only): block tile bm x bn, k-step bk, wm x wn warps each computing a (bm / wm) x (bn / wn)
 * part, a cp.async pipeline of `stages` shared buffers (fields: MmaConfig).
 */
export interface MmaGemmParams extends GemmCommon, MmaConfig {
  readonly variant: 'mma';
  /**
   * op(A) is triangular and C is B, overwritten in place: trmm side left (B := alpha op(A) B) as
   * one launch (generate-mma.ts triangularFrame). A block owns a column panel of B and walks its row
   * tiles in the order that reads no row it has already written; beta is 0. Absent: a plain product.
   */
  readonly triangularA?: TriangularOperand;
}

/** The triangle of op(A) (lower: op(A)(i, p) = 0 for p > i) and whether its diagonal is taken as ones. */
export interface TriangularOperand {
  readonly lower: boolean;
  readonly unit: boolean;
}

/**
 * FP64 tensor cores fed by TMA (generate-tma.ts, sm_90): operands copied by the bulk tensor engine
 * into a ring of `stages` swizzled shared buffers, one producer warp and wm x wn consumer warps;
 * float64, real data, strided A and B (their tensor maps), no triangle (fields: TmaConfig).
 */
export interface TmaGemmParams extends GemmCommon, TmaConfig {
  readonly variant: 'tma';
}

export type GemmParams = SmallGemmParams | TiledGemmParams | MmaGemmParams | TmaGemmParams;
export type GemmVariant = GemmParams['variant'];

/** What a generated kernel and its launch need, besides the arguments. */
export interface GemmKernelShape {
  readonly threads: number;
  readonly sharedBytes: number;
}

/**
 * One size class of a variable batch (generate-vbatched.ts, common/vbatch.ts): members whose
 * m, n, k are at most `bound`, their pointers and sizes read from device tables. `vstaged` (bound
 * <= 32, below): operands staged in shared memory; `vsmall` (bound <= 32, the team design, where a
 * tuning table asks for it): `team` threads per member, `tbc` members per
 * block, one thread per element of C in turn, A and B read straight from memory; `vtiled`: the tiled kernel (generate-tiled.ts) over the
 * class's tiles, the tiles outside a member's C leaving at once; `vmma` the same with the FP64
 * tensor-core kernel (generate-mma.ts).
 */
/**
 * How a class kernel learns its members. Absent or false (the host-table form): `count` members, a
 * block (or a tile's block) each. true (the device form, launch-vdevice.ts): the class's member
 * count is read from device memory (the classification's counter, `live`, a parameter after beta;
 * at most `count`, the region's rows) and the blocks take the members in turn over a grid the GPU
 * holds at once, so no block is launched for the rows of a region past its class's members.
 */
export interface VbatchedCounting {
  readonly deviceCount?: boolean;
}

export interface VsmallGemmParams extends VbatchedCounting {
  readonly variant: 'vsmall';
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly betaZero: boolean;
  readonly bound: number;
  readonly team: number;
  readonly tbc: number;
}

/**
 * The staged design of the classes up to 32 (generate-vstaged.ts): `members` members per block,
 * each member's op(A) and op(B) copied into shared memory by coalesced loads, zero-padded to the
 * class bound, so the inner product is a fully unrolled loop of `bound` steps with no masks; each
 * thread a `tm` x `tn` tile of the member's C (rows i, i + bound / tm, ...; columns likewise).
 */
export interface VstagedGemmParams extends VbatchedCounting {
  readonly variant: 'vstaged';
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly betaZero: boolean;
  readonly bound: number;
  /** Members per block. */
  readonly members: number;
  /** Rows and columns of C per thread; each divides the bound. */
  readonly tm: number;
  readonly tn: number;
}

export interface VtiledGemmParams extends TiledConfig, VbatchedCounting {
  readonly variant: 'vtiled';
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly betaZero: boolean;
  readonly bound: number;
}

/** A float64 class on the tensor cores: the mma kernel (generate-mma.ts) over the class's tiles. */
export interface VmmaGemmParams extends MmaConfig, VbatchedCounting {
  readonly variant: 'vmma';
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly betaZero: boolean;
  readonly bound: number;
}

export type VbatchedGemmParams = VsmallGemmParams | VstagedGemmParams | VtiledGemmParams | VmmaGemmParams;

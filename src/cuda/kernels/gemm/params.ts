/**
 * Parameter objects of the batched GEMM kernels. A generator is a pure function of one of these;
 * the launcher knows one argument list for both variants (see `kernelArguments` in launch.ts).
 */
import type { DType } from '../../../core/dtype.js';
import type { Op } from '../../../core/ops.js';
import type { OperandKind } from '../common/batch-pointer.js';

/** How one operand's matrices are found, as the generated code sees it. */
export interface OperandLayout {
  readonly kind: OperandKind;
  /**
   * Strided and densely packed (ld = rows, stride = rows * cols): consecutive matrices form one
   * contiguous span, loaded (or stored) as one run of consecutive elements (small kernel only).
   */
  readonly dense: boolean;
}

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
export interface TiledGemmParams extends GemmCommon {
  readonly variant: 'tiled';
  readonly bm: number;
  readonly bn: number;
  readonly bk: number;
  readonly tm: number;
  readonly tn: number;
}

/**
 * The tiled kernel on FP64 tensor cores (mma.sync m8n8k4, sm_80+; float64 only): block tile
 * bm x bn, k-step bk, wm x wn warps each computing a (bm / wm) x (bn / wn) part.
 */
export interface MmaGemmParams extends GemmCommon {
  readonly variant: 'mma';
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
}

export type GemmParams = SmallGemmParams | TiledGemmParams | MmaGemmParams;
export type GemmVariant = GemmParams['variant'];

/** What a generated kernel and its launch need, besides the arguments. */
export interface GemmKernelShape {
  readonly threads: number;
  readonly sharedBytes: number;
}

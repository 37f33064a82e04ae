/**
 * Parameter objects of the tall-and-skinny GEMM kernels (TSM2X paper, /work/shared/papers/
 * tsm2x-tall-skinny-gemm.txt). A generator is a pure function of one of these; every field that
 * changes the generated code is here, every size that does not (m, k for TSM2R, m for TSM2L,
 * leading dimensions, alpha, beta) is a kernel argument.
 */
import type { DType } from '../../../core/dtype.js';
import type { Op } from '../../../core/ops.js';

/**
 * TSM2R (paper 3.1, Algorithm 4): C (m x n) = alpha op(A) (m x k) op(B) (k x n) + beta C with A
 * large and B tall and skinny. Each thread owns `vec` consecutive rows of C and walks k, so every
 * element of A is read once per pass over `t2` columns (outer product, Algorithm 2).
 */
export interface Tsm2rParams {
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  /** Columns of C: a compile-time constant (the model routes n <= 32 here). */
  readonly n: number;
  /** t1: threads per block (the paper also ties the B tile height to it; we keep `tileK` apart). */
  readonly t1: number;
  /** t2: columns of C a thread accumulates per pass; ceil(n / t2) passes read A that many times. */
  readonly t2: number;
  /** t3: k-steps of A a thread prefetches at once (its memory-level parallelism). */
  readonly t3: number;
  /** Rows of B per shared-memory tile, a multiple of t3; tiles are double-buffered with cp.async. */
  readonly tileK: number;
  /**
   * Rows of C per thread (1, 2 or 4), read from A as one vector load when op(A) = N (each B value
   * fetched from shared memory then feeds `vec` FMAs). Must be 1 when op(A) = T.
   */
  readonly vec: number;
  /**
   * Blocks of one thread-block cluster that split k (1, 2, 4, 8). Their partial sums meet in
   * distributed shared memory (sm_90), summed in a fixed order: deterministic, no workspace.
   */
  readonly split: number;
  /**
   * L2 prefetch distance in B tiles (0: off). Each thread asks L2 for its rows of A `prefetch`
   * tiles ahead (`prefetch.global.L2`, no registers held): more bytes in flight than the t3
   * registers allow, for the wide n where registers are scarce (paper 3.1.5, taken further).
   */
  readonly prefetch: number;
  /**
   * 0: A is prefetched into registers, t3 k-steps ahead (paper 3.1.5). >= 2: A is staged through
   * shared memory in a ring of `stages` slots of t3 k-steps, filled with cp.async (generate-r-
   * staged.ts): stages - 1 slots are in flight without holding a register, so the bytes in
   * flight no longer compete with the t2 x vec accumulators. Needs op(A) = N and
   * stages - 1 <= tileK / t3.
   */
  readonly stages: number;
  /**
   * The inner product: 'fma' (the paper's outer product, one FMA per element) or 'dmma' (float64
   * only, staged only: the tensor cores' mma.sync m16n8k16 .f64, sm_90, at twice the DFMA rate;
   * a warp owns 32 x vec rows and all t2 columns, t3 and tileK multiples of 16).
   */
  readonly engine: 'fma' | 'dmma';
}

/**
 * TSM2L (paper 3.2): A tall and skinny (m x k, k small), B small (k x n). The whole of B sits in
 * shared memory; each thread walks rows of A with a grid stride, so only m / tcf threads run
 * (the thread-count factor `tcf` is a launch parameter, not a code parameter).
 * - 'opt1' (Algorithm 6): the row tiles are processed one after the other.
 * - 'opt2' (Algorithm 7): interleaved: the next tile's A (and C when beta != 0) is fetched into
 *   registers while the current tile is computed and stored.
 */
export interface Tsm2lParams {
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly k: number;
  readonly n: number;
  /** Threads per block. */
  readonly t1: number;
  /** Rows per thread per tile (1, 2, 4), loaded and stored as vectors; 1 when op(A) = T. */
  readonly vec: number;
  readonly variant: 'opt1' | 'opt2';
}

/** C := beta C (beta = 0 writes zeros without reading C): alpha = 0 or k = 0. */
export interface ScaleParams {
  readonly dtype: DType;
}

/** The largest k and n TSM2L's generator unrolls (registers: k * vec + n * vec per set). */
export const TSM2L_MAX_K = 64;
export const TSM2L_MAX_N = 64;
/** The largest cluster the generated code asks for (the portable limit on sm_90). */
export const TSM2R_MAX_SPLIT = 8;

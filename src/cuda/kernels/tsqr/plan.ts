/**
 * The tsqr planner: pure, from the problem (with the device's SM count) and the tuning table.
 *
 * - Gram pass: register tile 4 for n > 16, 2 for n > 4, else 1 (a thread's tile x tile block of
 *   the Gram sum: 2 tile shared loads for tile^2 FMAs per row); 256 threads (rows per tile)
 *   unless the tile then passes 40 KiB (n > 16 in float64: 128), so blocks fit the default
 *   48 KiB and several share an SM.
 * - Store pass: one row a thread, 256 threads (128 where a float64 row passes 16 elements: its
 *   registers would leave one block per SM).
 * - Blocks: blocksPerSm x SMs per pass, shared by the `count` matrices, never more than the
 *   matrix has tiles (grid-stride loops cover the rest).
 */
import { DTYPE_BYTES, type DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import type { TsqrTuning } from '../../model/tuning/tsqr-types.js';
import { REDUCE_SLICES } from './generate-reduce.js';
import { groupThreads, paddedColumns } from './generate-rows.js';
import { TSQR_MAX_N, type TsqrForce, type TsqrPlan, type TsqrProblem } from './params.js';

/** Unit roundoff u (half the machine epsilon). */
export const unitRoundoff = (dtype: DType): number => dtypeInfo(dtype).unitRoundoff;

/** The shared bytes above which the Gram tile halves its rows. */
const GRAM_TILE_BYTES = 40 * 1024;

/** Whether the array-level qr sends a batch of `count` m x n matrices to TSQR (tsqr-types.ts). */
export function routesToTsqr(m: number, n: number, count: number, tuning: TsqrTuning): boolean {
  return n >= 1 && n <= TSQR_MAX_N && m >= tuning.minRows && m >= tuning.minAspect * n && count >= 1 && count <= tuning.maxCount;
}

export function planTsqr(problem: TsqrProblem, tuning: TsqrTuning, force: TsqrForce = {}): TsqrPlan {
  const { dtype, m, n, count, smCount } = problem;
  if (!(n >= 1 && n <= TSQR_MAX_N)) throw new Error(`tsqr plan: n must be 1..${TSQR_MAX_N}, got ${n}`);
  const tile = force.tile ?? (n > 16 ? 4 : n > 4 ? 2 : 1);
  const threads = force.threads ?? (paddedColumns({ n, tile }) * 257 * DTYPE_BYTES[dtype] > GRAM_TILE_BYTES ? 128 : 256);
  // A float64 row of n > 16 takes over 128 registers a thread: 128-thread blocks keep three per SM.
  const storeThreads = n * DTYPE_BYTES[dtype] > 128 ? 128 : 256;
  const tiles = (t: number): number => Math.max(1, Math.ceil(m / t));
  const perMatrix = Math.max(1, Math.ceil((tuning.blocksPerSm * smCount) / Math.max(1, count)));
  const u = unitRoundoff(dtype);
  return {
    gram: { dtype, mode: 'gram', n, threads, tile },
    store: { dtype, mode: 'store', n, threads: storeThreads, tile: 1 },
    chol: { dtype, n },
    reduce: { dtype, slices: force.reduceSlices ?? REDUCE_SLICES },
    gramBlocks: force.gramBlocks ?? Math.min(perMatrix, tiles(threads)),
    storeBlocks: force.storeBlocks ?? Math.min(perMatrix, tiles(storeThreads)),
    conditionLimit: force.route === 'shifted' ? 0 : force.route === 'cholqr2' ? Infinity : tuning.fallbackRatio / Math.sqrt(u),
  };
}

/**
 * The longest chain of additions behind one entry of the Gram matrix in this plan: a thread's
 * running sum over its rows (ceil(tiles per block) x ceil(rows per tile / groups)), the groups'
 * sum in the block, the slices' sums over the blocks and their tree. It stands for m in the shift
 * of shifted CholeskyQR3: Fukaya et al. (2020) bound the rounding error of the Gram matrix by
 * gamma_m, the error of m-term dot products summed in one chain; ours are summed in blocks, and
 * their error bound is gamma of this depth (Higham, Accuracy and Stability, sec. 4.2), so the
 * shift need not grow with m (it would pass ||A||_F^2 itself for m n > 1 / (11 u): 1.5e6 in float32).
 */
export function gramChain(plan: TsqrPlan, m: number): number {
  const groups = Math.max(1, Math.floor(plan.gram.threads / groupThreads(plan.gram)));
  const tilesPerBlock = Math.ceil(Math.ceil(m / plan.gram.threads) / plan.gramBlocks);
  return tilesPerBlock * Math.ceil(plan.gram.threads / groups) + groups + Math.ceil(plan.gramBlocks / plan.reduce.slices) + Math.log2(plan.reduce.slices);
}

/** The shift of shifted CholeskyQR3 over ||A||_F^2: 11 (chain n + n (n + 1)) u (Fukaya et al. 2020, eq. (4.2), with the chain of `gramChain` for m). */
export function shiftScale(plan: TsqrPlan, m: number): number {
  const n = plan.chol.n;
  return 11 * (gramChain(plan, m) * n + n * (n + 1)) * unitRoundoff(plan.chol.dtype);
}

/**
 * Bytes the algorithm moves through memory for one m x n matrix (the bandwidth bound of the
 * benchmarks): CholeskyQR2 reads A three times (the Gram of A, the Gram of A R1^{-1}, the final
 * pass) and writes Q once: 4 m n elements; the shifted route reads A once more: 5 m n. (Plain
 * unfused CholeskyQR2 moves 6 m n: Q1 written and read back; Householder geqrf + orgqr about
 * 4 m n per panel sweep, several sweeps.)
 */
export function tsqrBytes(dtype: DType, m: number, n: number, shifted = false): number {
  return (shifted ? 5 : 4) * m * n * DTYPE_BYTES[dtype];
}

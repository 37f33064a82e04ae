/**
 * getri's plan: arithmetic on the sizes (trtri and trsm plan their own launches). No tuning table:
 * nothing here is a measured crossover.
 *
 * - chunks: the batch runs in consecutive runs of matrices whose workspace W (n x n each) stays
 *   within GETRI_WORKSPACE_BYTES (a single larger matrix alone), reused run after run in stream order;
 * - the shape of the prepare and finish launches of one group: threads per matrix by its n^2
 *   elements, several small matrices per block, a matrix's columns split over blocks where the
 *   batch alone would leave SMs idle (each finish block rebuilds its matrix's column map, so at
 *   least GETRI_MIN_COLUMNS columns a block);
 * - fits: the finish block's column map and pivots (8 n bytes) within the shared memory.
 */
import { GETRI_MATRICES_MAX, GETRI_THREADS, getriFinishSharedBytes } from './generate-steps.js';
import type { GetriShape } from './params.js';

/** Workspace bytes a run of matrices may take (W: n^2 elements a matrix). */
export const GETRI_WORKSPACE_BYTES = 256 << 20;
/** Columns of a matrix a block takes at least, where the matrix has that many. */
export const GETRI_MIN_COLUMNS = 16;
/** Blocks per SM the column split aims at. */
const BLOCKS_PER_SM = 4;
/** gridDim.y at most. */
const GRID_Y_MAX = 65535;

/**
 * The runs [start, end) of a batch of `count` matrices, matrix i of order `n` (a number: every
 * matrix), whose W's take at most `budget` bytes (a matrix larger than that: a run of its own).
 */
export function getriChunks(count: number, n: number | ((i: number) => number), elementBytes: number, budget = GETRI_WORKSPACE_BYTES): [number, number][] {
  const runs: [number, number][] = [];
  if (typeof n === 'number') {
    const per = n * n * elementBytes;
    const size = per === 0 ? count : Math.max(1, Math.min(count, Math.floor(budget / per)));
    for (let start = 0; start < count; start += size) runs.push([start, Math.min(count, start + size)]);
    return runs;
  }
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const per = n(i) * n(i) * elementBytes;
    if (i > start && bytes + per > budget) {
      runs.push([start, i]);
      start = i;
      bytes = 0;
    }
    bytes += per;
  }
  if (count > start) runs.push([start, count]);
  return runs;
}

/** The prepare and finish launches of `count` n x n matrices on a GPU of `smCount` SMs. */
export function planGetriShape(n: number, count: number, smCount: number): GetriShape {
  const elements = n * n;
  const threads = elements >= GETRI_THREADS ? GETRI_THREADS : Math.max(32, Math.ceil(elements / 32) * 32);
  const matrices = Math.max(1, Math.min(GETRI_MATRICES_MAX, Math.floor(GETRI_THREADS / threads), count));
  const blocks = Math.max(1, Math.ceil(count / matrices));
  const wanted = Math.ceil((BLOCKS_PER_SM * smCount) / blocks);
  const split = Math.max(1, Math.min(wanted, Math.ceil(n / GETRI_MIN_COLUMNS), GRID_Y_MAX));
  const columns = Math.max(1, Math.ceil(n / split));
  return { threads, matrices, columns, columnBlocks: Math.max(1, Math.ceil(n / columns)) };
}

/** Whether the finish kernel's shared memory holds an n x n matrix's column map and pivots (one matrix a block). */
export function getriFits(n: number, sharedLimit: number): boolean {
  return getriFinishSharedBytes(n, 1) <= sharedLimit;
}

/**
 * Which complex herk kernel serves one launch group, and its block. One design (generate-small.ts:
 * a thread per element of C's triangle, op(A) staged through shared memory), for C of order <= 32;
 * larger orders and variable batches are not taken (the router's `covers`, zherkCovers, leaves them
 * to the CPU reference). No tuning table: the block's size (about 256 threads) and the staged chunk
 * (at most 1024 pairs a block) are chosen, not swept.
 */
import type { Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { ZherkSmallParams } from './params.js';

/** The largest C the kernels take. */
export const ZHERK_MAX_N = 32;

/** Threads a block aims at. */
const BLOCK_THREADS = 256;
/** Pairs of op(A) a block stages at once (16 KiB of complex128). */
const STAGED_PAIRS = 1024;
/** Most columns a thread's accumulators cover: blockDim.y at least n / 4. */
const COLUMNS_PER_THREAD = 4;

/** Whether the kernels take C of order n. */
export const zherkServes = (n: number): boolean => n >= 0 && n <= ZHERK_MAX_N;

/** Whether the kernels take a request: strided or list batches (one shape for all) with C of order at most ZHERK_MAX_N. */
export function zherkCovers(r: { a: Batch<unknown>; c: Batch<unknown> }): boolean {
  return r.a.kind !== 'variable' && r.c.kind !== 'variable' && zherkServes(r.c.rows);
}

export interface ZherkProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly trans: 'N' | 'C';
  readonly kindA: OperandKind;
  readonly kindC: OperandKind;
}

/** CUDA's bound on blockDim.z, which counts the block's matrices. */
const MAX_BLOCK_Z = 64;

/**
 * blockDim.y = min(n, max(8, n / 4)), as many matrices a block as fill about 256 threads (at most
 * MAX_BLOCK_Z), the chunk within 1024 pairs.
 */
export function planZherk(p: ZherkProblem): ZherkSmallParams {
  const rowsY = Math.min(p.n, Math.max(8, Math.ceil(p.n / COLUMNS_PER_THREAD)));
  const perBlock = Math.max(1, Math.min(MAX_BLOCK_Z, Math.floor(BLOCK_THREADS / (p.n * rowsY))));
  const chunk = Math.max(1, Math.min(32, Math.floor(STAGED_PAIRS / (perBlock * p.n))));
  return { dtype: p.dtype, n: p.n, uplo: p.uplo, trans: p.trans, kindA: p.kindA, kindC: p.kindC, rowsY, perBlock, chunk };
}

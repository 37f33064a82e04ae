/**
 * Which complex herk (or, with `symmetric`, zsyrk) kernel serves one launch group, and its block. One design (generate-small.ts:
 * a thread per element of C's triangle, op(A) staged through shared memory), for C of order <= 32;
 * larger C by the recursion of zherkSteps (diagonal blocks on that kernel, the triangle's
 * off-diagonal blocks by the complex GEMM). Variable batches are the router's (shape groups as
 * list batches: ownComplex). No tuning table: the block's size (about 256
 * threads) and the staged chunk (at most 1024 pairs a block) are chosen, not swept.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { ComplexGemmRequest, ComplexHerkRequest, ComplexScalar, ComplexSyrkRequest } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { MAX_BLOCK_Z } from '../common/block-launch.js';
import { splitPoint } from '../common/split.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
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

export interface ZherkProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  /** 'N' or 'C' (herk); 'N' or 'T' with `symmetric` (zsyrk). */
  readonly trans: 'N' | 'C' | 'T';
  readonly kindA: OperandKind;
  readonly kindC: OperandKind;
  readonly symmetric?: true;
}

/** CUDA's bound on blockDim.z, which counts the block's matrices. */

/**
 * blockDim.y = min(n, max(8, n / 4)), as many matrices a block as fill about 256 threads (at most
 * MAX_BLOCK_Z), the chunk within 1024 pairs.
 */
export function planZherk(p: ZherkProblem): ZherkSmallParams {
  const rowsY = Math.min(p.n, Math.max(8, Math.ceil(p.n / COLUMNS_PER_THREAD)));
  const perBlock = Math.max(1, Math.min(MAX_BLOCK_Z, Math.floor(BLOCK_THREADS / (p.n * rowsY))));
  const chunk = Math.max(1, Math.min(32, Math.floor(STAGED_PAIRS / (perBlock * p.n))));
  return { dtype: p.dtype, n: p.n, uplo: p.uplo, trans: p.trans, kindA: p.kindA, kindC: p.kindC, rowsY, perBlock, chunk, ...(p.symmetric ? { symmetric: true } : {}) };
}

/** A complex herk on strided or list batches (sub-blocks of them: common/sub-blocks.ts). */
export type BlockHerkRequest<S> = Omit<ComplexHerkRequest<S>, 'a' | 'c'> & { readonly a: BlockBatch<S>; readonly c: BlockBatch<S> };

/** A complex zsyrk on strided or list batches (sub-blocks of them). */
export type BlockSyrkRequest<S> = Omit<ComplexSyrkRequest<S>, 'a' | 'c'> & { readonly a: BlockBatch<S>; readonly c: BlockBatch<S> };

/** One launch of a rank-k recursion: a diagonal block of C (order <= ZHERK_MAX_N) or an off-diagonal block by GEMM. */
export type RankKStep<S, R> =
  | { readonly kind: 'leaf'; readonly request: R }
  | { readonly kind: 'update'; readonly request: ComplexGemmRequest<S> };

export type ZherkStep<S> = RankKStep<S, BlockHerkRequest<S>>;
export type ZsyrkStep<S> = RankKStep<S, BlockSyrkRequest<S>>;

/**
 * C's `uplo` triangle by halves (split at a multiple of 32 near the half, common/split.ts): the
 * diagonal blocks of order <= ZHERK_MAX_N as requests of their own (the kernel's leaves), and below
 * (lower) or right of (upper) each split's first half one GEMM with op `op` on X's second factor:
 * lower C21 := alpha X2 op(X1) + beta C21, upper C12 := alpha X1 op(X2) + beta C12, X = A ('N') or
 * op(A) (trans 'C' or 'T'; op(X_i) is then the GEMM's op of A's columns). Every element of the
 * triangle is in one block, so beta is applied once; the other triangle is in none. The caller keeps
 * the early return ((alpha = 0 or k = 0) and beta = 1: nothing written). Pure, over any storage
 * (tests run the same requests on the CPU reference).
 */
function rankKSteps<S, R extends { readonly uplo: Uplo; readonly trans: string; readonly a: BlockBatch<S>; readonly c: BlockBatch<S> }>(
  r: R, op: 'C' | 'T', alpha: ComplexScalar, beta: ComplexScalar): RankKStep<S, R>[] {
  const notrans = r.trans === 'N';
  const k = notrans ? r.a.cols : r.a.rows;
  // X's rows [off, off + size): A's rows ('N') or A's columns (op).
  const x = (off: number, size: number): BlockBatch<S> => (notrans ? block(r.a, off, 0, size, k) : block(r.a, 0, off, k, size));
  const steps: RankKStep<S, R>[] = [];
  // C(I, J) := alpha X_I op(X_J) + beta C(I, J): ('N', op) on A's rows, (op, 'N') on its columns.
  const gemm = (i0: number, rows: number, j0: number, cols: number): ComplexGemmRequest<S> => ({
    transA: notrans ? 'N' : op, transB: notrans ? op : 'N', alpha, a: x(i0, rows), b: x(j0, cols), beta, c: block(r.c, i0, j0, rows, cols),
  });
  const run = (off: number, size: number): void => {
    if (size <= ZHERK_MAX_N) {
      steps.push({ kind: 'leaf', request: { ...r, a: x(off, size), c: block(r.c, off, off, size, size) } });
      return;
    }
    const h = splitPoint(size, 32);
    run(off, h);
    steps.push({ kind: 'update', request: r.uplo === 'lower' ? gemm(off + h, size - h, off, h) : gemm(off, h, off + h, size - h) });
    run(off + h, size - h);
  };
  if (r.c.rows > 0) run(0, r.c.rows);
  return steps;
}

/** zherk's recursion (rankKSteps): the GEMMs with op 'C', alpha and beta real. */
export function zherkSteps<S>(r: BlockHerkRequest<S>): ZherkStep<S>[] {
  return rankKSteps<S, BlockHerkRequest<S>>(r, 'C', [r.alpha, 0], [r.beta, 0]);
}

/** zsyrk's recursion (rankKSteps): the diagonal blocks on the kernel with `symmetric`, the GEMMs with op 'T' (nothing conjugated), alpha and beta complex. */
export function zsyrkSteps<S>(r: BlockSyrkRequest<S>): ZsyrkStep<S>[] {
  return rankKSteps<S, BlockSyrkRequest<S>>(r, 'T', r.alpha, r.beta);
}

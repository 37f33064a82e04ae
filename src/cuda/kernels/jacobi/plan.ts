/**
 * Which Jacobi design and shape serve one group of equal-size matrices: per thread (syev, n <= 8),
 * a lane per row (syev, n <= 32; gesvd where GESVD_SMALL_DESIGN says so), the warp design (gesvd, max(m, n) <= 32), one block per matrix to 512;
 * larger sizes run on the CPU reference (`jacobiCovers` says which requests the GPU takes).
 * Warp design: lanes per matrix the smallest power of two >= n2 (n rounded up to even), at most
 * 32; matrices per block as many as keep the block within 256 threads and the static 48 KiB of
 * shared memory. Block design: threads by size (blockThreads), A and V in shared memory within the
 * problem's sharedLimit, else in a global workspace (no measured table yet).
 */
import { jacobiSweeps } from '../../../core/algorithms.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import { rowsMinBlocks, type RowsOccupancy } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { GesvdShape } from '../common/gesvd-shape.js';
import { stagedLayout } from '../common/span-stage.js';
import { WARP_STATIC_SHARED, warpLanes, warpMatricesPerBlock } from '../common/warp-shape.js';
import { gesvdBlockLayout, syevBlockLayout } from './generate-block.js';
import { gesvdWarpSharedBytes, syevWarpSharedBytes } from './generate-warp.js';
import { THREAD_BLOCK } from './generate-thread.js';
import type {
  BlockShape, GesvdBlockParams, GesvdRowsParams, GesvdWarpParams, JacobiForce, SyevBlockParams, SyevRowsParams, SyevThreadParams, SyevWarpParams, WarpShape,
} from './params.js';

/** The largest n (max(m, n) for gesvd) of the warp design. */
export const WARP_MAX = 32;

/** Matrices per block of the warp design (common/warp-shape.ts), or the forced count. */
function shape(threads: number, bytes: (perBlock: number) => number, force: JacobiForce): WarpShape {
  return { threads, perBlock: warpMatricesPerBlock(threads, bytes, force.perBlock) };
}

/**
 * `sharedLimit`: the dynamic shared bytes a block may have on the device (common/operands.ts
 * `sharedLimit`); the block designs keep A and V in shared memory within it. Absent: the static
 * 48 KiB.
 */
export interface SyevProblem {
  readonly dtype: DType; readonly n: number; readonly uplo: Uplo; readonly vectors: boolean; readonly kind: OperandKind; readonly sharedLimit?: number;
  /** A and W densely packed (common/operands.ts densePacked): the per-thread design stages them (absent: not). */
  readonly denseA?: boolean;
  readonly denseW?: boolean;
}
export interface GesvdProblem extends GesvdShape { readonly sharedLimit?: number }

/** The problem's fields a warp plan copies (not the device's sharedLimit: the warp designs use static shared memory). */
const syevFields = (pr: SyevProblem) => ({ dtype: pr.dtype, n: pr.n, uplo: pr.uplo, vectors: pr.vectors, kind: pr.kind });
const gesvdFields = (pr: GesvdProblem) => ({ dtype: pr.dtype, m: pr.m, n: pr.n, wantU: pr.wantU, wantVt: pr.wantVt, kind: pr.kind });

export function planSyev(pr: SyevProblem, options: { readonly force?: JacobiForce } = {}): SyevWarpParams {
  if (pr.n > WARP_MAX) throw new MyriadError('UNSUPPORTED', `the Jacobi warp design takes n <= ${WARP_MAX}, got ${pr.n}`, 'a');
  const s = shape(warpLanes(pr.n), (perBlock) => syevWarpSharedBytes({ ...pr, perBlock }), options.force ?? {});
  return { ...syevFields(pr), ...s, maxSweeps: jacobiSweeps(pr.n) };
}

/** The largest n (max(m, n) for gesvd) of the block designs, and so of the GPU's coverage. */
export const BLOCK_MAX = 512;

/**
 * Threads of a block design for an n2 x n2 problem (n2 = n rounded up to even): 256 to 64, 512 to
 * 128, else 1024 (a round's second phase has (n2 / 2)^2 2 x 2 blocks of A and n x n2 / 2 row
 * pieces of V; one block per matrix, so large matrices want the whole block). Not measured yet.
 */
export function blockThreads(size: number): number {
  const n2 = size + (size & 1);
  return n2 <= 64 ? 256 : n2 <= 128 ? 512 : 1024;
}

/**
 * Where a block design keeps its arrays: A (G) and V in shared memory where both fit `limit`
 * bytes, else A alone, else both in the global workspace (or as forced).
 */
function blockShape(size: number, limit: number, bytes: (aShared: boolean, vShared: boolean) => number, force: JacobiForce): BlockShape {
  const threads = force.threads ?? blockThreads(size);
  if (threads % 32 !== 0 || threads < 32 || threads > 1024)
    throw new MyriadError('UNSUPPORTED', `threads ${threads} must be a multiple of 32 within 1024`, 'force.threads');
  const options: [boolean, boolean][] = force.global ? [[false, false]] : [[true, true], [true, false], [false, false]];
  for (const [aShared, vShared] of options) if (bytes(aShared, vShared) <= limit) return { threads, aShared, vShared };
  throw new MyriadError('UNSUPPORTED', `the Jacobi block design's scratch does not fit ${limit} shared bytes`, 'a');
}

export function planSyevBlock(pr: SyevProblem, options: { readonly force?: JacobiForce } = {}): SyevBlockParams {
  if (pr.n > BLOCK_MAX || pr.n < 1) throw new MyriadError('UNSUPPORTED', `the Jacobi block design takes 1 <= n <= ${BLOCK_MAX}, got ${pr.n}`, 'a');
  const base = syevFields(pr);
  const s = blockShape(pr.n, pr.sharedLimit ?? WARP_STATIC_SHARED,
    (aShared, vShared) => syevBlockLayout({ ...base, aShared, vShared }).sharedBytes, options.force ?? {});
  return { ...base, ...s, vShared: s.vShared && pr.vectors, maxSweeps: jacobiSweeps(pr.n) };
}

export function planGesvdBlock(pr: GesvdProblem, options: { readonly force?: JacobiForce } = {}): GesvdBlockParams {
  const size = Math.max(pr.m, pr.n);
  if (size > BLOCK_MAX || Math.min(pr.m, pr.n) < 1) throw new MyriadError('UNSUPPORTED', `the Jacobi block design takes 1 <= m, n <= ${BLOCK_MAX}, got ${pr.m}x${pr.n}`, 'a');
  const base = gesvdFields(pr);
  const s = blockShape(Math.min(pr.m, pr.n), pr.sharedLimit ?? WARP_STATIC_SHARED,
    (aShared, vShared) => gesvdBlockLayout({ ...base, aShared, vShared }).sharedBytes, options.force ?? {});
  const needV = pr.m >= pr.n ? pr.wantVt : pr.wantU;
  return { ...base, ...s, vShared: s.vShared && needV, maxSweeps: jacobiSweeps(Math.min(pr.m, pr.n)) };
}

/**
 * The largest n the per-thread syev takes (registers: n (n + 1) / 2 + n^2 values per thread); they
 * do not spill to 8 (nvcc 13, sm_90: 227 registers in float64, 120 in float32, with vectors).
 */
export const THREAD_LIMIT = 8;
/**
 * The largest n the planner gives the per-thread syev: it beat the warp design at every n = 3 ... 8
 * (H100, 2026-11-26, scripts/probe/syev-thread.mjs, 100,000 matrices with vectors, ms thread / warp:
 * float64 n = 3 0.041 / 0.117, 4 0.077 / 0.118, 5 0.116 / 0.458, 6 0.187 / 0.503, 7 0.340 / 0.696,
 * 8 0.487 / 0.765; float32 8 0.295 / 0.541; at n = 2 they tie at 1,000,000 matrices).
 */
export const THREAD_MAX = THREAD_LIMIT;

/**
 * The per-thread design's parameters: staged through shared memory where eigenvectors are written, A
 * is densely packed and the block's slots fit STAGED_SHARED_MAX (or as forced: `stage` true where
 * they do not fit is an error), else each thread in global memory. Measured on an H200 (2026-12-02,
 * `node scripts/probe/syev-small.mjs`, 1,000,000 matrices, unstaged / staged ms): with vectors
 * float64 n = 2 1.05x, 4 1.16x, 5 1.01x, 3 and 6 0.96-0.99x; float32 2 1.08x, 5 1.13x, 6 1.41x, 7
 * 1.20x, 8 1.16x, 3 0.94x, 4 1.00x; values only 0.54-0.99x (float64 n = 2 0.015 against 0.028 ms:
 * the unstaged loads of a few bytes a sector cost less than the staged copy's barrier and slots).
 */
export function planSyevThread(pr: SyevProblem, stage?: boolean): SyevThreadParams {
  const layout = stagedLayout({ design: 'the per-thread syev', threads: THREAD_BLOCK, dtype: pr.dtype, n: pr.n, denseA: pr.denseA, denseW: pr.denseW, wants: pr.vectors && pr.denseA === true, stage });
  return { ...syevFields(pr), maxSweeps: jacobiSweeps(pr.n), ...layout };
}

/**
 * syev's design: one thread per matrix for n <= THREAD_MAX, the rows design (a lane per row, A and
 * V in registers: generate-rows.ts) to WARP_MAX, one block per matrix above (or as forced; the
 * shared-memory warp design only where forced). Rows against warp (H100, 2026-11-27,
 * scripts/probe/syev-rows.mjs, vectors, ms, float64 / float32): 12 x 100,000 2.44 / 3.38, 1.22 /
 * 2.28; 16 x 20,000 1.03 / 1.41, 0.46 / 1.00; 24 x 20,000 5.69 / 5.75, 2.19 / 3.92; 32 x 10,000 4.50
 * / 8.22, 2.40 / 4.28. At n = 8 (1,000,000) the per-thread design and rows tie (4.79 / 4.61, 2.08
 * / 2.17), so the per-thread one keeps n <= 8. The rows design takes the half-angle rotation and
 * the blocks an SM that `rowsOccupancy` (the card's table, model/tuning/syev-rows-occupancy.ts)
 * lists for the problem, else no request (or as forced).
 */
export function selectSyev(pr: SyevProblem, options: { readonly force?: JacobiForce; readonly rowsOccupancy?: readonly RowsOccupancy[] } = {}):
  | { readonly design: 'thread'; readonly params: SyevThreadParams }
  | { readonly design: 'rows'; readonly params: SyevRowsParams }
  | { readonly design: 'warp'; readonly params: SyevWarpParams }
  | { readonly design: 'block'; readonly params: SyevBlockParams } {
  const design = options.force?.design ?? (pr.n <= THREAD_MAX ? 'thread' : pr.n <= WARP_MAX ? 'rows' : 'block');
  if (design === 'thread') {
    if (pr.n > THREAD_LIMIT) throw new MyriadError('UNSUPPORTED', `the per-thread Jacobi takes n <= ${THREAD_LIMIT}, got ${pr.n}`, 'a');
    return { design, params: planSyevThread(pr, options.force?.stage) };
  }
  if (design === 'rows') {
    if (pr.n > WARP_MAX) throw new MyriadError('UNSUPPORTED', `the rows design takes n <= ${WARP_MAX}, got ${pr.n}`, 'a');
    const forced = options.force?.minBlocks;
    const minBlocks = forced === undefined ? rowsMinBlocks(options.rowsOccupancy ?? [], pr.dtype, pr.vectors, pr.n) : forced === 0 ? undefined : forced;
    const angle = options.force?.angle ?? 'halfAngle';
    return { design, params: { ...syevFields(pr), maxSweeps: jacobiSweeps(pr.n), angle, ...(minBlocks === undefined ? {} : { minBlocks }) } };
  }
  if (design === 'block') return { design, params: planSyevBlock(pr, options) };
  return { design, params: planSyev(pr, options) };
}

/** The smallest max(m, n) where gesvd's default may be the rows design (GESVD_SMALL_DESIGN). */
export const GESVD_ROWS_FROM = 9;

/**
 * gesvd's default design for max(m, n) = GESVD_ROWS_FROM ... WARP_MAX, by dtype: the shared-memory
 * warp design (generate-warp.ts) or the rows design (a lane per row, G and V in registers:
 * generate-gesvd-rows.ts). Measured on an NVIDIA H200, 2026-11-30 (`MYRIAD_QUICK_FIRST=0 SIZES=9,16,24,32
 * node scripts/probe/gesvd-rows.mjs`, square n x n, U and VT, the bench's counts; ms rows / warp /
 * gesvdjBatched): float64 9 1.80 / 2.43 / 85.5, 16 0.77 / 2.14 / 26.6, 24 2.69 / 4.51 / 24.2, 32 3.28 /
 * 11.0 / 20.1; float32 9 1.59 / 3.33 / 69.4, 16 0.41 / 0.95 / 10.3, 24 2.31 / 5.17 / 18.7, 32 1.44 /
 * 5.39 / 8.31: the rows design is 1.35-3.74x the warp design at every order measured, in both dtypes.
 */
export const GESVD_SMALL_DESIGN: Readonly<Record<DType, 'warp' | 'rows'>> = { float64: 'rows', float32: 'rows' };

/**
 * gesvd's design: to max(m, n) = WARP_MAX the warp design, or the rows design from GESVD_ROWS_FROM
 * where GESVD_SMALL_DESIGN names it for the dtype; one block per matrix above (or as forced: the rows
 * design at any max(m, n) <= WARP_MAX).
 */
export function selectGesvd(pr: GesvdProblem, options: { readonly force?: JacobiForce } = {}):
  | { readonly design: 'warp'; readonly params: GesvdWarpParams }
  | { readonly design: 'rows'; readonly params: GesvdRowsParams }
  | { readonly design: 'block'; readonly params: GesvdBlockParams } {
  const size = Math.max(pr.m, pr.n);
  const small = size >= GESVD_ROWS_FROM ? GESVD_SMALL_DESIGN[pr.dtype] : 'warp';
  const design = options.force?.design ?? (size <= WARP_MAX ? small : 'block');
  if (design === 'thread') throw new MyriadError('UNSUPPORTED', `gesvd has no ${design} design`, 'force.design');
  if (design === 'rows') {
    if (size > WARP_MAX || Math.min(pr.m, pr.n) < 1) throw new MyriadError('UNSUPPORTED', `the gesvd rows design takes 1 <= m, n <= ${WARP_MAX}, got ${pr.m}x${pr.n}`, 'a');
    return { design, params: { ...gesvdFields(pr), maxSweeps: jacobiSweeps(Math.min(pr.m, pr.n)) } };
  }
  if (design === 'block') return { design, params: planGesvdBlock(pr, options) };
  return { design, params: planGesvd(pr, options) };
}

export function planGesvd(pr: GesvdProblem, options: { readonly force?: JacobiForce } = {}): GesvdWarpParams {
  if (Math.max(pr.m, pr.n) > WARP_MAX) throw new MyriadError('UNSUPPORTED', `the Jacobi warp design takes max(m, n) <= ${WARP_MAX}, got ${pr.m}x${pr.n}`, 'a');
  const s = shape(warpLanes(Math.min(pr.m, pr.n)), (perBlock) => gesvdWarpSharedBytes({ ...pr, perBlock }), options.force ?? {});
  return { ...gesvdFields(pr), ...s, maxSweeps: jacobiSweeps(Math.min(pr.m, pr.n)) };
}

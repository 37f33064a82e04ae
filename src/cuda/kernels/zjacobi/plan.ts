/**
 * The shape of the complex warp designs (heev; gesvd, whose lanes follow min(m, n)) for one group
 * of equal-size matrices: the lanes per matrix and matrices per block of the real warp design
 * (common/warp-shape.ts). Orders above ZHEEV_MAX (max(m, n) above ZGESVD_MAX) have no kernel here:
 * the router's `covers` (heevCovers, zgesvdCovers) sends heev to the zheev family's design up to 512
 * and the rest to the CPU reference. No tuning
 * table: not swept yet.
 */
import { jacobiSweeps } from '../../../core/algorithms.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { GesvdShape } from '../common/gesvd-shape.js';
import { warpLanes, warpMatricesPerBlock } from '../common/warp-shape.js';
import { gesvdWarpSharedBytes } from './generate-gesvd.js';
import { heevRowsSharedBytes } from './generate-heev-rows.js';
import { heevWarpSharedBytes } from './generate-heev.js';
import type { GesvdWarpParams, HeevRowsParams, HeevWarpParams, ZjacobiForce } from './params.js';
import { ROWS_WARPS } from '../common/rows-frame.js';

/** The largest order the complex heev kernel takes. */
export const ZHEEV_MAX = 32;

/** Whether the complex heev kernel takes matrices of order n. */
export const zheevServes = (n: number): boolean => n >= 0 && n <= ZHEEV_MAX;

export interface HeevProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
}

export function planHeev(pr: HeevProblem, options: { readonly force?: ZjacobiForce } = {}): HeevWarpParams {
  if (!zheevServes(pr.n) || pr.n < 1) throw new MyriadError('UNSUPPORTED', `the complex Jacobi warp design takes 1 <= n <= ${ZHEEV_MAX}, got ${pr.n}`, 'a');
  const base = { dtype: pr.dtype, n: pr.n, uplo: pr.uplo, vectors: pr.vectors, kind: pr.kind, maxSweeps: jacobiSweeps(pr.n), threads: warpLanes(pr.n) };
  return { ...base, perBlock: warpMatricesPerBlock(base.threads, (perBlock) => heevWarpSharedBytes({ ...base, perBlock }), options.force?.perBlock) };
}

/**
 * heev's default design by dtype and order (n = 1 ... ZHEEV_MAX; orders no range lists take the warp
 * design): the shared-memory warp design (generate-heev.ts) or the rows design (a lane per row, A and V
 * in registers: generate-heev-rows.ts). Measured on an NVIDIA H200, 2026-11-30, `MYRIAD_QUICK_FIRST=0
 * node scripts/probe/zjacobi-rows.mjs` (with vectors, lower, the bench's counts, median of 5; ms rows /
 * warp / cusolverDnXsyevBatched): complex128 9 1.097 / 2.008 / 12.503, 12 1.330 / 1.736 / 8.802, 16
 * 1.840 / 2.778 / 7.298, 24 3.565 / 4.684 / 5.599, 32 7.215 / 17.739 / 10.970; complex64 9 1.044 / 2.542
 * / -, 12 1.248 / 2.013 / 11.999, 16 0.813 / 1.441 / 5.613, 24 2.619 / 4.379 / 7.284, 32 3.323 / 7.790
 * / 6.478. The rows design is 1.31-2.46x the warp design at every order measured: it serves 9 ... 32.
 */
export const HEEV_SMALL_DESIGN: Readonly<Record<DType, readonly { readonly from: number; readonly to: number; readonly design: 'warp' | 'rows' }[]>> = {
  float64: [{ from: 9, to: 32, design: 'rows' }],
  float32: [{ from: 9, to: 32, design: 'rows' }],
};

/**
 * The largest order at which the heev rows design keeps V in registers (above it, V in shared memory):
 * where ptxas (nvcc 13, sm_90) fits A's and V's rows (8 N2 32-bit registers in complex128, 4 N2 in
 * complex64) and the round's temporaries in 255 registers without local memory.
 */
export const HEEV_ROWS_V_REGISTERS_MAX: Readonly<Record<DType, number>> = { float64: 20, float32: 32 };

/** Static shared memory a block may take (48 KiB). */
const STATIC_SHARED = 48 * 1024;

/** heev's default design for order n (HEEV_SMALL_DESIGN). */
export const heevSmallDesign = (dtype: DType, n: number): 'warp' | 'rows' =>
  HEEV_SMALL_DESIGN[dtype].find((r) => n >= r.from && n <= r.to)?.design ?? 'warp';

/** The heev rows design's parameters: V where HEEV_ROWS_V_REGISTERS_MAX says (or as forced), the most warps a block (to ROWS_WARPS) its shared memory allows. */
export function planHeevRows(pr: HeevProblem, options: { readonly force?: ZjacobiForce } = {}): HeevRowsParams {
  if (!zheevServes(pr.n) || pr.n < 1) throw new MyriadError('UNSUPPORTED', `the complex heev rows design takes 1 <= n <= ${ZHEEV_MAX}, got ${pr.n}`, 'a');
  const vShared = pr.vectors && (options.force?.vShared ?? pr.n > HEEV_ROWS_V_REGISTERS_MAX[pr.dtype]);
  const base = { dtype: pr.dtype, n: pr.n, uplo: pr.uplo, vectors: pr.vectors, kind: pr.kind, maxSweeps: jacobiSweeps(pr.n), vShared };
  let warps = ROWS_WARPS;
  while (warps > 1 && heevRowsSharedBytes({ ...base, warps }) > STATIC_SHARED) warps--;
  return { ...base, warps };
}

/** heev's design and parameters: HEEV_SMALL_DESIGN's, or as forced (`force.design`). */
export function selectHeev(pr: HeevProblem, options: { readonly force?: ZjacobiForce } = {}):
  | { readonly design: 'warp'; readonly params: HeevWarpParams }
  | { readonly design: 'rows'; readonly params: HeevRowsParams } {
  const design = options.force?.design ?? heevSmallDesign(pr.dtype, pr.n);
  return design === 'rows' ? { design, params: planHeevRows(pr, options) } : { design, params: planHeev(pr, options) };
}

/** The largest max(m, n) the complex gesvd kernel takes. */
export const ZGESVD_MAX = 32;

/** Whether the complex gesvd kernel takes m x n matrices. */
export const zgesvdServes = (m: number, n: number): boolean => m >= 0 && n >= 0 && Math.max(m, n) <= ZGESVD_MAX;

export type GesvdProblem = GesvdShape;

export function planGesvd(pr: GesvdProblem, options: { readonly force?: ZjacobiForce } = {}): GesvdWarpParams {
  if (!zgesvdServes(pr.m, pr.n) || Math.min(pr.m, pr.n) < 1)
    throw new MyriadError('UNSUPPORTED', `the complex Jacobi warp design takes 1 <= m, n <= ${ZGESVD_MAX}, got ${pr.m}x${pr.n}`, 'a');
  const base = { dtype: pr.dtype, m: pr.m, n: pr.n, wantU: pr.wantU, wantVt: pr.wantVt, kind: pr.kind, maxSweeps: jacobiSweeps(Math.min(pr.m, pr.n)), threads: warpLanes(Math.min(pr.m, pr.n)) };
  return { ...base, perBlock: warpMatricesPerBlock(base.threads, (perBlock) => gesvdWarpSharedBytes({ ...base, perBlock }), options.force?.perBlock) };
}

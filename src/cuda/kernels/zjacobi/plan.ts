/**
 * The shape of the complex warp designs (heev; gesvd, whose lanes follow min(m, n)) for one group
 * of equal-size matrices: the lanes per matrix and matrices per block of the real warp design
 * (common/warp-shape.ts). Orders above ZHEEV_MAX (max(m, n) above ZGESVD_MAX) have no kernel here:
 * the router's `covers` (heevCovers, zgesvdCovers) sends heev to the zheev family's design up to 512
 * and the rest to the CPU reference. No tuning
 * table: not swept yet.
 */
import { MAX_SWEEPS } from '../../../core/algorithms.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { GesvdShape } from '../common/gesvd-shape.js';
import { warpLanes, warpMatricesPerBlock } from '../common/warp-shape.js';
import { gesvdWarpSharedBytes } from './generate-gesvd.js';
import { heevWarpSharedBytes } from './generate-heev.js';
import type { GesvdWarpParams, HeevWarpParams, ZjacobiForce } from './params.js';

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
  const base = { dtype: pr.dtype, n: pr.n, uplo: pr.uplo, vectors: pr.vectors, kind: pr.kind, maxSweeps: MAX_SWEEPS, threads: warpLanes(pr.n) };
  return { ...base, perBlock: warpMatricesPerBlock(base.threads, (perBlock) => heevWarpSharedBytes({ ...base, perBlock }), options.force?.perBlock) };
}

/** The largest max(m, n) the complex gesvd kernel takes. */
export const ZGESVD_MAX = 32;

/** Whether the complex gesvd kernel takes m x n matrices. */
export const zgesvdServes = (m: number, n: number): boolean => m >= 0 && n >= 0 && Math.max(m, n) <= ZGESVD_MAX;

export type GesvdProblem = GesvdShape;

export function planGesvd(pr: GesvdProblem, options: { readonly force?: ZjacobiForce } = {}): GesvdWarpParams {
  if (!zgesvdServes(pr.m, pr.n) || Math.min(pr.m, pr.n) < 1)
    throw new MyriadError('UNSUPPORTED', `the complex Jacobi warp design takes 1 <= m, n <= ${ZGESVD_MAX}, got ${pr.m}x${pr.n}`, 'a');
  const base = { dtype: pr.dtype, m: pr.m, n: pr.n, wantU: pr.wantU, wantVt: pr.wantVt, kind: pr.kind, maxSweeps: MAX_SWEEPS, threads: warpLanes(Math.min(pr.m, pr.n)) };
  return { ...base, perBlock: warpMatricesPerBlock(base.threads, (perBlock) => gesvdWarpSharedBytes({ ...base, perBlock }), options.force?.perBlock) };
}

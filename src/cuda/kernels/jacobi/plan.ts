/**
 * Which Jacobi design and shape serve one group of equal-size matrices. Only the warp design
 * exists (n <= 32 for syev, max(m, n) <= 32 for gesvd); larger sizes run on the CPU reference
 * (`jacobiCovers` says which requests the GPU takes). Lanes per matrix: the smallest power of two
 * >= n2 (n rounded up to even), at most 32; matrices per block: as many as keep the block within
 * 256 threads and the static 48 KiB of shared memory (no measured table yet).
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import { MAX_SWEEPS } from '../../../cpu/lapack/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { gesvdWarpSharedBytes, syevWarpSharedBytes } from './generate-warp.js';
import type { GesvdWarpParams, JacobiForce, SyevThreadParams, SyevWarpParams, WarpShape } from './params.js';

/** The largest n (max(m, n) for gesvd) of the warp design. */
export const WARP_MAX = 32;
const STATIC_SHARED = 48 * 1024;
const MAX_THREADS = 256;

function lanesFor(size: number): number {
  const n2 = size + (size & 1);
  let t = 2;
  while (t < n2 && t < 32) t *= 2;
  return t;
}

/** Matrices per block: a multiple of 32 / threads, the most that fit (or the forced count). */
function shape(threads: number, bytes: (perBlock: number) => number, force: JacobiForce): WarpShape {
  const unit = 32 / threads;
  if (force.perBlock !== undefined) {
    if (force.perBlock % unit !== 0 || bytes(force.perBlock) > STATIC_SHARED)
      throw new MyriadError('UNSUPPORTED', `perBlock ${force.perBlock} must be a multiple of ${unit} within ${STATIC_SHARED} shared bytes`, 'force.perBlock');
    return { threads, perBlock: force.perBlock };
  }
  let perBlock = unit;
  while ((perBlock + unit) * threads <= MAX_THREADS && bytes(perBlock + unit) <= STATIC_SHARED) perBlock += unit;
  if (bytes(perBlock) > STATIC_SHARED) throw new MyriadError('UNSUPPORTED', 'no Jacobi warp shape fits the shared memory', 'a');
  return { threads, perBlock };
}

export interface SyevProblem { readonly dtype: DType; readonly n: number; readonly uplo: Uplo; readonly vectors: boolean; readonly kind: OperandKind }
export interface GesvdProblem { readonly dtype: DType; readonly m: number; readonly n: number; readonly wantU: boolean; readonly wantVt: boolean; readonly kind: OperandKind }

export function planSyev(pr: SyevProblem, options: { readonly force?: JacobiForce } = {}): SyevWarpParams {
  if (pr.n > WARP_MAX) throw new MyriadError('UNSUPPORTED', `the Jacobi warp design takes n <= ${WARP_MAX}, got ${pr.n}`, 'a');
  const s = shape(lanesFor(pr.n), (perBlock) => syevWarpSharedBytes({ ...pr, perBlock }), options.force ?? {});
  return { ...pr, ...s, maxSweeps: MAX_SWEEPS };
}

/** The largest n of the per-thread syev (registers: n (n + 1) / 2 + n^2 values per thread). */
export const THREAD_MAX = 4;

/**
 * syev's design: one thread per matrix for n <= THREAD_MAX (unless forced to the warp design),
 * else the warp design.
 */
export function selectSyev(pr: SyevProblem, options: { readonly force?: JacobiForce } = {}):
  { readonly design: 'thread'; readonly params: SyevThreadParams } | { readonly design: 'warp'; readonly params: SyevWarpParams } {
  const design = options.force?.design ?? (pr.n <= THREAD_MAX ? 'thread' : 'warp');
  if (design === 'thread') {
    if (pr.n > THREAD_MAX) throw new MyriadError('UNSUPPORTED', `the per-thread Jacobi takes n <= ${THREAD_MAX}, got ${pr.n}`, 'a');
    return { design, params: { ...pr, maxSweeps: MAX_SWEEPS } };
  }
  return { design, params: planSyev(pr, options) };
}

export function planGesvd(pr: GesvdProblem, options: { readonly force?: JacobiForce } = {}): GesvdWarpParams {
  if (Math.max(pr.m, pr.n) > WARP_MAX) throw new MyriadError('UNSUPPORTED', `the Jacobi warp design takes max(m, n) <= ${WARP_MAX}, got ${pr.m}x${pr.n}`, 'a');
  const s = shape(lanesFor(Math.min(pr.m, pr.n)), (perBlock) => gesvdWarpSharedBytes({ ...pr, perBlock }), options.force ?? {});
  return { ...pr, ...s, maxSweeps: MAX_SWEEPS };
}

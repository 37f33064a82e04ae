/**
 * The launch shape of the warp Jacobi designs (kernels/jacobi/ and kernels/zjacobi/): lanes per
 * matrix, and matrices per block within the static 48 KiB of shared memory and 256 threads.
 */
import { MyriadError } from '../../../core/errors.js';

/** The static shared memory a block of the warp designs may use. */
export const WARP_STATIC_SHARED = 48 * 1024;
const MAX_THREADS = 256;

/** Lanes per matrix: the smallest power of two >= n rounded up to even, at least 2, at most 32. */
export function warpLanes(n: number): number {
  const n2 = n + (n & 1);
  let t = 2;
  while (t < n2 && t < 32) t *= 2;
  return t;
}

/**
 * Matrices per block: a multiple of 32 / `threads`, the most that fit the threads and `bytes(perBlock)`
 * within WARP_STATIC_SHARED, or `forced` where it is one such count (else an error naming force.perBlock).
 */
export function warpMatricesPerBlock(threads: number, bytes: (perBlock: number) => number, forced: number | undefined): number {
  const unit = 32 / threads;
  if (forced !== undefined) {
    if (!Number.isInteger(forced) || forced < unit || forced % unit !== 0 || forced * threads > 1024 || bytes(forced) > WARP_STATIC_SHARED)
      throw new MyriadError('UNSUPPORTED', `perBlock ${forced} must be a multiple of ${unit} within ${WARP_STATIC_SHARED} shared bytes and 1024 threads`, 'force.perBlock');
    return forced;
  }
  let perBlock = unit;
  while ((perBlock + unit) * threads <= MAX_THREADS && bytes(perBlock + unit) <= WARP_STATIC_SHARED) perBlock += unit;
  if (bytes(perBlock) > WARP_STATIC_SHARED) throw new MyriadError('UNSUPPORTED', 'no Jacobi warp shape fits the shared memory', 'a');
  return perBlock;
}

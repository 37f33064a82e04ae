/**
 * The vendor's routines a syev or gesvd row of `myriad bench` times on a GPU, the fastest kept and
 * named (bench/run.ts, VendorChoice): every batched routine of cuSOLVER's that takes the shape, and a
 * stream of dense calls (one matrix per call) where the batch is small enough to time it.
 */

/** From this order the own routes leave their designs for cuSOLVER's dense routines: the row times those alone. */
export const DENSE_FROM = 513;

/** From 33 up to DENSE_FROM, the largest batch the stream of dense calls is timed on. */
export const DENSE_LOOP_MAX = 2000;

/** The batched Jacobi routines' largest order (syevjBatched, gesvdjBatched). */
const JACOBI_MAX = 32;

export type EigenVendorRoutine = 'syevjBatched' | 'XsyevBatched' | 'syevd' | 'gesvdjBatched' | 'gesvdaStridedBatched' | 'gesvd';

/**
 * syev (vectors): syevjBatched to 32, cusolverDnXsyevBatched below DENSE_FROM where the library has
 * it, syevd a matrix per call; gesvd (vectors, square): gesvdjBatched to 32, gesvdaStridedBatched
 * below DENSE_FROM, gesvd a matrix per call. The dense stream from 33 for batches of up to
 * DENSE_LOOP_MAX, and alone from DENSE_FROM.
 */
export function eigenVendorRoutines(op: 'syev' | 'gesvd', n: number, count: number, hasSyevBatched: boolean): EigenVendorRoutine[] {
  const dense = n >= DENSE_FROM || (n > JACOBI_MAX && count <= DENSE_LOOP_MAX);
  const jacobi = n <= JACOBI_MAX;
  const batched = n < DENSE_FROM;
  if (op === 'syev') {
    return [...(jacobi ? ['syevjBatched' as const] : []), ...(batched && hasSyevBatched ? ['XsyevBatched' as const] : []), ...(dense ? ['syevd' as const] : [])];
  }
  return [...(jacobi ? ['gesvdjBatched' as const] : []), ...(batched ? ['gesvdaStridedBatched' as const] : []), ...(dense ? ['gesvd' as const] : [])];
}

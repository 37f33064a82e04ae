/**
 * Constants of the algorithms that every backend runs alike, so that the CPU reference and the
 * generated kernels agree on the iterations they take and on the info codes they report.
 */

/** Cyclic Jacobi (syev, gesvd): the sweeps a matrix of order below 128 gets (`jacobiSweeps`). */
export const MAX_SWEEPS = 30;

/**
 * The sweeps a cyclic Jacobi matrix of order n gets (gesvd: min(m, n) columns), on every backend
 * (the CPU reference, the fast CPU kernels and the GPU designs take it alike); one still rotating
 * after them is reported with info = size + 1 and its last iterate kept. MAX_SWEEPS below 128, then
 * 4 more per doubling (34 from 128, 38 from 256, 42 from 512). Graded matrices of a few hundred can
 * take more than 30: a 200 x 200 D B D (B symmetric random, D from 1e-5 to 1e5) rotated in its 30th
 * sweep and not in its 31st, where LAPACK's dsyev reports success.
 */
export function jacobiSweeps(n: number): number {
  return n < 128 ? MAX_SWEEPS : MAX_SWEEPS + 4 * (Math.floor(Math.log2(n)) - 6);
}

/**
 * Cyclic Jacobi: sizes above which the accumulated V gets one pass of modified Gram-Schmidt after
 * the sweeps (the rotations' rounding lets V drift from orthogonal like sqrt(sweeps n) eps).
 */
export const REORTHOGONALIZE_ABOVE = 32;

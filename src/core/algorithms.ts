/**
 * Constants of the algorithms that every backend runs alike, so that the CPU reference and the
 * generated kernels agree on the iterations they take and on the info codes they report.
 */

/**
 * Cyclic Jacobi (syev, gesvd): the sweeps a matrix gets; one still rotating after them is
 * reported with info = size + 1 and its last iterate kept.
 */
export const MAX_SWEEPS = 30;

/**
 * Cyclic Jacobi: sizes above which the accumulated V gets one pass of modified Gram-Schmidt after
 * the sweeps (the rotations' rounding lets V drift from orthogonal like sqrt(sweeps n) eps).
 */
export const REORTHOGONALIZE_ABOVE = 32;

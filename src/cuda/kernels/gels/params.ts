/**
 * The gels family's parameter objects: the two small kernels it adds between the QR, ormqr and trsm
 * launches (generate-steps.ts), and the plan of one group of equal-size systems (plan.ts).
 */
import type { DType } from '../../../core/dtype.js';
import type { Op } from '../../../core/ops.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * The check after the factorisation: info from R's diagonal, the per-matrix state, and for a matrix
 * that is not solved the steps made harmless (Q = I; tall: B's top rows kept aside; wide: R = I).
 */
export interface GelsCheckParams {
  readonly dtype: DType;
  /** m >= n (R from A in place) or m < n (R from A^T in the workspace). */
  readonly tall: boolean;
  /** The form of the factored matrix: A's (tall) or the strided workspace (wide). */
  readonly factor: OperandKind;
  readonly b: OperandKind;
}

/**
 * The pass over B after the solve: tall, B's top rows restored where R is singular; wide, rows
 * m..n zeroed before Q is applied; both, B = 0 where A is zero.
 */
export interface GelsFinishParams {
  readonly dtype: DType;
  readonly tall: boolean;
  readonly b: OperandKind;
}

/** How one group of m x n systems with nrhs right-hand sides runs (plan.ts). */
export interface GelsPlan {
  readonly tall: boolean;
  /** min(m, n): the reflectors, and R's order. */
  readonly k: number;
  /** The matrix geqrf factors: A (m x n) when tall, A^T (n x m, in the workspace) when wide. */
  readonly factorRows: number;
  readonly factorCols: number;
  /** B's rows: max(m, n) (LAPACK's ldb >= max(m, n)). */
  readonly rowsB: number;
  /** Q^T B before the solve (tall) or Q [Y; 0] after it (wide). */
  readonly ormqrTrans: Op;
  /** R X = (Q^T B)(0:n) (tall, 'N') or R^T Y = B(0:m) (wide, 'T'). */
  readonly trsmTrans: Op;
  /** Workspace elements per matrix: tau (k), B's top rows kept aside (tall: n nrhs), A^T (wide: n m). */
  readonly tauElements: number;
  readonly guardElements: number;
  readonly workElements: number;
}

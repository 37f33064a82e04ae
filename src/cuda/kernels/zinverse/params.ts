/**
 * Parameter objects of the complex inverses' own kernels (generate-move.ts): the diagonal scan
 * that gives trtri's, potri's and getri's info, and the moves between A and the workspaces. Every
 * product is the complex trsm's, herk's, gemm's or potrf's (plan.ts). `dtype` is the parts'
 * type (float64: complex128, float32: complex64). A generator is a pure function of its object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * info[i] = the first exactly zero diagonal element of matrix i (both parts zero; 1-based), or 0,
 * as ztrtri checks before it writes anything. `keep`: a matrix whose info is already non-zero
 * keeps it (poti: potrf's).
 */
export interface ZscanParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  readonly keep: boolean;
}

/**
 * What a move writes into B (n x n per matrix) from A:
 * - 'identity': B := I (A not read);
 * - 'triangle': B's `uplo` triangle := A's; its diagonal copied, skipped (a unit triangle's),
 *   copied with the imaginary part zero ('real': a Cholesky factor's, as zlauu2 reads it) or set
 *   to one (getri's unit L); the rest of B zeroed (`zeroOther`) or left as it is;
 * - 'whole': B := A.
 * `onlyOk`: only matrices whose info is 0 are written (a failed matrix left as it was).
 */
export type ZmoveOp =
  | { readonly op: 'identity' }
  | { readonly op: 'triangle'; readonly uplo: Uplo; readonly diagonal: ZdiagonalMove; readonly zeroOther: boolean; readonly onlyOk: boolean }
  | { readonly op: 'whole'; readonly onlyOk: boolean };

/** What a triangle move does with the diagonal. */
export type ZdiagonalMove = 'copy' | 'skip' | 'real' | 'one';

/**
 * getri's finish: the column interchanges of getrf's pivots applied to W in place, last first
 * (inv(A) = inv(U) inv(L) P), then A := W, both only where info is 0 (a thread per row of W).
 */
export interface ZcolumnsParams {
  readonly dtype: DType;
  readonly kindW: OperandKind;
  readonly kindA: OperandKind;
}

export interface ZmoveParams {
  readonly dtype: DType;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  readonly move: ZmoveOp;
}

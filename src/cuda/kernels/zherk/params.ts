/**
 * Parameter objects of the complex rank-k updates for C of order <= 32 (generate-small.ts): the
 * Hermitian one (zherk, cherk) and, with `symmetric`, the complex symmetric one (zsyrk, csyrk).
 * `dtype` is the parts' type (float64: complex128, float32: complex64). k, the batch, alpha and beta
 * are kernel arguments. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

export interface ZherkSmallParams {
  readonly dtype: DType;
  /** Order of C. */
  readonly n: number;
  readonly uplo: Uplo;
  /**
   * 'N': C := alpha A A^H + beta C (A n x k); 'C': alpha A^H A + beta C (A k x n). With `symmetric`:
   * 'N': alpha A A^T + beta C, 'T': alpha A^T A + beta C ('C' is not a zsyrk).
   */
  readonly trans: 'N' | 'C' | 'T';
  readonly kindA: OperandKind;
  readonly kindC: OperandKind;
  /** Threads of a matrix along C's columns (blockDim.y; blockDim.x = n, a thread per row). */
  readonly rowsY: number;
  /** Matrices per block (blockDim.z). */
  readonly perBlock: number;
  /** Columns of op(A)^H (k) staged in shared memory per step. */
  readonly chunk: number;
  /**
   * zsyrk: no conjugation, complex alpha and beta, a complex diagonal. Absent for zherk (whose
   * parameter objects, kernels and kernel-cache keys are as they were before zsyrk).
   */
  readonly symmetric?: true;
}

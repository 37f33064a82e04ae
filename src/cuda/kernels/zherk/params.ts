/**
 * Parameter objects of the complex Hermitian rank-k update (zherk, cherk) for C of order <= 32
 * (generate-small.ts). `dtype` is the parts' type (float64: complex128, float32: complex64). k, the
 * batch, alpha and beta are kernel arguments. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

export interface ZherkSmallParams {
  readonly dtype: DType;
  /** Order of C. */
  readonly n: number;
  readonly uplo: Uplo;
  /** 'N': C := alpha A A^H + beta C (A n x k); 'C': alpha A^H A + beta C (A k x n). */
  readonly trans: 'N' | 'C';
  readonly kindA: OperandKind;
  readonly kindC: OperandKind;
  /** Threads of a matrix along C's columns (blockDim.y; blockDim.x = n, a thread per row). */
  readonly rowsY: number;
  /** Matrices per block (blockDim.z). */
  readonly perBlock: number;
  /** Columns of op(A)^H (k) staged in shared memory per step. */
  readonly chunk: number;
}

/**
 * Parameter objects of the complex Cholesky kernels (zpotrf, zpotrs, zposv and their complex64
 * forms; n <= 32, generate-small.ts). `dtype` is the parts' type (float64: complex128, float32:
 * complex64). A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/** potrf: the warp design, one lane per row of the factor. */
export interface ZpotrfSmallParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  /** Warps per block. */
  readonly warps: number;
}

/** potrs (the factor read once) and posv (factored, then solved, in one kernel): RB right-hand sides per pass. */
export interface ZsolveSmallParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  readonly warps: number;
  /** Right-hand sides per pass (a compile-time constant, 1..ZRHS_MAX). */
  readonly rhs: number;
}

/**
 * Parameter objects of the complex triangular multiply (ztrmm, ctrmm) for triangles of order <= 32
 * (generate-small.ts). `dtype` is the parts' type (float64: complex128, float32: complex64). The
 * request's side, uplo, transA and diag are kept as the API spells them; the generator derives the
 * triangle T the vectors of B meet (as the complex trsm's: ztrsm's ztrsmView). A generator is a pure
 * function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Diag, Side, Uplo } from '../../../core/enums.js';
import type { ComplexOp } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';

export interface ZtrmmSmallParams {
  readonly dtype: DType;
  /** Order of the triangle (B's rows for side 'left', its columns for 'right'). */
  readonly n: number;
  readonly side: Side;
  readonly uplo: Uplo;
  readonly transA: ComplexOp;
  readonly diag: Diag;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  /** Warps per block. */
  readonly warps: number;
  /** Vectors of B per pass (a compile-time constant, 1 .. ZTRMM_RHS_MAX). */
  readonly rhs: number;
}

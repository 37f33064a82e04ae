/**
 * Parameter objects of the complex triangular solve (ztrsm, ctrsm) for triangles of order <= 32
 * (generate-small.ts). `dtype` is the parts' type (float64: complex128, float32: complex64). The
 * request's side, uplo, transA and diag are kept as the API spells them; the generator derives the
 * triangle T the right-hand-side vectors meet. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Diag, Side, Uplo } from '../../../core/enums.js';
import type { ComplexOp } from '../../../core/op-specs.js';
import type { OperandKind } from '../common/batch-pointer.js';

export interface ZtrsmSmallParams {
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
  /** Right-hand-side vectors per pass (a compile-time constant, 1 .. ZTRSM_RHS_MAX). */
  readonly rhs: number;
}

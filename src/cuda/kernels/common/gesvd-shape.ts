/** What every gesvd design plans for, whatever its method: the element type, m x n, the sides of vectors asked, the operand form. */
import type { DType } from '../../../core/dtype.js';
import type { OperandKind } from './batch-pointer.js';

export interface GesvdShape {
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly wantU: boolean;
  readonly wantVt: boolean;
  readonly kind: OperandKind;
}

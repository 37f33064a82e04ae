/** One GEMM's shape, shared by the planners of the designs that compute a product (gemm, tsm2). */
import type { DType } from '../../../core/dtype.js';
import type { Op } from '../../../core/ops.js';

/** C (m x n) = op(A) (m x k) op(B) (k x n). */
export interface GemmShape {
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly m: number;
  readonly n: number;
  readonly k: number;
}

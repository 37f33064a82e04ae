/**
 * Parameter object of the per-thread tridiagonal-QL syev kernel (generate.ts). A generator is a
 * pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * syev for n <= QL_THREAD_LIMIT (plan.ts), one thread per matrix, everything in registers:
 * `maxit` QL iterations allowed per row (dsteqr's MAXIT: maxit * n in all, then info n + 1);
 * `arithmetic` the type the kernel computes in: float64 for both dtypes (float32 data widened on
 * load, rounded once on store), or float32 for float32 data (half the registers, the FP32 pipe).
 */
export interface QlThreadParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
  readonly maxit: number;
  readonly arithmetic: DType;
  /**
   * A and W staged through shared memory by block-wide copies (common/span-stage.ts, slots of the
   * data's type), `denseA` / `denseW` where that operand is densely packed (one contiguous span a block).
   */
  readonly staged: boolean;
  readonly denseA: boolean;
  readonly denseW: boolean;
}

/** What tests, benchmarks and probes may force over the table: the arithmetic of float32 data, and staging. */
export interface QlThreadForce {
  readonly arithmetic?: DType;
  readonly stage?: boolean;
}

/**
 * Parameter objects of the batched SPD inverse (poti = potrf + trtri + lauum; potri = trtri +
 * lauum). A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/** Which steps the fused kernel runs: 'poti' from A, 'potri' from A's Cholesky factor. */
export type PotiStage = 'poti' | 'potri';

/**
 * The fused small-n kernel (generate-fused.ts, the paper's POTI): one matrix per nb threads
 * (nb a compile-time power of two >= n), several matrices per block, everything in one shared
 * tile and registers.
 */
export interface PotiFusedParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  readonly nb: number;
  readonly stage: PotiStage;
}

/** The fused kernel's launch, or the composition (potrf, trtri and lauum launchers) above its sizes. */
export type PotiPlan =
  | { readonly variant: 'fused'; readonly params: PotiFusedParams; readonly matrices: number; readonly sharedBytes: number }
  | { readonly variant: 'composed' };

/** What a plan may be told to use instead of the tuning table's choice (tests, benchmarks). */
export interface PotiForce {
  /** The largest n the fused kernel serves (0: always composed). */
  readonly fusedMax?: number;
}

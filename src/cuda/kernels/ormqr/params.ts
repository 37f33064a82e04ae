/**
 * Parameter objects of the ormqr family (C := op(Q) C or C op(Q) from geqrf's reflectors). The
 * generator is a pure function of `OrmqrParams`; sizes are kernel arguments (the design unrolls
 * nothing), so one kernel serves every size of a (dtype, side, trans, operand form).
 */
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { HouseholderApplyShape } from '../common/householder-plan.js';

/** What changes the generated kernel. */
export interface OrmqrParams {
  readonly dtype: DType;
  readonly side: Side;
  readonly trans: Op;
  /** The form of all three operands (A, tau, C): strided, or pointer arrays. */
  readonly kind: OperandKind;
}

/** Launch shape of one group: `threads` per matrix (blockDim.x), up to `matrices` per block (blockDim.y); the complex family's too. */
export type OrmqrShape = HouseholderApplyShape;

export interface OrmqrPlan {
  readonly params: OrmqrParams;
  readonly shape: OrmqrShape;
}

/** What a plan may be told instead of its own choice (tests, benchmarks). */
export interface OrmqrForce {
  /** The shared-memory kernel (generate-block.ts) or the blocked compact-WY driver (launch.ts). */
  readonly design?: 'shared' | 'blocked';
  /** The blocked driver's block of reflectors (1..32). */
  readonly panel?: number;
  /** Threads per matrix: a power of two <= 128. */
  readonly threads?: number;
  /** Matrices per block (at most 256 / threads). */
  readonly matrices?: number;
}

/**
 * The getri family's parameter objects: its two kernels around the borrowed trtri and trsm
 * (generate-steps.ts), and the launch shape of one group of equal-size matrices (plan.ts).
 */
import type { DType } from '../../../core/dtype.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * The prepare kernel (W := L with a unit diagonal and a zero upper triangle; info from U's
 * diagonal) and the finish kernel (A := W P where info is 0): what changes their text.
 */
export interface GetriStepParams {
  readonly dtype: DType;
  /** The form of A and W (one form for both: a group's operands share it). */
  readonly kind: OperandKind;
}

/**
 * One group's launches of both kernels: a block holds `matrices` matrices of `threads` threads
 * each (blockDim = (threads, matrices)), and each matrix's columns are split over `columnBlocks`
 * blocks of `columns` columns (gridDim.y).
 */
export interface GetriShape {
  readonly threads: number;
  readonly matrices: number;
  readonly columns: number;
  readonly columnBlocks: number;
}

/** What a call may force (tests, sweeps): the workspace bound of a run of matrices, the launch shape of every group. */
export interface GetriForce {
  readonly workspaceBytes?: number;
  readonly shape?: GetriShape;
}

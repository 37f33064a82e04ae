/**
 * Parameter objects of the batched Householder QR kernels (geqrf, orgqr): the shared-memory kernel's
 * and the blocked driver's, common to the real and the complex family (common/householder-plan.ts),
 * and the real family's own per-thread kernel (generate-thread.ts). A generator is a pure function
 * of its parameter object.
 *
 * Scope: where a group's lanes synchronise: 'warp' (max(m, n) <= 32: a matrix per group of `threads`
 * <= 32 lanes, several matrices per block, __syncwarp) or 'block' (a matrix per thread block of
 * `threads` > 32, __syncthreads).
 */
import type { QrThreadVariant } from '../../model/tuning/qr-types.js';
import type {
  HouseholderBlockedPlan, HouseholderDesign, HouseholderForce, HouseholderPlan, HouseholderScope, HouseholderShape, HouseholderSharedParams,
} from '../common/householder-plan.js';

export type { QrThreadVariant };
export type QrScope = HouseholderScope;
export type QrShape = HouseholderShape;
export type QrSharedParams = HouseholderSharedParams;
export type QrPlan = HouseholderPlan;
export type QrBlockedPlan = HouseholderBlockedPlan;

/**
 * The per-thread kernel (max(m, n) <= QR_THREAD_LIMIT): one thread per matrix, the m x n matrix in
 * registers, dgeqr2 or dorg2r unrolled with every index a constant.
 */
export interface QrThreadParams extends HouseholderShape {
  /** Threads (= matrices) per block. */
  readonly blockThreads: number;
  /**
   * The block's matrices (and tau) move between global and shared memory by block-wide copies
   * (common/tile-load.ts), each thread then reading its own matrix from shared memory; false: each
   * thread loads and stores its own matrix directly.
   */
  readonly stage: boolean;
  /** Staged only: A densely packed (ld = m, stride = m n), moved as one contiguous span. */
  readonly denseA: boolean;
  /** Staged only: tau densely packed (stride = k), moved as one contiguous span. */
  readonly denseT: boolean;
  /** Which generator: absent or 'classic' generate-thread.ts, 'fast' generate-thread-fast.ts (staged geqrf only). */
  readonly variant?: QrThreadVariant;
}



/** A group's per-thread plan: the parameters and the dynamic shared bytes of one block. */
export interface QrThreadPlan {
  readonly params: QrThreadParams;
  readonly sharedBytes: number;
}

/** The per-thread design chosen for a group (its layout flags come from the group's operands at launch). */
export interface QrThreadDesign {
  readonly design: 'thread';
}

/** What a plan may be told instead of its own choice: the shared designs' fields, and the per-thread design's. */
export interface QrForce extends Omit<HouseholderForce, 'design'> {
  /** The per-thread kernel, one shared-memory kernel per matrix, or the blocked compact-WY driver. */
  readonly design?: 'thread' | 'shared' | 'blocked';
  /** Per-thread design: threads (matrices) per block. */
  readonly blockThreads?: number;
  /** Per-thread design: stage through shared memory (default: where A is densely packed; the fast variant always). */
  readonly stage?: boolean;
  /** Per-thread design, geqrf: the generator (default: the `qr` table's `threadVariant`). */
  readonly threadVariant?: QrThreadVariant;
}

/** A group's design: the per-thread kernel, one shared-memory kernel per matrix, or the blocked driver. */
export type QrDesign = QrThreadDesign | HouseholderDesign;

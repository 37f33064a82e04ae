/** The symmetric rank-k update's table (src/cuda/kernels/syrk/) and lauum's (src/cuda/kernels/lauum/). */
import type { PerDType } from './factor-types.js';

export interface SyrkTuning {
  /** The largest diagonal block the leaf kernel computes; above it the recursion splits C. */
  readonly leafMax: PerDType<number>;
  /** Columns of op(A) the leaf stages in shared memory per step. */
  readonly chunk: PerDType<number>;
  /** Threads per block the leaf aims at (several matrices share a block where one is smaller). */
  readonly blockThreads: number;
  /** The recursion splits C at a multiple of this (GEMM-friendly block sizes). */
  readonly splitAlign: number;
  /**
   * n from which C is one GEMM launch over its triangle (tiles outside it exit at once) instead of
   * the recursion, whose small off-diagonal GEMMs and CUDA-core leaves leave a large C's SMs idle.
   */
  readonly triangleFrom: PerDType<number>;
}

export interface LauumTuning {
  /** The largest triangle the shared-memory leaf computes; above it the recursion splits. */
  readonly leafMax: PerDType<number>;
  /** Threads per block the leaf aims at (several matrices share a block where one is smaller). */
  readonly blockThreads: number;
  /** Shared bytes per block the leaf aims at when several matrices share a block (occupancy). */
  readonly sharedTarget: number;
  /** The recursion splits a triangle at a multiple of this. */
  readonly splitAlign: number;
}

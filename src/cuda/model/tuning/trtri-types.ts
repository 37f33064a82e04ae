/** The batched triangular inverse's table (src/cuda/kernels/trtri/) and the fused SPD inverse's (kernels/poti/). */
import type { PerDType } from './factor-types.js';

export interface TrtriTuning {
  /** The largest triangle the register leaf inverts (a compile-time size; a power of two <= 32); above it the recursion splits at multiples of it. */
  readonly leafMax: PerDType<number>;
  /** Threads per block the leaf aims at when several matrices share a block. */
  readonly blockThreads: number;
  /** The largest n the fused poti/potri kernel (potrf, trtri, lauum in one launch) serves. */
  readonly fusedMax: PerDType<number>;
}

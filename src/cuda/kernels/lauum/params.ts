/**
 * Parameter objects of the batched lauum (LAPACK: the triangle of U U^T or L^T L) and the plan
 * that strings its launches together. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * The shared-memory leaf (generate-leaf.ts): the triangle (t x t, t at run time) once per matrix
 * in shared memory, one thread per element of the result. Launch shape (threads per matrix,
 * matrices per block) is a run-time choice of the plan, not of the source.
 */
export interface LauumLeafParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
}

/**
 * The register leaf (generate-register-leaf.ts): the triangle (t <= tile, t at run time) once per
 * matrix in shared memory, (tile / reg)^2 threads a matrix, each with reg x reg accumulators (the
 * triangle of them) of rows and columns spread over the triangle.
 */
export interface LauumRegisterLeafParams extends LauumLeafParams {
  /** The largest triangle (a power of two up to 64). */
  readonly tile: number;
  /** Accumulators a side (a power of two up to 8, at most tile). */
  readonly reg: number;
  /**
   * Persistent blocks whose next group of matrices is copied in (cp.async, two buffers a matrix
   * slot) while the current one's products run; absent or false: a block a group, loads then products.
   */
  readonly pipelined?: boolean;
  /** The staged triangle packed column by column (t (t + 1) / 2 elements) instead of t columns of lds. */
  readonly packed?: boolean;
}

/** A range [off, off + size) of the triangle's rows and columns. */
export interface Span {
  readonly off: number;
  readonly size: number;
}

/**
 * One launch over the whole batch (the paper's recursion flattened on the host), for a block split
 * into `lo` (first rows and columns) and `hi`; lower (upper symmetric, U12 = A(lo, hi)):
 * - 'leaf': A(span, span) := lauum(A(span, span)) by the leaf kernel;
 * - 'syrk': A(lo, lo) += L21^T L21 (upper: U12 U12^T), L21 = A(hi, lo), by the syrk family;
 * - 'trmm': A(hi, lo) := L22^T L21 (upper: A(lo, hi) := U12 U22^T), by the trsm family's trmm.
 * In order: lauum of lo, syrk and trmm (which read the factor's hi blocks), lauum of hi.
 */
export type LauumStep =
  | { readonly kind: 'leaf'; readonly span: Span }
  | { readonly kind: 'syrk' | 'trmm'; readonly lo: Span; readonly hi: Span };

/** The leaf's launch shape for one triangle size. */
export interface LauumLeafShape {
  /** Threads per matrix: blockDim.x. */
  readonly threads: number;
  /** Matrices per block: blockDim.y. */
  readonly matrices: number;
  /** Padded leading dimension of the shared triangle (odd: conflict-free); the register leaf's packed triangle has none (unused there). */
  readonly lds: number;
  /** Dynamic shared bytes per block. */
  readonly sharedBytes: number;
}

export interface LauumPlan {
  readonly leaf: LauumLeafParams;
  readonly steps: readonly LauumStep[];
  /** The launch shape of every leaf step, by leaf size. */
  readonly shapes: ReadonlyMap<number, LauumLeafShape>;
  /** The register leaf's parameters by leaf size, where it computes that size (its shape in `shapes`). */
  readonly registerLeaves: ReadonlyMap<number, LauumRegisterLeafParams>;
}

/** What a plan may be told to use instead of the tuning table's choice (tests, benchmarks). */
export interface LauumForce {
  /** The largest leaf (it must fit the device's shared memory). */
  readonly leafMax?: number;
  /**
   * The leaf kernel: 'shared' (generate-leaf.ts) or 'register' (generate-register-leaf.ts, with
   * `reg` accumulators a side, else the table's for the size, else 2); absent: the table's choice.
   */
  readonly leaf?: 'shared' | 'register';
  readonly reg?: number;
  /** The register leaf's pipelined form (true) or not (false); absent: the table's. */
  readonly pipelined?: boolean;
  /** The register leaf's packed triangle (true) or square one (false); absent: the table's. */
  readonly packed?: boolean;
}

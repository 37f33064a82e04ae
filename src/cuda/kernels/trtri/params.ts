/**
 * Parameter objects of the batched triangular inverse (trtri) and the plan that strings its
 * launches together. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Diag, Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * The register leaf (generate-leaf.ts): one matrix's nb x nb diagonal block (nb a compile-time
 * power of two, the block's size at run time <= nb) in shared memory, one thread per column of
 * the inverse held in registers; several matrices per block.
 */
export interface TrtriLeafParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly diag: Diag;
  readonly kind: OperandKind;
  readonly nb: number;
}

/** info[i] = the first exactly zero diagonal element (1-based), or 0 (generate-scan.ts). */
export interface TrtriScanParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
}

/** A range [off, off + size) of the triangle's rows and columns. */
export interface TrtriSpan {
  readonly off: number;
  readonly size: number;
}

/**
 * One off-diagonal block of the recursion, done after both diagonal blocks are inverted:
 * lower: A(hi, lo) := -inv(A)(hi, hi) A(hi, lo) inv(A)(lo, lo); upper: A(lo, hi) := -inv(A)(lo, lo)
 * A(lo, hi) inv(A)(hi, hi), as two trmm (the trsm family's public face).
 */
export interface TrtriStep {
  readonly lo: TrtriSpan;
  readonly hi: TrtriSpan;
}

export interface TrtriPlan {
  readonly leaf: TrtriLeafParams;
  /** Matrices per block of the leaf (blockDim.y; blockDim.x = nb). */
  readonly matrices: number;
  readonly sharedBytes: number;
  /** Leaves along the diagonal (gridDim.y): 1 where n <= nb (the leaf does it all, info included). */
  readonly leaves: number;
  /** The off-diagonal blocks in launch order (empty where n <= nb). */
  readonly steps: readonly TrtriStep[];
}

/** What a plan may be told to use instead of the tuning table's choice (tests, benchmarks). */
export interface TrtriForce {
  /** The leaf size (a power of two, at most 32). */
  readonly leafMax?: number;
}

/**
 * The class leaf of a variable-size batch (generate-vbatched.ts): the register leaf of size nb
 * over members read from the tables (no operand form: the tables hold each member's address).
 */
export interface TrtriVbatchedLeafParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly diag: Diag;
  readonly nb: number;
}

/** The diagonal scan of the classes above one leaf (generate-vbatched.ts). */
export interface TrtriVbatchedScanParams {
  readonly dtype: DType;
}

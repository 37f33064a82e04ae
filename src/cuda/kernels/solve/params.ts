/**
 * Parameter objects of the solve kernels: the n <= 32 register designs (fused posv/gesv, and
 * potrs/getrs with the factor read once) and the substitution kernel for larger n.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/** Which triangular solves, with which factor: Cholesky (lower or upper storage) or LU (op N or T). */
export type SolveVariant = 'chol-lower' | 'chol-upper' | 'lu-N' | 'lu-T';


/** gesv for n <= 32 (generate-small.ts): the LU and both sweeps in registers. */
export interface FusedSolveParams {
  readonly dtype: DType;
  readonly n: number;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  readonly warps: number;
  /** Right-hand sides per pass, 1..RHS_MAX (the launcher passes rhsPerPass(nrhs); default 1). */
  readonly rhs?: number;
  /**
   * Whether nrhs may exceed `rhs` (further passes after the fused one). Only then is the loop
   * generated: its registers would otherwise lower the occupancy of every call (e.g. gesv f32
   * n = 32: 144 registers with it, 80 without). Default false: the launcher sets it.
   */
  readonly more?: boolean;
}


/** posv for n <= 32: the Cholesky of the bordered matrix and both sweeps in registers. */
export interface PosvSmallParams extends FusedSolveParams {
  readonly uplo: Uplo;
}

/**
 * gesv's class kernel of a variable-size batch (classes up to 32, generate-vsmall.ts): `n` is the
 * class bound, `rhs` the right-hand sides carried through the factorisation (plan-vbatched.ts
 * FUSED_RHS, whatever the class), `more` whether a member may have more (the further passes' loop).
 */
export interface FusedVbatchedParams {
  readonly dtype: DType;
  readonly n: number;
  readonly warps: number;
  readonly rhs: number;
  readonly more: boolean;
}

/** posv's class kernel: gesv's parameters and the stored triangle. */
export interface PosvVbatchedParams extends FusedVbatchedParams {
  readonly uplo: Uplo;
}

/** potrs / getrs for n <= 32: the factor read once into registers, both sweeps by shuffles. */
export interface SmallSolveParams {
  readonly dtype: DType;
  readonly n: number;
  readonly variant: SolveVariant;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  readonly warps: number;
  /** Right-hand sides per pass, 1..RHS_MAX. */
  readonly rhs: number;
}


/** The substitution kernel for any n (generate-substitute.ts), after potrf / getrf. */
export interface SubstituteParams {
  readonly dtype: DType;
  readonly variant: SolveVariant;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
}

/** The row interchanges of getrs on the trsm route (generate-permute.ts). */
export interface PermuteParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  /** B := P^T B (after the solves of op T) instead of B := P B. */
  readonly inverse: boolean;
}


/**
 * Parameter objects of the tridiagonal-QL syev kernel (generate-syev.ts). A generator is a pure
 * function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';

/**
 * syev by Householder tridiagonalization and implicit QL/QR, one thread block per matrix
 * (generate-syev.ts). `dtype` is the data's (the arithmetic is float64 whatever it is);
 * `threads` per block (a multiple of 32); `shared`: the n x n working matrix (A, then Q, then the
 * eigenvectors) in dynamic shared memory, else in a per-block slice of the global workspace;
 * `maxit`: QL/QR iterations allowed per row (dsteqr's MAXIT: maxit * n in all, then info n + 1).
 */
export interface SyevTridiagParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
  readonly threads: number;
  readonly shared: boolean;
  readonly maxit: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks, sweeps). */
export interface TridiagForce {
  /** Threads per block (a multiple of 32, at most 1024). */
  readonly threads?: number;
  /** Keep the working matrix in the global workspace even where it fits shared memory. */
  readonly global?: boolean;
}

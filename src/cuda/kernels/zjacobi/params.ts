/**
 * Parameter objects of the complex Jacobi kernels (heev on complex128 and complex64 data, n <= 32:
 * generate-heev.ts; gesvd, max(m, n) <= 32: generate-gesvd.ts). `dtype` is the parts' type
 * (float64: complex128, float32: complex64), the arithmetic's too. A generator is a pure function
 * of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { GesvdShape } from '../common/gesvd-shape.js';

/** What every heev kernel is generated for, whatever its design. */
export interface HeevKernel {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  /** The form of A and of W (one launch takes both in one form). */
  readonly kind: OperandKind;
  readonly maxSweeps: number;
}

/** heev, the warp design: `threads` lanes (a power of two <= 32) per matrix, `perBlock` matrices per block. */
export interface HeevWarpParams extends HeevKernel {
  readonly threads: number;
  readonly perBlock: number;
}

/**
 * heev, the rows design (generate-heev-rows.ts): a lane per row of A and of V, N2 lanes a matrix and
 * `warps` warps a block (the shape follows from n: common/rows-frame.ts); V in registers, or in shared
 * memory where `vShared` (with 'values' no V).
 */
export interface HeevRowsParams extends HeevKernel {
  readonly vShared: boolean;
  readonly warps: number;
}

/** gesvd (max(m, n) <= 32), the warp design: `threads` lanes per matrix, `perBlock` matrices per block. */
export interface GesvdWarpParams extends GesvdShape {
  readonly maxSweeps: number;
  readonly threads: number;
  readonly perBlock: number;
}

/** What a plan may be told instead of its own choice (tests, benchmarks). */
export interface ZjacobiForce {
  /** The warp designs: matrices a block. */
  readonly perBlock?: number;
  /** The design instead of the table's (heev: 'rows' at any n <= 32). */
  readonly design?: 'warp' | 'rows';
  /** The heev rows design with vectors: V in shared memory (true) or registers (false) instead of the plan's choice. */
  readonly vShared?: boolean;
}

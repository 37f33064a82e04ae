/**
 * Parameter objects of the batched triangular solve (trsm) and the plan that strings its launches
 * together. A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Diag, Side, Uplo } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { MmaGemmParams, TiledGemmParams } from '../gemm/index.js';

/** What the family computes: trsm (B := alpha op(A)^-1 B, ...) or trmm (B := alpha op(A) B, ...). */
export type TriangularOp = 'trsm' | 'trmm';

/** The operation's variant, as in BLAS. */
export interface TrsmVariant {
  readonly side: Side;
  readonly uplo: Uplo;
  readonly transA: Op;
  readonly diag: Diag;
}

/**
 * The shared-memory leaf (generate-leaf.ts): the triangle (t x t, t at run time) once per matrix
 * in shared memory, one thread per right-hand-side vector. Launch shape (vectors per matrix,
 * matrices per block) is a run-time choice of the plan, not of the source.
 */
export interface TrsmLeafParams extends TrsmVariant {
  readonly op: TriangularOp;
  readonly dtype: DType;
  /** How A and B are found: both strided, or both pointer arrays (list and variable batches). */
  readonly kind: OperandKind;
}

/**
 * trmm's register leaf (generate-register-leaf.ts): the largest order it takes is compiled in
 * (`order`, at most 32; the triangle's own order is a kernel argument); a warp multiplies 32
 * vectors of one matrix, a thread one vector held in registers.
 */
export interface TrmmRegisterLeafParams extends TrsmVariant {
  readonly dtype: DType;
  readonly kind: OperandKind;
  readonly order: number;
}

/**
 * trmm's product leaf (generate-product-leaf.ts): the same fields as the register leaf's; a task
 * is one matrix and 32 of its vectors, its threads parallel over the product's outputs.
 */
export type TrmmProductLeafParams = TrmmRegisterLeafParams;

/**
 * trmm's pipelined kernel (generate-pipelined.ts, side left): the register leaf's fields and the
 * shared stages a block cycles through (2 or 3); a persistent block walks (matrix, panel of 32
 * vectors) tasks and copies the next ones by cp.async while it multiplies.
 */
export interface TrmmPipelinedParams extends TrmmRegisterLeafParams {
  readonly stages: number;
}

/** The register leaf's launch shape for one order: tasks (warps) per block and their shared bytes. */
export interface TrmmRegisterLeafShape {
  readonly warps: number;
  readonly sharedBytes: number;
}

/**
 * trsm, side left, one large triangle and few right-hand sides: the row blocks chained by flags in
 * one launch (generate-chain.ts); `rhs` columns per chain (1, 2, 4, 8 or 16).
 */
export interface TrsmChainParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly transA: Op;
  readonly diag: Diag;
  readonly rhs: number;
  readonly kind: OperandKind;
}

/** B := 0 over m x n of every matrix, A never read (alpha = 0; generate-zero.ts). */
export interface TrsmZeroParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
}

/** The large trsm's diagonal blocks into the workspace (generate-blocks.ts; strided A). */
export interface TrsmDiagonalParams {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly diag: Diag;
}

/** A block of every matrix of B into a compact workspace (generate-blocks.ts; strided B). */
export interface TrsmCopyParams {
  readonly dtype: DType;
}

/**
 * TRSM by inverted diagonal blocks (large triangles, strided batches, trsm only): the diagonal
 * blocks of NB are inverted once into the workspace (`slots` per matrix), the plan's leaves are
 * exactly those blocks (steps split at multiples of NB) and each leaf is a copy of B's block and one
 * GEMM with the inverse; the updates are the recursion's GEMMs as before.
 */
export interface TrsmInverted {
  readonly nb: number;
  readonly slots: number;
}

/** A range [off, off + size) of the triangle's rows and columns (of op(A)). */
export interface Span {
  readonly off: number;
  readonly size: number;
}

/**
 * One launch over the whole batch (the paper's recursion flattened on the host):
 * - 'leaf': solve (trsm) or multiply (trmm) with the diagonal block `span` of A on the matching
 *   part of B (rows for side left, columns for side right), scaled by alpha when `scaled`, else 1;
 * - 'update': by the batched GEMM, left: B(target, :) := beta B(target, :) + g op(A)(target, source)
 *   B(source, :); right: B(:, target) := beta B(:, target) + g B(:, source) op(A)(source, target).
 *   trsm: g = -1 (B(source) holds the solution), beta = alpha when `scaled`, else 1; trmm: g = alpha
 *   (B(source) still holds its input), beta = 1.
 */
export type TrsmStep =
  | { readonly kind: 'leaf'; readonly span: Span; readonly scaled: boolean }
  | { readonly kind: 'update'; readonly target: Span; readonly source: Span; readonly scaled: boolean };

/** The leaf's launch shape for one problem. */
export interface TrsmLeafShape {
  /** Threads per matrix: blockDim.x (at least the vectors of a pass, min(vectors, ldx)). */
  readonly vectors: number;
  /** Matrices per block: blockDim.y. */
  readonly matrices: number;
  /** Padded leading dimension of the vectors' shared tile (odd: conflict-free both ways). */
  readonly ldx: number;
  /** Dynamic shared bytes per block. */
  readonly sharedBytes: number;
}

export interface TrsmPlan {
  readonly leaf: TrsmLeafParams;
  readonly steps: readonly TrsmStep[];
  /** The launch shape of every leaf step, by leaf size (empty where the leaves are inverted blocks). */
  readonly shapes: ReadonlyMap<number, TrsmLeafShape>;
  /** Present where the leaves are GEMMs with inverted diagonal blocks. */
  readonly inverted?: TrsmInverted;
  /** trmm: present where the leaves run the register leaf (generate-register-leaf.ts), its shape by leaf size; `shapes` is then empty. */
  readonly registerShapes?: ReadonlyMap<number, TrmmRegisterLeafShape>;
  /** trmm: true where the leaves run the product leaf (generate-product-leaf.ts; its shape follows from the order); `shapes` is then empty. */
  readonly productLeaf?: true;
  /** trmm, side left: present where the leaves run the pipelined kernel (generate-pipelined.ts), with its stages; `shapes` is then empty. */
  readonly pipelined?: { readonly stages: number };
  /**
   * trmm, side left: present where the whole product is one launch of the gemm family's kernel with
   * a triangular op(A), in place (GemmCudaOptions.triangularA: float64 on the tensor cores, float32
   * on the CUDA cores), with the kernel's parameters from the table (absent: the gemm planner's);
   * `steps` and `shapes` are then empty.
   */
  readonly product?: { readonly params?: MmaGemmParams | TiledGemmParams };
}

/** trmm's leaf kernels (TrsmForce.trmmLeaf). */
export type TrmmLeaf = 'pipelined' | 'product' | 'register' | 'shared';

/** What a plan may be told to use instead of the tuning table's choice (tests, benchmarks). */
export interface TrsmForce {
  /** The largest leaf (it must fit the device's shared memory). */
  readonly leafMax?: number;
  /** Vectors per block, at most. */
  readonly vectorsMax?: number;
  /** Triangles from this size take the inverted diagonal blocks (Infinity: never; 0: always, where they apply). */
  readonly invertFrom?: number;
  /** The inverted blocks' size. */
  readonly invertBlock?: number;
  /**
   * trmm's leaf: the pipelined kernel ('pipelined', side left, triangles up to 128; side right
   * keeps the default leaf), the product leaf ('product', up to 64), the register leaf
   * ('register', up to 32), or the shared-memory leaf trsm also runs ('shared'; its own leaf
   * size). The default: plan.ts defaultTrmmLeaf.
   */
  readonly trmmLeaf?: TrmmLeaf;
  /** The pipelined kernel's shared stages (2 or 3; plan.ts PIPELINED_STAGES where not told). */
  readonly pipelinedStages?: number;
  /** Side left with few right-hand sides: the flag-chained substitution (true, where it applies) or never (false), whatever m. */
  readonly chain?: boolean;
  /** trmm: the whole product in one launch of the gemm family's triangular op(A) (true, where it applies: side left) or never (false). */
  readonly trmmProduct?: boolean;
}

/**
 * The class kernel of a variable-size batched trsm (generate-vbatched.ts): the leaf on one
 * diagonal block of every member of a size class, the members' pointers and sizes read from
 * tables; the block's offset and size, and the launch's widest B, are kernel arguments.
 */
export interface TrsmVbatchedLeafParams extends TrsmVariant {
  readonly dtype: DType;
}

/**
 * Parameter objects of the complex triangular solve (ztrsm, ctrsm) for triangles of order <= 32.
 * `dtype` is the parts' type (float64: complex128, float32: complex64). The request's side, uplo,
 * transA and diag are kept as the API spells them; the generators derive the triangle T the
 * right-hand-side vectors meet (common/triangle-warp.ts triangleView). A generator is a pure
 * function of its parameter object.
 *
 * Two designs: 'warp' (generate-small.ts: a lane per row of T, T's row in registers) and 'columns'
 * (generate-columns.ts: the triangle in shared memory, a thread per vector of B in registers).
 */
import type { TriangleWarpParams } from '../common/triangle-warp.js';

export type ZtrsmSmallParams = TriangleWarpParams;

/** The columns design's parameters: the request's flags and forms, and its three choices. */
export interface ZtrsmColumnsParams extends Omit<TriangleWarpParams, 'warps' | 'rhs'> {
  /** Matrices a block (each its own triangle in shared memory and its own threads). */
  readonly matrices: number;
  /** Threads a matrix (<= 32): each takes `rhs` vectors of the matrix's pass. */
  readonly lanes: number;
  /** Vectors of B a thread holds in registers (each n pairs). */
  readonly rhs: number;
  /** Load the first pass's vectors before the triangles (both loads in flight at once), else after. */
  readonly early: boolean;
}

/**
 * Parameter objects of the complex triangular solve (ztrsm, ctrsm) for triangles of order <= 32
 * (generate-small.ts). `dtype` is the parts' type (float64: complex128, float32: complex64). The
 * request's side, uplo, transA and diag are kept as the API spells them; the generator derives the
 * triangle T the right-hand-side vectors meet. A generator is a pure function of its parameter object.
 */
import type { TriangleWarpParams } from '../common/triangle-warp.js';

export type ZtrsmSmallParams = TriangleWarpParams;

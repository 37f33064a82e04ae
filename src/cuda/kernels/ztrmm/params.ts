/**
 * Parameter objects of the complex triangular multiply (ztrmm, ctrmm) for triangles of order <= 32
 * (generate-small.ts). `dtype` is the parts' type (float64: complex128, float32: complex64). The
 * request's side, uplo, transA and diag are kept as the API spells them; the generator derives the
 * triangle T the vectors of B meet (common/triangle-warp.ts). A generator is a pure
 * function of its parameter object.
 */
import type { TriangleWarpParams } from '../common/triangle-warp.js';

export type ZtrmmSmallParams = TriangleWarpParams;

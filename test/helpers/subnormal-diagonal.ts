/**
 * Triangular solves whose diagonal holds one subnormal entry, whose reciprocal overflows (single
 * precision below 2^-128, double below 2^-1024): LAPACK's trsm divides, so X is finite where it is
 * set up to be. Entry k of the diagonal becomes `tiny` (complex: (0, tiny)), the rest of row and
 * column k of the stored triangle zero, and row k (side 'left') or column k ('right') of B is scaled
 * by `small`: x(k) = alpha b(k) / tiny is then about small / tiny (2^20, 2^60) and no other element
 * depends on it. Used by the complex trsm host emulation and the GPU test of every route.
 */
import type { Side, Uplo } from '../../src/core/enums.js';

/** The subnormal diagonal entry and B's scale there, by precision. */
export const SUBNORMAL_DIAGONAL = {
  single: { tiny: 2 ** -140, small: 2 ** -120 },
  double: { tiny: 2 ** -1060, small: 2 ** -1000 },
} as const;

/** Where the matrices lie: element (i, j) of matrix q at `offsets[q] + i + j * ld` (elements, not parts). */
export interface Placement {
  readonly offsets: readonly number[];
  readonly ld: number;
}

export interface PlantSpec {
  readonly single: boolean;
  /** Parts an element: 1 real, 2 complex (interleaved). */
  readonly parts: 1 | 2;
  readonly uplo: Uplo;
  readonly side: Side;
  /** The triangle's order. */
  readonly order: number;
  /** B's vectors (its columns for 'left', its rows for 'right'). */
  readonly vectors: number;
  readonly k: number;
}

/** Plants the subnormal entry at (k, k) of every matrix of A and scales B's row or column k (data: both operands' buffer or each its own). */
export function plantSubnormalDiagonal(s: PlantSpec, aData: Float64Array | Float32Array, a: Placement, bData: Float64Array | Float32Array, b: Placement): void {
  const { tiny, small } = SUBNORMAL_DIAGONAL[s.single ? 'single' : 'double'];
  const stored = (i: number, j: number): boolean => (s.uplo === 'lower' ? i >= j : i <= j);
  const { k, parts } = s;
  for (const o of a.offsets) {
    for (let q = 0; q < s.order; q++) {
      if (q === k) continue;
      for (const [i, j] of [[k, q], [q, k]] as const) if (stored(i, j)) aData.fill(0, parts * (o + i + j * a.ld), parts * (o + i + j * a.ld + 1));
    }
    const d = parts * (o + k + k * a.ld);
    aData[d] = parts === 2 ? 0 : tiny;
    if (parts === 2) aData[d + 1] = tiny;
  }
  for (const o of b.offsets) {
    for (let v = 0; v < s.vectors; v++) {
      const e = parts * (o + (s.side === 'left' ? k + v * b.ld : v + k * b.ld));
      for (let p = 0; p < parts; p++) bData[e + p]! *= small;
    }
  }
}

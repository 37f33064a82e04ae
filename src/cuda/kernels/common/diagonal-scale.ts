/**
 * Division by a triangular factor's diagonal in the solves (x(k) = z(k) / U(k, k)): z times a
 * reciprocal computed once per row where |U(k, k)| is at least the smallest normal number, else a
 * division. LAPACK's trsm divides; the reciprocal of a subnormal diagonal overflows (float32 below
 * 2^-128, float64 below 2^-1024), which would make X Inf or NaN where it is finite. The selection is
 * per element, so a normal diagonal's arithmetic (and its bits) stay the reciprocal multiply's.
 * Complex diagonals decide by the modulus, as the complex factorisations decide their safe-minimum
 * division of L, and divide by Smith's algorithm (divReal2).
 */
import type { DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';

/** A row's diagonal, its reciprocal and whether the reciprocal is used: the names of three CUDA values. */
export interface DiagonalScale {
  readonly diag: string;
  readonly rinv: string;
  readonly safe: string;
}

/** The usual names: diag, rinv, rsafe. */
export const DIAGONAL: DiagonalScale = { diag: 'diag', rinv: 'rinv', safe: 'rsafe' };

/** Whether the reciprocal of the diagonal expression `diag` is safe: |diag| >= the smallest normal number (complex: the modulus). */
export function diagonalSafe(dtype: DType, complex: boolean, diag: string): string {
  const safeMin = `real(${dtypeInfo(dtype).cuda.safeMin})`;
  return complex ? `modulusReal2(${diag}) >= ${safeMin}` : `absReal(${diag}) >= ${safeMin}`;
}

/**
 * CUDA statements declaring `s.rinv` (1 / diag) and `s.safe` (|diag| >= the smallest normal number)
 * for the value named `s.diag`, already declared; `dtype`: the real (or the parts') dtype; `complex`:
 * whether diag is a real2.
 */
export function diagonalReciprocal(dtype: DType, complex: boolean, s: DiagonalScale = DIAGONAL): string {
  const safe = `const bool ${s.safe} = ${diagonalSafe(dtype, complex, s.diag)};   // else ${s.rinv} may overflow: divide`;
  return complex
    ? `const real2 ${s.rinv} = divReal2(makeReal2(1, 0), ${s.diag});
  ${safe}`
    : `const real ${s.rinv} = real(1) / ${s.diag};
  ${safe}`;
}

/** `v` / diag as an expression: v times the reciprocal where it is safe, else the division. */
export function overDiagonal(complex: boolean, v: string, s: DiagonalScale = DIAGONAL): string {
  return complex
    ? `(${s.safe} ? mulReal2(${v}, ${s.rinv}) : divReal2(${v}, ${s.diag}))`
    : `(${s.safe} ? ${v} * ${s.rinv} : ${v} / ${s.diag})`;
}

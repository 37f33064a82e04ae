/**
 * A private triangular solve with several right-hand sides, op(T) X = B in place, for the solvers
 * (potrs, getrs). The same loops as reference dtrsm (side left): the non-transposed cases update
 * B column-oriented (axpy down a column of T), the transposed ones take dot products with a column
 * of T, so T is always read down contiguous columns. Division by the diagonal, as dtrsm.
 *
 * (The BLAS-3 module src/cpu/trsm.ts is the public operation; this one stays local so that the
 * LAPACK reference has no dependency on it.)
 */
export interface TriangularShape {
  /** T is the upper (true) or lower (false) triangle. */
  readonly upper: boolean;
  /** Solve with T^T instead of T. */
  readonly transpose: boolean;
  /** The diagonal is taken as ones and not read. */
  readonly unitDiagonal: boolean;
}

/** Overwrites B (n x nrhs at bOff, ldb) with op(T)^-1 B, T the n x n triangle at tOff, ldt. */
export function solveTriangular(
  shape: TriangularShape, t: Float64Array, tOff: number, ldt: number, n: number,
  b: Float64Array, bOff: number, ldb: number, nrhs: number,
): void {
  const forward = shape.upper === shape.transpose; // lower N and upper T run top to bottom
  for (let c = 0; c < nrhs; c++) {
    const bc = bOff + c * ldb;
    if (!shape.transpose) {
      if (forward) solveLowerColumn(t, tOff, ldt, n, shape.unitDiagonal, b, bc);
      else solveUpperColumn(t, tOff, ldt, n, shape.unitDiagonal, b, bc);
    } else if (forward) {
      solveUpperTransposedColumn(t, tOff, ldt, n, shape.unitDiagonal, b, bc);
    } else {
      solveLowerTransposedColumn(t, tOff, ldt, n, shape.unitDiagonal, b, bc);
    }
  }
}

/** L x = b, forward, axpy form. */
function solveLowerColumn(t: Float64Array, tOff: number, ldt: number, n: number, unit: boolean, b: Float64Array, bc: number): void {
  for (let j = 0; j < n; j++) {
    const cj = tOff + j * ldt;
    if (!unit) b[bc + j] = b[bc + j]! / t[cj + j]!;
    const x = b[bc + j]!;
    for (let i = j + 1; i < n; i++) b[bc + i] -= x * t[cj + i]!;
  }
}

/** U x = b, backward, axpy form. */
function solveUpperColumn(t: Float64Array, tOff: number, ldt: number, n: number, unit: boolean, b: Float64Array, bc: number): void {
  for (let j = n - 1; j >= 0; j--) {
    const cj = tOff + j * ldt;
    if (!unit) b[bc + j] = b[bc + j]! / t[cj + j]!;
    const x = b[bc + j]!;
    for (let i = 0; i < j; i++) b[bc + i] -= x * t[cj + i]!;
  }
}

/** U^T x = b, forward, dot form. */
function solveUpperTransposedColumn(t: Float64Array, tOff: number, ldt: number, n: number, unit: boolean, b: Float64Array, bc: number): void {
  for (let j = 0; j < n; j++) {
    const cj = tOff + j * ldt;
    let s = b[bc + j]!;
    for (let i = 0; i < j; i++) s -= t[cj + i]! * b[bc + i]!;
    b[bc + j] = unit ? s : s / t[cj + j]!;
  }
}

/** L^T x = b, backward, dot form. */
function solveLowerTransposedColumn(t: Float64Array, tOff: number, ldt: number, n: number, unit: boolean, b: Float64Array, bc: number): void {
  for (let j = n - 1; j >= 0; j--) {
    const cj = tOff + j * ldt;
    let s = b[bc + j]!;
    for (let i = j + 1; i < n; i++) s -= t[cj + i]! * b[bc + i]!;
    b[bc + j] = unit ? s : s / t[cj + j]!;
  }
}

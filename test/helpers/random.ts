/**
 * Seeded random matrices and matrix norms for tests. Every matrix is a column-major view
 * (`MatrixView`: element (i, j) at `data[offset + i + j * ld]`), so the same helpers serve
 * strided, list and variable batches. A failing test reproduces from its seed.
 */
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { allocate } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { MatrixView } from '../../src/core/batch.js';

export type View = MatrixView<FloatArray>;

/** mulberry32: a small, fast 32-bit generator; plenty for test data. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform in [lo, hi). */
  uniform(lo = -1, hi = 1): number {
    return lo + (hi - lo) * this.next();
  }
  /** Integer in [lo, hi] (both included). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}

export interface LayoutOptions {
  /** Leading dimension; default rows plus a random pad of 0..3 (at least 1). */
  ld?: number;
  /** Elements before the matrix; default 0. */
  offset?: number;
}

/** An array holding the whole of a fresh buffer in uniform [-1, 1), gaps and padding included. */
export function randomArray(rng: Rng, dtype: DType, length: number): FloatArray {
  const a = allocate(dtype, length);
  for (let i = 0; i < length; i++) a[i] = rng.uniform();
  return a;
}

/** Elements a rows x cols matrix with this ld spans (0 for an empty matrix). */
export function footprint(rows: number, cols: number, ld: number): number {
  return rows === 0 || cols === 0 ? 0 : (cols - 1) * ld + rows;
}

/** A general rows x cols matrix, entries uniform in [-1, 1), alone in its own (padded) buffer. */
export function randomGeneral(rng: Rng, dtype: DType, rows: number, cols: number, options: LayoutOptions = {}): View {
  const ld = options.ld ?? Math.max(1, rows + rng.int(0, 3));
  const offset = options.offset ?? 0;
  const data = randomArray(rng, dtype, offset + Math.max(footprint(rows, cols, ld), ld * cols) + rng.int(0, 3));
  return { data, offset, ld, rows, cols };
}

/** A symmetric positive definite n x n matrix G^T G / n + I (both triangles), condition O(1). */
export function randomSpd(rng: Rng, dtype: DType, n: number, options: LayoutOptions = {}): View {
  const g = randomGeneral(rng, dtype, n, n);
  const v = randomGeneral(rng, dtype, n, n, options);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      let s = i === j ? 1 : 0;
      for (let l = 0; l < n; l++) s += (g.data[l + i * g.ld] * g.data[l + j * g.ld]) / n;
      v.data[v.offset + i + j * v.ld] = s;
    }
  }
  return v;
}

/**
 * A well-conditioned triangular n x n matrix: off-diagonal entries in [-1, 1) / n, diagonal
 * entries of magnitude in [1, 2) with random sign, so both A and its unit-diagonal version have
 * condition numbers O(n) at worst (row sums of the off-diagonal part stay below the diagonal).
 * The other triangle holds `other` (default NaN: reading it poisons the result), and the diagonal
 * holds `diagonal` when given (e.g. NaN for a 'unit' matrix whose diagonal must not be read).
 */
export function randomTriangular(
  rng: Rng, dtype: DType, n: number, uplo: Uplo, options: LayoutOptions & TriangularFill = {},
): View {
  const v = randomGeneral(rng, dtype, n, n, options);
  fillTriangular(rng, v, uplo, options);
  return v;
}

export interface TriangularFill {
  /** Value of the other triangle; default NaN. */
  other?: number;
  /** Value of every diagonal entry; default random with magnitude in [1, 2). */
  diagonal?: number;
}

/** Overwrites a square view in place with a matrix as `randomTriangular` describes. */
export function fillTriangular(rng: Rng, v: View, uplo: Uplo, fill: TriangularFill = {}): void {
  const n = v.rows;
  const scale = 1 / Math.max(1, n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const inTriangle = uplo === 'upper' ? i < j : i > j;
      const x = i === j
        ? fill.diagonal ?? (rng.next() < 0.5 ? -1 : 1) * rng.uniform(1, 2)
        : inTriangle ? rng.uniform() * scale : fill.other ?? NaN;
      v.data[v.offset + i + j * v.ld] = x;
    }
  }
}

/** Element (i, j) of a view. */
export function at(v: View, i: number, j: number): number {
  return v.data[v.offset + i + j * v.ld];
}

/** A compact float64 copy (ld = rows) of a view: for references computed in double. */
export function toFloat64(v: View): View {
  const data = new Float64Array(v.rows * v.cols);
  for (let j = 0; j < v.cols; j++) for (let i = 0; i < v.rows; i++) data[i + j * v.rows] = at(v, i, j);
  return { data, offset: 0, ld: Math.max(1, v.rows), rows: v.rows, cols: v.cols };
}

/** Sets every element of the matrix (not its padding) to `value`. */
export function fillMatrix(v: View, value: number): void {
  for (let j = 0; j < v.cols; j++) v.data.fill(value, v.offset + j * v.ld, v.offset + j * v.ld + v.rows);
}

/** Largest column sum of absolute values. NaN anywhere gives NaN. */
export function norm1(v: View): number {
  let best = 0;
  for (let j = 0; j < v.cols; j++) {
    let s = 0;
    for (let i = 0; i < v.rows; i++) s += Math.abs(at(v, i, j));
    if (!(s <= best)) best = s; // NaN wins
  }
  return best;
}

/** Frobenius norm. NaN anywhere gives NaN. */
export function normFro(v: View): number {
  let s = 0;
  for (let j = 0; j < v.cols; j++) for (let i = 0; i < v.rows; i++) s += at(v, i, j) ** 2;
  return Math.sqrt(s);
}

/** Largest absolute value. NaN anywhere gives NaN. */
export function normMax(v: View): number {
  let best = 0;
  for (let j = 0; j < v.cols; j++) {
    for (let i = 0; i < v.rows; i++) {
      const x = Math.abs(at(v, i, j));
      if (!(x <= best)) best = x;
    }
  }
  return best;
}

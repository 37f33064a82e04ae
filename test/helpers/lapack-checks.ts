/**
 * Residual checks for the LAPACK-level operations, in float64 on dense copies, independent of any
 * implementation under test: the test ratios of LAPACK's testing/lin (dpot01, dget01, dget02,
 * dtrt01, dpot03). Each ratio is O(1) for a backward-stable result; LAPACK's threshold is 30.
 */
import type { MatrixView } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';

/** A dense column-major float64 matrix, ld = rows. */
export interface Dense {
  readonly rows: number;
  readonly cols: number;
  readonly data: Float64Array;
}

export function zeros(rows: number, cols: number): Dense {
  return { rows, cols, data: new Float64Array(rows * cols) };
}

export function identity(n: number): Dense {
  const d = zeros(n, n);
  for (let i = 0; i < n; i++) d.data[i + i * n] = 1;
  return d;
}

export function at(d: Dense, i: number, j: number): number {
  return d.data[i + j * d.rows]!;
}

/** A dense matrix seen as a view, to read its triangles with the functions below. */
export function viewOf(d: Dense): MatrixView<FloatArray> {
  return { data: d.data, offset: 0, ld: Math.max(1, d.rows), rows: d.rows, cols: d.cols };
}

/** The whole matrix of a view, as float64. */
export function readDense(v: MatrixView<FloatArray>): Dense {
  const d = zeros(v.rows, v.cols);
  for (let j = 0; j < v.cols; j++)
    for (let i = 0; i < v.rows; i++) d.data[i + j * v.rows] = v.data[v.offset + i + j * v.ld]!;
  return d;
}

/**
 * One triangle (trapezoid if not square) of a view, zeros elsewhere; with `unitDiagonal` the
 * diagonal is taken as ones and not read. Never reads the other triangle.
 */
export function readTriangle(v: MatrixView<FloatArray>, uplo: Uplo, unitDiagonal = false): Dense {
  const d = zeros(v.rows, v.cols);
  for (let j = 0; j < v.cols; j++) {
    for (let i = 0; i < v.rows; i++) {
      const inside = uplo === 'lower' ? i > j : i < j;
      if (i === j) d.data[i + j * v.rows] = unitDiagonal ? 1 : v.data[v.offset + i + j * v.ld]!;
      else if (inside) d.data[i + j * v.rows] = v.data[v.offset + i + j * v.ld]!;
    }
  }
  return d;
}

/** The symmetric matrix whose `uplo` triangle is that of the view (the other is not read). */
export function readSymmetric(v: MatrixView<FloatArray>, uplo: Uplo): Dense {
  const t = readTriangle(v, uplo);
  const n = t.rows;
  for (let j = 0; j < n; j++)
    for (let i = j + 1; i < n; i++) {
      const x = uplo === 'lower' ? at(t, i, j) : at(t, j, i);
      t.data[i + j * n] = x;
      t.data[j + i * n] = x;
    }
  return t;
}

export function transpose(a: Dense): Dense {
  const t = zeros(a.cols, a.rows);
  for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) t.data[j + i * a.cols] = at(a, i, j);
  return t;
}

export function multiply(a: Dense, b: Dense): Dense {
  if (a.cols !== b.rows) throw new Error(`multiply: ${a.rows}x${a.cols} by ${b.rows}x${b.cols}`);
  const c = zeros(a.rows, b.cols);
  for (let j = 0; j < b.cols; j++)
    for (let k = 0; k < a.cols; k++) {
      const t = at(b, k, j);
      for (let i = 0; i < a.rows; i++) c.data[i + j * a.rows] += at(a, i, k) * t;
    }
  return c;
}

export function subtract(a: Dense, b: Dense): Dense {
  if (a.rows !== b.rows || a.cols !== b.cols) throw new Error('subtract: shapes differ');
  const c = zeros(a.rows, a.cols);
  for (let i = 0; i < c.data.length; i++) c.data[i] = a.data[i]! - b.data[i]!;
  return c;
}

/** ||A||_1, the largest column sum of magnitudes; NaN if any entry is NaN. */
export function norm1(a: Dense): number {
  let best = 0;
  for (let j = 0; j < a.cols; j++) {
    let s = 0;
    for (let i = 0; i < a.rows; i++) s += Math.abs(at(a, i, j));
    if (Number.isNaN(s)) return NaN;
    best = Math.max(best, s);
  }
  return best;
}

/** ||num|| / (n * den * eps), with the conventions of LAPACK's testers for zero denominators. */
function ratio(num: number, n: number, den: number, eps: number): number {
  if (Number.isNaN(num) || Number.isNaN(den)) return NaN;
  if (den === 0) return num === 0 ? 0 : 1 / eps;
  return num / den / (Math.max(n, 1) * eps);
}

/** dpot01: ||A - L L^T||_1 / (n ||A||_1 eps) (lower), or ||A - U^T U|| ... (upper). */
export function choleskyResidual(a: Dense, factor: Dense, uplo: Uplo, eps: number): number {
  const product = uplo === 'lower' ? multiply(factor, transpose(factor)) : multiply(transpose(factor), factor);
  return ratio(norm1(subtract(a, product)), a.rows, norm1(a), eps);
}

/**
 * Two ratios of a Cholesky factor (lower: A = L L^T; upper: A = U^T U), from one pass over the
 * lower triangle of the product (n^3 / 6 multiply-adds):
 * - normwise: dpot01's ||A - L L^T||_1 / (n ||A||_1 eps), as choleskyResidual;
 * - componentwise: max over (i, j) of |A - L L^T|_ij / ((n + 1) eps (|L| |L^T|)_ij). Every
 *   Cholesky that forms its entries from inner products, in any order and blocking, keeps this
 *   at most about 1 (|A - L L^T| <= gamma_{n+1} |L| |L^T|, Higham, Accuracy and Stability of
 *   Numerical Algorithms, Thm 10.3), so it holds each entry to its own scale: in float32 at
 *   n = 512 (the CPU's factor: both ratios about 0.002), one off-diagonal entry moved by about
 *   1e-5 left the normwise ratio at 0.008 (LAPACK's threshold is 30) and took the componentwise
 *   one to 9 ... 40; at n = 128, to 20. Entries with a zero residual count 0; NaN anywhere gives NaN.
 */
export function choleskyRatios(a: Dense, factor: Dense, uplo: Uplo, eps: number): { normwise: number; componentwise: number } {
  const n = a.rows;
  // Rows of the lower factor G (G = L, or U^T), row-major, so the inner products run over contiguous memory.
  const g = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let p = 0; p <= i; p++) g[i * n + p] = uplo === 'lower' ? at(factor, i, p) : at(factor, p, i);
  const colSums = new Float64Array(n);
  let worst = 0;
  let nan = false;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0, t = 0;
      const ri = i * n, rj = j * n;
      for (let p = 0; p <= j; p++) {
        const x = g[ri + p]! * g[rj + p]!;
        s += x;
        t += Math.abs(x);
      }
      const r = Math.abs(at(a, i, j) - s);
      if (Number.isNaN(r)) { nan = true; continue; }
      colSums[j] += r;
      if (i !== j) colSums[i] += r;
      if (r !== 0) worst = Math.max(worst, r / ((n + 1) * eps * t));
    }
  }
  if (nan) return { normwise: NaN, componentwise: NaN };
  return { normwise: ratio(Math.max(0, ...colSums), n, norm1(a), eps), componentwise: worst };
}

/**
 * dpot01's ratio through products with the columns of X, O(n^2) per column instead of O(n^3):
 * ||(A - L L^T) X||_1 / (||X||_1 n ||A||_1 eps). At most choleskyResidual (||E X||_1 <=
 * ||E||_1 ||X||_1) plus the rounding of its own products (float64: about 0.01 in these units),
 * so the same threshold holds; a wrong factor shows unless E X = 0 for the random X, which a
 * wrong factor almost never gives. For factors too large for the full product.
 */
export function choleskyResidualByProducts(a: Dense, factor: Dense, uplo: Uplo, eps: number, x: Dense): number {
  const f = uplo === 'lower' ? factor : transpose(factor);
  const lx = multiply(f, multiply(transpose(f), x));
  return ratio(norm1(subtract(multiply(a, x), lx)), a.rows, norm1(a) * norm1(x), eps);
}

/** Applies the 0-based row interchanges ipiv[pivOff + j], j = 0..k-1, in order, to a copy of A. */
export function permuteRows(a: Dense, ipiv: Int32Array, pivOff: number, k: number): Dense {
  const p = { rows: a.rows, cols: a.cols, data: a.data.slice() };
  for (let j = 0; j < k; j++) {
    const r = ipiv[pivOff + j]!;
    for (let c = 0; c < a.cols; c++) {
      const t = p.data[j + c * a.rows]!;
      p.data[j + c * a.rows] = p.data[r + c * a.rows]!;
      p.data[r + c * a.rows] = t;
    }
  }
  return p;
}

/** dget01: ||P A - L U||_1 / (n ||A||_1 eps) for the m x n factorisation in `lu`. */
export function luResidual(a: Dense, lu: Dense, ipiv: Int32Array, pivOff: number, eps: number): number {
  const { rows: m, cols: n } = a;
  const k = Math.min(m, n);
  const l = zeros(m, k);
  const u = zeros(k, n);
  for (let j = 0; j < k; j++) {
    l.data[j + j * m] = 1;
    for (let i = j + 1; i < m; i++) l.data[i + j * m] = at(lu, i, j);
  }
  for (let j = 0; j < n; j++) for (let i = 0; i <= Math.min(j, k - 1); i++) u.data[i + j * k] = at(lu, i, j);
  return ratio(norm1(subtract(permuteRows(a, ipiv, pivOff, k), multiply(l, u))), n, norm1(a), eps);
}

/** dget02: max over columns j of ||b_j - op(A) x_j||_1 / (n ||A||_1 ||x_j||_1 eps). */
export function solveResidual(a: Dense, x: Dense, b: Dense, trans: 'N' | 'T', eps: number): number {
  const opA = trans === 'N' ? a : transpose(a);
  const r = subtract(b, multiply(opA, x));
  const normA = norm1(a);
  let worst = 0;
  for (let j = 0; j < x.cols; j++) {
    let rj = 0;
    let xj = 0;
    for (let i = 0; i < x.rows; i++) {
      rj += Math.abs(at(r, i, j));
      xj += Math.abs(at(x, i, j));
    }
    const q = ratio(rj, a.rows, normA * xj, eps);
    if (Number.isNaN(q)) return NaN;
    worst = Math.max(worst, q);
  }
  return worst;
}

/** dtrt01 / dpot03: ||A inv(A) - I||_1 / (n ||A||_1 ||inv(A)||_1 eps). */
export function inverseResidual(a: Dense, inverse: Dense, eps: number): number {
  const e = subtract(multiply(a, inverse), identity(a.rows));
  return ratio(norm1(e), a.rows, norm1(a) * norm1(inverse), eps);
}

/** ||computed - expected||_1 / (n scale eps): a normalised forward difference. */
export function relativeDifference(computed: Dense, expected: Dense, scale: number, eps: number): number {
  return ratio(norm1(subtract(computed, expected)), computed.cols, scale, eps);
}

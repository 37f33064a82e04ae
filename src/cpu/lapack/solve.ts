/**
 * Linear solves from a factorisation, the CPU reference: LAPACK's dpotrs, dposv, dgetrs, dgesv.
 *
 * The right-hand sides are the columns of B (nrhs = B's cols, per matrix in a variable batch).
 * potrs/getrs always set info = 0 (LAPACK has no numerical failure there). posv/gesv factor
 * first and solve only where info = 0: a failing matrix keeps B untouched, as in LAPACK, and its A
 * holds the partial factorisation.
 */
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GesvRequest, GetrsRequest, Op, PosvRequest, PotrsRequest } from '../../core/ops.js';
import { getrfMatrix } from './getrf.js';
import { potrfMatrix } from './potrf.js';
import { solveTriangular, type TriangularShape } from './triangular-solve.js';

const LOWER_N: TriangularShape = { upper: false, transpose: false, unitDiagonal: false };
const LOWER_T: TriangularShape = { upper: false, transpose: true, unitDiagonal: false };
const UPPER_N: TriangularShape = { upper: true, transpose: false, unitDiagonal: false };
const UPPER_T: TriangularShape = { upper: true, transpose: true, unitDiagonal: false };
const UNIT_LOWER_N: TriangularShape = { upper: false, transpose: false, unitDiagonal: true };
const UNIT_LOWER_T: TriangularShape = { upper: false, transpose: true, unitDiagonal: true };

export function cpuPotrs(r: PotrsRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    potrsMatrix(matrixAt(r.a, i), upper, matrixAt(r.b, i));
    r.info[i] = 0;
  }
}

export function cpuPosv(r: PosvRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const a = matrixAt(r.a, i);
    const info = potrfMatrix(a.data, a.offset, a.ld, a.rows, upper);
    r.info[i] = info;
    if (info === 0) potrsMatrix(a, upper, matrixAt(r.b, i));
  }
}

export function cpuGetrs(r: GetrsRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    getrsMatrix(matrixAt(r.a, i), r.ipiv, i * r.pivotStride, r.trans, matrixAt(r.b, i));
    r.info[i] = 0;
  }
}

export function cpuGesv(r: GesvRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const a = matrixAt(r.a, i);
    const pivOff = i * r.pivotStride;
    const info = getrfMatrix(a.data, a.offset, a.ld, a.rows, a.cols, r.ipiv, pivOff);
    r.info[i] = info;
    if (info === 0) getrsMatrix(a, r.ipiv, pivOff, 'N', matrixAt(r.b, i));
  }
}

/** A = L L^T: L y = b, L^T x = y. A = U^T U: U^T y = b, U x = y. */
function potrsMatrix(a: MatrixView<FloatArray>, upper: boolean, b: MatrixView<FloatArray>): void {
  const n = a.rows;
  const first = upper ? UPPER_T : LOWER_N;
  const second = upper ? UPPER_N : LOWER_T;
  solveTriangular(first, a.data, a.offset, a.ld, n, b.data, b.offset, b.ld, b.cols);
  solveTriangular(second, a.data, a.offset, a.ld, n, b.data, b.offset, b.ld, b.cols);
}

/**
 * P A = L U. 'N': A X = B is L U X = P B: swap B's rows, then solve with L, then with U.
 * 'T': A^T X = B is U^T L^T (P X) = B: solve with U^T, then L^T, then undo the swaps in reverse order.
 */
function getrsMatrix(a: MatrixView<FloatArray>, ipiv: Int32Array, pivOff: number, trans: Op, b: MatrixView<FloatArray>): void {
  const n = a.rows;
  if (trans === 'N') {
    swapRows(b, ipiv, pivOff, n, true);
    solveTriangular(UNIT_LOWER_N, a.data, a.offset, a.ld, n, b.data, b.offset, b.ld, b.cols);
    solveTriangular(UPPER_N, a.data, a.offset, a.ld, n, b.data, b.offset, b.ld, b.cols);
  } else {
    solveTriangular(UPPER_T, a.data, a.offset, a.ld, n, b.data, b.offset, b.ld, b.cols);
    solveTriangular(UNIT_LOWER_T, a.data, a.offset, a.ld, n, b.data, b.offset, b.ld, b.cols);
    swapRows(b, ipiv, pivOff, n, false);
  }
}

/** dlaswp on all columns of B: rows j <-> ipiv[j] for j = 0..k-1 (forward) or k-1..0 (backward). */
function swapRows(b: MatrixView<FloatArray>, ipiv: Int32Array, pivOff: number, k: number, forward: boolean): void {
  const { data, offset, ld, cols } = b;
  for (let s = 0; s < k; s++) {
    const j = forward ? s : k - 1 - s;
    const p = ipiv[pivOff + j]!;
    if (p === j) continue;
    for (let c = 0; c < cols; c++) {
      const base = offset + c * ld;
      const t = data[base + j]!;
      data[base + j] = data[base + p]!;
      data[base + p] = t;
    }
  }
}

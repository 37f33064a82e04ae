/**
 * Linear solves from a factorisation, the CPU reference: LAPACK's dpotrs, dposv, dgetrs, dgesv.
 *
 * The right-hand sides are the columns of B (nrhs = B's cols, per matrix in a variable batch).
 * potrs/getrs always set info = 0 (LAPACK has no numerical failure there). posv/gesv factor
 * first and solve only where info = 0: a failing matrix keeps B untouched, as in LAPACK, and its A
 * holds the partial factorisation (gesv's info is getrf's, a float32 pivot that stores as zero
 * included, so the solve never divides by a zero of the stored U). posv/gesv give bitwise the
 * results of potrf+potrs and getrf+getrs (they solve with the factor as stored).
 */
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { GesvRequest, GetrsRequest, Op, PosvRequest, PotrsRequest } from '../../core/ops.js';
import { getrfMatrix } from './getrf.js';
import { potrfMatrix } from './potrf.js';
import { solveTriangular, type TriangularShape } from './triangular-solve.js';
import { WHOLE, Workspace, load, store, triangleRegion, type Region } from './workspace.js';

const LOWER_N: TriangularShape = { upper: false, transpose: false, unitDiagonal: false };
const LOWER_T: TriangularShape = { upper: false, transpose: true, unitDiagonal: false };
const UPPER_N: TriangularShape = { upper: true, transpose: false, unitDiagonal: false };
const UPPER_T: TriangularShape = { upper: true, transpose: true, unitDiagonal: false };
const UNIT_LOWER_N: TriangularShape = { upper: false, transpose: false, unitDiagonal: true };
const UNIT_LOWER_T: TriangularShape = { upper: false, transpose: true, unitDiagonal: true };

const aSpace = new Workspace();
const bSpace = new Workspace();

/** The region of m, copied into a float64 workspace (ld = m.rows). */
function loaded(m: MatrixView<FloatArray>, region: Region, space: Workspace): Float64Array {
  const w = space.get(m.rows * m.cols);
  load(m, region, w);
  return w;
}

export function cpuPotrs(r: PotrsRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const region = triangleRegion(upper);
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const a = matrixAt(r.a, i);
    const b = matrixAt(r.b, i);
    const wb = loaded(b, WHOLE, bSpace);
    potrsMatrix(loaded(a, region, aSpace), a.rows, upper, wb, b.cols);
    store(wb, WHOLE, b);
    r.info[i] = 0;
  }
}

export function cpuPosv(r: PosvRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const region = triangleRegion(upper);
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const a = matrixAt(r.a, i);
    const wa = loaded(a, region, aSpace);
    const info = potrfMatrix(wa, 0, Math.max(1, a.rows), a.rows, upper);
    store(wa, region, a);
    r.info[i] = info;
    if (info !== 0) continue;
    load(a, region, wa); // solve with the factor as stored (rounded, for float32), as potrs would
    const b = matrixAt(r.b, i);
    const wb = loaded(b, WHOLE, bSpace);
    potrsMatrix(wa, a.rows, upper, wb, b.cols);
    store(wb, WHOLE, b);
  }
}

export function cpuGetrs(r: GetrsRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const a = matrixAt(r.a, i);
    const b = matrixAt(r.b, i);
    const wb = loaded(b, WHOLE, bSpace);
    getrsMatrix(loaded(a, WHOLE, aSpace), a.rows, r.ipiv, i * r.pivotStride, r.trans, wb, b.cols);
    store(wb, WHOLE, b);
    r.info[i] = 0;
  }
}

export function cpuGesv(r: GesvRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const a = matrixAt(r.a, i);
    const pivOff = i * r.pivotStride;
    const wa = loaded(a, WHOLE, aSpace);
    const info = getrfMatrix(wa, 0, Math.max(1, a.rows), a.rows, a.cols, r.ipiv, pivOff, dtypeInfo(dtypeOfArray(a.data, 'a.data')).zeroMax);
    store(wa, WHOLE, a);
    r.info[i] = info;
    if (info !== 0) continue;
    load(a, WHOLE, wa); // solve with the factor as stored (rounded, for float32), as getrs would
    const b = matrixAt(r.b, i);
    const wb = loaded(b, WHOLE, bSpace);
    getrsMatrix(wa, a.rows, r.ipiv, pivOff, 'N', wb, b.cols);
    store(wb, WHOLE, b);
  }
}

/**
 * On workspaces (ld = max(1, n)): A = L L^T: L y = b, L^T x = y. A = U^T U: U^T y = b, U x = y.
 */
function potrsMatrix(a: Float64Array, n: number, upper: boolean, b: Float64Array, nrhs: number): void {
  const ld = Math.max(1, n);
  solveTriangular(upper ? UPPER_T : LOWER_N, a, 0, ld, n, b, 0, ld, nrhs);
  solveTriangular(upper ? UPPER_N : LOWER_T, a, 0, ld, n, b, 0, ld, nrhs);
}

/**
 * On workspaces (ld = max(1, n)), P A = L U. 'N': A X = B is L U X = P B: swap B's rows, then solve
 * with L, then with U. 'T': A^T X = B is U^T L^T (P X) = B: solve with U^T, then L^T, then undo the
 * swaps in reverse order.
 */
function getrsMatrix(a: Float64Array, n: number, ipiv: Int32Array, pivOff: number, trans: Op, b: Float64Array, nrhs: number): void {
  const ld = Math.max(1, n);
  if (trans === 'N') {
    swapRows(b, ld, nrhs, ipiv, pivOff, n, true);
    solveTriangular(UNIT_LOWER_N, a, 0, ld, n, b, 0, ld, nrhs);
    solveTriangular(UPPER_N, a, 0, ld, n, b, 0, ld, nrhs);
  } else {
    solveTriangular(UPPER_T, a, 0, ld, n, b, 0, ld, nrhs);
    solveTriangular(UNIT_LOWER_T, a, 0, ld, n, b, 0, ld, nrhs);
    swapRows(b, ld, nrhs, ipiv, pivOff, n, false);
  }
}

/** dlaswp on all columns of B: rows j <-> ipiv[j] for j = 0..k-1 (forward) or k-1..0 (backward). */
function swapRows(b: Float64Array, ld: number, cols: number, ipiv: Int32Array, pivOff: number, k: number, forward: boolean): void {
  for (let s = 0; s < k; s++) {
    const j = forward ? s : k - 1 - s;
    const p = ipiv[pivOff + j]!;
    if (p === j) continue;
    for (let c = 0; c < cols; c++) {
      const base = c * ld;
      const t = b[base + j]!;
      b[base + j] = b[base + p]!;
      b[base + p] = t;
    }
  }
}

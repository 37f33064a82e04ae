/**
 * Linear solves from a factorisation on complex batches, the reference: LAPACK's zpotrs, zposv,
 * zgetrs ('N', 'T', 'C') and zgesv. potrs / getrs set info = 0; posv / gesv factor first and solve
 * only where info = 0 (a failing matrix keeps B untouched, its A holds the partial factorisation;
 * gesv's info is getrf's, a complex64 pivot that stores as zero included), with the factor as
 * stored (rounded, for complex64), as potrf + potrs and getrf + getrs would.
 */
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { ComplexGetrsRequest, ComplexOp, GesvRequest, PosvRequest, PotrsRequest } from '../../core/op-specs.js';
import { getrfMatrixComplex } from './zgetrf.js';
import { potrfMatrixComplex } from './zpotrf.js';
import { WHOLE, Workspace, triangleRegion, zload, zstore, type Region } from './workspace.js';
import type { TriangularView } from './ztriangular.js';
import { solveVector } from './ztrsm.js';

const aSpace = new Workspace();
const bSpace = new Workspace();

function loaded(m: MatrixView<FloatArray>, region: Region, space: Workspace): Float64Array {
  const w = space.get(2 * m.rows * m.cols);
  zload(m, region, w);
  return w;
}

export function cpuPotrsComplex(r: PotrsRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const count = batchCount(r.a);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const b = matrixAt(r.b, p);
    const wb = loaded(b, WHOLE, bSpace);
    potrsMatrix(loaded(a, triangleRegion(upper), aSpace), a.rows, upper, wb, b.cols);
    zstore(wb, WHOLE, b);
    r.info[p] = 0;
  }
}

export function cpuPosvComplex(r: PosvRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const region = triangleRegion(upper);
  const count = batchCount(r.a);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const wa = loaded(a, region, aSpace);
    const info = potrfMatrixComplex(wa, a.rows, upper);
    zstore(wa, region, a);
    r.info[p] = info;
    if (info !== 0) continue;
    zload(a, region, wa);
    const b = matrixAt(r.b, p);
    const wb = loaded(b, WHOLE, bSpace);
    potrsMatrix(wa, a.rows, upper, wb, b.cols);
    zstore(wb, WHOLE, b);
  }
}

export function cpuGetrsComplex(r: ComplexGetrsRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const b = matrixAt(r.b, p);
    const wb = loaded(b, WHOLE, bSpace);
    getrsMatrix(loaded(a, WHOLE, aSpace), a.rows, r.ipiv, p * r.pivotStride, r.trans, wb, b.cols);
    zstore(wb, WHOLE, b);
    r.info[p] = 0;
  }
}

export function cpuGesvComplex(r: GesvRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const pivOff = p * r.pivotStride;
    const wa = loaded(a, WHOLE, aSpace);
    const info = getrfMatrixComplex(wa, a.rows, a.cols, r.ipiv, pivOff, dtypeInfo(dtypeOfArray(a.data, 'a.data')).zeroMax);
    zstore(wa, WHOLE, a);
    r.info[p] = info;
    if (info !== 0) continue;
    zload(a, WHOLE, wa);
    const b = matrixAt(r.b, p);
    const wb = loaded(b, WHOLE, bSpace);
    getrsMatrix(wa, a.rows, r.ipiv, pivOff, 'N', wb, b.cols);
    zstore(wb, WHOLE, b);
  }
}

/** op(T) of a triangle T stored in a workspace of order n: T itself, T^T or T^H, as a view. */
function view(n: number, lower: boolean, op: ComplexOp, unit = false): TriangularView {
  const ld = Math.max(1, n);
  return op === 'N' ? { n, lower, unit, conj: false, rs: 1, cs: ld } : { n, lower: !lower, unit, conj: op === 'C', rs: ld, cs: 1 };
}

/** Solves with each of the nrhs columns of b (ld = n) in turn. */
function solveColumns(t: TriangularView, a: Float64Array, b: Float64Array, nrhs: number): void {
  for (let c = 0; c < nrhs; c++) solveVector(t, a, 0, b, c * t.n, 1);
}

/** A = L L^H: L y = b, L^H x = y. A = U^H U: U^H y = b, U x = y. */
function potrsMatrix(a: Float64Array, n: number, upper: boolean, b: Float64Array, nrhs: number): void {
  solveColumns(view(n, !upper, upper ? 'C' : 'N'), a, b, nrhs);
  solveColumns(view(n, !upper, upper ? 'N' : 'C'), a, b, nrhs);
}

/**
 * P A = L U. 'N': L U X = P B: swap B's rows, solve with L, then U. 'T' / 'C': op(U) op(L) (P X) =
 * B: solve with op(U), then op(L), then undo the swaps in reverse order.
 */
function getrsMatrix(a: Float64Array, n: number, ipiv: Int32Array, pivOff: number, trans: ComplexOp, b: Float64Array, nrhs: number): void {
  if (trans === 'N') {
    swapRows(b, n, nrhs, ipiv, pivOff, true);
    solveColumns(view(n, true, 'N', true), a, b, nrhs);
    solveColumns(view(n, false, 'N'), a, b, nrhs);
  } else {
    solveColumns(view(n, false, trans), a, b, nrhs);
    solveColumns(view(n, true, trans, true), a, b, nrhs);
    swapRows(b, n, nrhs, ipiv, pivOff, false);
  }
}

/** zlaswp on all columns of b (ld = n): rows j <-> ipiv[j], j = 0..n-1 (forward) or n-1..0. */
function swapRows(b: Float64Array, n: number, cols: number, ipiv: Int32Array, pivOff: number, forward: boolean): void {
  for (let s = 0; s < n; s++) {
    const j = forward ? s : n - 1 - s;
    const p = ipiv[pivOff + j]!;
    if (p === j) continue;
    for (let c = 0; c < cols; c++) {
      const x = 2 * (j + c * n);
      const y = 2 * (p + c * n);
      [b[x], b[x + 1], b[y], b[y + 1]] = [b[y]!, b[y + 1]!, b[x]!, b[x + 1]!];
    }
  }
}

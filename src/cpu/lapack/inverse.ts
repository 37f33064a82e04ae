/**
 * Inverses, the CPU reference: LAPACK's dtrtri (via dtrti2), dlauum (via dlauu2) and dpotri.
 *
 * trtri: inv(T) over T's triangle. As dtrtri, a non-unit T is first scanned for an exactly zero
 * diagonal: info = k for the first one, and the matrix is left untouched.
 * lauum: the triangle of U U^T (upper) or L^T L (lower), over the triangle; info 0.
 * potri: inv(A) from A's Cholesky factor: trtri (non-unit), then lauum, inv(A) = inv(U) inv(U)^T
 * (upper) or inv(L)^T inv(L) (lower); info from trtri, and lauum is skipped where it fails.
 * poti: inv(A) of an SPD A in one call: potrf, then potri; info > 0 from potrf, the matrix then left
 * as potrf leaves it.
 * The other triangle is never read or written.
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { LauumRequest, PotiRequest, PotriRequest, TrtriRequest } from '../../core/ops.js';
import { potrfMatrix } from './potrf.js';
import { Workspace, load, store, triangleRegion } from './workspace.js';

const workspace = new Workspace();

export function cpuTrtri(r: TrtriRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const unit = r.diag === 'unit';
  const region = triangleRegion(upper, !unit); // a unit diagonal is neither read nor written
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    const w = workspace.get(m.rows * m.rows);
    load(m, region, w);
    const info = trtriMatrix(w, 0, Math.max(1, m.rows), m.rows, upper, unit);
    if (info === 0) store(w, region, m);
    r.info[i] = info;
  }
}

export function cpuLauum(r: LauumRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const region = triangleRegion(upper);
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    const w = workspace.get(m.rows * m.rows);
    load(m, region, w);
    lauumMatrix(w, 0, Math.max(1, m.rows), m.rows, upper);
    store(w, region, m);
    r.info[i] = 0;
  }
}

export function cpuPotri(r: PotriRequest<FloatArray, Int32Array>): void {
  spdInverse(r, false);
}

export function cpuPoti(r: PotiRequest<FloatArray, Int32Array>): void {
  spdInverse(r, true);
}

/**
 * potri (factored: A holds the Cholesky factor) or poti (A itself, factored first). A matrix that
 * fails is stored as potrf left it (poti), or not at all (trtri's failure: untouched, as dpotri).
 */
function spdInverse(r: PotriRequest<FloatArray, Int32Array>, factorFirst: boolean): void {
  const upper = r.uplo === 'upper';
  const region = triangleRegion(upper);
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    const w = workspace.get(m.rows * m.rows);
    const ld = Math.max(1, m.rows);
    load(m, region, w);
    const factored = factorFirst ? potrfMatrix(w, 0, ld, m.rows, upper) : 0;
    // A positive definite factor has no zero on its diagonal; trtri's check stays, as in dpotri.
    const info = factored !== 0 ? factored : trtriMatrix(w, 0, ld, m.rows, upper, false);
    if (info === 0) lauumMatrix(w, 0, ld, m.rows, upper);
    if (info === 0 || factored !== 0) store(w, region, m);
    r.info[i] = info;
  }
}

/** Inverts one triangle in place; returns info. */
export function trtriMatrix(a: Float64Array, off: number, ld: number, n: number, upper: boolean, unit: boolean): number {
  if (!unit) {
    for (let j = 0; j < n; j++) if (a[off + j * ld + j] === 0) return j + 1;
  }
  if (upper) trti2Upper(a, off, ld, n, unit);
  else trti2Lower(a, off, ld, n, unit);
  return 0;
}

/**
 * dtrti2, upper: column j of inv(U) above the diagonal is -inv(U)(0:j,0:j) U(0:j,j) / U(j,j),
 * with inv(U)(0:j,0:j) already in place to its left: an in-place upper dtrmv, then a scaling.
 */
function trti2Upper(a: Float64Array, off: number, ld: number, n: number, unit: boolean): void {
  for (let j = 0; j < n; j++) {
    const cj = off + j * ld;
    let ajj = -1;
    if (!unit) {
      a[cj + j] = 1 / a[cj + j]!;
      ajj = -a[cj + j]!;
    }
    for (let k = 0; k < j; k++) {
      const ck = off + k * ld;
      const t = a[cj + k]!;
      for (let i = 0; i < k; i++) a[cj + i] += t * a[ck + i]!;
      if (!unit) a[cj + k] = t * a[ck + k]!;
    }
    for (let i = 0; i < j; i++) a[cj + i] *= ajj;
  }
}

/** dtrti2, lower: the mirror image, from the last column back, with inv(L)(j+1:n, j+1:n) to the right. */
function trti2Lower(a: Float64Array, off: number, ld: number, n: number, unit: boolean): void {
  for (let j = n - 1; j >= 0; j--) {
    const cj = off + j * ld;
    let ajj = -1;
    if (!unit) {
      a[cj + j] = 1 / a[cj + j]!;
      ajj = -a[cj + j]!;
    }
    for (let k = n - 1; k > j; k--) {
      const ck = off + k * ld;
      const t = a[cj + k]!;
      for (let i = n - 1; i > k; i--) a[cj + i] += t * a[ck + i]!;
      if (!unit) a[cj + k] = t * a[ck + k]!;
    }
    for (let i = j + 1; i < n; i++) a[cj + i] *= ajj;
  }
}

/** Overwrites one triangle with U U^T (upper) or L^T L (lower). */
export function lauumMatrix(a: Float64Array, off: number, ld: number, n: number, upper: boolean): void {
  if (upper) lauu2Upper(a, off, ld, n);
  else lauu2Lower(a, off, ld, n);
}

/**
 * dlauu2, upper: (U U^T)(0:i, i) = U(0:i, i:n) U(i, i:n)^T, which reads only columns >= i, so
 * going left to right each column is computed before anything it needs is overwritten.
 */
function lauu2Upper(a: Float64Array, off: number, ld: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const ci = off + i * ld;
    const aii = a[ci + i]!;
    let dot = 0;
    for (let c = i; c < n; c++) {
      const v = a[off + c * ld + i]!;
      dot += v * v;
    }
    for (let r = 0; r < i; r++) a[ci + r] *= aii;
    a[ci + i] = dot;
    // Four columns per pass: one load and store of A(r,i) per four multiply-adds.
    let c = i + 1;
    for (; c + 3 < n; c += 4) {
      const c0 = off + c * ld;
      const c1 = c0 + ld;
      const c2 = c1 + ld;
      const c3 = c2 + ld;
      const t0 = a[c0 + i]!;
      const t1 = a[c1 + i]!;
      const t2 = a[c2 + i]!;
      const t3 = a[c3 + i]!;
      for (let r = 0; r < i; r++) a[ci + r] += t0 * a[c0 + r]! + t1 * a[c1 + r]! + t2 * a[c2 + r]! + t3 * a[c3 + r]!;
    }
    for (; c < n; c++) {
      const cc = off + c * ld;
      const t = a[cc + i]!;
      for (let r = 0; r < i; r++) a[ci + r] += t * a[cc + r]!;
    }
  }
}

/** dlauu2, lower: (L^T L)(i, 0:i) = L(i:n, i)^T L(i:n, 0:i), one dot per column left of i. */
function lauu2Lower(a: Float64Array, off: number, ld: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const ci = off + i * ld;
    const aii = a[ci + i]!;
    let dot = 0;
    for (let r = i; r < n; r++) {
      const v = a[ci + r]!;
      dot += v * v;
    }
    a[ci + i] = dot;
    // Two columns per pass share the loads of L(i+1:n, i).
    let c = 0;
    for (; c + 1 < i; c += 2) {
      const c0 = off + c * ld;
      const c1 = c0 + ld;
      let s0 = 0;
      let s1 = 0;
      for (let r = i + 1; r < n; r++) {
        const l = a[ci + r]!;
        s0 += a[c0 + r]! * l;
        s1 += a[c1 + r]! * l;
      }
      a[c0 + i] = aii * a[c0 + i]! + s0;
      a[c1 + i] = aii * a[c1 + i]! + s1;
    }
    if (c < i) {
      const cc = off + c * ld;
      let s = 0;
      for (let r = i + 1; r < n; r++) s += a[cc + r]! * a[ci + r]!;
      a[cc + i] = aii * a[cc + i]! + s;
    }
  }
}

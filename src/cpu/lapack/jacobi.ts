/**
 * Symmetric eigendecomposition (syev) and thin SVD (gesvd), the CPU reference: cyclic Jacobi.
 *
 * - syev: two-sided cyclic Jacobi (Rutishauser's rotation, row-cyclic order) on the full
 *   symmetric matrix built from the `uplo` triangle; the product of the rotations is V.
 * - gesvd: one-sided Jacobi (Hestenes) on the columns of G = A (m >= n) or G = A^T (m < n):
 *   pairs of columns are rotated until every pair is orthogonal; the column norms are the
 *   singular values, the normalised columns U, the accumulated rotations V (for m < n the roles
 *   of U and V swap: A^T = U' S V'^T gives A = V' S U'^T).
 *
 * Convergence test (as LAPACK's dgesvj and the relative-accuracy theory of Demmel and Veselic):
 * a pair (p, q) is rotated only where |a_pq| > tol sqrt(|a_pp| |a_qq|) (syev) or
 * |g_p . g_q| > tol ||g_p|| ||g_q|| (gesvd), tol = sqrt(size) eps (float64 eps: float32 data is
 * computed in float64 and rounded once). A matrix has converged after a sweep without rotation;
 * after jacobiSweeps(n) sweeps (core/algorithms.ts) it is reported with info = size + 1 and its last iterate (sorted) kept,
 * except (syev) where the off-diagonal part is nonetheless below n eps ||A||_F (offDiagonalNegligible):
 * on a graded matrix (D B D) the relative test can keep rotating on rounding noise while the
 * eigenvalues and vectors are as accurate as LAPACK's, whose dsyev then reports success.
 * A matrix holding NaN or Inf gets info = size + 2 and NaN in every output; the others are untouched
 * by it. Matrices whose largest entry lies outside [2^-500, 2^500] are scaled by a power of two
 * (exact) first, so squares and quotients do not overflow.
 *
 * Above REORTHOGONALIZE_ABOVE the accumulated V gets one pass of modified Gram-Schmidt after the
 * sweeps (reorthogonalize): each rotation is orthogonal only to rounding, and the ~n sweeps x n
 * rotations that touch each column let ||V^T V - I|| grow like sqrt(sweeps n) eps, to 24 n eps at
 * n = 512 here and past 30 n eps on the GPU's parallel order. One pass over so nearly orthogonal a
 * V brings it to O(eps); it moves V by no more than that growth, so A V - V W stays as small.
 */
import { jacobiSweeps, REORTHOGONALIZE_ABOVE } from '../../core/algorithms.js';
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GesvdRequest, SyevRequest } from '../../core/ops.js';
import { Workspace } from './workspace.js';

const EPS = 2 ** -52;

const work = new Workspace();
const vwork = new Workspace();
const dwork = new Workspace();

export function cpuSyev(r: SyevRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const vectors = r.jobz === 'vectors';
  for (let i = 0; i < batchCount(r.a); i++) {
    const m = matrixAt(r.a, i);
    const n = m.rows;
    const a = work.get(n * n);
    const v = vwork.get(n * n);
    loadSymmetric(m, upper, a);
    const w = matrixAt(r.w, i);
    const info = syevMatrix(a, v, n, vectors);
    r.info[i] = info;
    if (info === n + 2) {
      fillVector(w, n, NaN);
      if (vectors) fillMatrix(m, NaN);
      continue;
    }
    for (let j = 0; j < n; j++) w.data[w.offset + j] = a[j * n + j]!;
    if (vectors) storeMatrix(v, m);
  }
}

/**
 * Eigenvalues of the symmetric n x n matrix `a` (full, column-major, ld = n) onto its diagonal in
 * ascending order, and (vectors) the eigenvectors as the columns of `v`. Returns info.
 */
export function syevMatrix(a: Float64Array, v: Float64Array, n: number, vectors: boolean): number {
  const scale = scaleOf(a, n * n);
  if (Number.isNaN(scale)) return n + 2;
  if (scale !== 1) for (let k = 0; k < n * n; k++) a[k] *= scale;
  if (vectors) identity(v, n);
  const tol = Math.sqrt(n) * EPS;
  let converged = n <= 1;
  for (let sweep = 0, sweeps = jacobiSweeps(n); sweep < sweeps && !converged; sweep++) {
    converged = true;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p + q * n]!;
        const app = a[p + p * n]!;
        const aqq = a[q + q * n]!;
        if (!(Math.abs(apq) > tol * Math.sqrt(Math.abs(app)) * Math.sqrt(Math.abs(aqq))) || apq === 0) continue;
        converged = false;
        const t = rotationTangent((aqq - app) / (2 * apq));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          if (k === p || k === q) continue;
          const x = a[k + p * n]!;
          const y = a[k + q * n]!;
          const nx = c * x - s * y;
          const ny = s * x + c * y;
          a[k + p * n] = nx; a[p + k * n] = nx;
          a[k + q * n] = ny; a[q + k * n] = ny;
        }
        a[p + p * n] = app - t * apq;
        a[q + q * n] = aqq + t * apq;
        a[p + q * n] = 0; a[q + p * n] = 0;
        if (vectors) rotateColumns(v, p * n, q * n, n, c, s);
      }
    }
  }
  const settled = converged || offDiagonalNegligible(a, n, 1);
  if (vectors && n > REORTHOGONALIZE_ABOVE) reorthogonalize(v, n);
  const d = dwork.get(n);
  for (let j = 0; j < n; j++) d[j] = a[j * n + j]!;
  sortWithColumns(d, n, false, vectors ? [[v, n]] : []);
  for (let j = 0; j < n; j++) a[j * n + j] = d[j]! / scale;
  return settled ? 0 : n + 1;
}

/**
 * Whether the off-diagonal part of the n x n matrix `a` (column-major, ld = n; `parts` floats an
 * element: 1 real, 2 complex) is below n eps ||A||_F: the backward error LAPACK's QL-based
 * eigensolvers stop at, where the relative Jacobi test has not settled (syev's and heev's info).
 */
export function offDiagonalNegligible(a: Float64Array, n: number, parts: 1 | 2): boolean {
  let off = 0, all = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      for (let h = 0; h < parts; h++) {
        const x = a[parts * (i + j * n) + h]!, sq = x * x;
        all += sq;
        if (i !== j) off += sq;
      }
    }
  }
  return off <= (n * EPS) ** 2 * all;
}

export function cpuGesvd(r: GesvdRequest<FloatArray, Int32Array>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const { rows: m, cols: n } = am;
    const k = Math.min(m, n);
    const tall = m >= n;
    const big = Math.max(m, n);
    // G is big x k: A (tall) or A^T (wide), ld = big.
    const g = work.get(big * k);
    const v = vwork.get(k * k);
    for (let j = 0; j < n; j++) for (let r0 = 0; r0 < m; r0++) g[tall ? r0 + j * big : j + r0 * big] = am.data[am.offset + r0 + j * am.ld]!;
    const sv = new Float64Array(k);
    const info = gesvdMatrix(g, v, sv, big, k);
    r.info[i] = info;
    const s = matrixAt(r.s, i);
    const u = r.u ? matrixAt(r.u, i) : undefined;
    const vt = r.vt ? matrixAt(r.vt, i) : undefined;
    if (info === k + 2) {
      fillVector(s, k, NaN);
      if (u) fillMatrix(u, NaN);
      if (vt) fillMatrix(vt, NaN);
      continue;
    }
    for (let j = 0; j < k; j++) s.data[s.offset + j] = sv[j]!;
    // Tall: U = G (m x k), VT = V^T. Wide: U = V (m x m), VT = G^T (m x n).
    if (u) for (let j = 0; j < k; j++) for (let r0 = 0; r0 < m; r0++) u.data[u.offset + r0 + j * u.ld] = tall ? g[r0 + j * big]! : v[r0 + j * k]!;
    if (vt) for (let j = 0; j < n; j++) for (let r0 = 0; r0 < k; r0++) vt.data[vt.offset + r0 + j * vt.ld] = tall ? v[j + r0 * k]! : g[j + r0 * big]!;
  }
}

/**
 * One-sided Jacobi on the m x n columns of g (m >= n, ld = m): on return g holds U (orthonormal
 * columns), v (n x n) holds V, s the singular values, all in descending order. Returns info.
 */
export function gesvdMatrix(g: Float64Array, v: Float64Array, s: Float64Array, m: number, n: number): number {
  const scale = scaleOf(g, m * n);
  if (Number.isNaN(scale)) return n + 2;
  if (scale !== 1) for (let k = 0; k < m * n; k++) g[k] *= scale;
  identity(v, n);
  const tol = Math.sqrt(m) * EPS;
  let converged = n <= 1;
  for (let sweep = 0, sweeps = jacobiSweeps(n); sweep < sweeps && !converged; sweep++) {
    converged = true;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        let alpha = 0, beta = 0, gamma = 0;
        for (let r = 0; r < m; r++) {
          const x = g[r + p * m]!;
          const y = g[r + q * m]!;
          alpha += x * x; beta += y * y; gamma += x * y;
        }
        if (!(Math.abs(gamma) > tol * Math.sqrt(alpha) * Math.sqrt(beta)) || gamma === 0) continue;
        converged = false;
        const t = rotationTangent((beta - alpha) / (2 * gamma));
        const c = 1 / Math.sqrt(1 + t * t);
        const sn = t * c;
        rotateColumns(g, p * m, q * m, m, c, sn);
        rotateColumns(v, p * n, q * n, n, c, sn);
      }
    }
  }
  const settled = converged || gramOffNegligible(g, m, n, 1);
  if (n > REORTHOGONALIZE_ABOVE) reorthogonalize(v, n);
  for (let j = 0; j < n; j++) {
    let nrm = 0;
    for (let r = 0; r < m; r++) nrm += g[r + j * m]! ** 2;
    s[j] = Math.sqrt(nrm);
  }
  sortWithColumns(s, n, true, [[g, m], [v, n]]);
  for (let j = 0; j < n; j++) {
    if (s[j]! > 0) for (let r = 0; r < m; r++) g[r + j * m] /= s[j]!;
    else completeColumn(g, m, j);
    s[j] /= scale;
  }
  if (!converged) orthonormalizeColumns(g, m, n, 1, (j) => completeColumn(g, m, j));
  return settled ? 0 : n + 1;
}

/**
 * Whether the columns of g (m x n, ld = m; `parts` floats an element: 1 real, 2 complex) are
 * orthogonal to n eps of G^H G's Frobenius norm: the level LAPACK's bidiagonal QR stops at, where
 * the relative test of one-sided Jacobi has not settled (a graded matrix: the pairs of its small
 * columns keep rotating on rounding noise). The dot products are divided by the largest squared
 * column norm first (the columns may reach 2^500: their squares' squares would overflow).
 */
export function gramOffNegligible(g: Float64Array, m: number, n: number, parts: 1 | 2): boolean {
  const len = parts * m;
  let top = 0;
  for (let j = 0; j < n; j++) {
    let sq = 0;
    for (let x = 0; x < len; x++) sq += g[j * len + x]! ** 2;
    top = Math.max(top, sq);
  }
  if (!(top > 0)) return top === 0;
  let off = 0, all = 0;
  for (let p = 0; p < n; p++) {
    for (let q = p; q < n; q++) {
      const [dr, di] = columnDot(g, p * len, q * len, len, parts);
      const sq = (dr / top) ** 2 + (di / top) ** 2;
      all += p === q ? sq : 2 * sq;
      if (p !== q) off += 2 * sq;
    }
  }
  return off <= (n * EPS) ** 2 * all;
}

/** g_p^H g_q of two columns of `len` floats at p and q (parts 2: interleaved complex). */
function columnDot(g: Float64Array, p: number, q: number, len: number, parts: 1 | 2): [number, number] {
  let dr = 0, di = 0;
  for (let x = 0; x < len; x += parts) {
    const ur = g[p + x]!, yr = g[q + x]!;
    if (parts === 1) { dr += ur * yr; continue; }
    const ui = g[p + x + 1]!, yi = g[q + x + 1]!;
    dr += ur * yr + ui * yi;
    di += ur * yi - ui * yr;
  }
  return [dr, di];
}

/**
 * The columns of g (m x n, ld = m, unit length, in descending order of their singular values)
 * made orthonormal in that order: two passes of Gram-Schmidt against the columns before (two more
 * where half the length went), then unit length; a column with nothing left takes `complete`. For
 * a gesvd whose sweeps did not settle: a column of a small singular value s_j, computed as A v_j /
 * s_j, carries an error of about eps ||A|| / s_j, so moving it by as much changes U S V^T by eps
 * ||A|| only, and U is orthonormal as LAPACK's. (reorthogonalize's single pass is for a V already
 * orthonormal to rounding; these columns can be far from it, or all but dependent.)
 */
export function orthonormalizeColumns(g: Float64Array, m: number, n: number, parts: 1 | 2, complete: (j: number) => void): void {
  const len = parts * m;
  const project = (col: number, j: number): number => {
    for (let pass = 0; pass < 2; pass++) {
      for (let c = 0; c < j; c++) {
        const o = c * len;
        const [dr, di] = columnDot(g, o, col, len, parts);
        for (let x = 0; x < len; x += parts) {
          if (parts === 1) { g[col + x] -= dr * g[o + x]!; continue; }
          const ur = g[o + x]!, ui = g[o + x + 1]!;
          g[col + x] -= dr * ur - di * ui;
          g[col + x + 1] -= dr * ui + di * ur;
        }
      }
    }
    let nrm = 0;
    for (let x = 0; x < len; x++) nrm += g[col + x]! ** 2;
    return Math.sqrt(nrm);
  };
  for (let j = 0; j < n; j++) {
    const col = j * len;
    let nrm = project(col, j);
    if (nrm < 0.5 && nrm > 0) {
      for (let x = 0; x < len; x++) g[col + x] /= nrm;
      nrm = project(col, j);
    }
    if (nrm > 0) for (let x = 0; x < len; x++) g[col + x] /= nrm;
    else complete(j);
  }
}

/** One pass of modified Gram-Schmidt over the n columns of the nearly orthogonal n x n v (ld = n). */
export function reorthogonalize(v: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    let nrm = 0;
    for (let r = 0; r < n; r++) nrm += v[r + j * n]! ** 2;
    const inv = 1 / Math.sqrt(nrm);
    for (let r = 0; r < n; r++) v[r + j * n] *= inv;
    for (let c = j + 1; c < n; c++) {
      let d = 0;
      for (let r = 0; r < n; r++) d += v[r + j * n]! * v[r + c * n]!;
      for (let r = 0; r < n; r++) v[r + c * n] -= d * v[r + j * n]!;
    }
  }
}

/**
 * Column j of U where the singular value is exactly zero (sorted last): the first unit vector
 * that stays longer than 1/2 after two Gram-Schmidt passes against columns 0..j-1, normalised; where
 * none does (the space left is small and spread evenly), the one that stays longest.
 */
function completeColumn(g: Float64Array, m: number, j: number): void {
  let best = 0;
  let bestNorm = -1;
  for (let e = 0; e <= m; e++) {
    // e = m: the best candidate again, kept whatever its length.
    const unit = e < m ? e : best;
    for (let r = 0; r < m; r++) g[r + j * m] = r === unit ? 1 : 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let c = 0; c < j; c++) {
        let d = 0;
        for (let r = 0; r < m; r++) d += g[r + c * m]! * g[r + j * m]!;
        for (let r = 0; r < m; r++) g[r + j * m] -= d * g[r + c * m]!;
      }
    }
    let nrm = 0;
    for (let r = 0; r < m; r++) nrm += g[r + j * m]! ** 2;
    nrm = Math.sqrt(nrm);
    if (nrm > 0.5 || e === m) {
      for (let r = 0; r < m; r++) g[r + j * m] /= nrm;
      return;
    }
    if (nrm > bestNorm) {
      bestNorm = nrm;
      best = e;
    }
  }
}

/** t = tan(theta) of the rotation that zeroes the pair, from cot(2 theta) = zeta; the smaller root. */
export function rotationTangent(zeta: number): number {
  const sign = zeta >= 0 ? 1 : -1;
  const az = Math.abs(zeta);
  return az > 1e150 ? sign / (2 * az) : sign / (az + Math.sqrt(1 + az * az));
}

/** [x y] := [c x - s y, s x + c y] over two columns of length len. */
function rotateColumns(x: Float64Array, px: number, py: number, len: number, c: number, s: number): void {
  for (let r = 0; r < len; r++) {
    const a = x[px + r]!;
    const b = x[py + r]!;
    x[px + r] = c * a - s * b;
    x[py + r] = s * a + c * b;
  }
}

/**
 * Selection sort of d[0..n) (ascending, or descending), swapping columns j and best of each
 * (array, column length) alongside (n is small; the order of ties is the reference's own). A
 * complex column of interleaved pairs is one of length 2 rows.
 */
export function sortWithColumns(d: Float64Array, n: number, descending: boolean, columns: readonly (readonly [Float64Array, number])[]): void {
  for (let j = 0; j < n - 1; j++) {
    let best = j;
    for (let k = j + 1; k < n; k++) if (descending ? d[k]! > d[best]! : d[k]! < d[best]!) best = k;
    if (best === j) continue;
    const t = d[j]!; d[j] = d[best]!; d[best] = t;
    for (const [x, len] of columns) {
      for (let r = 0; r < len; r++) {
        const y = x[j * len + r]!; x[j * len + r] = x[best * len + r]!; x[best * len + r] = y;
      }
    }
  }
}

function identity(v: Float64Array, n: number): void {
  v.fill(0, 0, n * n);
  for (let j = 0; j < n; j++) v[j * n + j] = 1;
}

/**
 * NaN where x[0..len) holds NaN or Inf; else the power of two bringing the largest |entry| near 1,
 * or 1 (over the floats of interleaved complex pairs too: an exact scaling of both parts).
 */
export function scaleOf(x: Float64Array, len: number): number {
  let amax = 0;
  for (let k = 0; k < len; k++) {
    const e = Math.abs(x[k]!);
    if (!(e <= Number.MAX_VALUE)) return NaN;
    if (e > amax) amax = e;
  }
  return scaleForMax(amax);
}

/** scaleOf's power of two for a finite largest |entry| amax: 1 where amax is 0 or within 2^-500 ... 2^500. */
export function scaleForMax(amax: number): number {
  if (amax === 0 || (amax >= 2 ** -500 && amax <= 2 ** 500)) return 1;
  return powerOfTwoNear1(amax);
}

/**
 * The power of two that brings a finite, nonzero amax near 1, 2^-round(log2 amax), with its exponent
 * held within [-1022, 1022] so that it and its reciprocal are normal numbers: a subnormal amax (below
 * 2^-1022) would otherwise ask 2^1023 or more (Infinity from 2^1024), one near the top 2^-1024.
 */
export function powerOfTwoNear1(amax: number): number {
  return 2 ** Math.min(1022, Math.max(-1022, -Math.round(Math.log2(amax))));
}

/** The full symmetric matrix from the `uplo` triangle of m, ld = n. */
function loadSymmetric(m: MatrixView<FloatArray>, upper: boolean, a: Float64Array): void {
  const n = m.rows;
  for (let j = 0; j < n; j++) {
    for (let i = upper ? 0 : j; i < (upper ? j + 1 : n); i++) {
      const x = m.data[m.offset + i + j * m.ld]!;
      a[i + j * n] = x;
      a[j + i * n] = x;
    }
  }
}

function storeMatrix(v: Float64Array, m: MatrixView<FloatArray>): void {
  for (let j = 0; j < m.cols; j++) for (let i = 0; i < m.rows; i++) m.data[m.offset + i + j * m.ld] = v[i + j * m.rows]!;
}

function fillMatrix(m: MatrixView<FloatArray>, x: number): void {
  for (let j = 0; j < m.cols; j++) m.data.fill(x, m.offset + j * m.ld, m.offset + j * m.ld + m.rows);
}

/** Elements 0..n-1 of a column vector (n x 1 per matrix). */
function fillVector(w: MatrixView<FloatArray>, n: number, x: number): void {
  w.data.fill(x, w.offset, w.offset + n);
}

/**
 * Thin SVD on complex batches, the reference (gesvd; LAPACK's zgesvd semantics with this
 * project's jobu / jobvt 'thin' | 'none'): one-sided (Hestenes) Jacobi on the columns of G = A
 * (m >= n) or G = A^H (m < n), the complex form of the real gesvd reference (lapack/jacobi.ts),
 * with its order of pairs, convergence test |g_p^H g_q| > sqrt(rows) eps ||g_p|| ||g_q||, sweep
 * limit, scaling and reorthogonalization. Each pair is rotated by the Hermitian rotation of its
 * Gram block [[||g_p||^2, g_p^H g_q], [g_q^H g_p, ||g_q||^2]] (zrotation.ts).
 *
 * A = U diag(s) VT, k = min(m, n): s (real, of A's component type) descending, U (m x k) with
 * orthonormal columns, VT (k x n) with orthonormal rows. For m < n, A^H = U' S V'^H gives U = V',
 * VT = U'^H. A is only read. NaN or Inf in A: info k + 2 and s, U, VT NaN; no convergence: k + 1.
 */
import { jacobiSweeps, REORTHOGONALIZE_ABOVE } from '../../core/algorithms.js';
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GesvdRequest } from '../../core/op-specs.js';
import { gramOffNegligible, orthonormalizeColumns, scaleOf, sortWithColumns } from '../lapack/jacobi.js';
import { Workspace } from './workspace.js';
import { hermitianRotation, reorthogonalizeComplex, rotateComplexColumns, type ComplexRotation } from './zrotation.js';

const EPS = 2 ** -52;

const work = new Workspace();
const vwork = new Workspace();
const swork = new Workspace();
const rot: ComplexRotation = { c: 1, s: 0, t: 0, er: 1, ei: 0 };

export function cpuGesvdComplex(r: GesvdRequest<FloatArray, Int32Array>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const { rows: m, cols: n } = am;
    const k = Math.min(m, n);
    const tall = m >= n;
    const big = Math.max(m, n);
    // G is big x k: A (tall) or A^H (wide), ld = big.
    const g = work.get(2 * big * k);
    for (let j = 0; j < n; j++) for (let q = 0; q < m; q++) {
      const s = 2 * (am.offset + q + j * am.ld);
      const d = 2 * (tall ? q + j * big : j + q * big);
      g[d] = am.data[s]!;
      g[d + 1] = tall ? am.data[s + 1]! : -am.data[s + 1]!;
    }
    const v = vwork.get(2 * k * k);
    const sv = swork.get(k);
    const info = gesvdMatrixComplex(g, v, sv, big, k);
    r.info[i] = info;
    const s = matrixAt(r.s, i);
    const u = r.u ? matrixAt(r.u, i) : undefined;
    const vt = r.vt ? matrixAt(r.vt, i) : undefined;
    if (info === k + 2) {
      s.data.fill(NaN, s.offset, s.offset + k);
      if (u) fillComplex(u, NaN);
      if (vt) fillComplex(vt, NaN);
      continue;
    }
    for (let j = 0; j < k; j++) s.data[s.offset + j] = sv[j]!;
    // Tall: U = G (m x k), VT = V^H. Wide: U = V (m x m), VT = G^H (m x n).
    if (u) for (let j = 0; j < k; j++) for (let q = 0; q < m; q++) {
      const d = 2 * (u.offset + q + j * u.ld);
      const x = tall ? 2 * (q + j * big) : 2 * (q + j * k);
      const src = tall ? g : v;
      u.data[d] = src[x]!;
      u.data[d + 1] = src[x + 1]!;
    }
    if (vt) for (let j = 0; j < n; j++) for (let q = 0; q < k; q++) {
      const d = 2 * (vt.offset + q + j * vt.ld);
      // VT(q, j) = conj(V(j, q)) (tall) or conj(G(j, q)) (wide).
      const x = tall ? 2 * (j + q * k) : 2 * (j + q * big);
      const src = tall ? v : g;
      vt.data[d] = src[x]!;
      vt.data[d + 1] = -src[x + 1]!;
    }
  }
}

/**
 * One-sided Jacobi on the m x n complex columns of g (m >= n, ld = m): on return g holds U
 * (orthonormal columns), v (n x n) V, s the singular values, all in descending order. Returns info.
 */
export function gesvdMatrixComplex(g: Float64Array, v: Float64Array, s: Float64Array, m: number, n: number): number {
  const scale = scaleOf(g, 2 * m * n);
  if (Number.isNaN(scale)) return n + 2;
  if (scale !== 1) for (let x = 0; x < 2 * m * n; x++) g[x] *= scale;
  v.fill(0, 0, 2 * n * n);
  for (let j = 0; j < n; j++) v[2 * j * (n + 1)] = 1;
  const tol = Math.sqrt(m) * EPS;
  let converged = n <= 1;
  for (let sweep = 0, sweeps = jacobiSweeps(n); sweep < sweeps && !converged; sweep++) {
    converged = true;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        let alpha = 0, beta = 0, gr = 0, gi = 0;
        for (let x = 0; x < 2 * m; x += 2) {
          const ar = g[2 * p * m + x]!, ai = g[2 * p * m + x + 1]!;
          const br = g[2 * q * m + x]!, bi = g[2 * q * m + x + 1]!;
          alpha += ar * ar + ai * ai;
          beta += br * br + bi * bi;
          gr += ar * br + ai * bi;
          gi += ar * bi - ai * br;
        }
        const gamma = Math.hypot(gr, gi);
        if (!(gamma > tol * Math.sqrt(alpha) * Math.sqrt(beta)) || gamma === 0) continue;
        converged = false;
        hermitianRotation(rot, alpha, beta, gr, gi, gamma);
        rotateComplexColumns(g, 2 * p * m, 2 * q * m, m, rot);
        rotateComplexColumns(v, 2 * p * n, 2 * q * n, n, rot);
      }
    }
  }
  // As the real gesvd's (lapack/jacobi.ts): the absolute level counts as converged, and U is made orthonormal where the sweeps did not settle.
  const settled = converged || gramOffNegligible(g, m, n, 2);
  if (n > REORTHOGONALIZE_ABOVE) reorthogonalizeComplex(v, n, n);
  for (let j = 0; j < n; j++) {
    let nrm = 0;
    for (let x = 0; x < 2 * m; x++) nrm += g[2 * j * m + x]! ** 2;
    s[j] = Math.sqrt(nrm);
  }
  sortWithColumns(s, n, true, [[g, 2 * m], [v, 2 * n]]);
  for (let j = 0; j < n; j++) {
    if (s[j]! > 0) for (let x = 0; x < 2 * m; x++) g[2 * j * m + x] /= s[j]!;
    else completeColumn(g, m, j);
    s[j] /= scale;
  }
  if (!converged) orthonormalizeColumns(g, m, n, 2, (j) => completeColumn(g, m, j));
  return settled ? 0 : n + 1;
}

/**
 * Column j of U where the singular value is exactly zero (sorted last): the first unit vector
 * that stays longer than 1/2 after two Gram-Schmidt passes against columns 0..j-1, normalised; where
 * none does (the space left is small and spread evenly), the one that stays longest.
 */
function completeColumn(g: Float64Array, m: number, j: number): void {
  const col = 2 * j * m;
  let best = 0;
  let bestNorm = -1;
  for (let e = 0; e <= m; e++) {
    // e = m: the best candidate again, kept whatever its length.
    const unit = e < m ? e : best;
    g.fill(0, col, col + 2 * m);
    g[col + 2 * unit] = 1;
    for (let pass = 0; pass < 2; pass++) {
      for (let c = 0; c < j; c++) {
        let dr = 0, di = 0;
        for (let x = 0; x < 2 * m; x += 2) {
          const ur = g[2 * c * m + x]!, ui = g[2 * c * m + x + 1]!, yr = g[col + x]!, yi = g[col + x + 1]!;
          dr += ur * yr + ui * yi;
          di += ur * yi - ui * yr;
        }
        for (let x = 0; x < 2 * m; x += 2) {
          const ur = g[2 * c * m + x]!, ui = g[2 * c * m + x + 1]!;
          g[col + x] -= dr * ur - di * ui;
          g[col + x + 1] -= dr * ui + di * ur;
        }
      }
    }
    let nrm = 0;
    for (let x = 0; x < 2 * m; x++) nrm += g[col + x]! ** 2;
    nrm = Math.sqrt(nrm);
    if (nrm > 0.5 || e === m) {
      for (let x = 0; x < 2 * m; x++) g[col + x] /= nrm;
      return;
    }
    if (nrm > bestNorm) {
      bestNorm = nrm;
      best = e;
    }
  }
}

function fillComplex(m: MatrixView<FloatArray>, x: number): void {
  for (let j = 0; j < m.cols; j++) m.data.fill(x, 2 * (m.offset + j * m.ld), 2 * (m.offset + j * m.ld + m.rows));
}

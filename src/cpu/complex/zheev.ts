/**
 * Hermitian eigendecomposition on complex batches, the reference (heev; LAPACK's zheev semantics):
 * two-sided cyclic Jacobi with the complex rotation of zrotation.ts, the complex form of the real
 * syev reference (lapack/jacobi.ts), with the same order of pairs, the same relative convergence
 * test (a pair is rotated only where |a_pq| > sqrt(n) eps sqrt(|a_pp| |a_qq|)), the same sweep
 * limit (info n + 1 past it), the same exact power-of-two scaling and, above
 * REORTHOGONALIZE_ABOVE, the same Gram-Schmidt pass over V.
 *
 * Why Jacobi rather than zhetrd's reduction to a real tridiagonal and QL/QR: every step is a
 * unitary similarity applied exactly as written, so ||A V - V diag(w)|| stays of order n eps ||A||
 * and ||V^H V - I|| of order n eps, and, as for the real syev, small eigenvalues of positive
 * definite matrices come out to high relative accuracy; the cost (a few sweeps of n^3 complex
 * work) matters little at the orders a batch holds.
 *
 * Only the `uplo` triangle is read, the diagonal's imaginary parts ignored (as zhetrd). w gets the
 * eigenvalues ascending; with 'vectors' A is overwritten by the eigenvectors (column j belongs to
 * w[j]), with 'values' A is left unchanged (LAPACK leaves its triangle destroyed: nothing may rely
 * on it either way). NaN or Inf in the referenced part: info n + 2, w NaN (and A with 'vectors'),
 * nothing else touched; complex64 data is computed in float64 and rounded once.
 */
import { jacobiSweeps, REORTHOGONALIZE_ABOVE } from '../../core/algorithms.js';
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { SyevRequest } from '../../core/op-specs.js';
import { offDiagonalNegligible, scaleOf, sortWithColumns } from '../lapack/jacobi.js';
import { Workspace } from './workspace.js';
import { hermitianRotation, reorthogonalizeComplex, rotateComplexColumns, type ComplexRotation } from './zrotation.js';

const EPS = 2 ** -52;

const work = new Workspace();
const vwork = new Workspace();
const dwork = new Workspace();
const rot: ComplexRotation = { c: 1, s: 0, t: 0, er: 1, ei: 0 };

export function cpuHeevComplex(r: SyevRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const vectors = r.jobz === 'vectors';
  for (let p = 0; p < batchCount(r.a); p++) {
    const m = matrixAt(r.a, p);
    const n = m.rows;
    const a = work.get(2 * n * n);
    const v = vwork.get(2 * n * n);
    const d = dwork.get(n);
    loadHermitian(m, upper, a);
    const w = matrixAt(r.w, p);
    const info = heevMatrix(a, v, d, n, vectors);
    r.info[p] = info;
    if (info === n + 2) {
      w.data.fill(NaN, w.offset, w.offset + n);
      if (vectors) for (let j = 0; j < n; j++) m.data.fill(NaN, 2 * (m.offset + j * m.ld), 2 * (m.offset + j * m.ld + n));
      continue;
    }
    for (let j = 0; j < n; j++) w.data[w.offset + j] = d[j]!;
    if (vectors) for (let j = 0; j < n; j++) for (let i = 0; i < 2 * n; i++) m.data[2 * (m.offset + j * m.ld) + i] = v[2 * j * n + i]!;
  }
}

/**
 * The eigenvalues of the full Hermitian n x n `a` (interleaved, ld = n; destroyed) into d,
 * ascending, and (vectors) the eigenvectors as the columns of `v`. Returns info.
 */
export function heevMatrix(a: Float64Array, v: Float64Array, d: Float64Array, n: number, vectors: boolean): number {
  const scale = scaleOf(a, 2 * n * n);
  if (Number.isNaN(scale)) return n + 2;
  if (scale !== 1) for (let k = 0; k < 2 * n * n; k++) a[k] *= scale;
  if (vectors) {
    v.fill(0, 0, 2 * n * n);
    for (let j = 0; j < n; j++) v[2 * j * (n + 1)] = 1;
  }
  const at = (i: number, j: number): number => 2 * (i + j * n);
  const tol = Math.sqrt(n) * EPS;
  let converged = n <= 1;
  for (let sweep = 0, sweeps = jacobiSweeps(n); sweep < sweeps && !converged; sweep++) {
    converged = true;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const gr = a[at(p, q)]!;
        const gi = a[at(p, q) + 1]!;
        const g = Math.hypot(gr, gi);
        const app = a[at(p, p)]!;
        const aqq = a[at(q, q)]!;
        if (!(g > tol * Math.sqrt(Math.abs(app)) * Math.sqrt(Math.abs(aqq))) || g === 0) continue;
        converged = false;
        hermitianRotation(rot, app, aqq, gr, gi, g);
        const { c, s, er, ei } = rot;
        for (let k = 0; k < n; k++) {
          if (k === p || k === q) continue;
          const x = at(k, p);
          const y = at(k, q);
          const xr = a[x]!, xi = a[x + 1]!, yr = a[y]!, yi = a[y + 1]!;
          const nxr = c * xr - s * (er * yr + ei * yi);
          const nxi = c * xi - s * (er * yi - ei * yr);
          const nyr = s * (er * xr - ei * xi) + c * yr;
          const nyi = s * (er * xi + ei * xr) + c * yi;
          a[x] = nxr; a[x + 1] = nxi;
          a[y] = nyr; a[y + 1] = nyi;
          // The rows are the conjugates (A stays Hermitian).
          a[at(p, k)] = nxr; a[at(p, k) + 1] = -nxi;
          a[at(q, k)] = nyr; a[at(q, k) + 1] = -nyi;
        }
        a[at(p, p)] = app - rot.t * g;
        a[at(q, q)] = aqq + rot.t * g;
        a.fill(0, at(p, q), at(p, q) + 2);
        a.fill(0, at(q, p), at(q, p) + 2);
        if (vectors) rotateComplexColumns(v, at(0, p), at(0, q), n, rot);
      }
    }
  }
  // As syev's: off-diagonal noise below n eps ||A||_F after the last sweep counts as converged.
  const settled = converged || offDiagonalNegligible(a, n, 2);
  if (vectors && n > REORTHOGONALIZE_ABOVE) reorthogonalizeComplex(v, n, n);
  for (let j = 0; j < n; j++) d[j] = a[at(j, j)]!;
  sortWithColumns(d, n, false, vectors ? [[v, 2 * n]] : []);
  for (let j = 0; j < n; j++) d[j] = d[j]! / scale;
  return settled ? 0 : n + 1;
}

/** The full Hermitian matrix from the `uplo` triangle of m (interleaved, ld = n), the diagonal real. */
function loadHermitian(m: MatrixView<FloatArray>, upper: boolean, a: Float64Array): void {
  const n = m.rows;
  for (let j = 0; j < n; j++) {
    for (let i = upper ? 0 : j; i < (upper ? j + 1 : n); i++) {
      const x = 2 * (m.offset + i + j * m.ld);
      const re = m.data[x]!;
      const im = i === j ? 0 : m.data[x + 1]!;
      a[2 * (i + j * n)] = re;
      a[2 * (i + j * n) + 1] = im;
      a[2 * (j + i * n)] = re;
      a[2 * (j + i * n) + 1] = -im;
    }
  }
}

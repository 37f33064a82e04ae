/**
 * Householder QR (geqrf), forming Q (orgqr) and least squares (gels), the CPU reference, as
 * LAPACK's unblocked dgeqr2, dorg2r and dgels (trans 'N').
 *
 * - geqrf: A (m x n) = Q R, Q = H(0) H(1) ... H(k-1), k = min(m, n), H(j) = I - tau_j v_j v_j^T
 *   with v_j(0:j) = 0, v_j(j) = 1 and v_j(j+1:m) stored below the diagonal of column j; R in the
 *   upper triangle. The reflector is dlarfg's: beta = -sign(alpha) ||(alpha, x)||, tau = 0 where
 *   x is zero (H = I).
 * - orgqr: the first n columns of Q = H(0) ... H(k-1) (m >= n >= k) over A, as dorg2r.
 * - ormqr: C := op(Q) C or C op(Q) without forming Q, one reflector at a time, as dorm2r.
 * - gels: m >= n: A = Q R, X = R^-1 (Q^T B)(0:n) (Q^T B and Q [y; 0] by orm2r). m < n (minimum norm): A^T = Q R (the QR of
 *   A^T stands in for LAPACK's LQ of A; A^T's Q R is A's L Q transposed), X = Q [R^-T B(0:m); 0].
 *   info = j + 1 where R(j, j) is exactly zero (A not of full rank; B then holds Q^T B or B as
 *   given, unspecified as in LAPACK). An all-zero A gives X = 0 and info 0 (dgels's rule). As
 *   dgels, A and B are scaled into the normal range first where their largest entries lie outside
 *   it (by powers of two, gelsScale: exact), so subnormal data keeps the bits it has; X is scaled
 *   back, and so is R in A's storage.
 *
 * float32 data is computed in float64 and rounded once (as jacobi.ts does).
 */
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { Side } from '../../core/enums.js';
import type { GelsRequest, GeqrfRequest, Op, OrgqrRequest, OrmqrRequest } from '../../core/ops.js';
import { scaleOf } from './jacobi.js';
import { Workspace } from './workspace.js';

const work = new Workspace();
const twork = new Workspace();
const bwork = new Workspace();
const rwork = new Workspace();

export function cpuGeqrf(r: GeqrfRequest<FloatArray, Int32Array>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const { rows: m, cols: n } = am;
    const k = Math.min(m, n);
    const a = load(am, work);
    const tau = twork.get(k);
    geqr2(a, tau, m, n);
    store(a, am);
    const t = matrixAt(r.tau, i);
    for (let j = 0; j < k; j++) t.data[t.offset + j] = tau[j]!;
    r.info[i] = 0;
  }
}

export function cpuOrgqr(r: OrgqrRequest<FloatArray>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const t = matrixAt(r.tau, i);
    const k = t.rows;
    const a = load(am, work);
    const tau = twork.get(k);
    for (let j = 0; j < k; j++) tau[j] = t.data[t.offset + j]!;
    org2r(a, tau, am.rows, am.cols, k);
    store(a, am);
  }
}

export function cpuOrmqr(r: OrmqrRequest<FloatArray>): void {
  for (let i = 0; i < batchCount(r.c); i++) {
    const am = matrixAt(r.a, i);
    const t = matrixAt(r.tau, i);
    const k = t.rows;
    const rows = am.rows;
    // Only the k reflector columns are read (A may hold more: geqrf's whole output).
    const a = work.get(rows * k);
    for (let j = 0; j < k; j++) for (let p = j + 1; p < rows; p++) a[p + j * rows] = am.data[am.offset + p + j * am.ld]!;
    const tau = twork.get(k);
    for (let j = 0; j < k; j++) tau[j] = t.data[t.offset + j]!;
    const cm = matrixAt(r.c, i);
    const c = load(cm, bwork);
    orm2r(r.side, r.trans, a, rows, tau, k, c, cm.rows, cm.cols);
    store(c, cm);
  }
}

export function cpuGels(r: GelsRequest<FloatArray, Int32Array>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const bm = matrixAt(r.b, i);
    // No right-hand sides: dgels returns before it factors (A untouched, info 0).
    if (bm.cols === 0) { r.info[i] = 0; continue; }
    const { rows: m, cols: n } = am;
    const tall = m >= n;
    // The factored matrix: A (m x n) or A^T (n x m), ld = its rows.
    const rows = tall ? m : n;
    const cols = tall ? n : m;
    const k = cols;
    const a = work.get(rows * cols);
    for (let j = 0; j < n; j++) for (let q = 0; q < m; q++) a[tall ? q + j * m : j + q * n] = am.data[am.offset + q + j * am.ld]!;
    const b = load(bm, bwork);
    const ldb = bm.rows;
    const nrhs = bm.cols;
    const tau = twork.get(k);
    let zero = true;
    for (let q = 0; q < rows * cols && zero; q++) zero = a[q] === 0;
    if (zero) {
      b.fill(0, 0, ldb * nrhs);
      store(b, bm);
      r.info[i] = 0;
      continue;
    }
    const sa = gelsScale(a, rows * cols), sb = gelsScale(b, ldb * nrhs);
    geqr2(a, tau, rows, cols);
    if (tall) {
      store(a, am);
    } else {
      // A's storage receives the factors of A^T, transposed back (m x n: R^T on and below the diagonal).
      for (let j = 0; j < n; j++) for (let q = 0; q < m; q++) am.data[am.offset + q + j * am.ld] = a[j + q * n]!;
    }
    // R of A itself in A's storage (the reflectors below it do not depend on the scale).
    if (sa !== 1) {
      for (let c = 0; c < cols; c++) for (let q = 0; q <= Math.min(c, rows - 1); q++) {
        am.data[am.offset + (tall ? q + c * am.ld : c + q * am.ld)] = a[q + c * rows]! / sa;
      }
    }
    let info = 0;
    for (let j = 0; j < k && info === 0; j++) if (a[j + j * rows] === 0) info = j + 1;
    r.info[i] = info;
    if (info !== 0) continue;
    // B is rows x nrhs here (ldb = max(m, n) = rows).
    if (tall) orm2r('left', 'T', a, rows, tau, k, b, rows, nrhs);
    for (let c = 0; c < nrhs; c++) {
      const o = c * ldb;
      if (tall) {
        // R x = (Q^T b)(0:n), back substitution.
        for (let j = n - 1; j >= 0; j--) {
          let s = b[o + j]!;
          for (let p = j + 1; p < n; p++) s -= a[j + p * rows]! * b[o + p]!;
          b[o + j] = s / a[j + j * rows]!;
        }
      } else {
        // R^T y = b(0:m), forward substitution; then x = Q [y; 0] (below).
        for (let j = 0; j < m; j++) {
          let s = b[o + j]!;
          for (let p = 0; p < j; p++) s -= a[p + j * rows]! * b[o + p]!;
          b[o + j] = s / a[j + j * rows]!;
        }
        for (let p = m; p < n; p++) b[o + p] = 0;
      }
    }
    if (!tall) orm2r('left', 'N', a, rows, tau, k, b, rows, nrhs);
    // X = X' sa / sb (of the scaled problem); rows n ... m - 1 of a tall B (Q^T B's tail) / sb.
    if (sa !== 1 || sb !== 1) unscaleSolution(b, ldb, nrhs, n, 1, sa, sb);
    store(b, bm);
  }
}

/**
 * dgels's scaling of A or B into the normal range: the power of two that brings max |x| within
 * 2^-500 ... 2^500 (jacobi.ts scaleOf: 1 there and for 0; here 1 too where x holds NaN or Inf),
 * x (len floats) multiplied by it in place, exactly.
 */
export function gelsScale(x: Float64Array, len: number): number {
  const s = scaleOf(x, len);
  if (Number.isNaN(s)) return 1;
  if (s !== 1) for (let q = 0; q < len; q++) x[q] *= s;
  return s;
}

/**
 * gels's X from the scaled problem's (A sa, B sb: gelsScale's powers of two): rows 0 ... n - 1 of
 * each of the nrhs columns of b (ld rows, `parts` floats an element) times sa / sb, the rows below
 * (a tall B's Q^T B tail) times 1 / sb. The ratio is applied as two powers of two of the same side
 * of 1, so no intermediate overflows or underflows where the result does not (sa = sb = 2^1022 for
 * subnormal A and B: X' sa alone overflowed).
 */
export function unscaleSolution(b: Float64Array, ld: number, nrhs: number, n: number, parts: 1 | 2, sa: number, sb: number): void {
  const d = Math.log2(sa) - Math.log2(sb), half = Math.trunc(d / 2);
  const f1 = 2 ** half, f2 = 2 ** (d - half), tail = 1 / sb;
  for (let c = 0; c < nrhs; c++) for (let q = 0; q < ld; q++) for (let h = 0; h < parts; h++) {
    const e = parts * (q + c * ld) + h;
    b[e] = q < n ? b[e]! * f1 * f2 : b[e]! * tail;
  }
}

/**
 * dlarfg's safe minimum, dlamch('S') / dlamch('E') = 2^-969: a reflector whose beta is below it has
 * its column scaled by 2^969 (at most 20 times) before 1 / (alpha - beta), which would overflow,
 * and beta scaled back after.
 */
export const LARFG_SAFMIN = 2 ** -969;
const LARFG_RSAFMN = 2 ** 969;

/**
 * dlarfg's and zlarfg's rescue of a column whose norm beta is below LARFG_SAFMIN: the column from
 * alpha on, a[from ... end) (alpha's parts first, then x), scaled by 2^969 until |beta| reaches the
 * safe minimum, at most 20 times. Returns the times; the caller reads alpha again, recomputes beta
 * from the scaled column, and scales beta back by LARFG_SAFMIN as often once x is scaled.
 */
export function larfgScaleUp(a: Float64Array, from: number, end: number, beta: number): number {
  let knt = 0;
  do {
    knt++;
    for (let p = from; p < end; p++) a[p] *= LARFG_RSAFMN;
    beta *= LARFG_RSAFMN;
  } while (Math.abs(beta) < LARFG_SAFMIN && knt < 20);
  return knt;
}

/** dgeqr2 on a (m x n, ld = m): reflectors below the diagonal, R on and above it, tau[0:min(m, n)]. */
export function geqr2(a: Float64Array, tau: Float64Array, m: number, n: number): void {
  const k = Math.min(m, n);
  for (let j = 0; j < k; j++) {
    const d = j + j * m, end = (j + 1) * m;
    let alpha = a[d]!;
    let xnorm = norm2(a, d + 1, m - j - 1);
    if (xnorm === 0) {
      tau[j] = 0;
      continue;
    }
    let beta = -Math.sign(alpha || 1) * Math.hypot(alpha, xnorm);
    const knt = Math.abs(beta) < LARFG_SAFMIN ? larfgScaleUp(a, d, end, beta) : 0;
    if (knt > 0) {
      alpha = a[d]!;
      xnorm = norm2(a, d + 1, m - j - 1);
      beta = -Math.sign(alpha || 1) * Math.hypot(alpha, xnorm);
    }
    tau[j] = (beta - alpha) / beta;
    const scale = 1 / (alpha - beta);
    for (let p = d + 1; p < end; p++) a[p] *= scale;
    for (let s = 0; s < knt; s++) beta *= LARFG_SAFMIN;
    for (let c = j + 1; c < n; c++) applyReflector(a, m, j, tau[j]!, a, c * m);
    a[d] = beta;
  }
}

/** dorg2r: the m x n Q from the k reflectors of a (ld = m) and tau, over a. */
export function org2r(a: Float64Array, tau: Float64Array, m: number, n: number, k: number): void {
  for (let j = k; j < n; j++) {
    for (let p = 0; p < m; p++) a[p + j * m] = 0;
    a[j + j * m] = 1;
  }
  for (let j = k - 1; j >= 0; j--) {
    const d = j + j * m;
    for (let c = j + 1; c < n; c++) applyReflector(a, m, j, tau[j]!, a, c * m);
    for (let p = d + 1; p < (j + 1) * m; p++) a[p] *= -tau[j]!;
    a[d] = 1 - tau[j]!;
    for (let p = 0; p < j; p++) a[p + j * m] = 0;
  }
}

/**
 * dorm2r on c (m x n, ld = m): C := op(Q) C (side 'left') or C op(Q) ('right'), op(Q) = Q or
 * Q^T, Q = H(0) H(1) ... H(k-1) from the k reflectors of a (ld = lda, the order of the space Q
 * acts on: m on the left, n on the right) and tau. One reflector at a time, in LAPACK's order:
 * Q C = H(0) (... (H(k-1) C)) and C Q^T = ((C H(k-1)) ...) H(0) take them from k-1 down, Q^T C
 * and C Q from 0 up. H(j) touches rows (left) or columns (right) j ... lda-1 of C.
 */
export function orm2r(side: Side, trans: Op, a: Float64Array, lda: number, tau: Float64Array, k: number, c: Float64Array, m: number, n: number): void {
  const forward = (side === 'left') === (trans === 'T');
  for (let s = 0; s < k; s++) {
    const j = forward ? s : k - 1 - s;
    const t = tau[j]!;
    if (t === 0) continue;
    if (side === 'left') {
      for (let col = 0; col < n; col++) applyReflector(a, lda, j, t, c, col * m);
      continue;
    }
    // Right: for each row q, w = C(q, j:n) v, then C(q, j:n) -= tau w v^T; the rows in step, column by column.
    const v = j * lda;
    const w = rwork.get(m);
    for (let q = 0; q < m; q++) w[q] = c[q + j * m]!;
    for (let p = j + 1; p < n; p++) {
      const vp = a[v + p]!;
      for (let q = 0; q < m; q++) w[q] += c[q + p * m]! * vp;
    }
    for (let q = 0; q < m; q++) { w[q] *= t; c[q + j * m] -= w[q]!; }
    for (let p = j + 1; p < n; p++) {
      const vp = a[v + p]!;
      for (let q = 0; q < m; q++) c[q + p * m] -= w[q]! * vp;
    }
  }
}

/** y := H(j) y for the column at y[o:o + m], H(j) = I - tau v v^T, v = (0, ..., 0, 1, a(j+1:m, j)); a(j, j) is not read. */
function applyReflector(a: Float64Array, m: number, j: number, tau: number, y: Float64Array, o: number): void {
  if (tau === 0) return;
  const v = j * m;
  let w = y[o + j]!;
  for (let p = j + 1; p < m; p++) w += a[v + p]! * y[o + p]!;
  w *= tau;
  y[o + j] -= w;
  for (let p = j + 1; p < m; p++) y[o + p] -= w * a[v + p]!;
}

/** ||x[o:o + len]||, scaled against overflow and underflow. */
function norm2(x: Float64Array, o: number, len: number): number {
  let mx = 0;
  for (let p = o; p < o + len; p++) mx = Math.max(mx, Math.abs(x[p]!));
  if (mx === 0 || !Number.isFinite(mx)) return mx === 0 ? 0 : Number.isNaN(mx) ? NaN : mx;
  let s = 0;
  for (let p = o; p < o + len; p++) { const t = x[p]! / mx; s += t * t; }
  return mx * Math.sqrt(s);
}

function load(v: MatrixView<FloatArray>, ws: Workspace): Float64Array {
  const out = ws.get(v.rows * v.cols);
  for (let j = 0; j < v.cols; j++) for (let p = 0; p < v.rows; p++) out[p + j * v.rows] = v.data[v.offset + p + j * v.ld]!;
  return out;
}

function store(src: Float64Array, v: MatrixView<FloatArray>): void {
  for (let j = 0; j < v.cols; j++) for (let p = 0; p < v.rows; p++) v.data[v.offset + p + j * v.ld] = src[p + j * v.rows]!;
}

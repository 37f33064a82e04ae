/**
 * Householder QR on complex batches, the reference: LAPACK's unblocked zgeqr2, zung2r and zunm2r
 * (geqrf, orgqr as ungqr, ormqr as unmqr).
 *
 * - geqrf: A (m x n) = Q R, Q = H(0) H(1) ... H(k-1), k = min(m, n), H(j) = I - tau_j v_j v_j^H
 *   (not Hermitian: tau_j is complex), v_j(j) = 1 implied and v_j(j+1:m) below the diagonal of
 *   column j, R over the upper triangle with a real diagonal. The reflector is zlarfg's: beta =
 *   -sign(Re alpha) ||(alpha, x)||, tau = ((beta - Re alpha) / beta, -Im alpha / beta), and tau = 0
 *   (H = I) where x is zero and alpha real. H(j)^H is applied to the trailing columns, as zgeqr2.
 * - orgqr (zung2r): the first n columns of Q over A (m >= n >= k).
 * - ormqr (zunm2r): C := op(Q) C or C op(Q), op 'N' or 'C' (Q^H), one reflector at a time in
 *   LAPACK's order, with tau_j for Q and conj(tau_j) for Q^H.
 *
 * complex64 data is computed in float64 and rounded once.
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { Side } from '../../core/enums.js';
import type { GeqrfRequest, OrgqrRequest } from '../../core/op-specs.js';
import type { ComplexOrmqrRequest } from '../../core/op-specs.js';
import { WHOLE, Workspace, zload, zstore } from './workspace.js';
import { LARFG_SAFMIN, larfgScaleUp } from '../lapack/qr.js';

const work = new Workspace();
const twork = new Workspace();
const cwork = new Workspace();
const rwork = new Workspace();

export function cpuGeqrfComplex(r: GeqrfRequest<FloatArray, Int32Array>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const { rows: m, cols: n } = am;
    const k = Math.min(m, n);
    const a = work.get(2 * m * n);
    zload(am, WHOLE, a);
    const tau = twork.get(2 * k);
    zgeqr2(a, tau, m, n);
    zstore(a, WHOLE, am);
    const t = matrixAt(r.tau, i);
    for (let j = 0; j < 2 * k; j++) t.data[2 * t.offset + j] = tau[j]!;
    r.info[i] = 0;
  }
}

export function cpuOrgqrComplex(r: OrgqrRequest<FloatArray>): void {
  for (let i = 0; i < batchCount(r.a); i++) {
    const am = matrixAt(r.a, i);
    const t = matrixAt(r.tau, i);
    const k = t.rows;
    const a = work.get(2 * am.rows * am.cols);
    zload(am, WHOLE, a);
    const tau = twork.get(2 * k);
    for (let j = 0; j < 2 * k; j++) tau[j] = t.data[2 * t.offset + j]!;
    zung2r(a, tau, am.rows, am.cols, k);
    zstore(a, WHOLE, am);
  }
}

export function cpuOrmqrComplex(r: ComplexOrmqrRequest<FloatArray>): void {
  for (let i = 0; i < batchCount(r.c); i++) {
    const am = matrixAt(r.a, i);
    const t = matrixAt(r.tau, i);
    const k = t.rows;
    const rows = am.rows;
    // Only the k reflector columns below the diagonal are read (A may hold geqrf's whole output).
    const a = work.get(2 * rows * k);
    for (let j = 0; j < k; j++) for (let p = 2 * (j + 1); p < 2 * rows; p++) a[2 * j * rows + p] = am.data[2 * (am.offset + j * am.ld) + p]!;
    const tau = twork.get(2 * k);
    for (let j = 0; j < 2 * k; j++) tau[j] = t.data[2 * t.offset + j]!;
    const cm = matrixAt(r.c, i);
    const c = cwork.get(2 * cm.rows * cm.cols);
    zload(cm, WHOLE, c);
    zunm2r(r.side, r.trans, a, rows, tau, k, c, cm.rows, cm.cols);
    zstore(c, WHOLE, cm);
  }
}

/** zgeqr2 on a (m x n, ld = m, interleaved): reflectors below the diagonal, R on and above it, tau[0:2 min(m, n)]. */
export function zgeqr2(a: Float64Array, tau: Float64Array, m: number, n: number): void {
  const k = Math.min(m, n);
  for (let j = 0; j < k; j++) {
    const d = 2 * (j + j * m), end = 2 * (j + 1) * m;
    let ar = a[d]!;
    let ai = a[d + 1]!;
    let xnorm = norm2(a, d + 2, m - j - 1);
    if (xnorm === 0 && ai === 0) {
      tau[2 * j] = 0;
      tau[2 * j + 1] = 0;
      continue;
    }
    let beta = -Math.sign(ar || 1) * Math.hypot(ar, ai, xnorm);
    // zlarfg: a beta below the safe minimum scales the column up first (1 / (alpha - beta) would overflow).
    const knt = Math.abs(beta) < LARFG_SAFMIN ? larfgScaleUp(a, d, end, beta) : 0;
    if (knt > 0) {
      ar = a[d]!;
      ai = a[d + 1]!;
      xnorm = norm2(a, d + 2, m - j - 1);
      beta = -Math.sign(ar || 1) * Math.hypot(ar, ai, xnorm);
    }
    const tr = (beta - ar) / beta;
    const ti = -ai / beta;
    tau[2 * j] = tr;
    tau[2 * j + 1] = ti;
    // x := x / (alpha - beta) (|alpha - beta| may be near float64's limits: `reciprocal`).
    const [sr, si] = reciprocal(ar - beta, ai);
    for (let p = d + 2; p < end; p += 2) {
      const xr = a[p]!;
      const xi = a[p + 1]!;
      a[p] = xr * sr - xi * si;
      a[p + 1] = xr * si + xi * sr;
    }
    for (let s = 0; s < knt; s++) beta *= LARFG_SAFMIN;
    // H(j)^H = I - conj(tau) v v^H on the trailing columns.
    for (let c = j + 1; c < n; c++) applyReflector(a, m, j, tr, -ti, a, 2 * c * m);
    a[d] = beta;
    a[d + 1] = 0;
  }
}

/** zung2r: the m x n Q from the k reflectors of a (ld = m) and tau, over a. */
export function zung2r(a: Float64Array, tau: Float64Array, m: number, n: number, k: number): void {
  for (let j = k; j < n; j++) {
    a.fill(0, 2 * j * m, 2 * (j + 1) * m);
    a[2 * (j + j * m)] = 1;
  }
  for (let j = k - 1; j >= 0; j--) {
    const d = 2 * (j + j * m);
    const tr = tau[2 * j]!;
    const ti = tau[2 * j + 1]!;
    for (let c = j + 1; c < n; c++) applyReflector(a, m, j, tr, ti, a, 2 * c * m);
    // v(j+1:m) := -tau v(j+1:m); the diagonal 1 - tau; zeros above.
    for (let p = d + 2; p < 2 * (j + 1) * m; p += 2) {
      const xr = a[p]!;
      const xi = a[p + 1]!;
      a[p] = -(tr * xr - ti * xi);
      a[p + 1] = -(tr * xi + ti * xr);
    }
    a[d] = 1 - tr;
    a[d + 1] = -ti;
    a.fill(0, 2 * j * m, d);
  }
}

/**
 * zunm2r on c (m x n, ld = m): C := op(Q) C (side 'left') or C op(Q) ('right'), op 'N' (Q) or
 * 'C' (Q^H), Q = H(0) ... H(k-1) from the k reflectors of a (ld = lda) and tau. Q C and C Q^H
 * take the reflectors from k-1 down, Q^H C and C Q from 0 up; Q^H uses conj(tau_j).
 */
export function zunm2r(side: Side, trans: 'N' | 'C', a: Float64Array, lda: number, tau: Float64Array, k: number, c: Float64Array, m: number, n: number): void {
  const forward = (side === 'left') === (trans === 'C');
  for (let s = 0; s < k; s++) {
    const j = forward ? s : k - 1 - s;
    const tr = tau[2 * j]!;
    const ti = trans === 'C' ? -tau[2 * j + 1]! : tau[2 * j + 1]!;
    if (tr === 0 && ti === 0) continue;
    if (side === 'left') {
      for (let col = 0; col < n; col++) applyReflector(a, lda, j, tr, ti, c, 2 * col * m);
      continue;
    }
    // Right: C := C - t (C v) v^H; w = C(:, j:n) v (v(j) = 1), then C(q, p) -= t w(q) conj(v(p)).
    const v = 2 * j * lda;
    const w = rwork.get(2 * m);
    for (let q = 0; q < 2 * m; q++) w[q] = c[2 * j * m + q]!;
    for (let p = j + 1; p < n; p++) {
      const vr = a[v + 2 * p]!;
      const vi = a[v + 2 * p + 1]!;
      for (let q = 0; q < 2 * m; q += 2) {
        const xr = c[2 * p * m + q]!;
        const xi = c[2 * p * m + q + 1]!;
        w[q] += xr * vr - xi * vi;
        w[q + 1] += xr * vi + xi * vr;
      }
    }
    for (let q = 0; q < 2 * m; q += 2) {
      const wr = w[q]!;
      const wi = w[q + 1]!;
      w[q] = tr * wr - ti * wi;
      w[q + 1] = tr * wi + ti * wr;
      c[2 * j * m + q] -= w[q]!;
      c[2 * j * m + q + 1] -= w[q + 1]!;
    }
    for (let p = j + 1; p < n; p++) {
      const vr = a[v + 2 * p]!;
      const vi = -a[v + 2 * p + 1]!;
      for (let q = 0; q < 2 * m; q += 2) {
        c[2 * p * m + q] -= w[q]! * vr - w[q + 1]! * vi;
        c[2 * p * m + q + 1] -= w[q]! * vi + w[q + 1]! * vr;
      }
    }
  }
}

/**
 * y := (I - t v v^H) y for the column at float y[o:o + 2 m], v = (0, ..., 0, 1, a(j+1:m, j));
 * a(j, j) is not read.
 */
function applyReflector(a: Float64Array, m: number, j: number, tr: number, ti: number, y: Float64Array, o: number): void {
  if (tr === 0 && ti === 0) return;
  const v = 2 * j * m;
  // w = v^H y
  let wr = y[o + 2 * j]!;
  let wi = y[o + 2 * j + 1]!;
  for (let p = 2 * (j + 1); p < 2 * m; p += 2) {
    const vr = a[v + p]!;
    const vi = a[v + p + 1]!;
    const yr = y[o + p]!;
    const yi = y[o + p + 1]!;
    wr += vr * yr + vi * yi;
    wi += vr * yi - vi * yr;
  }
  // w := t w; y -= w v
  const sr = tr * wr - ti * wi;
  const si = tr * wi + ti * wr;
  y[o + 2 * j] -= sr;
  y[o + 2 * j + 1] -= si;
  for (let p = 2 * (j + 1); p < 2 * m; p += 2) {
    const vr = a[v + p]!;
    const vi = a[v + p + 1]!;
    y[o + p] -= sr * vr - si * vi;
    y[o + p + 1] -= sr * vi + si * vr;
  }
}

/** ||x|| over `len` complex elements from float o, scaled against overflow and underflow; NaN propagates. */
/**
 * 1 / (re + i im): (re, -im) / (re^2 + im^2) where that sum is well inside float64's range (the
 * rounding of the WebAssembly kernel, cpu-fast's zgeqrf-interleaved.ts), Smith's division, which
 * never forms it, outside.
 */
function reciprocal(re: number, im: number): [number, number] {
  const squares = re * re + im * im;
  if (squares > 2 ** -1000 && squares < 2 ** 1000) return [re / squares, -im / squares];
  if (Math.abs(re) >= Math.abs(im)) {
    const r = im / re, den = re + im * r;
    return [1 / den, -r / den];
  }
  const r = re / im, den = im + re * r;
  return [r / den, -1 / den];
}

function norm2(x: Float64Array, o: number, len: number): number {
  let mx = 0;
  for (let p = o; p < o + 2 * len; p++) {
    const e = Math.abs(x[p]!);
    if (Number.isNaN(e)) return NaN;
    mx = Math.max(mx, e);
  }
  if (mx === 0 || !Number.isFinite(mx)) return mx;
  let s = 0;
  for (let p = o; p < o + 2 * len; p++) { const t = x[p]! / mx; s += t * t; }
  return mx * Math.sqrt(s);
}

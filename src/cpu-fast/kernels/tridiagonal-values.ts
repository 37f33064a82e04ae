/**
 * Eigenvalues only of a real symmetric tridiagonal matrix: the root-free implicit QL iteration of
 * Pal, Walker and Kahan (the QL branch of LAPACK's dsterf), float64: d[0..n) the diagonal,
 * e[0..n-1) the subdiagonal (overwritten by its squares; e[n-1] is scratch). The eigenvalues are
 * left unsorted in d (tridiagonal-ql.ts's sortAscending orders them).
 *
 * Why a second QL: tridiagonal-ql.ts's step (tql2's, whose rotations the eigenvectors need) is a
 * square root and a division deep; this one carries (p, gamma) over e^2 with no square root in the
 * chain, and a sweep applies its shift without moving the rest of d. Deflation is tql2's normwise
 * test, squared: e_m^2 <= (eps max_{k <= l}(|d_k| + |e_k|))^2; a 2 x 2 block is solved directly
 * (LAPACK's dlae2); 30 iterations an eigenvalue. As tridiagonal-ql.ts, two matrices run in lockstep
 * (their common steps interleaved), each with exactly its own arithmetic.
 */

import { EPS, inLockstep, QL_MAX_ITERATIONS as MAX_ITERATIONS, type LockstepIteration } from './tridiagonal-ql.js';

/** One matrix's iteration as a resumable state: where it stands and, within a sweep, its registers. */
export interface ValuesState {
  d: Float64Array; e: Float64Array; n: number;
  l: number; m: number; tst1: number; thr: number; iter: number; newL: boolean; failed: boolean;
  sigma: number; c: number; s: number; gamma: number; p: number; i: number;
}

export const valuesState = (): ValuesState => ({
  d: new Float64Array(0), e: new Float64Array(0), n: 0, l: 0, m: 0, tst1: 0, thr: 0, iter: 0, newL: true, failed: false,
  sigma: 0, c: 1, s: 0, gamma: 0, p: 0, i: 0,
});

/** Sets st up for (d, e) of order n (e squared here). */
export function startValues(st: ValuesState, d: Float64Array, e: Float64Array, n: number): void {
  st.d = d; st.e = e; st.n = n; st.l = 0; st.tst1 = 0; st.newL = true; st.failed = false;
  for (let i = 0; i < n - 1; i++) e[i] = e[i]! * e[i]!;
  if (n > 0) e[n - 1] = 0;
}

/** Advances st to its next sweep (deflated eigenvalues and 2 x 2 blocks finished on the way). False where none is left or st.failed. */
function nextSweep(st: ValuesState): boolean {
  const { d, e, n } = st;
  for (;;) {
    const l = st.l;
    if (st.newL) {
      if (l >= n) return false;
      const dl = Math.abs(d[l]!) + Math.sqrt(e[l]!);
      if (dl > st.tst1) st.tst1 = dl;
      st.thr = EPS * st.tst1 * (EPS * st.tst1);
      st.iter = 0;
      st.newL = false;
    }
    let m = l;
    while (m < n - 1 && e[m]! > st.thr) m++;
    if (m === l || m === l + 1) {
      if (m === l + 1) {
        eigen2(d, l, Math.sqrt(e[l]!));
        e[l] = 0;
      }
      st.l = l + 1;
      st.newL = true;
      continue;
    }
    if (st.iter === MAX_ITERATIONS) {
      st.failed = true;
      return false;
    }
    st.iter++;
    // the shift: the eigenvalue of the leading 2 x 2 block nearer d[l], d[l] - b^2 / (h + sign(h)
    // sqrt(h^2 + b^2)) with h = (d[l + 1] - d[l]) / 2 and b^2 = e[l] (one square root and one
    // division, where the form over sqrt(e[l]) takes two and two: it starts each sweep's chain)
    const h = 0.5 * (d[l + 1]! - d[l]!);
    const r = Math.sqrt(h * h + e[l]!);
    const sigma = d[l]! - e[l]! / (h + (h >= 0 ? r : -r));
    st.sigma = sigma;
    st.c = 1;
    st.s = 0;
    st.gamma = d[m]! - sigma;
    st.p = st.gamma * st.gamma;
    st.m = m;
    st.i = m - 1;
    return true;
  }
}

function finishSweep(st: ValuesState): void {
  st.e[st.l] = st.s * st.p;
  st.d[st.l] = st.sigma + st.gamma;
}

const left = (st: ValuesState): number => st.i - st.l + 1;

/** `count` steps of st's sweep from st.i down. */
function steps(st: ValuesState, count: number): void {
  const { d, e, sigma, m } = st;
  let { c, s, gamma, p, i } = st;
  for (let k = 0; k < count; k++, i--) {
    const bb = e[i]!;
    const rr = p + bb;
    if (i !== m - 1) e[i + 1] = s * rr;
    const oldc = c;
    c = p / rr;
    s = bb / rr;
    const oldgam = gamma;
    const alpha = d[i]!;
    gamma = c * (alpha - sigma) - s * oldgam;
    d[i + 1] = oldgam + (alpha - gamma);
    p = c !== 0 ? (gamma * gamma) / c : oldc * bb;
  }
  st.c = c; st.s = s; st.gamma = gamma; st.p = p; st.i = i;
}

/** `count` steps of both sweeps, interleaved (two independent division chains). */
function stepsPair(x: ValuesState, y: ValuesState, count: number): void {
  const dx = x.d, ex = x.e, sigx = x.sigma, mx = x.m, dy = y.d, ey = y.e, sigy = y.sigma, my = y.m;
  let cx = x.c, sx = x.s, gx = x.gamma, px = x.p, ix = x.i;
  let cy = y.c, sy = y.s, gy = y.gamma, py = y.p, iy = y.i;
  for (let k = 0; k < count; k++, ix--, iy--) {
    const bbx = ex[ix]!, bby = ey[iy]!;
    const rx = px + bbx, ry = py + bby;
    if (ix !== mx - 1) ex[ix + 1] = sx * rx;
    if (iy !== my - 1) ey[iy + 1] = sy * ry;
    const oldcx = cx, oldcy = cy;
    cx = px / rx; cy = py / ry;
    sx = bbx / rx; sy = bby / ry;
    const ogx = gx, ogy = gy;
    const ax = dx[ix]!, ay = dy[iy]!;
    gx = cx * (ax - sigx) - sx * ogx;
    gy = cy * (ay - sigy) - sy * ogy;
    dx[ix + 1] = ogx + (ax - gx);
    dy[iy + 1] = ogy + (ay - gy);
    px = cx !== 0 ? (gx * gx) / cx : oldcx * bbx;
    py = cy !== 0 ? (gy * gy) / cy : oldcy * bby;
  }
  x.c = cx; x.s = sx; x.gamma = gx; x.p = px; x.i = ix;
  y.c = cy; y.s = sy; y.gamma = gy; y.p = py; y.i = iy;
}

/** Runs st's iteration to its end. Returns false where it did not converge. */
export function tridiagonalValues(st: ValuesState): boolean {
  while (nextSweep(st)) {
    steps(st, left(st));
    finishSweep(st);
  }
  return !st.failed;
}

const VALUES: LockstepIteration<ValuesState> = { nextSweep, left, steps, stepsPair, finishSweep, alone: (st) => { tridiagonalValues(st); } };

/** The root-free QL on two matrices in lockstep (tridiagonal-ql.ts's inLockstep). */
export function tridiagonalValuesPair(x: ValuesState, y: ValuesState): void {
  inLockstep(VALUES, x, y);
}

/** The eigenvalues of [[d[l], b], [b, d[l + 1]]] into d[l], d[l + 1] (LAPACK's dlae2). */
function eigen2(d: Float64Array, l: number, b: number): void {
  const a = d[l]!, c = d[l + 1]!;
  const sm = a + c, adf = Math.abs(a - c), ab = Math.abs(b + b);
  const big = Math.abs(a) > Math.abs(c) ? a : c, small = Math.abs(a) > Math.abs(c) ? c : a;
  const rt = adf > ab ? adf * Math.sqrt(1 + (ab / adf) ** 2) : adf < ab ? ab * Math.sqrt(1 + (adf / ab) ** 2) : ab * Math.SQRT2;
  if (sm === 0) {
    d[l] = 0.5 * rt;
    d[l + 1] = -0.5 * rt;
    return;
  }
  const rt1 = sm < 0 ? 0.5 * (sm - rt) : 0.5 * (sm + rt);
  d[l] = rt1;
  d[l + 1] = (big / rt1) * small - (b / rt1) * b;
}

/**
 * Eigenvalues (and, where a Z is given, eigenvectors) of a real symmetric tridiagonal matrix by the
 * implicit QL algorithm with Wilkinson shifts (EISPACK's tql1 / tql2 as JAMA writes them), float64,
 * one matrix: d[0..n) the diagonal, e[0..n-1) the subdiagonal (e[i] = T(i+1, i); e[n-1] is used
 * as scratch and left 0).
 *
 * A subdiagonal element is negligible where |e[m]| <= eps * max_{k <= l}(|d[k]| + |e[k]|) (tql2's
 * normwise test: the backward error stays of order eps ||T||). Reused by any tridiagonal
 * eigenproblem of the fast backend (ops/zheev.ts's heev with vectors is its first user).
 */

/** The unit roundoff of float64 the deflation tests scale (tql2's machep). */
export const EPS = 2 ** -52;
/** Iterations allowed per eigenvalue before the matrix counts as not converged (EISPACK's 30). */
export const QL_MAX_ITERATIONS = 30;

/** sqrt(a^2 + b^2): the plain form where its square neither over- nor underflows, Math.hypot elsewhere. */
export function hypot(a: number, b: number): number {
  const s = a * a + b * b;
  return s > 1e-290 && s < 1e290 ? Math.sqrt(s) : Math.hypot(a, b);
}

/**
 * One matrix's QL iteration as a resumable state (so that two matrices can run in lockstep,
 * tridiagonalQlPair): where it stands (l, m, the accumulated shift f, tst1, the iterations at this
 * l) and, within a sweep, the recurrence's registers (p, c, c2, c3, s, s2) and the next rotation i.
 */
export interface QlState {
  d: Float64Array; e: Float64Array; n: number; cs: Float64Array; rotate: ((l: number, m: number) => void) | null;
  l: number; m: number; f: number; tst1: number; iter: number; newL: boolean; failed: boolean;
  p: number; c: number; c2: number; c3: number; s: number; s2: number; el1: number; dl1: number; i: number;
}

/** A state for one matrix (reused: `start` sets it up for a problem). */
export const qlState = (): QlState => ({
  d: new Float64Array(0), e: new Float64Array(0), n: 0, cs: new Float64Array(0), rotate: null,
  l: 0, m: 0, f: 0, tst1: 0, iter: 0, newL: true, failed: false, p: 0, c: 1, c2: 1, c3: 1, s: 0, s2: 0, el1: 0, dl1: 0, i: 0,
});

/**
 * Sets st up for the implicit QL iteration on (d, e) of order n, the eigenvalues to be left
 * unsorted in d (sortAscending orders them). With vectors, each sweep's rotations i = m - 1 down to
 * l are written to cs ((c_i, s_i) at cs[2 i], cs[2 i + 1]; 2n floats) and handed to `rotate(l, m)`,
 * which applies them to the columns i and i + 1 of Z in that order (LAPACK's dlasr:
 * kernels/zheev-wasm.ts's rotate), so that Z_out = Z_in * (the accumulated orthogonal transformation).
 */
export function start(st: QlState, d: Float64Array, e: Float64Array, n: number, cs: Float64Array, rotate: ((l: number, m: number) => void) | null): void {
  st.d = d; st.e = e; st.n = n; st.cs = cs; st.rotate = rotate;
  st.l = 0; st.f = 0; st.tst1 = 0; st.newL = true; st.failed = false;
  if (n > 0) e[n - 1] = 0;
}

/**
 * Advances st to its next sweep: converged eigenvalues are finished on the way; the sweep's shift
 * is applied and its registers set. False where there is none left (or an eigenvalue took more
 * than QL_MAX_ITERATIONS iterations: st.failed).
 */
function nextSweep(st: QlState): boolean {
  const { d, e, n } = st;
  for (;;) {
    if (st.newL) {
      const l = st.l;
      if (l >= n) return false;
      const dl = Math.abs(d[l]!) + Math.abs(e[l]!);
      if (dl > st.tst1) st.tst1 = dl;
      let m = l;
      while (m < n - 1 && Math.abs(e[m]!) > EPS * st.tst1) m++;
      if (m === l) {
        d[l] = d[l]! + st.f;
        e[l] = 0;
        st.l = l + 1;
        continue;
      }
      st.m = m;
      st.iter = 0;
      st.newL = false;
    }
    if (++st.iter > QL_MAX_ITERATIONS) {
      st.failed = true;
      return false;
    }
    const l = st.l, m = st.m;
    // the shift: the eigenvalue of the leading 2 x 2 block nearer d[l]
    const g = d[l]!;
    const el = e[l]!;
    const p = (d[l + 1]! - g) / (2 * el);
    let r = hypot(p, 1);
    if (p < 0) r = -r;
    d[l] = el / (p + r);
    d[l + 1] = el * (p + r);
    st.dl1 = d[l + 1]!;
    const h = g - d[l]!;
    for (let i = l + 2; i < n; i++) d[i] = d[i]! - h;
    st.f += h;
    st.p = d[m]!;
    st.c = 1; st.c2 = 1; st.c3 = 1; st.s = 0; st.s2 = 0;
    st.el1 = e[l + 1]!;
    st.i = m - 1;
    return true;
  }
}

/** The sweep's end: the last updates, its rotations handed on, and l finished where e[l] is negligible. */
function finishSweep(st: QlState): void {
  const { d, e, l } = st;
  const p = (-st.s * st.s2 * st.c3 * st.el1 * e[l]!) / st.dl1;
  e[l] = st.s * p;
  d[l] = st.c * p;
  if (st.rotate !== null) st.rotate(l, st.m);
  if (!(Math.abs(e[l]!) > EPS * st.tst1)) {
    d[l] = d[l]! + st.f;
    e[l] = 0;
    st.l = l + 1;
    st.newL = true;
  }
}

/** `count` steps of st's sweep from rotation st.i down. */
function steps(st: QlState, count: number): void {
  const { d, e, cs } = st;
  let { p, c, c2, c3, s, s2, i } = st;
  for (let k = 0; k < count; k++, i--) {
    c3 = c2;
    c2 = c;
    s2 = s;
    const ei = e[i]!;
    const g = c * ei;
    const h = c * p;
    const r = hypot(p, ei);
    e[i + 1] = s * r;
    const inv = 1 / r;
    s = ei * inv;
    c = p * inv;
    const di = d[i]!;
    p = c * di - s * g;
    d[i + 1] = h + s * (c * g + s * di);
    cs[2 * i] = c;
    cs[2 * i + 1] = s;
  }
  st.p = p; st.c = c; st.c2 = c2; st.c3 = c3; st.s = s; st.s2 = s2; st.i = i;
}

/**
 * `count` steps of both sweeps, interleaved: each step's recurrence is a square root and a division
 * deep (latency-bound, some 50 cycles), and two independent ones run in about the time of one.
 */
function stepsPair(x: QlState, y: QlState, count: number): void {
  const dx = x.d, ex = x.e, csx = x.cs, dy = y.d, ey = y.e, csy = y.cs;
  let px = x.p, cx = x.c, c2x = x.c2, c3x = x.c3, sx = x.s, s2x = x.s2, ix = x.i;
  let py = y.p, cy = y.c, c2y = y.c2, c3y = y.c3, sy = y.s, s2y = y.s2, iy = y.i;
  for (let k = 0; k < count; k++, ix--, iy--) {
    c3x = c2x; c2x = cx; s2x = sx;
    c3y = c2y; c2y = cy; s2y = sy;
    const eix = ex[ix]!, eiy = ey[iy]!;
    const gx = cx * eix, gy = cy * eiy;
    const hx = cx * px, hy = cy * py;
    const rx = hypot(px, eix), ry = hypot(py, eiy);
    ex[ix + 1] = sx * rx;
    ey[iy + 1] = sy * ry;
    const invx = 1 / rx, invy = 1 / ry;
    sx = eix * invx; cx = px * invx;
    sy = eiy * invy; cy = py * invy;
    const dix = dx[ix]!, diy = dy[iy]!;
    px = cx * dix - sx * gx;
    py = cy * diy - sy * gy;
    dx[ix + 1] = hx + sx * (cx * gx + sx * dix);
    dy[iy + 1] = hy + sy * (cy * gy + sy * diy);
    csx[2 * ix] = cx; csx[2 * ix + 1] = sx;
    csy[2 * iy] = cy; csy[2 * iy + 1] = sy;
  }
  x.p = px; x.c = cx; x.c2 = c2x; x.c3 = c3x; x.s = sx; x.s2 = s2x; x.i = ix;
  y.p = py; y.c = cy; y.c2 = c2y; y.c3 = c3y; y.s = sy; y.s2 = s2y; y.i = iy;
}

/** Runs st's iteration to its end. Returns false where it did not converge. */
export function tridiagonalQl(st: QlState): boolean {
  while (nextSweep(st)) {
    steps(st, st.i - st.l + 1);
    finishSweep(st);
  }
  return !st.failed;
}

/** What the lockstep driver needs of a resumable tridiagonal iteration (this file's and tridiagonal-values.ts's). */
export interface LockstepIteration<S> {
  /** Deflates and starts the next sweep; false when the matrix is done (or failed). */
  nextSweep(st: S): boolean;
  /** The sweep's steps left. */
  left(st: S): number;
  steps(st: S, count: number): void;
  /** `count` steps of two matrices' sweeps, their recurrences interleaved. */
  stepsPair(x: S, y: S, count: number): void;
  finishSweep(st: S): void;
  /** The rest of one matrix's iteration alone. */
  alone(st: S): void;
}

/**
 * Runs two matrices' iterations to their ends in lockstep: their sweeps' common lengths
 * interleaved (stepsPair), the rest of the longer one alone. Each matrix's arithmetic is exactly
 * its own iteration's.
 */
export function inLockstep<S>(it: LockstepIteration<S>, x: S, y: S): void {
  let bx = it.nextSweep(x), by = it.nextSweep(y);
  while (bx && by) {
    const lx = it.left(x), ly = it.left(y);
    const k = Math.min(lx, ly);
    it.stepsPair(x, y, k);
    if (lx > k) it.steps(x, lx - k);
    if (ly > k) it.steps(y, ly - k);
    it.finishSweep(x);
    it.finishSweep(y);
    bx = it.nextSweep(x);
    by = it.nextSweep(y);
  }
  if (bx) { it.steps(x, it.left(x)); it.finishSweep(x); it.alone(x); }
  if (by) { it.steps(y, it.left(y)); it.finishSweep(y); it.alone(y); }
}

const QL: LockstepIteration<QlState> = {
  nextSweep, left: (st) => st.i - st.l + 1, steps, stepsPair, finishSweep, alone: (st) => { tridiagonalQl(st); },
};

/** tql2 on two matrices in lockstep (inLockstep). Sets x.failed, y.failed. */
export function tridiagonalQlPair(x: QlState, y: QlState): void {
  inLockstep(QL, x, y);
}

/**
 * d ascending by selection sort (strict <: ties keep their order of index, as src/cpu/lapack/
 * jacobi.ts's sortWithColumns), `order` (where given) the permutation: order[j] is the index
 * before sorting of the value now at j (the column of Z that belongs to d[j]); without `order`,
 * by insertion sort (the same values out).
 */
export function sortAscending(d: Float64Array, n: number, order: Int32Array | null): void {
  if (order === null) {
    // the values alone: insertion sort (the same values in the same order; its comparisons follow
    // the data's runs, where the selection's minimum search is mispredicted: 250-500 against
    // 150-260 ns at 16)
    for (let j = 1; j < n; j++) {
      const v = d[j]!;
      let k = j - 1;
      for (; k >= 0 && d[k]! > v; k--) d[k + 1] = d[k]!;
      d[k + 1] = v;
    }
    return;
  }
  for (let j = 0; j < n; j++) order[j] = j;
  for (let j = 0; j < n - 1; j++) {
    let best = j;
    for (let k = j + 1; k < n; k++) if (d[k]! < d[best]!) best = k;
    if (best === j) continue;
    const t = d[j]!;
    d[j] = d[best]!;
    d[best] = t;
    if (order !== null) {
      const o = order[j]!;
      order[j] = order[best]!;
      order[best] = o;
    }
  }
}

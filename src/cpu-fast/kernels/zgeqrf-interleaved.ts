/**
 * Generated WebAssembly SIMD complex Householder QR for one shape m x n, two matrices at a time
 * (wasm/pair.ts: one f64x2 the real parts of the same element of both, another their imaginary
 * parts): geqrf (LAPACK's zgeqr2) and orgqr (zung2r). The matrices lie as float64 pairs (ld = m,
 * back to back), tau after them (k complex numbers a matrix), one int32 ok a pair.
 *
 * geqrf's step j is zgeqr2's (src/cpu/complex/zqr.ts): alpha = A(j, j), x = A(j+1:m, j),
 * beta = -sign(Re alpha) ||(alpha, x)||, tau = ((beta - Re alpha) / beta, -Im alpha / beta),
 * x := x / (alpha - beta), H(j)^H = I - conj(tau) v v^H applied to the trailing columns (w = v^H y,
 * then y -= (conj(tau) w) v), A(j, j) := beta; tau = 0 (nothing changed) where x is zero and alpha
 * real, chosen per lane. One difference from the reference, within rounding: ||(alpha, x)|| is the
 * square root of the plain sum of squares, not the reference's scaled one, so a pair whose sum of
 * squares in a reflector leaves [PAIR_SSQ_MIN, PAIR_SSQ_MAX] (where the plain sum over- or
 * underflows, or is not finite: a NaN or infinity in the column) hands the pair back: ok 0 and A
 * untouched (the work is in a scratch); the driver runs the reference on both matrices.
 *
 * orgqr's: columns k .. n-1 of the identity, then for j from k-1 down, H(j) = I - tau v v^H on the
 * columns after j, v := -tau v, Q(j, j) = 1 - tau, zeros above. A pair holding a value that is not
 * finite (in A or tau) goes back, so that a tau = 0 reflection (u = 0) leaves y as the
 * reference's skip does.
 *
 * Steps are unrolled (offsets constant); the rows of each step's loops are runtime loops (the
 * module stays small enough for the instruction cache), the trailing columns two a trip (two
 * independent dot-product chains, one load of v for both): the dot product w = v^H y, then the
 * update, four multiplies and four adds a complex element for two matrices each.
 */
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { PAIR_E, PAIR_HI, PAIR_LO, PAIR_SLOT, pairBatchFunction, pairEmitters, type LoopPointer } from '../wasm/pair.js';

export interface ZgeqrfInterleavedParams {
  /** geqrf (zgeqr2), or orgqr (zung2r: the first n columns of Q from k reflectors, m >= n >= k). */
  readonly op: 'geqrf' | 'orgqr';
  readonly m: number;
  readonly n: number;
  /** orgqr: the number of reflectors (geqrf: min(m, n), implied). */
  readonly k?: number;
}

/** The reflectors of a problem: orgqr's k, geqrf's min(m, n). */
const reflectorsOf = (p: ZgeqrfInterleavedParams): number => (p.op === 'orgqr' ? p.k ?? 0 : Math.min(p.m, p.n));

/** Bounds of a reflector's sum of squares the kernel takes: far from float64's over- and underflow. */
export const PAIR_SSQ_MIN = 1e-280;
export const PAIR_SSQ_MAX = 1e280;

/** Bytes of the kernel's scratch: one split pair. */
export const zgeqrfInterleavedScratch = (p: Pick<ZgeqrfInterleavedParams, 'm' | 'n'>): number => p.m * p.n * PAIR_SLOT;

/**
 * Exported `zgeqrf2(a, tau, ok, pairs, scratch)`: byte addresses of the first A, tau and int32 ok,
 * the number of pairs (matrices 2t and 2t + 1), a scratch of zgeqrfInterleavedScratch(p) bytes
 * (16-byte aligned); and `pair(a0, a1, tau0, tau1, scratch) -> ok` for two matrices anywhere
 * (a0 = a1 and tau0 = tau1 factor one matrix).
 */
export function generateZgeqrfInterleaved(p: ZgeqrfInterleavedParams): Uint8Array<ArrayBuffer> {
  if (p.m < 1 || p.n < 1) throw new Error(`zgeqrf-interleaved: m and n must be positive, got ${p.m} x ${p.n}`);
  const k = reflectorsOf(p);
  if (p.op === 'orgqr' && !(k >= 1 && k <= p.n && p.n <= p.m)) throw new Error(`zgeqrf-interleaved: orgqr needs m >= n >= k >= 1, got ${p.m}, ${p.n}, ${p.k}`);
  return encodeModule([mainFunction(p), pairFunction(p)]);
}
const PAIR = 1;

function mainFunction(p: ZgeqrfInterleavedParams): FunctionDef {
  return pairBatchFunction('zgeqrf2', p.m * p.n * PAIR_E, reflectorsOf(p) * PAIR_E, PAIR);
}

function pairFunction(p: ZgeqrfInterleavedParams): FunctionDef {
  const { m, n } = p;
  const k = reflectorsOf(p);
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A0, A1, T0, T1, SCR] = [0, 1, 2, 3, 4];
  const { get, load, store, from, loop, select, copyPair, allTrue } = pairEmitters(c);
  const v = (): number => c.local('v128');
  const ok = c.local('i32'), cp = c.local('i32'), vp = c.local('i32'), yp = c.local('i32'), rowCount = c.local('i32');
  const ar = v(), ai = v(), nz = v(), x2 = v(), ssq = v(), tau0 = v(), okm = v(), beta = v();
  const tr = v(), ti = v(), cti = v(), sr = v(), si = v(), xr = v(), xi = v(), ur = v(), ui = v(), t = v();
  const w = [{ re: v(), im: v() }, { re: v(), im: v() }];
  /** Byte offset of split element (i, col) in the scratch (column-major, ld = m). */
  const at = (i: number, col: number): number => (i + col * m) * PAIR_SLOT;
  const mul = (a: number, b: number): void => { c.get(a).get(b).simd(SIMD.f64x2Mul); };

  /** A runtime loop over rows j + 1 .. m - 1 of column j (x or v) at pointer vp, and of the column at yp where given. */
  const rows = (j: number, body: () => void, yFrom?: () => void): void => {
    if (j + 1 >= m) return;
    const ptrs: LoopPointer[] = [[vp, from(SCR, at(j + 1, j)), PAIR_SLOT]];
    if (yFrom) ptrs.push([yp, yFrom, PAIR_SLOT]);
    loop(m - 1 - j, ptrs, body, rowCount);
  };
  /**
   * Columns at cp and cp + m PAIR_SLOT (`cols` of them): w = v^H y, u = (tr + i cti) w (0 where
   * tau0 is set), y -= u v: H(j)^H with cti = -Im tau (geqrf), H(j) with cti = Im tau (orgqr).
   */
  const reflect = (j: number, cols: 1 | 2): void => {
    const next = m * PAIR_SLOT;
    for (let q = 0; q < cols; q++) {
      load(cp, q * next + j * PAIR_SLOT); c.set(w[q]!.re);
      load(cp, q * next + j * PAIR_SLOT + 16); c.set(w[q]!.im);
    }
    rows(j, () => {
      load(vp, 0); c.set(xr);
      load(vp, 16); c.set(xi);
      for (let q = 0; q < cols; q++) {
        const { re, im } = w[q]!;
        // wr += vr yr + vi yi; wi += vr yi - vi yr (y's parts in ur, ui)
        load(yp, q * next); c.set(ur);
        load(yp, q * next + 16); c.set(ui);
        c.get(re); mul(xr, ur); mul(xi, ui); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(re);
        c.get(im); mul(xr, ui); mul(xi, ur); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Add).set(im);
      }
    }, from(cp, (j + 1) * PAIR_SLOT));
    for (let q = 0; q < cols; q++) {
      const { re, im } = w[q]!;
      select(() => c.f64x2(0), () => { mul(tr, re); mul(cti, im); c.simd(SIMD.f64x2Sub); }, tau0); c.set(t);
      select(() => c.f64x2(0), () => { mul(tr, im); mul(cti, re); c.simd(SIMD.f64x2Add); }, tau0); c.set(im);
      c.get(t).set(re);
      store(cp, q * next + j * PAIR_SLOT, () => { load(cp, q * next + j * PAIR_SLOT); c.get(re).simd(SIMD.f64x2Sub); });
      store(cp, q * next + j * PAIR_SLOT + 16, () => { load(cp, q * next + j * PAIR_SLOT + 16); c.get(im).simd(SIMD.f64x2Sub); });
    }
    rows(j, () => {
      load(vp, 0); c.set(xr);
      load(vp, 16); c.set(xi);
      for (let q = 0; q < cols; q++) {
        const { re, im } = w[q]!;
        store(yp, q * next, () => { load(yp, q * next); mul(re, xr); mul(im, xi); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub); });
        store(yp, q * next + 16, () => { load(yp, q * next + 16); mul(re, xi); mul(im, xr); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub); });
      }
    }, from(cp, (j + 1) * PAIR_SLOT));
  };

  const step = (j: number): void => {
    load(SCR, at(j, j)); c.set(ar);
    load(SCR, at(j, j) + 16); c.set(ai);
    // x's sum of squares, and whether any of it is non-zero (per lane)
    c.f64x2(0).set(x2);
    c.f64x2(0).set(nz);
    rows(j, () => {
      load(vp, 0); c.set(xr);
      load(vp, 16); c.set(xi);
      c.get(x2); mul(xr, xr); mul(xi, xi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(x2);
      c.get(nz).get(xr).f64x2(0).simd(SIMD.f64x2Ne).simd(SIMD.v128Or).get(xi).f64x2(0).simd(SIMD.f64x2Ne).simd(SIMD.v128Or).set(nz);
    });
    // tau = 0 where x is zero and alpha real
    c.get(ai).f64x2(0).simd(SIMD.f64x2Eq).get(nz).simd(SIMD.v128AndNot).set(tau0);
    mul(ar, ar); mul(ai, ai); c.simd(SIMD.f64x2Add).get(x2).simd(SIMD.f64x2Add).set(ssq);
    // the plain sum of squares within bounds in every lane that reflects, else the pair goes back
    c.get(ssq).f64x2(PAIR_SSQ_MIN).simd(SIMD.f64x2Ge).f64x2(PAIR_SSQ_MAX).get(ssq).simd(SIMD.f64x2Ge).simd(SIMD.v128And);
    c.get(tau0).simd(SIMD.v128Or).set(okm);
    allTrue(okm); c.op(OP.i32Eqz).if_(() => { c.op(OP.br, 1); });
    // beta = -sign(Re alpha) ||(alpha, x)|| (Re alpha = 0 counts as positive)
    c.get(ssq).simd(SIMD.f64x2Sqrt).set(t);
    c.f64x2(0).get(ar).simd(SIMD.f64x2Gt).set(okm);
    select(get(t), () => c.get(t).simd(SIMD.f64x2Neg), okm); c.set(beta);
    // tau = ((beta - ar) / beta, -ai / beta), zero where it does not reflect
    select(() => c.f64x2(0), () => c.get(beta).get(ar).simd(SIMD.f64x2Sub).get(beta).simd(SIMD.f64x2Div), tau0); c.set(tr);
    select(() => c.f64x2(0), () => c.get(ai).simd(SIMD.f64x2Neg).get(beta).simd(SIMD.f64x2Div), tau0); c.set(ti);
    c.get(ti).simd(SIMD.f64x2Neg).set(cti);
    // s = 1 / (alpha - beta) = (dr, -ai) / (dr^2 + ai^2), dr = ar - beta; 1 where it does not reflect
    c.get(ar).get(beta).simd(SIMD.f64x2Sub).set(xr);
    mul(xr, xr); mul(ai, ai); c.simd(SIMD.f64x2Add).set(t);
    select(() => c.f64x2(1), () => c.get(xr).get(t).simd(SIMD.f64x2Div), tau0); c.set(sr);
    select(() => c.f64x2(0), () => c.get(ai).simd(SIMD.f64x2Neg).get(t).simd(SIMD.f64x2Div), tau0); c.set(si);
    // x := x s
    rows(j, () => {
      load(vp, 0); c.set(xr);
      load(vp, 16); c.set(xi);
      store(vp, 0, () => { mul(xr, sr); mul(xi, si); c.simd(SIMD.f64x2Sub); });
      store(vp, 16, () => { mul(xr, si); mul(xi, sr); c.simd(SIMD.f64x2Add); });
    });
    // the trailing columns two a trip, then the odd one
    const trailing = n - 1 - j;
    if (trailing >= 2) loop(trailing >> 1, [[cp, from(SCR, at(0, j + 1)), 2 * m * PAIR_SLOT]], () => reflect(j, 2));
    if (trailing & 1) {
      c.get(SCR).i32(at(0, n - 1)).op(OP.i32Add).set(cp);
      reflect(j, 1);
    }
    // A(j, j) := beta where it reflects; tau to each matrix's own
    store(SCR, at(j, j), () => select(get(ar), get(beta), tau0));
    store(SCR, at(j, j) + 16, () => select(get(ai), () => c.f64x2(0), tau0));
    c.get(T0).get(tr).get(ti).simd(SIMD.i8x16Shuffle, PAIR_LO).simdMem(SIMD.store, 4, j * PAIR_E);
    c.get(T1).get(tr).get(ti).simd(SIMD.i8x16Shuffle, PAIR_HI).simdMem(SIMD.store, 4, j * PAIR_E);
  };

  /** zung2r's step j: H(j) on the columns after it, then v := -tau v, Q(j, j) = 1 - tau, zeros above. */
  const orgqrStep = (j: number): void => {
    c.get(T0).simdMem(SIMD.load, 4, j * PAIR_E).set(xr);
    c.get(T1).simdMem(SIMD.load, 4, j * PAIR_E).set(xi);
    c.get(xr).get(xi).simd(SIMD.i8x16Shuffle, PAIR_LO).set(tr);
    c.get(xr).get(xi).simd(SIMD.i8x16Shuffle, PAIR_HI).set(ti);
    c.get(ti).set(cti);
    // reflect everywhere (tau = 0 gives u = 0: y - 0, the reference's skip within the sign of a zero)
    c.i64x2(0).set(tau0);
    const trailing = n - 1 - j;
    if (trailing >= 2) loop(trailing >> 1, [[cp, from(SCR, at(0, j + 1)), 2 * m * PAIR_SLOT]], () => reflect(j, 2));
    if (trailing & 1) {
      c.get(SCR).i32(at(0, n - 1)).op(OP.i32Add).set(cp);
      reflect(j, 1);
    }
    rows(j, () => {
      load(vp, 0); c.set(xr);
      load(vp, 16); c.set(xi);
      store(vp, 0, () => { mul(tr, xr); mul(ti, xi); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Neg); });
      store(vp, 16, () => { mul(tr, xi); mul(ti, xr); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Neg); });
    });
    store(SCR, at(j, j), () => c.f64x2(1).get(tr).simd(SIMD.f64x2Sub));
    store(SCR, at(j, j) + 16, () => c.get(ti).simd(SIMD.f64x2Neg));
    for (let i = 0; i < j; i++) for (const off of [0, 16]) store(SCR, at(i, j) + off, () => c.f64x2(0));
  };

  c.i32(0).set(ok);
  c.op(OP.block, OP.void); // left where a reflector's sum of squares is out of bounds (geqrf), or a value is not finite (orgqr)
  if (p.op === 'geqrf') {
    copyPair(true, A0, A1, SCR, m, n);
    for (let j = 0; j < k; j++) step(j);
  } else {
    // the reflectors and tau finite, else the pair goes back (so that tau = 0's reflection is the reference's skip)
    c.f64x2(0).set(x2);
    copyPair(true, A0, A1, SCR, m, n, x2);
    for (const T of [T0, T1]) for (let j = 0; j < k; j++) {
      c.get(x2).get(T).simdMem(SIMD.load, 4, j * PAIR_E).f64x2(0).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(x2);
    }
    c.get(x2).get(x2).simd(SIMD.f64x2Eq).set(okm);
    allTrue(okm); c.op(OP.i32Eqz).op(OP.brIf, 0);
    // columns k .. n - 1 of the identity
    for (let j = k; j < n; j++) for (let i = 0; i < m; i++) for (const off of [0, 16]) store(SCR, at(i, j) + off, () => c.f64x2(i === j && off === 0 ? 1 : 0));
    for (let j = k - 1; j >= 0; j--) orgqrStep(j);
  }
  copyPair(false, A0, A1, SCR, m, n);
  c.i32(1).set(ok);
  c.op(OP.end);
  c.get(ok);
  return { name: 'pair', params, results: ['i32'], code: c };
}

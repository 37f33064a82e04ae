/**
 * The vector work of the fast complex heev (ops/zheev.ts) in WebAssembly SIMD, for one order n:
 *
 * `rotate(z, cs, l, m)`: one implicit QL sweep's rotations (kernels/tridiagonal-ql.ts), i = m - 1
 * down to l, each on columns i and i + 1 of the real Z (column-major, ld = zLd(n): n rounded up to
 * even, the padding row zero), (c_i, s_i) at cs + 16 i. Two rows a vector; rows in blocks of up to
 * ROW_PAIRS vectors held in locals across the whole sweep (LAPACK's dlasr order: each row's running
 * element stays in a register, so a rotation costs one load and one store a vector).
 *
 * `back(a, tau, v)`: V := Q V = H(0) H(1) ... H(n-2) V (zunmtr's 'L', 'N' on all n columns), the
 * reflectors as `reduce` leaves them in a (complex interleaved, ld = n, v_i from row
 * i + 1 with 1 there), tau complex at tau + 16 i, V complex (ld = n). One f64x2 a complex number;
 * two columns a trip (one load of the reflector for both): s = v^H x as two lane-wise dot products
 * ([hr xr, hi xi] and [hr xi, hi xr]) summed across lanes at the end, then x -= (tau s) v with
 * (ur + i ui) h = splat(ur) [hr, hi] + splat(ui) [-hi, hr]. A zero tau leaves x as it is (u = 0).
 *
 * `reduce(a, tau, d, e, w) -> ok`: LAPACK's zhetd2 'L' on the lower triangle of A (complex, ld = n,
 * the diagonal real): A = Q T Q^H with T real symmetric tridiagonal (d and e float64 at d and e) and
 * Q = H(0) H(1) ... H(n-2), H(i) = I - tau_i v_i v_i^H, v_i zero above row i + 1, 1 at row i + 1 (stored
 * there), the rest in A's column i below it; tau complex at tau; w a scratch of n complex. Step i is
 * zlarfg on alpha = A(i+1, i), x = A(i+2:n, i): beta = -sign(Re alpha) ||(alpha, x)||, tau = ((beta -
 * Re alpha) / beta, -Im alpha / beta), x := x / (alpha - beta), e_i = beta (real); tau = 0 where x is
 * zero and alpha real (e_i = Re alpha); then on the trailing block A22, w = tau A22 v,
 * w -= (tau / 2)(w^H v) v, A22 -= v w^H + w v^H (zhemv, zdotc, zaxpy, zher2; 16/3 n^3 flops). The
 * norm is the square root of the plain sum of squares: where that sum is below SSQ_MIN (and not
 * zero) it returns 0 and the caller hands the matrix back (the caller scales A so that its largest
 * entry is near 1: the sum cannot overflow, and only strongly graded matrices come near the bound),
 * else 1. zhemv's column
 * pass makes both of its products at once: y(k) += a_kj v_j by splat(vjr) a + splat(vji) [-ai, ar],
 * and y(j) += sum conj(a_kj) v_k as the lane-wise [ar vr, ai vi] and [ar vi, ai vr], summed across
 * lanes after the column; zher2's a_kj -= v_k conj(w_j) + w_k conj(v_j) by splat(wjr) v +
 * splat(wji) [vi, -vr] + splat(vjr) w + splat(vji) [wi, -wr].
 *
 * Addresses are byte addresses in the thread's memory (wasm/runtime.ts). Loops run at run time;
 * only the row blocks of `rotate` are unrolled, so the module's size grows with n / 16 only.
 */
import { swapNeg, swapNegHi } from '../wasm/complex.js';
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

export interface ZheevWasmParams { readonly n: number }

/** The smallest non-zero sum of squares a reflector may have (below it the matrix goes back). */
export const SSQ_MIN = 1e-280;

/** Vectors of two rows held in locals per pass of `rotate`. */
const ROW_PAIRS = 8;
/** i8x16.shuffle lanes: the two float64 lanes swapped. */
const SWAP = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7];

/** Z's leading dimension: n rounded up to even (whole vectors of two rows). */
export const zLd = (n: number): number => n + (n & 1);

export function generateZheevWasm(p: ZheevWasmParams): Uint8Array<ArrayBuffer> {
  if (!(Number.isInteger(p.n) && p.n >= 1)) throw new Error(`zheev-wasm: n must be a positive integer, got ${p.n}`);
  return encodeModule([rotateFunction(p.n), backFunction(p.n), reduceFunction(p.n)]);
}

/** `rotate` (the header): shared with the real syev's module (syev-wasm.ts). */
export function rotateFunction(n: number): FunctionDef {
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [Z, CS, L, M] = [0, 1, 2, 3];
  const colBytes = zLd(n) * 8;
  const pairs = zLd(n) / 2;
  const col = c.local('i32'), csp = c.local('i32'), cnt = c.local('i32');
  const cv = c.local('v128'), sv = c.local('v128'), u = c.local('v128');
  const x = Array.from({ length: Math.min(ROW_PAIRS, pairs) }, () => c.local('v128'));
  /** Pushes z + k colBytes for the i32 local k. */
  const column = (k: number): void => { c.get(Z).get(k).i32(colBytes).op(OP.i32Mul).op(OP.i32Add); };
  for (let p0 = 0; p0 < pairs; p0 += ROW_PAIRS) {
    const block = Math.min(ROW_PAIRS, pairs - p0);
    const off = (r: number): number => (p0 + r) * 16;
    column(M); c.set(col);
    for (let r = 0; r < block; r++) c.get(col).simdMem(SIMD.load, 3, off(r)).set(x[r]!);
    c.get(col).i32(colBytes).op(OP.i32Sub).set(col);
    c.get(CS).get(M).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Sub).set(csp);
    c.get(M).get(L).op(OP.i32Sub).set(cnt);
    c.loop_(() => {
      c.get(csp).simdMem(SIMD.load64Splat, 3, 0).set(cv);
      c.get(csp).simdMem(SIMD.load64Splat, 3, 8).set(sv);
      for (let r = 0; r < block; r++) {
        const xr = x[r]!;
        c.get(col).simdMem(SIMD.load, 3, off(r)).set(u);
        // Z(:, i + 1) = s u + c x; x = c u - s x
        c.get(col);
        c.get(sv).get(u).simd(SIMD.f64x2Mul).get(cv).get(xr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
        c.simdMem(SIMD.store, 3, off(r) + colBytes);
        c.get(cv).get(u).simd(SIMD.f64x2Mul).get(sv).get(xr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(xr);
      }
      c.get(col).i32(colBytes).op(OP.i32Sub).set(col);
      c.get(csp).i32(16).op(OP.i32Sub).set(csp);
      c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
    });
    column(L); c.set(col);
    for (let r = 0; r < block; r++) { c.get(col).get(x[r]!).simdMem(SIMD.store, 3, off(r)); }
  }
  return { name: 'rotate', params, results: [], code: c };
}

function backFunction(n: number): FunctionDef {
  const params: ValType[] = ['i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, TAU, V] = [0, 1, 2];
  const colBytes = n * 16;
  const j = c.local('i32'), i = c.local('i32'), rows = c.local('i32');
  const hp = c.local('i32'), x0 = c.local('i32'), x1 = c.local('i32'), cnt = c.local('i32');
  const t = c.local('v128'), h = c.local('v128'), hs = c.local('v128'), y = c.local('v128');
  const acc = [c.local('v128'), c.local('v128'), c.local('v128'), c.local('v128')];
  const ur = [c.local('v128'), c.local('v128')], ui = [c.local('v128'), c.local('v128')];
  const sr = c.local('f64'), si = c.local('f64'), tr = c.local('f64'), ti = c.local('f64');
  const ptrs = [x0, x1];

  /** A run-time loop over the rows i + 1 .. n - 1 (`rows` of them, at least one): hp, x0, x1 step a row. */
  const overRows = (cols: 1 | 2, body: () => void): void => {
    c.get(A).get(i).i32(colBytes + 16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(hp);
    for (let q = 0; q < cols; q++) c.get(V).get(j).i32(q).op(OP.i32Add).i32(colBytes).op(OP.i32Mul).op(OP.i32Add).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(ptrs[q]!);
    c.get(rows).set(cnt);
    c.loop_(() => {
      body();
      c.get(hp).i32(16).op(OP.i32Add).set(hp);
      for (let q = 0; q < cols; q++) c.get(ptrs[q]!).i32(16).op(OP.i32Add).set(ptrs[q]!);
      c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
    });
  };

  /** The reflectors on `cols` columns from column j. */
  const reflectAll = (cols: 1 | 2): void => {
    c.i32(n - 2).set(i);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(i).i32(0).op(OP.i32LtS).op(OP.brIf, 1);
    c.i32(n - 1).get(i).op(OP.i32Sub).set(rows);
    c.get(TAU).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).simdMem(SIMD.load, 3, 0).set(t);
    for (const a of acc) c.f64x2(0).set(a);
    // s = v^H x: [sum hr xr, sum hi xi] and [sum hr xi, sum hi xr]
    overRows(cols, () => {
      c.get(hp).simdMem(SIMD.load, 3, 0).set(h);
      for (let q = 0; q < cols; q++) {
        c.get(ptrs[q]!).simdMem(SIMD.load, 3, 0).set(y);
        c.get(acc[2 * q]!).get(h).get(y).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(acc[2 * q]!);
        c.get(acc[2 * q + 1]!).get(h).get(y).get(y).simd(SIMD.i8x16Shuffle, SWAP).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(acc[2 * q + 1]!);
      }
    });
    c.get(t).simd(SIMD.f64x2ExtractLane, 0).set(tr);
    c.get(t).simd(SIMD.f64x2ExtractLane, 1).set(ti);
    for (let q = 0; q < cols; q++) {
      const a0 = acc[2 * q]!, a1 = acc[2 * q + 1]!;
      c.get(a0).simd(SIMD.f64x2ExtractLane, 0).get(a0).simd(SIMD.f64x2ExtractLane, 1).op(OP.f64Add).set(sr);
      c.get(a1).simd(SIMD.f64x2ExtractLane, 0).get(a1).simd(SIMD.f64x2ExtractLane, 1).op(OP.f64Sub).set(si);
      // u = tau s
      c.get(tr).get(sr).op(OP.f64Mul).get(ti).get(si).op(OP.f64Mul).op(OP.f64Sub).simd(SIMD.f64x2Splat).set(ur[q]!);
      c.get(tr).get(si).op(OP.f64Mul).get(ti).get(sr).op(OP.f64Mul).op(OP.f64Add).simd(SIMD.f64x2Splat).set(ui[q]!);
    }
    // x -= u h
    overRows(cols, () => {
      c.get(hp).simdMem(SIMD.load, 3, 0).set(h);
      swapNeg(c, h); c.set(hs);
      for (let q = 0; q < cols; q++) {
        c.get(ptrs[q]!);
        c.get(ptrs[q]!).simdMem(SIMD.load, 3, 0);
        c.get(ur[q]!).get(h).simd(SIMD.f64x2Mul).get(ui[q]!).get(hs).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
        c.simd(SIMD.f64x2Sub).simdMem(SIMD.store, 3, 0);
      }
    });
    c.get(i).i32(1).op(OP.i32Sub).set(i);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
  };

  if (n >= 2) {
    const pairCount = n >> 1;
    c.i32(0).set(j);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(j).i32(2 * pairCount).op(OP.i32GeS).op(OP.brIf, 1);
    reflectAll(2);
    c.get(j).i32(2).op(OP.i32Add).set(j);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
    if (n & 1) {
      c.i32(n - 1).set(j);
      reflectAll(1);
    }
  }
  return { name: 'back', params, results: [], code: c };
}

/** A run-time loop: `trips` (pushes an i32, possibly 0) trips of body, each pointer stepping by its byte stride after a trip. */
function countedLoop(c: Code, cnt: number, trips: () => void, steps: readonly (readonly [number, number])[], body: () => void): void {
  trips(); c.set(cnt);
  c.op(OP.block, OP.void);
  c.get(cnt).op(OP.i32Eqz).op(OP.brIf, 0);
  c.loop_(() => {
    body();
    for (const [ptr, stride] of steps) c.get(ptr).i32(stride).op(OP.i32Add).set(ptr);
    c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
  });
  c.op(OP.end);
}

function reduceFunction(n: number): FunctionDef {
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, TAU, D, E, W] = [0, 1, 2, 3, 4];
  const colBytes = n * 16;
  const i32 = (): number => c.local('i32'), f64 = (): number => c.local('f64'), v128 = (): number => c.local('v128');
  const i = i32(), j = i32(), cnt = i32(), cnt2 = i32(), col = i32(), vp = i32(), wp = i32(), ap = i32(), cj = i32(), vb = i32();
  const ar = f64(), ai = f64(), x2 = f64(), ssq = f64(), beta = f64(), tr = f64(), ti = f64(), dr = f64(), den = f64(), t = f64(), u = f64();
  const acc = v128(), accB = v128(), x = v128(), y = v128(), sr = v128(), si = v128(), vjr = v128(), vji = v128(), wjr = v128(), wji = v128(), av = v128();
  const lane = (l: number, lane: 0 | 1): void => { c.get(l).simd(SIMD.f64x2ExtractLane, lane); };
  const mul = (a: number, b: number): void => { c.get(a).get(b).simd(SIMD.f64x2Mul); };
  const rowsFrom = (first: () => void): (() => void) => () => { c.i32(n); first(); c.op(OP.i32Sub); };

  const ok = i32();
  c.i32(0).set(ok);
  c.op(OP.block, OP.void); // left with ok = 0
  c.i32(0).set(i);
  c.op(OP.block, OP.void).op(OP.loop, OP.void);
  c.get(i).i32(n - 1).op(OP.i32GeS).op(OP.brIf, 1);
  // col: column i; vb: its row 0 (v_k at vb + 16 k); d[i] = Re a(i, i)
  c.get(A).get(i).i32(colBytes).op(OP.i32Mul).op(OP.i32Add).set(col);
  c.get(col).set(vb);
  c.get(D).get(i).i32(8).op(OP.i32Mul).op(OP.i32Add);
  c.get(col).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).mem(OP.f64Load, 3, 0);
  c.mem(OP.f64Store, 3, 0);
  // alpha = a(i + 1, i), x = a(i + 2 .., i): vp points at alpha
  c.get(col).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(vp);
  c.get(vp).mem(OP.f64Load, 3, 0).set(ar);
  c.get(vp).mem(OP.f64Load, 3, 8).set(ai);
  c.f64x2(0).set(acc);
  c.get(vp).i32(16).op(OP.i32Add).set(ap);
  countedLoop(c, cnt, rowsFrom(() => c.get(i).i32(2).op(OP.i32Add)), [[ap, 16]], () => {
    c.get(ap).simdMem(SIMD.load, 3, 0).set(x);
    c.get(acc); mul(x, x); c.simd(SIMD.f64x2Add).set(acc);
  });
  lane(acc, 0); lane(acc, 1); c.op(OP.f64Add).set(x2);
  // tau = 0 where x is zero and alpha real
  c.get(x2).f64(0).op(OP.f64Eq).get(ai).f64(0).op(OP.f64Eq).op(OP.i32And);
  c.if_(() => {
    c.get(E).get(i).i32(8).op(OP.i32Mul).op(OP.i32Add).get(ar).mem(OP.f64Store, 3, 0);
    c.get(TAU).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).f64x2(0).simdMem(SIMD.store, 3, 0);
  }, () => {
    c.get(ar).get(ar).op(OP.f64Mul).get(ai).get(ai).op(OP.f64Mul).op(OP.f64Add).get(x2).op(OP.f64Add).tee(ssq);
    c.f64(SSQ_MIN).op(OP.f64Lt).op(OP.brIf, 3);
    // beta = -sign(ar) sqrt(ssq); tau = ((beta - ar) / beta, -ai / beta)
    c.f64(0).get(ssq).op(OP.f64Sqrt).op(OP.f64Sub).get(ssq).op(OP.f64Sqrt).get(ar).f64(0).op(OP.f64Ge).op(OP.select).set(beta);
    c.get(beta).get(ar).op(OP.f64Sub).get(beta).op(OP.f64Div).set(tr);
    c.f64(0).get(ai).op(OP.f64Sub).get(beta).op(OP.f64Div).set(ti);
    c.get(TAU).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).tee(ap).get(tr).mem(OP.f64Store, 3, 0);
    c.get(ap).get(ti).mem(OP.f64Store, 3, 8);
    c.get(E).get(i).i32(8).op(OP.i32Mul).op(OP.i32Add).get(beta).mem(OP.f64Store, 3, 0);
    // x := x / (alpha - beta) = x (dr - i ai) / (dr^2 + ai^2)
    c.get(ar).get(beta).op(OP.f64Sub).set(dr);
    c.get(dr).get(dr).op(OP.f64Mul).get(ai).get(ai).op(OP.f64Mul).op(OP.f64Add).set(den);
    c.get(dr).get(den).op(OP.f64Div).simd(SIMD.f64x2Splat).set(sr);
    c.f64(0).get(ai).op(OP.f64Sub).get(den).op(OP.f64Div).simd(SIMD.f64x2Splat).set(si);
    c.get(vp).i32(16).op(OP.i32Add).set(ap);
    countedLoop(c, cnt, rowsFrom(() => c.get(i).i32(2).op(OP.i32Add)), [[ap, 16]], () => {
      c.get(ap).simdMem(SIMD.load, 3, 0).set(x);
      c.get(ap); mul(sr, x); swapNeg(c, x); c.get(si).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).simdMem(SIMD.store, 3, 0);
    });
  });
  // v_{i+1} = 1
  c.get(vp).f64x2(1, 0).simdMem(SIMD.store, 3, 0);
  // the trailing block only where tau is not zero
  c.get(TAU).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).simdMem(SIMD.load, 3, 0).f64x2(0).simd(SIMD.f64x2Ne).simd(SIMD.v128AnyTrue);
  c.if_(() => {
    c.get(TAU).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).tee(ap).mem(OP.f64Load, 3, 0).set(tr);
    c.get(ap).mem(OP.f64Load, 3, 8).set(ti);
    // y = 0 on rows i + 1 ..
    c.get(W).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(wp);
    countedLoop(c, cnt, rowsFrom(() => c.get(i).i32(1).op(OP.i32Add)), [[wp, 16]], () => { c.get(wp).f64x2(0).simdMem(SIMD.store, 3, 0); });
    // y = A22 v, column j = i + 1 .. n - 1
    c.get(i).i32(1).op(OP.i32Add).set(j);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(j).i32(n).op(OP.i32GeS).op(OP.brIf, 1);
    c.get(A).get(j).i32(colBytes + 16).op(OP.i32Mul).op(OP.i32Add).set(cj); // a(j, j)
    c.get(vb).get(j).i32(16).op(OP.i32Mul).op(OP.i32Add).tee(vp).simdMem(SIMD.load, 3, 0).set(y);
    c.get(y).simd(SIMD.f64x2ExtractLane, 0).simd(SIMD.f64x2Splat).set(vjr);
    c.get(y).simd(SIMD.f64x2ExtractLane, 1).simd(SIMD.f64x2Splat).set(vji);
    c.get(cj).simdMem(SIMD.load64Splat, 3, 0).get(y).simd(SIMD.f64x2Mul).set(av); // a_jj v_j
    c.f64x2(0).set(acc);
    c.f64x2(0).set(accB);
    c.get(W).get(j).i32(16).op(OP.i32Mul).op(OP.i32Add).set(wp);
    c.get(cj).set(ap);
    countedLoop(c, cnt2, rowsFrom(() => c.get(j).i32(1).op(OP.i32Add)), [], () => {
      c.get(ap).i32(16).op(OP.i32Add).set(ap);
      c.get(vp).i32(16).op(OP.i32Add).set(vp);
      c.get(wp).i32(16).op(OP.i32Add).set(wp);
      c.get(ap).simdMem(SIMD.load, 3, 0).set(x);
      c.get(vp).simdMem(SIMD.load, 3, 0).set(y);
      // y(k) += a_kj v_j
      c.get(wp);
      c.get(wp).simdMem(SIMD.load, 3, 0); mul(vjr, x); c.simd(SIMD.f64x2Add); swapNeg(c, x); c.get(vji).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
      c.simdMem(SIMD.store, 3, 0);
      // conj(a_kj) v_k, lane-wise
      c.get(acc); mul(x, y); c.simd(SIMD.f64x2Add).set(acc);
      c.get(accB).get(x).get(y).get(y).simd(SIMD.i8x16Shuffle, SWAP).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(accB);
    });
    // y(j) += a_jj v_j + sum conj(a_kj) v_k
    c.get(W).get(j).i32(16).op(OP.i32Mul).op(OP.i32Add).tee(wp);
    c.get(wp).simdMem(SIMD.load, 3, 0).get(av).simd(SIMD.f64x2Add);
    lane(acc, 0); lane(acc, 1); c.op(OP.f64Add).simd(SIMD.f64x2Splat);
    lane(accB, 0); lane(accB, 1); c.op(OP.f64Sub).simd(SIMD.f64x2ReplaceLane, 1);
    c.simd(SIMD.f64x2Add).simdMem(SIMD.store, 3, 0);
    c.get(j).i32(1).op(OP.i32Add).set(j);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
    // w = tau y, dot = w^H v (lane-wise as above)
    c.get(tr).simd(SIMD.f64x2Splat).set(sr);
    c.get(ti).simd(SIMD.f64x2Splat).set(si);
    c.f64x2(0).set(acc);
    c.f64x2(0).set(accB);
    c.get(W).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(wp);
    c.get(vb).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(vp);
    countedLoop(c, cnt, rowsFrom(() => c.get(i).i32(1).op(OP.i32Add)), [[wp, 16], [vp, 16]], () => {
      c.get(wp).simdMem(SIMD.load, 3, 0).set(x);
      c.get(wp); mul(sr, x); swapNeg(c, x); c.get(si).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).tee(x).simdMem(SIMD.store, 3, 0);
      c.get(vp).simdMem(SIMD.load, 3, 0).set(y);
      c.get(acc); mul(x, y); c.simd(SIMD.f64x2Add).set(acc);
      c.get(accB).get(x).get(y).get(y).simd(SIMD.i8x16Shuffle, SWAP).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(accB);
    });
    // dot = (acc0 + acc1) + i (accB0 - accB1) ... conj(w) v: re = wr vr + wi vi, im = wr vi - wi vr
    lane(acc, 0); lane(acc, 1); c.op(OP.f64Add).set(t);
    lane(accB, 0); lane(accB, 1); c.op(OP.f64Sub).set(u);
    // alpha = -(tau / 2) dot
    c.f64(-0.5).get(tr).get(t).op(OP.f64Mul).get(ti).get(u).op(OP.f64Mul).op(OP.f64Sub).op(OP.f64Mul).simd(SIMD.f64x2Splat).set(sr);
    c.f64(-0.5).get(tr).get(u).op(OP.f64Mul).get(ti).get(t).op(OP.f64Mul).op(OP.f64Add).op(OP.f64Mul).simd(SIMD.f64x2Splat).set(si);
    // w += alpha v
    c.get(W).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(wp);
    c.get(vb).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(vp);
    countedLoop(c, cnt, rowsFrom(() => c.get(i).i32(1).op(OP.i32Add)), [[wp, 16], [vp, 16]], () => {
      c.get(vp).simdMem(SIMD.load, 3, 0).set(y);
      c.get(wp); c.get(wp).simdMem(SIMD.load, 3, 0); mul(sr, y); c.simd(SIMD.f64x2Add); swapNeg(c, y); c.get(si).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
      c.simdMem(SIMD.store, 3, 0);
    });
    // A22 -= v w^H + w v^H, column j = i + 1 .. n - 1
    c.get(i).i32(1).op(OP.i32Add).set(j);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(j).i32(n).op(OP.i32GeS).op(OP.brIf, 1);
    c.get(A).get(j).i32(colBytes + 16).op(OP.i32Mul).op(OP.i32Add).set(cj);
    c.get(vb).get(j).i32(16).op(OP.i32Mul).op(OP.i32Add).tee(vp).simdMem(SIMD.load, 3, 0).set(y);
    c.get(W).get(j).i32(16).op(OP.i32Mul).op(OP.i32Add).tee(wp).simdMem(SIMD.load, 3, 0).set(x);
    c.get(y).simd(SIMD.f64x2ExtractLane, 0).simd(SIMD.f64x2Splat).set(vjr);
    c.get(y).simd(SIMD.f64x2ExtractLane, 1).simd(SIMD.f64x2Splat).set(vji);
    c.get(x).simd(SIMD.f64x2ExtractLane, 0).simd(SIMD.f64x2Splat).set(wjr);
    c.get(x).simd(SIMD.f64x2ExtractLane, 1).simd(SIMD.f64x2Splat).set(wji);
    // a_jj -= 2 Re(v_j conj(w_j)), imaginary part 0
    c.get(cj);
    c.get(cj).mem(OP.f64Load, 3, 0);
    mul(x, y); c.simd(SIMD.f64x2ExtractLane, 0); mul(x, y); c.simd(SIMD.f64x2ExtractLane, 1); c.op(OP.f64Add).f64(2).op(OP.f64Mul);
    c.op(OP.f64Sub).simd(SIMD.f64x2Splat).f64(0).simd(SIMD.f64x2ReplaceLane, 1).simdMem(SIMD.store, 3, 0);
    c.get(cj).set(ap);
    countedLoop(c, cnt2, rowsFrom(() => c.get(j).i32(1).op(OP.i32Add)), [], () => {
      c.get(ap).i32(16).op(OP.i32Add).set(ap);
      c.get(vp).i32(16).op(OP.i32Add).set(vp);
      c.get(wp).i32(16).op(OP.i32Add).set(wp);
      c.get(vp).simdMem(SIMD.load, 3, 0).set(y);
      c.get(wp).simdMem(SIMD.load, 3, 0).set(x);
      c.get(ap);
      c.get(ap).simdMem(SIMD.load, 3, 0);
      mul(wjr, y); swapNegHi(c, y); c.get(wji).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
      mul(vjr, x); c.simd(SIMD.f64x2Add); swapNegHi(c, x); c.get(vji).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
      c.simd(SIMD.f64x2Sub).simdMem(SIMD.store, 3, 0);
    });
    c.get(j).i32(1).op(OP.i32Add).set(j);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
  });
  c.get(i).i32(1).op(OP.i32Add).set(i);
  c.op(OP.br, 0).op(OP.end).op(OP.end);
  // d[n - 1]
  c.get(D).get(A).i32((n - 1) * (colBytes + 16)).op(OP.i32Add).mem(OP.f64Load, 3, 0).mem(OP.f64Store, 3, (n - 1) * 8);
  c.i32(1).set(ok);
  c.op(OP.end);
  c.get(ok);
  return { name: 'reduce', params, results: ['i32'], code: c };
}

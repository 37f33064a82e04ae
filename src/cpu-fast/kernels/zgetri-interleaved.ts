/**
 * Generated WebAssembly SIMD complex inverse from LU factors (getri: LAPACK's unblocked zgetri)
 * for one order n, two matrices at a time (wasm/pair.ts: one f64x2 the real parts of the same
 * element of both, another their imaginary parts). The factors lie as float64 pairs (ld = n, back
 * to back), the pivots after them (n int32 a matrix, 0-based), one int32 ok a pair.
 *
 * The reference's algorithm (src/cpu/complex/zgetri.ts), within rounding of it:
 * - inv(U) in place of U, column by column (ztrti2): U(j, j) := 1 / U(j, j) (Smith's division per
 *   lane), the column above it multiplied by the inverted block beside it (ztrmv's axpy form, its
 *   columns and rows runtime loops: the module stays small) and scaled by -U(j, j);
 * - X L = inv(U) for X from the last column: L's column j saved to a scratch and zeroed, then
 *   X(:, j) -= X(:, k) L(k, j) for k > j in ascending k, SOLVE_ROWS rows of X(:, j) in registers a trip;
 * - the pivots' column interchanges, last first, each lane its own.
 * A pair where either matrix holds a value that is not finite, or an exactly zero U(j, j) (info
 * j + 1), is handed back untouched (ok 0; the work is in a scratch): the driver runs the reference
 * on both, which reports the singular one and propagates NaN as it does.
 */
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { PAIR_E, PAIR_SLOT, pairBatchFunction, pairEmitters } from '../wasm/pair.js';
import { whileLess } from '../wasm/structured.js';

export interface ZgetriInterleavedParams {
  readonly n: number;
}

/**
 * Rows of a column held in registers a trip: inv(U)'s columns one row at a time, the X L solve's two
 * (four accumulators and L's element beside them fit x86's 16 vector registers; three rows ran
 * slower, likely spilled: not checked in V8's code).
 * getrf then getri n = 16 on the 2-core EPYC (2026-12-01, one thread, ns a matrix end to end, two
 * runs, complex128 / complex64): 1 and 2 rows 2636, 2650 / 2708, 2710; 2 and 2 2744, 2812 / 2774,
 * 2794; 1 and 1 2719, 2675 / 2761, 2756; 3 and 3 (the earlier form) 2864, 2839 / 2934, 2945; n = 12
 * 1274-1289 / 1282-1326 against 1418-1438 / 1427-1436; 4 and 5 rows slower than 3.
 */
const INVERT_ROWS = 1;
const SOLVE_ROWS = 2;

/** Bytes of the kernel's scratch: one split pair, and L's strict lower triangle split beside it. */
export const zgetriInterleavedScratch = (p: ZgetriInterleavedParams): number => 2 * p.n * p.n * PAIR_SLOT;

/**
 * Exported `zgetri2(a, piv, ok, pairs, scratch)`: byte addresses of the first A, int32 pivots and
 * int32 ok, the number of pairs (matrices 2t and 2t + 1), a scratch of zgetriInterleavedScratch(p)
 * bytes (16-byte aligned); and `pair(a0, a1, piv0, piv1, scratch) -> ok` for two matrices anywhere
 * (a0 = a1 and piv0 = piv1 invert one matrix).
 */
export function generateZgetriInterleaved(p: ZgetriInterleavedParams): Uint8Array<ArrayBuffer> {
  if (p.n < 1) throw new Error(`zgetri-interleaved: n must be positive, got ${p.n}`);
  return encodeModule([mainFunction(p), pairFunction(p)]);
}
const PAIR = 1;

function mainFunction(p: ZgetriInterleavedParams): FunctionDef {
  return pairBatchFunction('zgetri2', p.n * p.n * PAIR_E, 4 * p.n, PAIR);
}

function pairFunction(p: ZgetriInterleavedParams): FunctionDef {
  const { n } = p;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A0, A1, P0, P1, SCR] = [0, 1, 2, 3, 4];
  const { get, load, store, from, loop, divideLocals, divide, copyPair, allTrue } = pairEmitters(c);
  const v = (): number => c.local('v128');
  const i32 = (): number => c.local('i32');
  const ok = i32(), xp = i32(), tp = i32(), cj = i32(), kp = i32(), lp = i32(), piv = i32(), inner = i32(), kx = i32(), tc = i32();
  const tf = c.local('f64');
  const finite = v(), ur = v(), ui = v(), dr = v(), di = v(), tr = v(), ti = v(), xr = v(), xi = v(), m = v();
  const acc = Array.from({ length: Math.max(INVERT_ROWS, SOLVE_ROWS) }, () => ({ re: v(), im: v() }));
  const dv = divideLocals();
  /** Byte offset of split element (i, col) in the scratch (column-major, ld = n); L's saved column after the matrix. */
  const at = (i: number, col: number): number => (i + col * n) * PAIR_SLOT;
  const LS = n * n * PAIR_SLOT;
  const mul = (a: number, b: number): void => { c.get(a).get(b).simd(SIMD.f64x2Mul); };
  /** Pushes the complex product's real part (ar br - ai bi) or imaginary part (ar bi + ai br) of locals. */
  const prodRe = (ar: number, ai: number, br: number, bi: number): void => { mul(ar, br); mul(ai, bi); c.simd(SIMD.f64x2Sub); };
  const prodIm = (ar: number, ai: number, br: number, bi: number): void => { mul(ar, bi); mul(ai, br); c.simd(SIMD.f64x2Add); };

  /**
   * Column j of inv(U) (its diagonal already inverted by reciprocals()): x := -inv(U)(j, j) T x over
   * the rows above it, T = inv(U)(0:j, 0:j) (its strict lower triangle zero: L is in its own scratch). In place
   * from the top, INVERT_ROWS rows a trip, each row's terms from k = i0 (the trip's first row) in
   * ascending k: the rows below a trip still hold the x they read.
   */
  const invertColumn = (j: number): void => {
    load(SCR, at(j, j)); c.set(dr);
    load(SCR, at(j, j) + 16); c.set(di);
    if (j > 0) {
      c.get(dr).simd(SIMD.f64x2Neg).set(ur);
      c.get(di).simd(SIMD.f64x2Neg).set(ui);
      const blocks = Math.floor(j / INVERT_ROWS), rest = j % INVERT_ROWS;
      // a trip's rows at cj (x(i0)), T(i0, i0) at tc
      if (blocks > 0) loop(blocks, [[cj, from(SCR, at(0, j)), INVERT_ROWS * PAIR_SLOT], [tc, get(SCR), INVERT_ROWS * (n + 1) * PAIR_SLOT]], () => multiplyRows(j, INVERT_ROWS));
      if (rest > 0) {
        c.get(SCR).i32(at(j - rest, j)).op(OP.i32Add).set(cj);
        c.get(SCR).i32(at(j - rest, j - rest)).op(OP.i32Add).set(tc);
        multiplyRows(j, rest);
      }
    }
  };

  /**
   * U(j, j) := 1 / U(j, j) for every j first (Smith's division per lane); an exactly zero U(j, j)
   * in either lane sends the pair back before anything else is done (labels: 0 the if, 1 the
   * loop, 2 the block).
   */
  const reciprocals = (): void => {
    loop(n, [[xp, get(SCR), (n + 1) * PAIR_SLOT]], () => {
      load(xp, 0); c.set(ur);
      load(xp, 16); c.set(ui);
      c.get(ur).f64x2(0).simd(SIMD.f64x2Eq).get(ui).f64x2(0).simd(SIMD.f64x2Eq).simd(SIMD.v128And).simd(SIMD.v128AnyTrue);
      c.if_(() => { c.op(OP.br, 2); });
      divide(dv, () => c.f64x2(1), () => c.f64x2(0), ur, ui, dr, di);
      store(xp, 0, get(dr));
      store(xp, 16, get(di));
    });
  };

  /** `rows` rows of column j from cj: x(i) := -d sum_{k = i0 .. j-1} T(i, k) x(k), T(i0, i0) at tc; -d in (ur, ui). */
  const multiplyRows = (j: number, rows: number): void => {
    for (let r = 0; r < rows; r++) { c.f64x2(0).set(acc[r]!.re); c.f64x2(0).set(acc[r]!.im); }
    c.get(cj).set(kx);
    c.get(tc).set(tp);
    whileLess(c, kx, () => { c.get(SCR).i32(at(j, j)).op(OP.i32Add); }, PAIR_SLOT, () => {
      load(kx, 0); c.set(tr);
      load(kx, 16); c.set(ti);
      for (let r = 0; r < rows; r++) {
        const { re, im } = acc[r]!;
        load(tp, r * PAIR_SLOT); c.set(xr);
        load(tp, r * PAIR_SLOT + 16); c.set(xi);
        c.get(re); prodRe(xr, xi, tr, ti); c.simd(SIMD.f64x2Add).set(re);
        c.get(im); prodIm(xr, xi, tr, ti); c.simd(SIMD.f64x2Add).set(im);
      }
      c.get(tp).i32(n * PAIR_SLOT).op(OP.i32Add).set(tp);
    });
    for (let r = 0; r < rows; r++) {
      const { re, im } = acc[r]!;
      store(cj, r * PAIR_SLOT, () => prodRe(re, im, ur, ui));
      store(cj, r * PAIR_SLOT + 16, () => prodIm(re, im, ur, ui));
    }
  };

  /** L's strict lower triangle moved to its own scratch (the same places), zeros left behind. */
  const saveL = (): void => {
    for (let j = 0; j + 1 < n; j++) {
      loop(n - 1 - j, [[xp, from(SCR, at(j + 1, j)), PAIR_SLOT]], () => {
        for (const off of [0, 16]) {
          store(xp, LS + off, () => load(xp, off));
          store(xp, off, () => c.f64x2(0));
        }
      });
    }
  };

  /** `rows` rows of X(:, j) from the row at pointer cj: X(i, j) -= X(i, k) L(k, j), k = j + 1 .. n - 1 ascending. */
  const solveRows = (j: number, rows: number): void => {
    for (let r = 0; r < rows; r++) {
      load(cj, r * PAIR_SLOT); c.set(acc[r]!.re);
      load(cj, r * PAIR_SLOT + 16); c.set(acc[r]!.im);
    }
    loop(n - 1 - j, [[kp, from(cj, n * PAIR_SLOT), n * PAIR_SLOT], [lp, from(SCR, LS + at(j + 1, j)), PAIR_SLOT]], () => {
      load(lp, 0); c.set(tr);
      load(lp, 16); c.set(ti);
      for (let r = 0; r < rows; r++) {
        const { re, im } = acc[r]!;
        load(kp, r * PAIR_SLOT); c.set(xr);
        load(kp, r * PAIR_SLOT + 16); c.set(xi);
        c.get(re); prodRe(xr, xi, tr, ti); c.simd(SIMD.f64x2Sub).set(re);
        c.get(im); prodIm(xr, xi, tr, ti); c.simd(SIMD.f64x2Sub).set(im);
      }
    }, inner);
    for (let r = 0; r < rows; r++) {
      store(cj, r * PAIR_SLOT, get(acc[r]!.re));
      store(cj, r * PAIR_SLOT + 16, get(acc[r]!.im));
    }
  };

  /** Column j of X from the columns after it and L's column j (in its scratch). */
  const solveColumn = (j: number): void => {
    const blocks = Math.floor(n / SOLVE_ROWS), rest = n % SOLVE_ROWS;
    if (blocks > 0) loop(blocks, [[cj, from(SCR, at(0, j)), SOLVE_ROWS * PAIR_SLOT]], () => solveRows(j, SOLVE_ROWS));
    if (rest > 0) {
      c.get(SCR).i32(at(n - rest, j)).op(OP.i32Add).set(cj);
      solveRows(j, rest);
    }
  };

  /** Lane `lane`'s columns j and piv[j] exchanged where they differ (pivots at local pivs). */
  const interchange = (j: number, pivs: number, lane: number): void => {
    c.get(pivs).mem(OP.i32Load, 2, 4 * j).tee(piv).i32(j).op(OP.i32Ne).if_(() => {
      c.get(piv).i32(n * PAIR_SLOT).op(OP.i32Mul).get(SCR).op(OP.i32Add).i32(8 * lane).op(OP.i32Add).set(tp);
      loop(n, [[xp, from(SCR, at(0, j) + 8 * lane), PAIR_SLOT], [tp, get(tp), PAIR_SLOT]], () => {
        for (const off of [0, 16]) {
          c.get(xp).mem(OP.f64Load, 3, off).set(tf);
          c.get(xp).get(tp).mem(OP.f64Load, 3, off).mem(OP.f64Store, 3, off);
          c.get(tp).get(tf).mem(OP.f64Store, 3, off);
        }
      });
    });
  };

  c.i32(0).set(ok);
  c.op(OP.block, OP.void); // left where a value is not finite or U(j, j) is zero
  c.f64x2(0).set(finite);
  copyPair(true, A0, A1, SCR, n, n, finite);
  c.get(finite).get(finite).simd(SIMD.f64x2Eq).set(m);
  allTrue(m); c.op(OP.i32Eqz).op(OP.brIf, 0);
  saveL();
  reciprocals();
  for (let j = 0; j < n; j++) invertColumn(j);
  for (let j = n - 2; j >= 0; j--) solveColumn(j);
  for (let j = n - 2; j >= 0; j--) { interchange(j, P0, 0); interchange(j, P1, 1); }
  copyPair(false, A0, A1, SCR, n, n);
  c.i32(1).set(ok);
  c.op(OP.end);
  c.get(ok);
  return { name: 'pair', params, results: ['i32'], code: c };
}

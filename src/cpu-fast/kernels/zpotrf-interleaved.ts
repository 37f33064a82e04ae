/**
 * Generated WebAssembly SIMD complex Cholesky (potrf, and posv's solve where nrhs > 0, on
 * Hermitian positive definite matrices, 'lower' or 'upper') for one order n, two matrices at a
 * time: one f64x2 holds the real parts of the same element of both, another their imaginary
 * parts. The matrices lie as for kernels/zpotrf-wasm.ts (float64 pairs, ld = n, back to back; B
 * after them, nrhs columns a matrix); the kernel splits a pair into a scratch as it reads it and
 * interleaves the results back.
 *
 * Each lane performs the complex reference's operations (src/cpu/complex/zpotrf.ts, zsolve.ts,
 * ztrsm.ts solveVector, scalar.ts divideInto) in its order, so results are bitwise its own: F(i, j)
 * -= F(i, k) conj(F(j, k)) is re -= xr yr - xi yi; im -= xr yi + xi yr on whole vectors, four
 * multiplies and four subtractions for two matrices with no lane swaps or splats (one f64x2 a
 * complex number needs two of each and a swap for one). The factor's columns run left-looking:
 * each column's rows `rows` at a time, each element's products a runtime loop over ascending k
 * with those rows' chains side by side; the column's serial chain (the diagonal's last term,
 * square root, divisions) is shared by both matrices.
 *
 * A pair where either matrix is not positive definite at some step leaves its memory untouched and
 * its two info entries -1 (ZPOTRF_PAIR_REDO): the driver runs the one-matrix kernel on both, which
 * stops at the failing step as the reference. So every value here comes from a successful
 * factorisation, which holds no NaN (a NaN or infinite term reaches a later diagonal and fails it),
 * and negations are exact: the factor's imaginary parts are kept as the reference reads them
 * (F(i, k) = A(i, k) lower, conj(A(k, i)) upper), and a product with conj(F) negates them within
 * the product's addition (a - (-b) is a + b).
 *
 * Then it solves, per right-hand side, forward with T = F and backward with T = F^H as the
 * reference, each element's terms in ascending k, the right-hand side split in the scratch. The
 * diagonal's divisor is (l, +-0) with l > 0 (or, complex64 rounded, l >= 0), so Smith's division
 * always takes its first branch, here lane by lane. complex64 reads the factor rounded to
 * float32, as the reference reads it back.
 */
import type { Uplo } from '../../core/enums.js';
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

export interface ZpotrfInterleavedParams {
  readonly n: number;
  readonly uplo: Uplo;
  /** complex64: the solve reads the factor rounded to float32 (as stored, as the reference). */
  readonly roundFactor: boolean;
  /** Rows of a factor column per loop trip (independent chains of subtractions). */
  readonly rows: number;
}

/** The info a failed pair leaves in both entries: the driver reruns both on the one-matrix kernel. */
export const ZPOTRF_PAIR_REDO = -1;

const E = 16; // bytes of one complex128
/** i8x16.shuffle lanes: lane 0 of each operand, and lane 1 of each. */
const LO = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
const HI = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];

/** Bytes of the kernel's scratch (reused by every pair). */
export const zpotrfInterleavedScratch = (n: number): number => n * n * 48 + n * 32;

/**
 * Exported `zpotrf2(a, b, info, pairs, nrhs, scratch)`: byte addresses of the first A, B and
 * int32 info, the number of pairs, and a scratch of zpotrfInterleavedScratch(n) bytes (16-byte
 * aligned).
 */
export function generateZpotrfInterleaved(p: ZpotrfInterleavedParams): Uint8Array<ArrayBuffer> {
  const { n } = p;
  const upper = p.uplo === 'upper';
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, B, INFO, COUNT, NRHS, SCR] = [0, 1, 2, 3, 4, 5];
  const bMat = c.local('i32'), b0 = c.local('i32'), b1 = c.local('i32'), rhs = c.local('i32');
  const ar = c.local('i32'), sr = c.local('i32'), xp = c.local('i32'), px = c.local('i32'), py = c.local('i32');
  const cnt = c.local('i32'), cnt2 = c.local('i32');
  const v = (): number => c.local('v128');
  const s = v(), sNext = v(), l = v(), t0 = v(), t1 = v(), re = v(), im = v(), r = v(), den = v(), xr = v(), xi = v(), yr = v(), yi = v();
  const R = Math.max(1, p.rows);
  const accR = Array.from({ length: R }, v), accI = Array.from({ length: R }, v);
  const MAT = n * n * E; // bytes from a pair's first matrix to its second
  /** Bytes from A's element (i, j) of F's stored triangle to (i + 1, j): rows run along columns (lower) or rows (upper). */
  const A_ROW = upper ? n * E : E;
  /** Byte offset of F(i, k)'s stored value from row i's pointer A + i A_ROW. */
  const aCol = (k: number): number => (upper ? k * E : k * n * E);
  const fAt = (i: number, k: number): number => i * A_ROW + aCol(k);
  /**
   * The scratch, 48 bytes an element: F(i, k)'s real parts at at(i, k), imaginary at + 16,
   * |F(i, k)|^2 as the reference's dot adds it (re re + im im) at + 32; l_k at at(k, k). Row i's
   * elements from SCR + 48 i, column k at + colAt(k). conj(F) is not stored: a product with it
   * swaps an addition and a subtraction (conjProduct), the same bits (x - (-y) is x + y exactly).
   */
  const SLOT = 48;
  const NORM = 32;
  const colAt = (k: number): number => k * n * SLOT;
  const at = (i: number, k: number): number => i * SLOT + colAt(k);
  /** The solve's element i of the pair's right-hand side, split. */
  const X0 = n * n * SLOT;
  const xAt = (i: number): number => X0 + i * 32;

  const load = (base: number, off: number): void => { c.get(base).simdMem(SIMD.load, 0, off); };
  const scratch = (off: number): void => load(SCR, off);
  const store = (base: number, off: number, value: () => void): void => { c.get(base); value(); c.simdMem(SIMD.store, 0, off); };
  const toScratch = (off: number, value: () => void): void => store(SCR, off, value);
  /** re, im := the parts of the complex numbers at byte off0 from base0 and off1 from base1. */
  const split = (base0: number, off0: number, base1: number, off1: number): void => {
    load(base0, off0); c.set(t0);
    load(base1, off1); c.set(t1);
    c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO).set(re);
    c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI).set(im);
  };
  /** The pair (vr, vi) back as two complex numbers. */
  const join = (base0: number, off0: number, base1: number, off1: number, vr: () => void, vi: () => void): void => {
    c.get(base0); vr(); vi(); c.simd(SIMD.i8x16Shuffle, LO).simdMem(SIMD.store, 0, off0);
    c.get(base1); vr(); vi(); c.simd(SIMD.i8x16Shuffle, HI).simdMem(SIMD.store, 0, off1);
  };
  /**
   * ar -= xr yr + xi yi; ai -= xi yr - xr yi, with x in xr, xi and y pushed by the emitters given:
   * the reference's ar -= xr zr - xi zi; ai -= xr zi + xi zr with z = conj(y) = (yr, -yi), the same
   * bits (xi (-yi) is -(xi yi); a - (-b) is a + b).
   */
  const subtractConjProduct = (accR: number, accI: number, y0: () => void, y1: () => void): void => {
    c.get(accR).get(xr); y0(); c.simd(SIMD.f64x2Mul).get(xi); y1(); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(accR);
    c.get(accI).get(xi); y0(); c.simd(SIMD.f64x2Mul).get(xr); y1(); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub).set(accI);
  };
  const local = (x: number) => (): void => { c.get(x); };
  /**
   * A runtime loop of `trips` (> 0) trips over pointers: each starts at its value and steps by its
   * stride. Loops keep the module small: fully unrolled (80 KB at n = 16) the kernel ran no
   * faster than the one-matrix kernel.
   */
  const loop = (trips: number, pointers: readonly (readonly [number, () => void, number])[], body: () => void, counter = cnt): void => {
    for (const [ptr, start] of pointers) { start(); c.set(ptr); }
    c.i32(trips).set(counter);
    c.loop_(() => {
      body();
      for (const [ptr, , stride] of pointers) c.get(ptr).i32(stride).op(OP.i32Add).set(ptr);
      c.get(counter).i32(1).op(OP.i32Sub).tee(counter);
    });
  };
  const from = (base: number, off: number) => (): void => { c.get(base).i32(off).op(OP.i32Add); };

  const factorColumn = (j: number): void => {
    // the diagonal's dot, 0 + |F(j, 0)|^2 + ...: all but its last term summed during column j - 1
    if (j === 0) c.f64x2(0).set(s);
    else c.get(sNext).get(SCR).simdMem(SIMD.load, 0, at(j, j - 1) + NORM).simd(SIMD.f64x2Add).set(s);
    if (j + 1 < n) {
      c.f64x2(0).set(sNext);
      for (let k = 0; k < j; k++) c.get(sNext).get(SCR).simdMem(SIMD.load, 0, at(j + 1, k) + NORM).simd(SIMD.f64x2Add).set(sNext);
    }
    split(A, fAt(j, j), A, fAt(j, j) + MAT);
    c.get(re).get(s).simd(SIMD.f64x2Sub).set(s);
    // !(ajj > 0) in either lane: the pair goes to the one-matrix kernel (out of the pair's two blocks)
    c.get(s).f64x2(0).simd(SIMD.f64x2Gt).simd(SIMD.v128Not).simd(SIMD.v128AnyTrue).if_(() => { c.op(OP.br, 1); });
    c.get(s).simd(SIMD.f64x2Sqrt).set(l);
    toScratch(at(j, j), local(l));
    if (j === n - 1) return;
    // rows j + 1 ... n - 1, R at a time (independent chains), then the rest one at a time: ar at
    // A's row, sr at the scratch's
    const m = n - 1 - j, full = Math.floor(m / R) * R;
    const rowsLoop = (first: number, trips: number, h: number): void => {
      loop(trips, [[ar, from(A, first * A_ROW), h * A_ROW], [sr, from(SCR, first * SLOT), h * SLOT]], () => updateRows(j, h));
    };
    if (full > 0) rowsLoop(j + 1, full / R, R);
    if (m > full) rowsLoop(j + 1 + full, m - full, 1);
  };

  /**
   * F(i, j) for the h rows i from ar and sr on: their products a runtime loop over k (px at F(i,
   * k)'s row, py at F(j, k)), the h rows' chains side by side.
   */
  const updateRows = (j: number, h: number): void => {
    for (let u = 0; u < h; u++) {
      split(ar, u * A_ROW + aCol(j), ar, u * A_ROW + aCol(j) + MAT);
      c.get(re).set(accR[u]!);
      // F's imaginary part: sign times the stored one, as the reference reads it
      c.get(im);
      if (upper) c.f64x2(-1).simd(SIMD.f64x2Mul);
      c.set(accI[u]!);
    }
    if (j > 0) {
      loop(j, [[px, local(sr), colAt(1)], [py, from(SCR, j * SLOT), colAt(1)]], () => {
        // y = F(j, k), its conjugate taken by the product
        load(py, 0); c.set(yr);
        load(py, 16); c.set(yi);
        for (let u = 0; u < h; u++) {
          load(px, u * SLOT); c.set(xr);
          load(px, u * SLOT + 16); c.set(xi);
          subtractConjProduct(accR[u]!, accI[u]!, local(yr), local(yi));
        }
      }, cnt2);
    }
    for (let u = 0; u < h; u++) {
      const fr = accR[u]!, fi = accI[u]!, e = u * SLOT + colAt(j);
      c.get(fr).get(l).simd(SIMD.f64x2Div).set(fr);
      c.get(fi).get(l).simd(SIMD.f64x2Div).set(fi);
      store(sr, e, local(fr));
      store(sr, e + 16, local(fi));
      store(sr, e + NORM, () => c.get(fr).get(fr).simd(SIMD.f64x2Mul).get(fi).get(fi).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add));
    }
  };

  /** Both factors back over A: the diagonal (l, +0), below it F (lower) or above it conj(F) (upper). */
  const writeBack = (): void => {
    for (let j = 0; j < n; j++) {
      join(A, fAt(j, j), A, fAt(j, j) + MAT, () => scratch(at(j, j)), () => c.f64x2(0));
      if (j === n - 1) break;
      loop(n - 1 - j, [[ar, from(A, (j + 1) * A_ROW), A_ROW], [sr, from(SCR, (j + 1) * SLOT), SLOT]], () => {
        join(ar, aCol(j), ar, aCol(j) + MAT, () => load(sr, colAt(j)), () => {
          load(sr, colAt(j) + 16);
          if (upper) c.simd(SIMD.f64x2Neg);
        });
      });
    }
  };

  /** complex64: the factor in the scratch rounded to float32, as the solve reads it back (the norms too: unread). */
  const roundFactor = (): void => {
    loop((n * n * SLOT) / 16, [[sr, local(SCR), 16]], () => {
      store(sr, 0, () => { load(sr, 0); c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); });
    });
  };

  /** (re, im) := (re, im) / (l_i, di) by Smith's first branch: r = di / l, den = l + di r. */
  const divide = (i: number, di: number): void => {
    c.f64x2(di).get(SCR).simdMem(SIMD.load, 0, at(i, i)).simd(SIMD.f64x2Div).set(r);
    c.get(SCR).simdMem(SIMD.load, 0, at(i, i)).f64x2(di).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(den);
    c.get(re).get(im).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).get(den).simd(SIMD.f64x2Div);
    c.get(im).get(re).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).get(den).simd(SIMD.f64x2Div).set(im).set(re);
  };

  /**
   * One right-hand side of both matrices (at b0, b1): forward with T(i, k) = F(i, k) (the
   * diagonal's stored imaginary part read as sign 0: -0 upper), backward with T(i, k) =
   * conj(F(k, i)) (-0 lower). Each element's terms in a runtime loop over k (sr at T(i, k), xp at x_k).
   */
  const solveColumn = (): void => {
    /**
     * re -= tr xr - ti xi; im -= tr xi + ti xr with T(i, k) = (tr, ti) from sr; with `conj`, T(i, k)
     * = conj(F) = (fr, -fi) as re -= fr xr + fi xi; im -= fr xi - fi xr, the same bits.
     */
    const term = (conj: boolean): void => {
      load(xp, X0); c.set(xr);
      load(xp, X0 + 16); c.set(xi);
      c.get(re); load(sr, 0); c.get(xr).simd(SIMD.f64x2Mul); load(sr, 16); c.get(xi).simd(SIMD.f64x2Mul);
      c.simd(conj ? SIMD.f64x2Add : SIMD.f64x2Sub).simd(SIMD.f64x2Sub).set(re);
      c.get(im); load(sr, 0); c.get(xi).simd(SIMD.f64x2Mul); load(sr, 16); c.get(xr).simd(SIMD.f64x2Mul);
      c.simd(conj ? SIMD.f64x2Sub : SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(im);
    };
    for (let i = 0; i < n; i++) {
      split(b0, i * E, b1, i * E);
      if (i > 0) loop(i, [[sr, from(SCR, at(i, 0)), colAt(1)], [xp, local(SCR), 32]], () => term(false));
      divide(i, upper ? -0 : 0);
      toScratch(xAt(i), local(re));
      toScratch(xAt(i) + 16, local(im));
    }
    for (let i = n - 1; i >= 0; i--) {
      scratch(xAt(i)); c.set(re);
      scratch(xAt(i) + 16); c.set(im);
      if (i < n - 1) loop(n - 1 - i, [[sr, from(SCR, at(i + 1, i)), SLOT], [xp, from(SCR, (i + 1) * 32), 32]], () => term(true));
      divide(i, upper ? 0 : -0);
      if (i > 0) {
        toScratch(xAt(i), local(re));
        toScratch(xAt(i) + 16, local(im));
      }
      join(b0, i * E, b1, i * E, local(re), local(im));
    }
  };

  c.get(NRHS).i32(n * E).op(OP.i32Mul).set(bMat);
  c.loop_(() => {
    c.op(OP.block, OP.void); // the pair done
    c.op(OP.block, OP.void); // left by a failing step
    for (let j = 0; j < n; j++) factorColumn(j);
    writeBack();
    c.get(INFO).i32(0).mem(OP.i32Store, 2, 0);
    c.get(INFO).i32(0).mem(OP.i32Store, 2, 4);
    {
      if (p.roundFactor) roundFactor();
      c.get(NRHS).if_(() => {
        c.get(B).set(b0);
        c.get(B).get(bMat).op(OP.i32Add).set(b1);
        c.get(NRHS).set(rhs);
        c.loop_(() => {
          solveColumn();
          c.get(b0).i32(n * E).op(OP.i32Add).set(b0);
          c.get(b1).i32(n * E).op(OP.i32Add).set(b1);
          c.get(rhs).i32(1).op(OP.i32Sub).tee(rhs);
        });
      });
    }
    c.op(OP.br, 1);
    c.op(OP.end);
    c.get(INFO).i32(ZPOTRF_PAIR_REDO).mem(OP.i32Store, 2, 0);
    c.get(INFO).i32(ZPOTRF_PAIR_REDO).mem(OP.i32Store, 2, 4);
    c.op(OP.end);
    c.get(A).i32(2 * MAT).op(OP.i32Add).set(A);
    c.get(B).get(bMat).get(bMat).op(OP.i32Add).op(OP.i32Add).set(B);
    c.get(INFO).i32(8).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'zpotrf2', params, results: [], code: c }]);
}

/**
 * Generated WebAssembly SIMD complex LU with partial pivoting (getrf, and gesv's solve) for one
 * order n, two matrices at a time: one f64x2 holds the real parts of the same element of both,
 * another their imaginary parts. The matrices lie as for kernels/zgetrf-wasm.ts (float64 pairs,
 * ld = n, back to back; B after them, nrhs columns a matrix; n pivots and one info a matrix);
 * the kernel splits a pair into a scratch as it reads it and interleaves the factor back.
 *
 * Each lane performs the complex reference's operations (src/cpu/complex/zgetrf.ts, zsolve.ts,
 * ztrsm.ts solveVector, scalar.ts divideInto) in its order, so results are bitwise its own:
 * - the pivot search keeps, per lane, the first row of largest |re| + |im| by compare and
 *   bitselect down the column (`t > pm` only: a NaN never wins, ties keep the earlier row);
 * - each lane's row interchange moves that lane's 8-byte parts at addresses from its own pivot;
 * - the pivot's reciprocal and the solve's divisions are Smith's, both branches computed and
 *   selected per lane (|br| >= |bi|), so a lane takes exactly the reference's branch;
 * - the column scaling and the rank-1 update A(i, c) -= L(i, j) U(j, c) are re = xr rr - xi ri,
 *   im = xr ri + xi rr and re -= lr ur - li ui, im -= lr ui + li ur on whole vectors: four
 *   multiplies and four adds a complex element for two matrices, no lane swaps or splats, and
 *   the serial chain of each step (search, reciprocal) shared by both matrices.
 *
 * A pair where either matrix meets a pivot that is zero, not finite, or whose parts are both
 * below the safe minimum (where the reference divides instead of scaling, or reports info)
 * leaves its A and B untouched and its two info entries ZGETRF_PAIR_REDO: the driver runs the
 * one-matrix kernel on both, which handles those cases as the reference does. So a pair that
 * completes has info 0 in both lanes, and gesv solves both: B's rows interchanged per lane, then
 * unit L forward and U backward, each element's products in the reference's ascending order.
 * complex64's gesv solves with the factor rounded to float32, as the reference reads it back.
 */
import type { LuOp } from './getrf-js.js';
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

export interface ZgetrfInterleavedParams {
  /** getrf or gesv (getrs stays on the one-matrix kernel). */
  readonly op: Exclude<LuOp, 'getrs'>;
  readonly n: number;
  /** gesv on complex64: the solve reads the factor rounded to float32 (as stored, as the reference). */
  readonly roundFactor: boolean;
}

/** The info a pair it hands back leaves in both entries: the driver reruns both on the one-matrix kernel. */
export const ZGETRF_PAIR_REDO = -2;

const E = 16; // bytes of one complex128
/** Bytes of one split element in the scratch: both real parts, then both imaginary parts. */
const SLOT = 32;
/** i8x16.shuffle lanes: lane 0 of each operand, and lane 1 of each. */
const LO = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
const HI = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];
/** LAPACK's dlamch('S'): below it (both parts) the reference divides by the pivot instead of scaling. */
const SAFE_MIN = 2.2250738585072014e-308;

/**
 * Bytes of the kernel's scratch (reused by every pair): the split matrix and B's nrhs split
 * columns beside it, and the solve's divisors (three vectors a row).
 */
export const zgetrfInterleavedScratch = (n: number, nrhs: number): number => n * (n + nrhs) * SLOT + n * 48;

/**
 * Exported `zgetrf2(a, b, piv, info, pairs, nrhs, scratch)`: byte addresses of the first A, B,
 * int32 pivots and int32 infos, the number of pairs, B's columns (gesv), and a scratch of
 * zgetrfInterleavedScratch(n) bytes (16-byte aligned).
 */
export function generateZgetrfInterleaved(p: ZgetrfInterleavedParams): Uint8Array<ArrayBuffer> {
  const { n } = p;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, B, PIV, INFO, COUNT, NRHS, SCR] = [0, 1, 2, 3, 4, 5, 6];
  const i32 = (): number => c.local('i32');
  const v = (): number => c.local('v128');
  const bMat = i32(), b0 = i32(), b1 = i32(), rhs = i32(), cnt = i32();
  const tf = c.local('f64');
  const colp = i32(), dp = i32();
  const sp = i32(), ap = i32(), xp = i32(), x = i32(), y = i32(), p0 = i32(), p1 = i32();
  const pv = v(), mask = v(), pr = v(), pi = v(), rr = v(), ri = v(), ur = v(), ui = v();
  const re = v(), im = v(), t0 = v(), t1 = v(), xr = v(), xi = v();
  const big = v(), small = v(), r = v(), den = v();
  const lr = Array.from({ length: n }, v), li = Array.from({ length: n }, v);
  // the pivot search's values and row offsets, and the sum of the values
  const tv = Array.from({ length: n }, v), ti = Array.from({ length: n }, v), sum = v();
  const MAT = n * n * E; // bytes from a pair's first matrix to its second
  /** Byte offset of split element (i, k) in the scratch (column-major, ld = n). */
  const at = (i: number, k: number): number => (i + k * n) * SLOT;
  /** B's columns follow A's in the scratch (gesv): nb = n + nrhs columns in all. */
  const gesv = p.op === 'gesv';
  const columns = (extra: number) => (): void => { if (gesv) c.get(NRHS).i32(extra).op(OP.i32Add); else c.i32(extra); };

  const get = (l: number) => (): void => { c.get(l); };
  const load = (base: number, off: number): void => { c.get(base).simdMem(SIMD.load, 4, off); };
  const store = (base: number, off: number, value: () => void): void => { c.get(base); value(); c.simdMem(SIMD.store, 4, off); };
  /**
   * A runtime loop of `trips` (> 0) trips over pointers: each starts at its value and steps by
   * its stride (loops keep the module small, as in kernels/zpotrf-interleaved.ts).
   */
  const loop = (trips: number | (() => void), pointers: readonly (readonly [number, () => void, number])[], body: () => void, counter = cnt): void => {
    for (const [ptr, start] of pointers) { start(); c.set(ptr); }
    if (typeof trips === 'number') c.i32(trips); else trips();
    c.set(counter);
    c.loop_(() => {
      body();
      for (const [ptr, , stride] of pointers) c.get(ptr).i32(stride).op(OP.i32Add).set(ptr);
      c.get(counter).i32(1).op(OP.i32Sub).tee(counter);
    });
  };
  const from = (base: number, off: number) => (): void => { c.get(base).i32(off).op(OP.i32Add); };
  /** Pushes |re| + |im| of the split element at base + off (the reference's abs1, per lane). */
  const abs1 = (base: number, off: number): void => {
    load(base, off); c.simd(SIMD.f64x2Abs);
    load(base, off + 16); c.simd(SIMD.f64x2Abs);
    c.simd(SIMD.f64x2Add);
  };
  /** Pushes bitselect(a, b, m): a's bits where m's are set, b's elsewhere. */
  const select = (a: () => void, b: () => void, m: number): void => { a(); b(); c.get(m).simd(SIMD.v128Bitselect); };

  /**
   * (outRe, outIm) := (nr + i ni) / (br + i bi) by Smith's algorithm per lane (scalar.ts
   * divideInto): both branches' operations as the reference orders them, each lane's result
   * from its own branch (|br| >= |bi|: NaN takes the second, as the reference's test).
   */
  const divide = (nr: () => void, ni: () => void, br: number, bi: number, outRe: number, outIm: number): void => {
    c.get(br).simd(SIMD.f64x2Abs).get(bi).simd(SIMD.f64x2Abs).simd(SIMD.f64x2Ge).set(mask);
    select(get(br), get(bi), mask); c.set(big);
    select(get(bi), get(br), mask); c.set(small);
    // r = bi / br | br / bi; d = br + bi r | bi + br r
    c.get(small).get(big).simd(SIMD.f64x2Div).set(r);
    c.get(big).get(small).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(den);
    // re = (nr + ni r) / d | (nr r + ni) / d; im = (ni - nr r) / d | (ni r - nr) / d
    select(() => { nr(); ni(); c.get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add); },
      () => { nr(); c.get(r).simd(SIMD.f64x2Mul); ni(); c.simd(SIMD.f64x2Add); }, mask);
    c.get(den).simd(SIMD.f64x2Div);
    select(() => { ni(); nr(); c.get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); },
      () => { ni(); c.get(r).simd(SIMD.f64x2Mul); nr(); c.simd(SIMD.f64x2Sub); }, mask);
    c.get(den).simd(SIMD.f64x2Div).set(outIm).set(outRe);
  };

  /** The pair split into the scratch, a column per loop trip. */
  const splitIn = (): void => {
    loop(n, [[ap, get(A), n * E], [sp, get(SCR), n * SLOT]], () => {
      for (let i = 0; i < n; i++) {
        load(ap, i * E); c.set(t0);
        load(ap, i * E + MAT); c.set(t1);
        store(sp, i * SLOT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
        store(sp, i * SLOT + 16, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
      }
    });
  };
  /** The factor back over both matrices, interleaved. */
  const writeBack = (): void => {
    loop(n, [[ap, get(A), n * E], [sp, get(SCR), n * SLOT]], () => {
      for (let i = 0; i < n; i++) {
        load(sp, i * SLOT); c.set(t0);
        load(sp, i * SLOT + 16); c.set(t1);
        store(ap, i * E, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
        store(ap, i * E + MAT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
      }
    });
  };

  /** Lane `lane`'s rows j and p (the byte offset p SLOT in local `prow`) exchanged in every column, B's too. */
  const swapLane = (j: number, prow: number, lane: number): void => {
    loop(columns(n), [[x, from(SCR, j * SLOT + 8 * lane), n * SLOT], [y, () => { c.get(SCR).get(prow).op(OP.i32Add).i32(8 * lane).op(OP.i32Add); }, n * SLOT]], () => {
      for (const off of [0, 16]) {
        c.get(x).mem(OP.f64Load, 3, off).set(tf);
        c.get(x).get(y).mem(OP.f64Load, 3, off).mem(OP.f64Store, 3, off);
        c.get(y).get(tf).mem(OP.f64Store, 3, off);
      }
    });
  };

  const step = (j: number): void => {
    // pivot search: per lane the first row of largest |re| + |im|, its byte offset i SLOT in pv,
    // as a tree (the rows' values independent, log2 of the rows' compares in a chain): a right
    // half's winner displaces the left's only if strictly larger, so the first largest wins, as
    // the reference's scan where no value is NaN. A NaN anywhere in the column makes the sum of
    // the values NaN, and the pair goes back (below) before any result of the search is used.
    const rows = n - j;
    for (let k = 0; k < rows; k++) { abs1(SCR, at(j + k, j)); c.set(tv[k]!); }
    c.get(tv[0]!);
    for (let k = 1; k < rows; k++) c.get(tv[k]!).simd(SIMD.f64x2Add);
    c.set(sum);
    const idx = (k: number, w: number): void => { if (w === 1) c.i64x2((j + k) * SLOT); else c.get(ti[k]!); };
    for (let w = 1; w < rows; w *= 2) {
      for (let k = 0; k + w < rows; k += 2 * w) {
        const right = k + w;
        c.get(tv[right]!).get(tv[k]!).simd(SIMD.f64x2Gt).set(mask);
        select(get(tv[right]!), get(tv[k]!), mask); c.set(tv[k]!);
        select(() => idx(right, w), () => idx(k, w), mask); c.set(ti[k]!);
      }
      // a node without a right sibling keeps its constant index as a local for the next level
      for (let k = 0; k < rows; k += 2 * w) if (k + w >= rows && w === 1) { c.i64x2((j + k) * SLOT).set(ti[k]!); }
    }
    if (rows === 1) c.i64x2(j * SLOT).set(ti[0]!);
    c.get(ti[0]!).set(pv);
    c.get(pv).simd(SIMD.i64x2ExtractLane, 0).op(OP.i32WrapI64).set(p0);
    c.get(pv).simd(SIMD.i64x2ExtractLane, 1).op(OP.i32WrapI64).set(p1);
    c.get(PIV).get(p0).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, 4 * j);
    c.get(PIV).get(p1).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, 4 * n + 4 * j);
    // the interchanges (rows j and p of the whole matrix), each lane its own
    c.get(p0).i32(j * SLOT).op(OP.i32Ne).if_(() => swapLane(j, p0, 0));
    c.get(p1).i32(j * SLOT).op(OP.i32Ne).if_(() => swapLane(j, p1, 1));
    load(SCR, at(j, j)); c.set(pr);
    load(SCR, at(j, j) + 16); c.set(pi);
    // every value of the column finite (so the pivot's parts) and one of the pivot's parts at least
    // the safe minimum, in both lanes, else the pair goes back (labels: 0 this if, 1 the pair's
    // failing block)
    c.f64x2(Infinity).get(sum).simd(SIMD.f64x2Gt);
    c.get(pr).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge);
    c.get(pi).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge).simd(SIMD.v128Or).simd(SIMD.v128And);
    c.simd(SIMD.v128Not).simd(SIMD.v128AnyTrue).if_(() => { c.op(OP.br, 1); });
    if (j === n - 1) return;
    // the reciprocal 1 / (pr + i pi), then the column below the diagonal scaled by it
    divide(() => c.f64x2(1), () => c.f64x2(0), pr, pi, rr, ri);
    for (let i = j + 1; i < n; i++) {
      load(SCR, at(i, j)); c.set(xr);
      load(SCR, at(i, j) + 16); c.set(xi);
      c.get(xr).get(rr).simd(SIMD.f64x2Mul).get(xi).get(ri).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(lr[i]!);
      c.get(xr).get(ri).simd(SIMD.f64x2Mul).get(xi).get(rr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(li[i]!);
      store(SCR, at(i, j), get(lr[i]!));
      store(SCR, at(i, j) + 16, get(li[i]!));
    }
    // rank-1 update of columns j + 1 .. n - 1 and of B's columns (gesv: the forward solve with L
    // fused, below), a column per trip (sp at its top)
    const rounded = p.roundFactor && gesv;
    loop(rounded ? n - 1 - j : columns(n - 1 - j), [[sp, from(SCR, at(0, j + 1)), n * SLOT]], () => updateColumn(j, false));
    if (rounded) {
      c.get(NRHS).if_(() => loop(get(NRHS), [[sp, from(SCR, at(0, n)), n * SLOT]], () => updateColumn(j, true)));
    }
  };

  /**
   * A(i, col) -= L(i, j) U(j, col), rows j + 1 .. n - 1 of the column at sp. On a column of B
   * this is the forward solve's term in the reference's order: zgetrs applies the interchanges
   * to B first and then subtracts L(i, j) y(j) for ascending j, and here each row of B moves
   * with its multipliers and meets the same terms in the same order. complex64's solve reads L
   * rounded to float32 (`roundL`), as the reference reads the stored factor.
   */
  const updateColumn = (j: number, roundL: boolean): void => {
    load(sp, j * SLOT); c.set(ur);
    load(sp, j * SLOT + 16); c.set(ui);
    const l = (v: number) => (): void => { c.get(v); if (roundL) c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); };
    for (let i = j + 1; i < n; i++) {
      const lre = l(lr[i]!), lim = l(li[i]!);
      store(sp, i * SLOT, () => {
        load(sp, i * SLOT);
        lre(); c.get(ur).simd(SIMD.f64x2Mul); lim(); c.get(ui).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub);
      });
      store(sp, i * SLOT + 16, () => {
        load(sp, i * SLOT + 16);
        lre(); c.get(ui).simd(SIMD.f64x2Mul); lim(); c.get(ur).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub);
      });
    }
  };

  /** complex64: the factor in the scratch rounded to float32, as the solve reads it back. */
  const roundFactor = (): void => {
    loop(n, [[sp, get(SCR), n * SLOT]], () => {
      for (let h = 0; h < 2 * n; h++) {
        store(sp, 16 * h, () => { load(sp, 16 * h); c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); });
      }
    });
  };

  /** B's columns of the pair split into the scratch beside A's (gesv, nrhs > 0). */
  const splitB = (): void => {
    c.get(B).get(bMat).op(OP.i32Add).set(b1);
    loop(get(NRHS), [[ap, get(B), n * E], [x, get(b1), n * E], [sp, from(SCR, at(0, n)), n * SLOT]], () => {
      for (let i = 0; i < n; i++) {
        load(ap, i * E); c.set(t0);
        load(x, i * E); c.set(t1);
        store(sp, i * SLOT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
        store(sp, i * SLOT + 16, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
      }
    });
  };
  /**
   * Smith's division's divisor-only values for each U(i, i) (the factor as the solve reads it):
   * the branch mask, r and d, three vectors at dp + 48 i, so that each x(i)'s chain holds only
   * the numerator's operations and one division by d.
   */
  const divisors = (): void => {
    for (let i = 0; i < n; i++) {
      load(SCR, at(i, i)); c.set(pr);
      load(SCR, at(i, i) + 16); c.set(pi);
      c.get(pr).simd(SIMD.f64x2Abs).get(pi).simd(SIMD.f64x2Abs).simd(SIMD.f64x2Ge).set(mask);
      select(get(pr), get(pi), mask); c.set(big);
      select(get(pi), get(pr), mask); c.set(small);
      c.get(small).get(big).simd(SIMD.f64x2Div).set(r);
      store(dp, 48 * i, get(mask));
      store(dp, 48 * i + 16, get(r));
      store(dp, 48 * i + 32, () => c.get(big).get(small).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add));
    }
  };
  /** re -= tr xr - ti xi; im -= tr xi + ti xr: T at sp, x at xp (the reference's solveVector term). */
  const term = (): void => {
    load(xp, 0); c.set(xr);
    load(xp, 16); c.set(xi);
    c.get(re); load(sp, 0); c.get(xr).simd(SIMD.f64x2Mul); load(sp, 16); c.get(xi).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub).set(re);
    c.get(im); load(sp, 0); c.get(xi).simd(SIMD.f64x2Mul); load(sp, 16); c.get(xr).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(im);
  };
  /**
   * U x = y for the split column at colp (y there, from the factorisation's fused forward solve),
   * x(i) to both matrices' B at b0, b1: each x(i)'s products in ascending k, then Smith's
   * division with the divisor's values from `divisors`, the reference's branch per lane.
   */
  const backward = (): void => {
    for (let i = n - 1; i >= 0; i--) {
      load(colp, i * SLOT); c.set(re);
      load(colp, i * SLOT + 16); c.set(im);
      if (i < n - 1) loop(n - 1 - i, [[sp, from(SCR, at(i, i + 1)), n * SLOT], [xp, from(colp, (i + 1) * SLOT), SLOT]], term);
      load(dp, 48 * i); c.set(mask);
      load(dp, 48 * i + 16); c.set(r);
      // re = (re + im r) / d | (re r + im) / d; im = (im - re r) / d | (im r - re) / d
      select(() => { c.get(re).get(im).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add); },
        () => { c.get(re).get(r).simd(SIMD.f64x2Mul).get(im).simd(SIMD.f64x2Add); }, mask);
      load(dp, 48 * i + 32); c.simd(SIMD.f64x2Div);
      select(() => { c.get(im).get(re).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); },
        () => { c.get(im).get(r).simd(SIMD.f64x2Mul).get(re).simd(SIMD.f64x2Sub); }, mask);
      load(dp, 48 * i + 32); c.simd(SIMD.f64x2Div).set(im).set(re);
      if (i > 0) {
        store(colp, i * SLOT, get(re));
        store(colp, i * SLOT + 16, get(im));
      }
      store(b0, i * E, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, LO));
      store(b1, i * E, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, HI));
    }
  };

  c.get(NRHS).i32(n * E).op(OP.i32Mul).set(bMat);
  // the divisors after A's and B's columns
  c.get(SCR).get(NRHS).i32(n).op(OP.i32Add).i32(n * SLOT).op(OP.i32Mul).op(OP.i32Add).set(dp);
  c.loop_(() => {
    c.op(OP.block, OP.void); // the pair done
    c.op(OP.block, OP.void); // left by a pivot the pair does not take
    splitIn();
    if (gesv) c.get(NRHS).if_(splitB);
    for (let j = 0; j < n; j++) step(j);
    writeBack();
    c.get(INFO).i32(0).mem(OP.i32Store, 2, 0);
    c.get(INFO).i32(0).mem(OP.i32Store, 2, 4);
    if (gesv) {
      c.get(NRHS).if_(() => {
        if (p.roundFactor) roundFactor();
        divisors();
        c.get(B).get(bMat).op(OP.i32Add).set(b1);
        loop(get(NRHS), [[b0, get(B), n * E], [b1, get(b1), n * E], [colp, from(SCR, at(0, n)), n * SLOT]], backward, rhs);
      });
    }
    c.op(OP.br, 1);
    c.op(OP.end);
    c.get(INFO).i32(ZGETRF_PAIR_REDO).mem(OP.i32Store, 2, 0);
    c.get(INFO).i32(ZGETRF_PAIR_REDO).mem(OP.i32Store, 2, 4);
    c.op(OP.end);
    c.get(A).i32(2 * MAT).op(OP.i32Add).set(A);
    c.get(B).get(bMat).get(bMat).op(OP.i32Add).op(OP.i32Add).set(B);
    c.get(PIV).i32(8 * n).op(OP.i32Add).set(PIV);
    c.get(INFO).i32(8).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'zgetrf2', params, results: [], code: c }]);
}

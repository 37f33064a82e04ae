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
 * A trip (`pairs` pairs) where any matrix meets a pivot that is zero, not finite, or whose parts
 * are both below the safe minimum (where the reference divides instead of scaling, or reports
 * info) leaves its A and B untouched (the work is in the scratch) and its info entries
 * ZGETRF_PAIR_REDO: the driver runs the one-matrix kernel on those matrices, which handles such
 * cases as the reference does. So a trip that completes has info 0 in every lane, and gesv
 * solves them all: B's rows interchanged per lane, then unit L forward and U backward, each
 * element's products in the reference's ascending order. complex64's gesv solves with the factor
 * rounded to float32, as the reference reads it back.
 *
 * The steps are unrolled (offsets constant), the trailing update a runtime loop over columns with
 * the rows unrolled, the solve's products runtime loops. The module grows with n^2 and two pairs
 * a trip double it: past about 50 kB (n = 16, one pair) it runs slower than the work it saves
 * (tuning.ts complexLuWasmPairs, complexLuWasmQuadMax).
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
  /**
   * Pairs per trip (1 or 2): with 2, two pairs' instructions run side by side phase by phase, so
   * that each step's serial chain (pivot search, reciprocal) and each substitution's chain
   * overlap the other pair's.
   */
  readonly pairs: number;
}

/** The info a pair it hands back leaves in its entries (a trip's pairs all): the driver reruns them on the one-matrix kernel. */
export const ZGETRF_PAIR_REDO = -2;

const E = 16; // bytes of one complex128
/** Bytes of one split element in the scratch: both real parts, then both imaginary parts. */
const SLOT = 32;
/** i8x16.shuffle lanes: lane 0 of each operand, and lane 1 of each. */
const LO = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
const HI = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];
/** LAPACK's dlamch('S'): below it (both parts) the reference divides by the pivot instead of scaling. */
const SAFE_MIN = 2.2250738585072014e-308;

/** Bytes of one pair's scratch: the split matrix and one split column of B. */
const pairScratch = (n: number): number => n * n * SLOT + n * SLOT;
/** Bytes of the kernel's scratch (reused by every trip). */
export const zgetrfInterleavedScratch = (n: number, pairs: number): number => pairs * pairScratch(n);

/**
 * Exported `zgetrf2(a, b, piv, info, trips, nrhs, scratch)`: byte addresses of the first A, B,
 * int32 pivots and int32 infos, the number of trips (`pairs` pairs each), B's columns (gesv),
 * and a scratch of zgetrfInterleavedScratch(n, pairs) bytes (16-byte aligned).
 */
export function generateZgetrfInterleaved(p: ZgetrfInterleavedParams): Uint8Array<ArrayBuffer> {
  const { n } = p;
  const G = Math.max(1, p.pairs);
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, B, PIV, INFO, COUNT, NRHS, SCR] = [0, 1, 2, 3, 4, 5, 6];
  const i32 = (): number => c.local('i32');
  const v = (): number => c.local('v128');
  const bMat = i32(), rhs = i32(), cnt = i32();
  const tf = c.local('f64');
  const sp = i32(), ap = i32(), xp = i32(), x = i32(), y = i32();
  const MAT = n * n * E; // bytes from a pair's first matrix to its second
  const S = pairScratch(n);
  /**
   * Pair g of a trip: its matrices at A + 2 g MAT and one MAT on, pivots at PIV + 8 n g (the
   * second matrix's 4 n on), infos at INFO + 8 g, scratch from SCR + g S; its B columns at b0
   * and b1; and its vectors.
   */
  const members = Array.from({ length: G }, (_, g) => ({
    a: 2 * g * MAT, piv: 8 * n * g, info: 8 * g, s: g * S,
    b0: i32(), b1: i32(), p0: i32(), p1: i32(),
    t: v(), pm: v(), pv: v(), mask: v(), pr: v(), pi: v(), rr: v(), ri: v(), ur: v(), ui: v(),
    re: v(), im: v(), t0: v(), t1: v(), xr: v(), xi: v(), big: v(), small: v(), r: v(), den: v(),
    lr: Array.from({ length: n }, v), li: Array.from({ length: n }, v),
  }));
  type Member = (typeof members)[number];
  const each = (f: (m: Member) => void): void => { for (const m of members) f(m); };
  /** Byte offset of split element (i, k) in a pair's scratch (column-major, ld = n). */
  const at = (i: number, k: number): number => (i + k * n) * SLOT;
  /** The solve's split right-hand side, element i. */
  const X0 = n * n * SLOT;
  const xAt = (i: number): number => X0 + i * SLOT;

  const get = (l: number) => (): void => { c.get(l); };
  const load = (base: number, off: number): void => { c.get(base).simdMem(SIMD.load, 4, off); };
  const store = (base: number, off: number, value: () => void): void => { c.get(base); value(); c.simdMem(SIMD.store, 4, off); };
  /**
   * A runtime loop of `trips` (> 0) trips over pointers: each starts at its value and steps by
   * its stride (loops keep the module small, as in kernels/zpotrf-interleaved.ts).
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
  const divide = (m: Member, nr: () => void, ni: () => void, br: number, bi: number, outRe: number, outIm: number): void => {
    const { mask, big, small, r, den } = m;
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

  /** The trip's pairs split into their scratches, a column per loop trip. */
  const splitIn = (): void => {
    loop(n, [[ap, get(A), n * E], [sp, get(SCR), n * SLOT]], () => {
      for (let i = 0; i < n; i++) {
        each(({ a, s, t0, t1 }) => {
          load(ap, a + i * E); c.set(t0);
          load(ap, a + i * E + MAT); c.set(t1);
          store(sp, s + i * SLOT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
          store(sp, s + i * SLOT + 16, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
        });
      }
    });
  };
  /** The factors back over the matrices, interleaved. */
  const writeBack = (): void => {
    loop(n, [[ap, get(A), n * E], [sp, get(SCR), n * SLOT]], () => {
      for (let i = 0; i < n; i++) {
        each(({ a, s, t0, t1 }) => {
          load(sp, s + i * SLOT); c.set(t0);
          load(sp, s + i * SLOT + 16); c.set(t1);
          store(ap, a + i * E, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
          store(ap, a + i * E + MAT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
        });
      }
    });
  };

  /** Lane `lane`'s rows j and p (the byte offset p SLOT in local `prow`) of the scratch at SCR + s exchanged in every column. */
  const swapLane = (s: number, j: number, prow: number, lane: number): void => {
    const rowP = (): void => { c.get(SCR).get(prow).op(OP.i32Add).i32(s + 8 * lane).op(OP.i32Add); };
    loop(n, [[x, from(SCR, s + j * SLOT + 8 * lane), n * SLOT], [y, rowP, n * SLOT]], () => {
      for (const off of [0, 16]) {
        c.get(x).mem(OP.f64Load, 3, off).set(tf);
        c.get(x).get(y).mem(OP.f64Load, 3, off).mem(OP.f64Store, 3, off);
        c.get(y).get(tf).mem(OP.f64Store, 3, off);
      }
    });
  };

  const step = (j: number): void => {
    // pivot search: per lane the first row of largest |re| + |im| (`t > pm` only), its byte offset i SLOT in pv
    each(({ s, pm, pv }) => { abs1(SCR, s + at(j, j)); c.set(pm); c.i64x2(j * SLOT).set(pv); });
    for (let i = j + 1; i < n; i++) {
      each(({ s, t, pm, pv, mask }) => {
        abs1(SCR, s + at(i, j)); c.tee(t).get(pm).simd(SIMD.f64x2Gt).set(mask);
        select(get(t), get(pm), mask); c.set(pm);
        select(() => c.i64x2(i * SLOT), get(pv), mask); c.set(pv);
      });
    }
    each(({ piv, pv, p0, p1 }) => {
      c.get(pv).simd(SIMD.i64x2ExtractLane, 0).op(OP.i32WrapI64).set(p0);
      c.get(pv).simd(SIMD.i64x2ExtractLane, 1).op(OP.i32WrapI64).set(p1);
      c.get(PIV).get(p0).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, piv + 4 * j);
      c.get(PIV).get(p1).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, piv + 4 * n + 4 * j);
    });
    // the interchanges (rows j and p of the whole matrix), each lane its own
    each(({ s, p0, p1 }) => {
      c.get(p0).i32(j * SLOT).op(OP.i32Ne).if_(() => swapLane(s, j, p0, 0));
      c.get(p1).i32(j * SLOT).op(OP.i32Ne).if_(() => swapLane(s, j, p1, 1));
    });
    // both parts finite and one at least the safe minimum in every lane, else the trip's pairs
    // go back (labels: 0 this if, 1 the trip's failing block)
    each(({ s, pr, pi }) => {
      load(SCR, s + at(j, j)); c.set(pr);
      load(SCR, s + at(j, j) + 16); c.set(pi);
    });
    members.forEach(({ pr, pi }, g) => {
      c.f64x2(Infinity).get(pr).simd(SIMD.f64x2Abs).simd(SIMD.f64x2Gt);
      c.f64x2(Infinity).get(pi).simd(SIMD.f64x2Abs).simd(SIMD.f64x2Gt).simd(SIMD.v128And);
      c.get(pr).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge);
      c.get(pi).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge).simd(SIMD.v128Or).simd(SIMD.v128And);
      if (g > 0) c.simd(SIMD.v128And);
    });
    c.simd(SIMD.v128Not).simd(SIMD.v128AnyTrue).if_(() => { c.op(OP.br, 1); });
    if (j === n - 1) return;
    // the reciprocal 1 / (pr + i pi), then the column below the diagonal scaled by it
    each((m) => divide(m, () => c.f64x2(1), () => c.f64x2(0), m.pr, m.pi, m.rr, m.ri));
    for (let i = j + 1; i < n; i++) {
      each(({ s, xr, xi, rr, ri, lr, li }) => {
        load(SCR, s + at(i, j)); c.set(xr);
        load(SCR, s + at(i, j) + 16); c.set(xi);
        c.get(xr).get(rr).simd(SIMD.f64x2Mul).get(xi).get(ri).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(lr[i]!);
        c.get(xr).get(ri).simd(SIMD.f64x2Mul).get(xi).get(rr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(li[i]!);
        store(SCR, s + at(i, j), get(lr[i]!));
        store(SCR, s + at(i, j) + 16, get(li[i]!));
      });
    }
    // rank-1 update of columns j + 1 .. n - 1, a column of every pair per trip (sp at the first pair's column top)
    loop(n - 1 - j, [[sp, from(SCR, at(0, j + 1)), n * SLOT]], () => {
      each(({ s, ur, ui }) => {
        load(sp, s + j * SLOT); c.set(ur);
        load(sp, s + j * SLOT + 16); c.set(ui);
      });
      for (let i = j + 1; i < n; i++) {
        each(({ s, ur, ui, lr, li }) => {
          const o = s + i * SLOT;
          store(sp, o, () => {
            load(sp, o);
            c.get(lr[i]!).get(ur).simd(SIMD.f64x2Mul).get(li[i]!).get(ui).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub);
          });
          store(sp, o + 16, () => {
            load(sp, o + 16);
            c.get(lr[i]!).get(ui).simd(SIMD.f64x2Mul).get(li[i]!).get(ur).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub);
          });
        });
      }
    });
  };

  /** complex64: the factors in the scratch rounded to float32, as the solve reads them back. */
  const roundFactor = (): void => {
    loop(n, [[sp, get(SCR), n * SLOT]], () => {
      each(({ s }) => {
        for (let h = 0; h < 2 * n; h++) {
          store(sp, s + 16 * h, () => { load(sp, s + 16 * h); c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); });
        }
      });
    });
  };

  /** B's rows of the column at local bq interchanged by the pivots at PIV + pivOff, in order. */
  const interchange = (bq: number, pivOff: number, t0: number): void => {
    for (let j = 0; j < n - 1; j++) {
      c.get(PIV).mem(OP.i32Load, 2, pivOff + 4 * j).tee(x).i32(j).op(OP.i32Ne).if_(() => {
        c.get(bq).get(x).i32(4).op(OP.i32Shl).op(OP.i32Add).set(y);
        load(bq, j * E); c.set(t0);
        store(bq, j * E, () => load(y, 0));
        store(y, 0, get(t0));
      });
    }
  };
  /** re -= tr xr - ti xi; im -= tr xi + ti xr: T at sp + s, x at xp + s (the reference's solveVector term). */
  const term = ({ s, re, im, xr, xi }: Member): void => {
    load(xp, s); c.set(xr);
    load(xp, s + 16); c.set(xi);
    c.get(re); load(sp, s); c.get(xr).simd(SIMD.f64x2Mul); load(sp, s + 16); c.get(xi).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub).set(re);
    c.get(im); load(sp, s); c.get(xi).simd(SIMD.f64x2Mul); load(sp, s + 16); c.get(xr).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(im);
  };
  /** One right-hand side of every pair (at b0, b1): P b, then L y = P b (unit), then U x = y. */
  const solveColumn = (): void => {
    each(({ b0, b1, piv, t0 }) => {
      interchange(b0, piv, t0);
      interchange(b1, piv + 4 * n, t0);
    });
    for (let i = 0; i < n; i++) {
      each(({ b0, b1, t0, t1, re, im }) => {
        load(b0, i * E); c.set(t0);
        load(b1, i * E); c.set(t1);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO).set(re);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI).set(im);
      });
      if (i > 0) loop(i, [[sp, from(SCR, at(i, 0)), n * SLOT], [xp, from(SCR, xAt(0)), SLOT]], () => each(term));
      each(({ s, re, im }) => {
        store(SCR, s + xAt(i), get(re));
        store(SCR, s + xAt(i) + 16, get(im));
      });
    }
    for (let i = n - 1; i >= 0; i--) {
      each(({ s, re, im }) => {
        load(SCR, s + xAt(i)); c.set(re);
        load(SCR, s + xAt(i) + 16); c.set(im);
      });
      if (i < n - 1) loop(n - 1 - i, [[sp, from(SCR, at(i, i + 1)), n * SLOT], [xp, from(SCR, xAt(i + 1)), SLOT]], () => each(term));
      each((m) => {
        const { s, re, im, pr, pi, b0, b1 } = m;
        load(SCR, s + at(i, i)); c.set(pr);
        load(SCR, s + at(i, i) + 16); c.set(pi);
        divide(m, get(re), get(im), pr, pi, re, im);
        if (i > 0) {
          store(SCR, s + xAt(i), get(re));
          store(SCR, s + xAt(i) + 16, get(im));
        }
        store(b0, i * E, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, LO));
        store(b1, i * E, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, HI));
      });
    }
  };

  c.get(NRHS).i32(n * E).op(OP.i32Mul).set(bMat);
  c.loop_(() => {
    c.op(OP.block, OP.void); // the trip done
    c.op(OP.block, OP.void); // left by a pivot the kernel does not take
    splitIn();
    for (let j = 0; j < n; j++) step(j);
    writeBack();
    each(({ info }) => {
      c.get(INFO).i32(0).mem(OP.i32Store, 2, info);
      c.get(INFO).i32(0).mem(OP.i32Store, 2, info + 4);
    });
    if (p.op === 'gesv') {
      if (p.roundFactor) roundFactor();
      c.get(NRHS).i32(0).op(OP.i32GtS).if_(() => {
        members.forEach(({ b0, b1 }, g) => {
          c.get(B).get(bMat).i32(2 * g).op(OP.i32Mul).op(OP.i32Add).tee(b0).get(bMat).op(OP.i32Add).set(b1);
        });
        c.get(NRHS).set(rhs);
        c.loop_(() => {
          solveColumn();
          each(({ b0, b1 }) => {
            c.get(b0).i32(n * E).op(OP.i32Add).set(b0);
            c.get(b1).i32(n * E).op(OP.i32Add).set(b1);
          });
          c.get(rhs).i32(1).op(OP.i32Sub).tee(rhs);
        });
      });
    }
    c.op(OP.br, 1);
    c.op(OP.end);
    each(({ info }) => {
      c.get(INFO).i32(ZGETRF_PAIR_REDO).mem(OP.i32Store, 2, info);
      c.get(INFO).i32(ZGETRF_PAIR_REDO).mem(OP.i32Store, 2, info + 4);
    });
    c.op(OP.end);
    c.get(A).i32(2 * G * MAT).op(OP.i32Add).set(A);
    c.get(B).get(bMat).i32(2 * G).op(OP.i32Mul).op(OP.i32Add).set(B);
    c.get(PIV).i32(8 * n * G).op(OP.i32Add).set(PIV);
    c.get(INFO).i32(8 * G).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'zgetrf2', params, results: [], code: c }]);
}

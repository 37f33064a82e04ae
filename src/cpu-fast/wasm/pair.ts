/**
 * Emitting helpers of the two-matrix complex kernels (kernels/zgeqrf-interleaved.ts,
 * zgetri-interleaved.ts): one f64x2 holds the real parts of the same element of two matrices,
 * another their imaginary parts, so a complex multiply-add is four multiplies and four adds on
 * whole vectors for both matrices. A pair is split from two float64-pair matrices (ld = rows)
 * into a scratch of PAIR_SLOT bytes an element (both real parts, then both imaginary parts),
 * worked on there, and interleaved back.
 */
import { Code, type FunctionDef, type ValType } from './emit.js';
import { OP, SIMD } from './opcodes.js';

/** Bytes of one complex128 in the callers' matrices. */
export const PAIR_E = 16;
/** Bytes of one split element in a pair's scratch: both real parts, then both imaginary parts. */
export const PAIR_SLOT = 32;
/** i8x16.shuffle lanes: lane 0 of each operand, and lane 1 of each. */
export const PAIR_LO = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
export const PAIR_HI = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];

/** A loop pointer: its local, what pushes its start, its stride in bytes a trip. */
export type LoopPointer = readonly [number, () => void, number];

/** The helpers of one function's Code (they declare the locals they need on it). */
export function pairEmitters(c: Code) {
  const counter = c.local('i32');
  const get = (l: number) => (): void => { c.get(l); };
  const load = (base: number, off: number): void => { c.get(base).simdMem(SIMD.load, 4, off); };
  const store = (base: number, off: number, value: () => void): void => { c.get(base); value(); c.simdMem(SIMD.store, 4, off); };
  /** Pushes base + off (an i32). */
  const from = (base: number, off: number) => (): void => { c.get(base).i32(off).op(OP.i32Add); };
  /**
   * A runtime loop of `trips` (> 0) trips over pointers: each starts at its value and steps by its
   * stride. Nested loops pass a counter of their own.
   */
  const loop = (trips: number, pointers: readonly LoopPointer[], body: () => void, cnt = counter): void => {
    for (const [ptr, start] of pointers) { start(); c.set(ptr); }
    c.i32(trips).set(cnt);
    c.loop_(() => {
      body();
      for (const [ptr, , stride] of pointers) c.get(ptr).i32(stride).op(OP.i32Add).set(ptr);
      c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
    });
  };
  /** Pushes bitselect(a, b, m): a's bits where m's are set, b's elsewhere. */
  const select = (a: () => void, b: () => void, m: number): void => { a(); b(); c.get(m).simd(SIMD.v128Bitselect); };
  const divideLocals = () => ({ mask: c.local('v128'), big: c.local('v128'), small: c.local('v128'), r: c.local('v128'), den: c.local('v128') });
  /**
   * (outRe, outIm) := (nr + i ni) / (br + i bi) by Smith's algorithm per lane (src/cpu/complex/
   * scalar.ts divideInto): both branches computed, each lane's result from its own (|br| >= |bi|).
   */
  const divide = (t: ReturnType<typeof divideLocals>, nr: () => void, ni: () => void, br: number, bi: number, outRe: number, outIm: number): void => {
    const { mask, big, small, r, den } = t;
    c.get(br).simd(SIMD.f64x2Abs).get(bi).simd(SIMD.f64x2Abs).simd(SIMD.f64x2Ge).set(mask);
    select(get(br), get(bi), mask); c.set(big);
    select(get(bi), get(br), mask); c.set(small);
    c.get(small).get(big).simd(SIMD.f64x2Div).set(r);
    c.get(big).get(small).get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(den);
    select(() => { nr(); ni(); c.get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add); },
      () => { nr(); c.get(r).simd(SIMD.f64x2Mul); ni(); c.simd(SIMD.f64x2Add); }, mask);
    c.get(den).simd(SIMD.f64x2Div);
    select(() => { ni(); nr(); c.get(r).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); },
      () => { ni(); c.get(r).simd(SIMD.f64x2Mul); nr(); c.simd(SIMD.f64x2Sub); }, mask);
    c.get(den).simd(SIMD.f64x2Div).set(outIm).set(outRe);
  };
  /**
   * The pair at a0 and a1 (rows x cols float64 pairs, ld = rows) split into the scratch at scr
   * (inward), or the scratch interleaved back over them; a column per loop trip. a0 = a1 is
   * allowed (a matrix paired with itself: both lanes the same). `finite`, where given, is a v128
   * local that the inward copy adds each value times zero into (NaN after it iff any value was
   * infinite or NaN); it must start at zero.
   */
  const copyPair = (inward: boolean, a0: number, a1: number, scr: number, rows: number, cols: number, finite?: number): void => {
    const [p0, p1, sp] = [c.local('i32'), c.local('i32'), c.local('i32')];
    const [t0, t1] = [c.local('v128'), c.local('v128')];
    const addFinite = (v: number): void => {
      if (finite === undefined) return;
      c.get(finite).get(v).f64x2(0).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(finite);
    };
    loop(cols, [[p0, get(a0), rows * PAIR_E], [p1, get(a1), rows * PAIR_E], [sp, get(scr), rows * PAIR_SLOT]], () => {
      for (let i = 0; i < rows; i++) {
        if (inward) {
          load(p0, i * PAIR_E); c.set(t0);
          load(p1, i * PAIR_E); c.set(t1);
          addFinite(t0); addFinite(t1);
          store(sp, i * PAIR_SLOT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, PAIR_LO));
          store(sp, i * PAIR_SLOT + 16, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, PAIR_HI));
        } else {
          load(sp, i * PAIR_SLOT); c.set(t0);
          load(sp, i * PAIR_SLOT + 16); c.set(t1);
          store(p1, i * PAIR_E, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, PAIR_HI));
          store(p0, i * PAIR_E, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, PAIR_LO));
        }
      }
    });
  };
  /** Pushes an i32 that is non-zero iff every lane of the v128 mask in local m is set. */
  const allTrue = (m: number): void => { c.get(m).simd(SIMD.i64x2AllTrue); };
  return { get, load, store, from, loop, select, divideLocals, divide, copyPair, allTrue };
}

/**
 * A multi-matrix kernel's exported loop: (a, other, ok, count, scratch) with `count` groups of
 * `group` matrices (2: a pair; 4: two pairs side by side) of `matrixBytes` at `a` and their second
 * operands (tau, pivots, V) of `otherBytes` at `other`; calls function `calleeIndex` on each group
 * (a, a', ..., other, other', ..., scratch) and stores its i32 result at `ok` (one a group).
 */
export function pairBatchFunction(name: string, matrixBytes: number, otherBytes: number, calleeIndex: number, group: 2 | 4 = 2): FunctionDef {
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, OTHER, OK, COUNT, SCR] = [0, 1, 2, 3, 4];
  /** Pushes local x + q * bytes (just x for the first). */
  const member = (x: number, q: number, bytes: number): void => { c.get(x); if (q > 0) c.i32(q * bytes).op(OP.i32Add); };
  c.op(OP.block, OP.void).op(OP.loop, OP.void);
  c.get(COUNT).i32(1).op(OP.i32LtS).op(OP.brIf, 1);
  c.get(OK);
  for (let q = 0; q < group; q++) member(A, q, matrixBytes);
  for (let q = 0; q < group; q++) member(OTHER, q, otherBytes);
  c.get(SCR).op(OP.call, calleeIndex);
  c.mem(OP.i32Store, 2, 0);
  c.get(A).i32(group * matrixBytes).op(OP.i32Add).set(A);
  c.get(OTHER).i32(group * otherBytes).op(OP.i32Add).set(OTHER);
  c.get(OK).i32(4).op(OP.i32Add).set(OK);
  c.get(COUNT).i32(1).op(OP.i32Sub).set(COUNT);
  c.op(OP.br, 0).op(OP.end).op(OP.end);
  return { name, params, results: [], code: c };
}

/**
 * gesv (and getrf) on the interleaved layout: element A(i, c) of two matrices shares
 * one v128 (lane 0 the even matrix of the pair, lane 1 the odd one), the pair's matrix held in a
 * scratch of the wasm memory (slot (c n + i) of 16 bytes), so that each lane's row interchange
 * is two scalar 8-byte moves per column at an address computed from that lane's pivot.
 *
 * The arithmetic is kernels/getrf-js.ts's unrolled JavaScript (dgetf2, src/cpu/lapack/getrf.ts) with
 * f64x2 in place of each float64 operation, so every lane is bitwise the reference:
 * - the pivot search keeps, per lane, the first row of largest magnitude (`t > pm` only, so a
 *   NaN never wins and ties keep the earlier row), its value and its index, by compare and
 *   bitselect down the column;
 * - a lane whose pivot is zero (float32: one that stores as zero, |p| <= 2^-150, dtype-table.ts
 *   zeroMax) records info = j + 1 (the first such step) and is neither swapped (its pivot row set
 *   back to j) nor scaled, as dgetf2; the rank-1 update runs for every lane (the reference runs
 *   it too);
 * - the column is scaled by the reciprocal where |pivot| >= dlamch('S'), divided by the pivot
 *   elsewhere (NaN included): the common case (both lanes large) multiplies, a rarely taken
 *   branch selects per lane.
 * float32 data is widened on the way in and rounded once on the way out, as the reference
 * (which factors float32 in float64); gesv's solve reads the factor as stored (rounded).
 *
 * gesv solves each lane whose info is 0 in the same kernel (dgetrs 'N': B's rows interchanged in
 * the scratch by each lane's pivots, then the unit L in dot form ascending, then U in dot form
 * from the last column, the reference's order); a failed lane's B is not written.
 */
import type { DType } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { storesNonzeroLanes } from '../wasm/structured.js';

/** i8x16.shuffle lanes: the low float64 of each operand, and the high one of each. */
export const LOW_LANES = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
export const HIGH_LANES = LOW_LANES.map((b) => b + 8);
/** float32 (4-byte lanes): (a0, b0) from (a0, a1, ..) and (b0, b1, ..); F32_HIGH (a1, b1). */
export const F32_LOW = [0, 1, 2, 3, 16, 17, 18, 19, 0, 1, 2, 3, 16, 17, 18, 19];
export const F32_HIGH = F32_LOW.map((b) => b + 4);
/** LAPACK's dlamch('S'). */
export const SAFE_MIN = 2.2250738585072014e-308;

export interface GetrfInterleavedParams {
  readonly n: number;
  /** The caller's dtype, as the matrices lie in the wasm memory (copied in byte for byte). */
  readonly dtype: DType;
  /** The caller's leading dimension of A. */
  readonly ld: number;
  /** gesv: B's leading dimension (the kernel's `nrhs` argument counts its columns); absent for getrf. */
  readonly solve?: { readonly ldb: number };
  /**
   * Pairs per loop trip: 2 emits two pairs' steps in turn, phase by phase, so that the core
   * overlaps one pair's chain (pivot search, reciprocal, update, next search) with the other's.
   */
  readonly pairsPerTrip: 1 | 2;
  /**
   * The rank-1 updates as runtime loops over columns and rows (the multipliers read back from
   * the scratch) rather than unrolled with the multipliers in locals: a module a fraction of the
   * size (n = 15: 77 KB unrolled), compiled and tiered up sooner. Default false.
   */
  readonly loopUpdate?: boolean;
}

/** Bytes of scratch the kernel needs per pair of a trip (the pair's matrix and one column of B, 16-byte slots). */
export const luScratchBytes = (n: number): number => 16 * (n * n + n);

/**
 * Exported `getrf(a, strideBytes, ipiv, info, trips, b, bStrideBytes, nrhs, scratch)`: trip t
 * factors pairsPerTrip pairs; pair g is the matrices at a + 2g stride and a + (2g + 1) stride
 * (a stride of 0: one matrix in both lanes), their pivots (0-based, int32) at ipiv + (2g + lane)
 * n 4, infos (int32) at info + (2g + lane) 4, B at b + (2g + lane) bStride; scratch 16-byte
 * aligned, pairsPerTrip luScratchBytes of it. Every element of each A is written back (the
 * factor), B only where that lane's info is 0.
 */
export function generateGetrfInterleaved(p: GetrfInterleavedParams): Uint8Array<ArrayBuffer> {
  return encodeModule([{ name: 'getrf', params: [...GETRF_INTERLEAVED_SIGNATURE], results: [], code: body(p) }]);
}

/** The exported getrf's parameters (all i32 addresses and counts), shared by the locals form (getrf-interleaved-locals.ts). */
export const GETRF_INTERLEAVED_SIGNATURE: readonly ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'];

function body(p: GetrfInterleavedParams): Code {
  const { n, ld } = p;
  // single precision: held in float64 lanes, rounded to float32 on store
  const f32 = byPrecision(p.dtype, { double: false, single: true });
  const es = dtypeInfo(p.dtype).bytes;
  // a pivot within it is zero (dtype-table.ts zeroMax: 0 for float64, 2^-150 for float32)
  const zeroMax = dtypeInfo(p.dtype).zeroMax;
  const c = new Code([...GETRF_INTERLEAVED_SIGNATURE]);
  const [A, STRIDE, IPIV, INFO, COUNT, BP, BSTRIDE, NRHS, S] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const v = (): number => c.local('v128');
  const i32 = (): number => c.local('i32');
  const G = Array.from({ length: p.pairsPerTrip }, (_, g) => ({
    d: v(), s: v(), t: v(), t2: v(), pm: v(), pval: v(), piv: v(), gt: v(), nz: v(), info: v(), r: v(),
    l: Array.from({ length: n }, v), y: Array.from({ length: p.solve ? n : 0 }, v),
    p0: i32(), p1: i32(), b0: i32(), b1: i32(), k: i32(), q: i32(), tf: c.local('f64'),
    base: g * luScratchBytes(n), ipivOff: g * 2 * n * 4, infoOff: g * 8,
  }));
  type Group = (typeof G)[number];
  const rr = i32();
  const [cp, rp, cc, rc, q0] = [i32(), i32(), i32(), i32(), i32()];
  /** Byte offset of A(i, col) in a group's scratch, and of B's row i after the matrix. */
  const slot = (g: Group, i: number, col: number): number => g.base + (col * n + i) * 16;
  const ySlot = (g: Group, i: number): number => g.base + (n * n + i) * 16;
  const load = (off: number): void => { c.get(S).simdMem(SIMD.load, 4, off); };
  const store = (off: number, value: () => void): void => { c.get(S); value(); c.simdMem(SIMD.store, 4, off); };
  const each = (emit: (g: Group) => void): void => { for (const g of G) emit(g); };

  const loadScalar = (ptr: number, off: number): void => {
    c.get(ptr);
    if (f32) c.mem(OP.f32Load, 2, off).op(OP.f64PromoteF32); else c.mem(OP.f64Load, 3, off);
  };
  /** A column of `rows` elements of each lane's matrix (at ptr0 + off0, ptr1 + off0) into scratch slots at `dst(i)`. */
  const gatherRun = (g: Group, ptr0: number, ptr1: number, off0: number, rows: number, dst: (i: number) => number): void => {
    const { d, s } = g;
    let i = 0;
    for (; !f32 && i + 1 < rows; i += 2) {
      c.get(ptr0).simdMem(SIMD.load, 3, off0 + i * es).set(d);
      c.get(ptr1).simdMem(SIMD.load, 3, off0 + i * es).set(s);
      store(dst(i), () => { c.get(d).get(s).simd(SIMD.i8x16Shuffle, LOW_LANES); });
      store(dst(i + 1), () => { c.get(d).get(s).simd(SIMD.i8x16Shuffle, HIGH_LANES); });
    }
    for (; f32 && i + 1 < rows; i += 2) {
      c.get(ptr0).simdMem(SIMD.load64Splat, 3, off0 + i * es).set(d);
      c.get(ptr1).simdMem(SIMD.load64Splat, 3, off0 + i * es).set(s);
      store(dst(i), () => { c.get(d).get(s).simd(SIMD.i8x16Shuffle, F32_LOW).simd(SIMD.f64x2PromoteLowF32x4); });
      store(dst(i + 1), () => { c.get(d).get(s).simd(SIMD.i8x16Shuffle, F32_HIGH).simd(SIMD.f64x2PromoteLowF32x4); });
    }
    for (; i < rows; i++) {
      store(dst(i), () => { loadScalar(ptr0, off0 + i * es); c.simd(SIMD.f64x2Splat); loadScalar(ptr1, off0 + i * es); c.simd(SIMD.f64x2ReplaceLane, 1); });
    }
  };
  /** Stores lane `lane` of the v128 that `value` pushes at ptr + off (rounded for float32). */
  const storeLane = (ptr: number, off: number, lane: number, value: () => void): void => {
    c.get(ptr); value();
    if (f32) c.simd(SIMD.f64x2ExtractLane, lane).op(OP.f32DemoteF64).mem(OP.f32Store, 2, off);
    else c.simdMemLane(SIMD.store64Lane, 3, off, lane);
  };
  /** Swaps lane `lane` (8 bytes) of scratch slot `a` (a constant offset from S) and g.q + `b`. */
  const swapLane = (g: Group, a: number, b: number, lane: number): void => {
    c.get(S).mem(OP.f64Load, 3, a + 8 * lane).set(g.tf);
    c.get(S).get(g.q).mem(OP.f64Load, 3, b + 8 * lane).mem(OP.f64Store, 3, a + 8 * lane);
    c.get(g.q).get(g.tf).mem(OP.f64Store, 3, b + 8 * lane);
  };
  /** g.k := lane `lane`'s pivot of step j (read back from ipiv), g.q := S + 16 g.k. */
  const pivotAddress = (g: Group, lane: number, j: number): void => {
    c.get(IPIV).mem(OP.i32Load, 2, g.ipivOff + (lane * n + j) * 4).tee(g.k);
    c.i32(4).op(OP.i32Shl).get(S).op(OP.i32Add).set(g.q);
  };

  /** Step j's pivot search: the first largest magnitude of column j from row j, per lane; pivots and infos. */
  const search = (g: Group, j: number): void => {
    const { t, t2, pm, pval, piv, gt, nz, info } = g;
    load(slot(g, j, j)); c.tee(pval).simd(SIMD.f64x2Abs).set(pm);
    c.i64x2(j).set(piv);
    for (let i = j + 1; i < n; i++) {
      load(slot(g, i, j)); c.tee(t2).simd(SIMD.f64x2Abs).tee(t).get(pm).simd(SIMD.f64x2Gt).set(gt);
      c.get(t).get(pm).get(gt).simd(SIMD.v128Bitselect).set(pm);
      c.i64x2(i).get(piv).get(gt).simd(SIMD.v128Bitselect).set(piv);
      c.get(t2).get(pval).get(gt).simd(SIMD.v128Bitselect).set(pval);
    }
    // a lane whose pivot stores as zero (float32: |p| <= 2^-150) takes no interchange: its
    // largest, tiny entry may lie below j (float64: pivot rows are j there already)
    if (zeroMax > 0) {
      storesNonzeroLanes(c, zeroMax, () => c.get(pval)); c.set(nz);
      c.get(piv).i64x2(j).get(nz).simd(SIMD.v128Bitselect).set(piv);
    }
    for (const lane of [0, 1]) c.get(IPIV).get(piv).simd(SIMD.i32x4ExtractLane, 2 * lane).mem(OP.i32Store, 2, g.ipivOff + (lane * n + j) * 4);
    // info: the first zero pivot of each lane (NaN is not zero)
    if (zeroMax === 0) { storesNonzeroLanes(c, zeroMax, () => c.get(pval)); c.set(nz); }
    c.i64x2(j + 1).get(info);
    c.get(info).i64x2(0).simd(SIMD.i64x2Eq).get(nz).simd(SIMD.v128AndNot);
    c.simd(SIMD.v128Bitselect).set(info);
  };
  /** Each lane's interchange (none where its pivot row is j, as where its pivot is zero). */
  const interchange = (g: Group, j: number): void => {
    for (const lane of [0, 1]) {
      pivotAddress(g, lane, j);
      c.get(g.k).i32(j).op(OP.i32Ne).if_(() => {
        for (let col = 0; col < n; col++) swapLane(g, slot(g, j, col), slot(g, 0, col), lane);
      });
    }
  };
  /** Column j below the diagonal by the reciprocal where |pivot| >= safe min (and the pivot is not zero) in both lanes; else per lane. */
  const scale = (g: Group, j: number): void => {
    const { t, pval, gt, nz, r, l } = g;
    c.f64x2(1).get(pval).simd(SIMD.f64x2Div).set(r);
    c.get(pval).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge);
    // float32: a tiny zero pivot can be above the safe minimum; its lane is not scaled either
    if (zeroMax > 0) c.get(nz).simd(SIMD.v128And);
    c.tee(gt).simd(SIMD.v128Not).simd(SIMD.v128AnyTrue).if_(() => {
      for (let i = j + 1; i < n; i++) {
        load(slot(g, i, j)); c.tee(t).get(r).simd(SIMD.f64x2Mul);
        c.get(t).get(pval).simd(SIMD.f64x2Div).get(t).get(nz).simd(SIMD.v128Bitselect);
        c.get(gt).simd(SIMD.v128Bitselect).set(l[i]!);
        store(slot(g, i, j), () => { c.get(l[i]!); });
      }
    }, () => {
      for (let i = j + 1; i < n; i++) {
        load(slot(g, i, j)); c.get(r).simd(SIMD.f64x2Mul).set(l[i]!);
        store(slot(g, i, j), () => { c.get(l[i]!); });
      }
    });
  };
  /** The rank-1 update of step j, column j + 1 first (the next pivot search reads it). */
  const update = (g: Group, j: number, col: number): void => {
    load(slot(g, j, col)); c.set(g.t);
    for (let i = j + 1; i < n; i++) {
      store(slot(g, i, col), () => { load(slot(g, i, col)); c.get(g.l[i]!).get(g.t).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); });
    }
  };
  /**
   * The same update as runtime loops: column pointer cp over columns j + 1 ... n - 1 (u = A(j, col)
   * in g.t), row pointer rp over rows j + 1 ... n - 1 of that column, the multiplier L(i, j) loaded
   * at the same row of column j (rp - (col - j) n 16, tracked as a fixed distance per column).
   */
  const updateLoop = (g: Group, j: number): void => {
    c.get(S).i32(slot(g, j, j + 1)).op(OP.i32Add).set(cp);
    c.i32(n - j - 1).set(cc);
    c.loop_(() => {
      c.get(cp).simdMem(SIMD.load, 4, 0).set(g.t);
      // rp walks the rows below j of this column; the multiplier sits at rp - (cp - S - slot(j, j))
      c.get(cp).i32(16).op(OP.i32Add).set(rp);
      c.get(cp).get(S).op(OP.i32Sub).i32(slot(g, j, j)).op(OP.i32Sub).set(q0);
      c.i32(n - j - 1).set(rc);
      c.loop_(() => {
        c.get(rp);
        c.get(rp).simdMem(SIMD.load, 4, 0);
        c.get(rp).get(q0).op(OP.i32Sub).simdMem(SIMD.load, 4, 0).get(g.t).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
        c.simdMem(SIMD.store, 4, 0);
        c.get(rp).i32(16).op(OP.i32Add).set(rp);
        c.get(rc).i32(1).op(OP.i32Sub).tee(rc);
      });
      c.get(cp).i32(16 * n).op(OP.i32Add).set(cp);
      c.get(cc).i32(1).op(OP.i32Sub).tee(cc);
    });
  };
  /** The factor back to both matrices (all of it), and the infos. */
  const scatter = (g: Group): void => {
    const { p0, p1, d, s } = g;
    for (let col = 0; col < n; col++) {
      let i = 0;
      for (; !f32 && i + 1 < n; i += 2) {
        load(slot(g, i, col)); c.set(d); load(slot(g, i + 1, col)); c.set(s);
        c.get(p0).get(d).get(s).simd(SIMD.i8x16Shuffle, LOW_LANES).simdMem(SIMD.store, 3, (col * ld + i) * es);
        c.get(p1).get(d).get(s).simd(SIMD.i8x16Shuffle, HIGH_LANES).simdMem(SIMD.store, 3, (col * ld + i) * es);
      }
      for (; f32 && i + 1 < n; i += 2) {
        load(slot(g, i, col)); c.simd(SIMD.f32x4DemoteF64x2Zero).set(d);
        load(slot(g, i + 1, col)); c.simd(SIMD.f32x4DemoteF64x2Zero).set(s);
        c.get(p0).get(d).get(s).simd(SIMD.i8x16Shuffle, F32_LOW).simdMemLane(SIMD.store64Lane, 2, (col * ld + i) * es, 0);
        c.get(p1).get(d).get(s).simd(SIMD.i8x16Shuffle, F32_HIGH).simdMemLane(SIMD.store64Lane, 2, (col * ld + i) * es, 0);
      }
      for (; i < n; i++) for (const lane of [0, 1]) storeLane(lane === 0 ? p0 : p1, (col * ld + i) * es, lane, () => load(slot(g, i, col)));
    }
    for (const lane of [0, 1]) c.get(INFO).get(g.info).simd(SIMD.i32x4ExtractLane, 2 * lane).mem(OP.i32Store, 2, g.infoOff + 4 * lane);
  };

  /** dgetrs 'N' on each column of every lane's B (the groups in turn); stored where the lane's info is 0. */
  const solve = (ldb: number): void => {
    /** The factor element as stored (float32 data: rounded). */
    const fac = (g: Group, i: number, col: number): void => {
      load(slot(g, i, col));
      if (f32) c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4);
    };
    c.get(NRHS).tee(rr).if_(() => {
      G.forEach((g, q) => {
        c.get(BP);
        if (q > 0) c.get(BSTRIDE).i32(2 * q).op(OP.i32Mul).op(OP.i32Add);
        c.tee(g.b0).get(BSTRIDE).op(OP.i32Add).set(g.b1);
      });
      c.loop_(() => {
        each((g) => gatherRun(g, g.b0, g.b1, 0, n, (i) => ySlot(g, i)));
        for (let j = 0; j < n; j++) {
          each((g) => {
            for (const lane of [0, 1]) {
              pivotAddress(g, lane, j);
              c.get(g.k).i32(j).op(OP.i32Ne).if_(() => swapLane(g, ySlot(g, j), ySlot(g, 0), lane));
            }
          });
        }
        each((g) => { for (let i = 0; i < n; i++) { load(ySlot(g, i)); c.set(g.y[i]!); } });
        for (let j = 1; j < n; j++) {
          each((g) => {
            c.get(g.y[j]!);
            for (let q2 = 0; q2 < j; q2++) { fac(g, j, q2); c.get(g.y[q2]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
            c.set(g.y[j]!);
          });
        }
        for (let j = n - 1; j >= 0; j--) {
          each((g) => {
            c.get(g.y[j]!);
            for (let q2 = n - 1; q2 > j; q2--) { fac(g, j, q2); c.get(g.y[q2]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
            fac(g, j, j); c.simd(SIMD.f64x2Div).set(g.y[j]!);
          });
        }
        each((g) => {
          // Both lanes factored (the common case) in a branch of its own: with only the per-lane
          // branches, TurboFan's scheduler split the solve's pure arithmetic into each branch that
          // uses it, so a pair whose lanes both stored ran the solve twice (kernels/potrf-interleaved.ts).
          const lanes = (which: readonly number[]): void => {
            for (const lane of which) for (let i = 0; i < n; i++) storeLane(lane === 0 ? g.b0 : g.b1, i * es, lane, () => c.get(g.y[i]!));
          };
          c.get(g.info).simd(SIMD.v128AnyTrue).op(OP.i32Eqz).if_(() => lanes([0, 1]), () => {
            for (const lane of [0, 1]) c.get(g.info).simd(SIMD.i32x4ExtractLane, 2 * lane).op(OP.i32Eqz).if_(() => lanes([lane]));
          });
          c.get(g.b0).i32(ldb * es).op(OP.i32Add).set(g.b0);
          c.get(g.b1).i32(ldb * es).op(OP.i32Add).set(g.b1);
        });
        c.get(rr).i32(1).op(OP.i32Sub).tee(rr);
      });
    });
  };

  c.loop_(() => {
    G.forEach((g, q) => {
      c.get(A);
      if (q > 0) c.get(STRIDE).i32(2 * q).op(OP.i32Mul).op(OP.i32Add);
      c.tee(g.p0).get(STRIDE).op(OP.i32Add).set(g.p1);
    });
    each((g) => {
      for (let col = 0; col < n; col++) gatherRun(g, g.p0, g.p1, col * ld * es, n, (i) => slot(g, i, col));
      c.i64x2(0).set(g.info);
    });
    for (let j = 0; j < n; j++) {
      each((g) => search(g, j));
      if (j + 1 >= n) continue;
      each((g) => interchange(g, j));
      each((g) => scale(g, j));
      if (p.loopUpdate) each((g) => updateLoop(g, j));
      else for (let col = j + 1; col < n; col++) each((g) => update(g, j, col));
    }
    each(scatter);
    if (p.solve) solve(p.solve.ldb);
    const trip = 2 * p.pairsPerTrip;
    c.get(A).get(STRIDE).i32(trip).op(OP.i32Mul).op(OP.i32Add).set(A);
    c.get(IPIV).i32(trip * n * 4).op(OP.i32Add).set(IPIV);
    c.get(INFO).i32(trip * 4).op(OP.i32Add).set(INFO);
    if (p.solve) c.get(BP).get(BSTRIDE).i32(trip).op(OP.i32Mul).op(OP.i32Add).set(BP);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return c;
}

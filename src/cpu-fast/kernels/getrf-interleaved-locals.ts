/**
 * The interleaved LU (kernels/getrf-interleaved.ts: two matrices per f64x2 vector, dgetf2 with
 * the pivot per lane by compare and bitselect, gesv's solve fused) with each pair's matrix held
 * in n^2 v128 locals instead of a scratch of the wasm memory (for small n). A lane's
 * row interchange is a bitselect over the register rows: with m_i = (pivot row == i) per lane,
 * the new row j gathers row i where m_i and row i takes the old row j there; the block runs only
 * when some lane's pivot row is not j (the common case on diagonally dominant data skips it).
 * Same operations on the same values as the scratch form, so the same bits (the reference's);
 * same exported signature (the scratch argument is not used).
 */
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import { Code, encodeModule } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { storesNonzeroLanes } from '../wasm/structured.js';
import { F32_HIGH, F32_LOW, GETRF_INTERLEAVED_SIGNATURE, HIGH_LANES, LOW_LANES, SAFE_MIN, type GetrfInterleavedParams } from './getrf-interleaved.js';


/** As generateGetrfInterleaved, the matrix in locals; pairsPerTrip must be 1. */
export function generateGetrfInterleavedLocals(p: GetrfInterleavedParams): Uint8Array<ArrayBuffer> {
  if (p.pairsPerTrip !== 1) throw new Error('generateGetrfInterleavedLocals: one pair per trip only');
  return encodeModule([{ name: 'getrf', params: [...GETRF_INTERLEAVED_SIGNATURE], results: [], code: body(p) }]);
}

function body(p: GetrfInterleavedParams): Code {
  const { n, ld } = p;
  // single precision: held in float64 lanes, rounded to float32 on store
  const f32 = byPrecision(p.dtype, { double: false, single: true });
  const es = dtypeInfo(p.dtype).bytes;
  // a pivot within it is zero (dtype-table.ts zeroMax: 0 for float64, 2^-150 for float32)
  const zeroMax = dtypeInfo(p.dtype).zeroMax;
  const c = new Code([...GETRF_INTERLEAVED_SIGNATURE]);
  const [A, STRIDE, IPIV, INFO, COUNT, BP, BSTRIDE, NRHS] = [0, 1, 2, 3, 4, 5, 6, 7];
  const v = (): number => c.local('v128');
  const i32 = (): number => c.local('i32');
  /** a[i][col]: A(i, col) of both matrices. */
  const a = Array.from({ length: n }, () => Array.from({ length: n }, v));
  const y = Array.from({ length: p.solve ? n : 0 }, v);
  /** Each step's pivot rows (i64x2), kept for the solve's interchanges. */
  const piv = Array.from({ length: n }, v);
  const mk = Array.from({ length: n }, v);
  const [t, t2, pm, pval, gt, nz, info, r, d, s] = [v(), v(), v(), v(), v(), v(), v(), v(), v(), v()];
  const [p0, p1, b0, b1, rr] = [i32(), i32(), i32(), i32(), i32()];

  const loadScalar = (ptr: number, off: number): void => {
    c.get(ptr);
    if (f32) c.mem(OP.f32Load, 2, off).op(OP.f64PromoteF32); else c.mem(OP.f64Load, 3, off);
  };
  /** A column of `rows` elements of each lane's matrix (at ptr0 + off0, ptr1 + off0) into locals dst(i). */
  const gather = (ptr0: number, ptr1: number, off0: number, rows: number, dst: (i: number) => number): void => {
    let i = 0;
    for (; !f32 && i + 1 < rows; i += 2) {
      c.get(ptr0).simdMem(SIMD.load, 3, off0 + i * es).set(d);
      c.get(ptr1).simdMem(SIMD.load, 3, off0 + i * es).set(s);
      c.get(d).get(s).simd(SIMD.i8x16Shuffle, LOW_LANES).set(dst(i));
      c.get(d).get(s).simd(SIMD.i8x16Shuffle, HIGH_LANES).set(dst(i + 1));
    }
    for (; f32 && i + 1 < rows; i += 2) {
      c.get(ptr0).simdMem(SIMD.load64Splat, 3, off0 + i * es).set(d);
      c.get(ptr1).simdMem(SIMD.load64Splat, 3, off0 + i * es).set(s);
      c.get(d).get(s).simd(SIMD.i8x16Shuffle, F32_LOW).simd(SIMD.f64x2PromoteLowF32x4).set(dst(i));
      c.get(d).get(s).simd(SIMD.i8x16Shuffle, F32_HIGH).simd(SIMD.f64x2PromoteLowF32x4).set(dst(i + 1));
    }
    for (; i < rows; i++) {
      loadScalar(ptr0, off0 + i * es); c.simd(SIMD.f64x2Splat); loadScalar(ptr1, off0 + i * es); c.simd(SIMD.f64x2ReplaceLane, 1).set(dst(i));
    }
  };
  /** Stores lane `lane` of the v128 that `value` pushes at ptr + off (rounded for float32). */
  const storeLane = (ptr: number, off: number, lane: number, value: () => void): void => {
    c.get(ptr); value();
    if (f32) c.simd(SIMD.f64x2ExtractLane, lane).op(OP.f32DemoteF64).mem(OP.f32Store, 2, off);
    else c.simdMemLane(SIMD.store64Lane, 3, off, lane);
  };
  /**
   * Where some lane's pivot row of step j is not j: rows j and piv[j] of the locals `row(i)[col]`
   * exchanged per lane by bitselect, for every col of `cols`.
   */
  const interchange = (j: number, cols: number, cell: (i: number, col: number) => number): void => {
    c.get(piv[j]!).i64x2(j).simd(SIMD.i64x2Ne).simd(SIMD.v128AnyTrue).if_(() => {
      for (let i = j + 1; i < n; i++) c.get(piv[j]!).i64x2(i).simd(SIMD.i64x2Eq).set(mk[i]!);
      for (let col = 0; col < cols; col++) {
        c.get(cell(j, col)).set(t);
        for (let i = j + 1; i < n; i++) c.get(cell(i, col)).get(cell(j, col)).get(mk[i]!).simd(SIMD.v128Bitselect).set(cell(j, col));
        for (let i = j + 1; i < n; i++) c.get(t).get(cell(i, col)).get(mk[i]!).simd(SIMD.v128Bitselect).set(cell(i, col));
      }
    });
  };

  /** Step j's pivot search (first largest magnitude, NaN never chosen), pivots and infos; as the scratch form. */
  const search = (j: number): void => {
    c.get(a[j]![j]!).tee(pval).simd(SIMD.f64x2Abs).set(pm);
    c.i64x2(j).set(piv[j]!);
    for (let i = j + 1; i < n; i++) {
      c.get(a[i]![j]!).tee(t2).simd(SIMD.f64x2Abs).tee(t).get(pm).simd(SIMD.f64x2Gt).set(gt);
      c.get(t).get(pm).get(gt).simd(SIMD.v128Bitselect).set(pm);
      c.i64x2(i).get(piv[j]!).get(gt).simd(SIMD.v128Bitselect).set(piv[j]!);
      c.get(t2).get(pval).get(gt).simd(SIMD.v128Bitselect).set(pval);
    }
    // a lane whose pivot stores as zero (float32: |p| <= 2^-150) takes no interchange: its
    // largest, tiny entry may lie below j (float64: pivot rows are j there already)
    if (zeroMax > 0) {
      storesNonzeroLanes(c, zeroMax, () => c.get(pval)); c.set(nz);
      c.get(piv[j]!).i64x2(j).get(nz).simd(SIMD.v128Bitselect).set(piv[j]!);
    }
    for (const lane of [0, 1]) c.get(IPIV).get(piv[j]!).simd(SIMD.i32x4ExtractLane, 2 * lane).mem(OP.i32Store, 2, (lane * n + j) * 4);
    if (zeroMax === 0) { storesNonzeroLanes(c, zeroMax, () => c.get(pval)); c.set(nz); }
    c.i64x2(j + 1).get(info);
    c.get(info).i64x2(0).simd(SIMD.i64x2Eq).get(nz).simd(SIMD.v128AndNot);
    c.simd(SIMD.v128Bitselect).set(info);
  };
  /** Column j below the diagonal by the reciprocal where |pivot| >= safe min (and the pivot is not zero) in both lanes; else per lane. */
  const scale = (j: number): void => {
    c.f64x2(1).get(pval).simd(SIMD.f64x2Div).set(r);
    c.get(pval).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge);
    // float32: a tiny zero pivot can be above the safe minimum; its lane is not scaled either
    if (zeroMax > 0) c.get(nz).simd(SIMD.v128And);
    c.tee(gt).simd(SIMD.v128Not).simd(SIMD.v128AnyTrue).if_(() => {
      for (let i = j + 1; i < n; i++) {
        c.get(a[i]![j]!).tee(t).get(r).simd(SIMD.f64x2Mul);
        c.get(t).get(pval).simd(SIMD.f64x2Div).get(t).get(nz).simd(SIMD.v128Bitselect);
        c.get(gt).simd(SIMD.v128Bitselect).set(a[i]![j]!);
      }
    }, () => {
      for (let i = j + 1; i < n; i++) c.get(a[i]![j]!).get(r).simd(SIMD.f64x2Mul).set(a[i]![j]!);
    });
  };
  const update = (j: number): void => {
    for (let col = j + 1; col < n; col++) {
      for (let i = j + 1; i < n; i++) {
        c.get(a[i]![col]!).get(a[i]![j]!).get(a[j]![col]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(a[i]![col]!);
      }
    }
  };
  const scatter = (): void => {
    for (let col = 0; col < n; col++) {
      let i = 0;
      for (; !f32 && i + 1 < n; i += 2) {
        c.get(p0).get(a[i]![col]!).get(a[i + 1]![col]!).simd(SIMD.i8x16Shuffle, LOW_LANES).simdMem(SIMD.store, 3, (col * ld + i) * es);
        c.get(p1).get(a[i]![col]!).get(a[i + 1]![col]!).simd(SIMD.i8x16Shuffle, HIGH_LANES).simdMem(SIMD.store, 3, (col * ld + i) * es);
      }
      for (; f32 && i + 1 < n; i += 2) {
        c.get(a[i]![col]!).simd(SIMD.f32x4DemoteF64x2Zero).set(d);
        c.get(a[i + 1]![col]!).simd(SIMD.f32x4DemoteF64x2Zero).set(s);
        c.get(p0).get(d).get(s).simd(SIMD.i8x16Shuffle, F32_LOW).simdMemLane(SIMD.store64Lane, 2, (col * ld + i) * es, 0);
        c.get(p1).get(d).get(s).simd(SIMD.i8x16Shuffle, F32_HIGH).simdMemLane(SIMD.store64Lane, 2, (col * ld + i) * es, 0);
      }
      for (; i < n; i++) for (const lane of [0, 1]) storeLane(lane === 0 ? p0 : p1, (col * ld + i) * es, lane, () => c.get(a[i]![col]!));
    }
    for (const lane of [0, 1]) c.get(INFO).get(info).simd(SIMD.i32x4ExtractLane, 2 * lane).mem(OP.i32Store, 2, 4 * lane);
  };
  /** dgetrs 'N' on each column of both lanes' B; stored where the lane's info is 0. */
  const solve = (ldb: number): void => {
    // the factor as stored (float32: rounded), as the reference's solve reads it
    if (f32) for (let i = 0; i < n; i++) for (let col = 0; col < n; col++) c.get(a[i]![col]!).simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4).set(a[i]![col]!);
    c.get(NRHS).tee(rr).if_(() => {
      c.get(BP).tee(b0).get(BSTRIDE).op(OP.i32Add).set(b1);
      c.loop_(() => {
        gather(b0, b1, 0, n, (i) => y[i]!);
        for (let j = 0; j + 1 < n; j++) interchange(j, 1, (i) => y[i]!);
        for (let j = 1; j < n; j++) {
          c.get(y[j]!);
          for (let q = 0; q < j; q++) c.get(a[j]![q]!).get(y[q]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
          c.set(y[j]!);
        }
        for (let j = n - 1; j >= 0; j--) {
          c.get(y[j]!);
          for (let q = n - 1; q > j; q--) c.get(a[j]![q]!).get(y[q]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
          c.get(a[j]![j]!).simd(SIMD.f64x2Div).set(y[j]!);
        }
        for (const lane of [0, 1]) {
          c.get(info).simd(SIMD.i32x4ExtractLane, 2 * lane).op(OP.i32Eqz).if_(() => {
            for (let i = 0; i < n; i++) storeLane(lane === 0 ? b0 : b1, i * es, lane, () => c.get(y[i]!));
          });
        }
        c.get(b0).i32(ldb * es).op(OP.i32Add).set(b0);
        c.get(b1).i32(ldb * es).op(OP.i32Add).set(b1);
        c.get(rr).i32(1).op(OP.i32Sub).tee(rr);
      });
    });
  };

  c.loop_(() => {
    c.get(A).tee(p0).get(STRIDE).op(OP.i32Add).set(p1);
    for (let col = 0; col < n; col++) gather(p0, p1, col * ld * es, n, (i) => a[i]![col]!);
    c.i64x2(0).set(info);
    for (let j = 0; j < n; j++) {
      search(j);
      if (j + 1 >= n) continue;
      interchange(j, n, (i, col) => a[i]![col]!);
      scale(j);
      update(j);
    }
    scatter();
    if (p.solve) solve(p.solve.ldb);
    c.get(A).get(STRIDE).i32(2).op(OP.i32Mul).op(OP.i32Add).set(A);
    c.get(IPIV).i32(2 * n * 4).op(OP.i32Add).set(IPIV);
    c.get(INFO).i32(8).op(OP.i32Add).set(INFO);
    if (p.solve) c.get(BP).get(BSTRIDE).i32(2).op(OP.i32Mul).op(OP.i32Add).set(BP);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return c;
}

/**
 * The interleaved layout for the small Cholesky factorisations (the small LU/Cholesky
 * paper, batched-lu-cholesky-very-small, on storing "the same element of several matrices side
 * by side" so one SIMD instruction advances several factorisations): element L(i, j) of two
 * matrices shares one v128 (lane 0 the even matrix of the pair, lane 1 the odd one).
 *
 * The wasm kernel is generated per n, triangle, dtype and ld, fully unrolled with every vector of
 * the triangle in a local (to n = 8; beyond, the triangle in a scratch of the wasm memory and
 * each column's rows a runtime loop: the 'loop' form), and is kernels/potrf-js.ts's unrolled JavaScript operation for
 * operation with f64x2 in place of each float64 operation: IEEE sqrt, div, mul, add and sub
 * round each lane exactly as the scalar operation, so every lane is bitwise the reference
 * (src/cpu/lapack/potrf.ts). Two matrices per vector for float32 as well: the reference factors
 * float32 data in float64 and rounds once on store, which f32x4 arithmetic (four per vector)
 * would not reproduce.
 *
 * Failure is per lane: both lanes run every step (a lane that failed computes NaNs that never
 * reach its partner, lanes being independent), the first non-positive (or NaN) pivot of each
 * lane is recorded in an int64 lane of the info vector under a mask, and at that step the
 * diagonal to store is the pivot value itself rather than its square root (what dpotf2 leaves).
 * Each lane then stores only what the reference writes for its info.
 *
 * The matrices are read and written in the caller's column-major layout (a chunk of the strided
 * batch copied byte for byte into the wasm memory and back, ops/potrf-interleaved.ts): each
 * pair of vectors is gathered from two neighbours of each matrix with one load per matrix and
 * two shuffles (float32: 8-byte loads, widened), so the interleaving costs no pass of its own.
 * A transposition into an interleaved scratch by generated JavaScript, tried first, cost more
 * than the halved arithmetic saved (docs/cpu-backend.md).
 */
import type { DType } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import type { Uplo } from '../../core/enums.js';
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

/** Which of the triangle's vector locals holds L(i, j), i >= j (rows of the lower triangle in turn). */
export const tri = (i: number, j: number): number => (i * (i + 1)) / 2 + j;

/** Vectors (locals) per pair of matrices. */
export const triangleSize = (n: number): number => (n * (n + 1)) / 2;

/** i8x16.shuffle lanes: the low float64 of each operand, and the high one of each. */
const LOW_LANES = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
const HIGH_LANES = LOW_LANES.map((b) => b + 8);
/** float32 (4-byte lanes): (a0, b0) from (a0, a1, ..) and (b0, b1, ..); F32_HIGH (a1, b1). */
const F32_LOW = [0, 1, 2, 3, 16, 17, 18, 19, 0, 1, 2, 3, 16, 17, 18, 19];
const F32_HIGH = F32_LOW.map((b) => b + 4);

export interface PotrfInterleavedStridedParams {
  readonly n: number;
  readonly uplo: Uplo;
  /** The caller's dtype, as the matrices lie in the wasm memory (copied in byte for byte). */
  readonly dtype: DType;
  /** The caller's leading dimension (element offsets are immediates). */
  readonly ld: number;
  /** Pairs factored per loop trip (1, or 2 to overlap two dependency chains: measured no faster). */
  readonly pairsPerTrip: 1 | 2;
  /** posv: B's leading dimension (the kernel's `nrhs` argument counts its columns); absent for potrf. */
  readonly solve?: { readonly ldb: number };
  /**
   * Where a pair's triangle lives while it is factored: 'locals' (one v128 local per element:
   * TurboFan spills them beyond ~15 and its code for n > 8 is barely faster than V8's baseline
   * tier) or 'loop' (a scratch of 16-byte slots at the kernel's `scratch` argument, loaded and
   * stored around each operation, each column's rows a runtime loop: a small module, TurboFan's
   * code plain loads, operations and stores). Default 'locals'. (Unrolled over the scratch it ran
   * as fast at n = 16 with a module twice the size; see docs/cpu-backend.md.)
   */
  readonly form?: 'locals' | 'loop';
  /**
   * The factorisation's updates fused (f64x2.relaxed_madd / relaxed_nmadd: each element's
   * products subtracted from it in turn, each rounded once where the hardware fuses, in place of
   * a multiply, the group's sum and one subtract): within rounding of the reference, no longer
   * bitwise; only where wasm/features.ts validates relaxed SIMD (context.ts fmaFor). The solve
   * (posv) stays the reference's operations. Absent: false.
   */
  readonly fma?: boolean;
}

/** Bytes of the kernel's scratch per loop trip in the 'loop' form (the triangle, the diagonals to store, the sums of squares). */
export const scratchBytes = (n: number, pairsPerTrip: number): number => pairsPerTrip * 16 * (triangleSize(n) + 2 * n);

/**
 * The factorisation of a chunk of the caller's strided batch in the wasm memory. Exported
 * `potrf(a, strideBytes, info, pairs, b, bStrideBytes, nrhs, scratch)` (scratch: 16-byte aligned,
 * scratchBytes of it, used by the 'loop' form): pair g is the matrices at
 * a + 2g stride and a + (2g + 1) stride, int32 infos from `info`; a stride of 0 factors one
 * matrix in both lanes (the odd last one). With pairsPerTrip 2, `pairs` counts trips of two
 * pairs (four matrices). Each lane stores only what the reference writes for its info (columns,
 * or rows for 'upper', before the failing step, and that step's diagonal), the rest of its
 * memory untouched. With `solve` (posv), each lane whose matrix factored then solves its nrhs
 * columns of B (at b + g bStride, ld `ldb`, the caller's dtype) as the reference's potrs does
 * with the factor as stored (rounded to float32 for float32 data): for 'lower' L y = b in axpy
 * form, then L^T x = y in dot form; for 'upper' U^T y = b in dot form, then U x = y in axpy form
 * (src/cpu/lapack/triangular-solve.ts), operation for operation; a failed lane's B is not written.
 */
export function generatePotrfInterleavedStrided(p: PotrfInterleavedStridedParams): Uint8Array<ArrayBuffer> {
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'];
  return encodeModule([{ name: 'potrf', params, results: [], code: stridedBody(p, p.pairsPerTrip) }]);
}

/**
 * One loop trip factors `groups` pairs (matrices 2g and 2g + 1 from a, g < groups), their steps
 * emitted column by column in turn so that the out-of-order core overlaps one pair's sqrt and
 * division with the other's updates (each pair alone is one long dependency chain).
 */
function stridedBody(p: PotrfInterleavedStridedParams, groups: number): Code {
  const { n, ld } = p;
  const upper = p.uplo === 'upper';
  // single precision: held in float64 lanes, rounded to float32 on store
  const f32 = byPrecision(p.dtype, { double: false, single: true });
  const es = dtypeInfo(p.dtype).bytes;
  const T = triangleSize(n);
  const c = new Code(['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32']);
  const [A, STRIDE, INFO, COUNT, BP, BSTRIDE, NRHS, SCRATCH] = [0, 1, 2, 3, 4, 5, 6, 7];
  const inMemory = p.form === 'loop';
  /** A value's home: a v128 local, or (the 'loop' form) a scratch slot, encoded as -1 - its byte offset. */
  let slot = 0;
  const home = (): number => (inMemory ? -1 - 16 * slot++ : c.local('v128'));
  const tmp = c.local('v128');
  const G = Array.from({ length: groups }, () => ({
    x: Array.from({ length: T }, home),
    dg: Array.from({ length: n }, home),
    d: c.local('v128'), ok: c.local('v128'), info: c.local('v128'), s: c.local('v128'), s1: c.local('v128'),
    ssq: Array.from({ length: upper && !inMemory ? 0 : n }, home),
    p0: c.local('i32'), p1: c.local('i32'), f: c.local('i32'),
    b0: c.local('i32'), b1: c.local('i32'), y: Array.from({ length: p.solve ? n : 0 }, () => c.local('v128')), r: c.local('i32'),
  }));
  type Group = (typeof G)[number];
  const X = (g: Group, i: number, j: number): number => g.x[tri(i, j)]!;
  /** Byte offset of L(i, j) in a matrix: A(i, j) for 'lower', A(j, i) for 'upper'. */
  const offset = (i: number, j: number): number => (upper ? i * ld + j : j * ld + i) * es;
  /** Pushes the v128 at home v; pops one into it. */
  const get = (v: number): void => { if (v >= 0) c.get(v); else c.get(SCRATCH).simdMem(SIMD.load, 4, -1 - v); };
  const set = (v: number): void => { if (v >= 0) c.set(v); else c.set(tmp).get(SCRATCH).get(tmp).simdMem(SIMD.store, 4, -1 - v); };
  const mul = (a: number, b: number): void => { get(a); get(b); c.simd(SIMD.f64x2Mul); };
  const fma = p.fma === true;
  /** (fma) acc - x0 y0 - x1 y1 - ... as nested relaxed_nmadd, the first product subtracted first: every pair pushed, then acc. */
  const fusedSubtract = (acc: () => void, products: readonly (readonly [number, number])[]): void => {
    for (let q = products.length - 1; q >= 0; q--) { get(products[q]![0]); get(products[q]![1]); }
    acc();
    for (let q = 0; q < products.length; q++) c.simd(SIMD.f64x2RelaxedNmadd);
  };
  const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, q) => from + q);
  /** The triangle as runs of neighbours in memory: columns of L ('lower'), or of U, rows of L ('upper'). */
  const runs: [number, number][][] = Array.from({ length: n }, (_, j) =>
    upper ? Array.from({ length: j + 1 }, (_, k): [number, number] => [j, k]) : Array.from({ length: n - j }, (_, t): [number, number] => [j + t, j]));
  const loadScalar = (ptr: number, off: number): void => {
    c.get(ptr);
    if (f32) c.mem(OP.f32Load, 2, off).op(OP.f64PromoteF32); else c.mem(OP.f64Load, 3, off);
  };
  /** Stores lane `lane` of local v at ptr + off. */
  const storeLane = (ptr: number, off: number, v: number, lane: number): void => {
    c.get(ptr); get(v);
    if (f32) c.simd(SIMD.f64x2ExtractLane, lane).op(OP.f32DemoteF64).mem(OP.f32Store, 2, off);
    else c.simdMemLane(SIMD.store64Lane, 3, off, lane);
  };

  const gather = (g: Group): void => {
    const { p0, p1, d, s } = g;
    for (const run of runs) {
      let t = 0;
      // float64: two neighbours of each matrix in one load, then a shuffle per pair (lanes 0 / lanes 1).
      for (; !f32 && t + 1 < run.length; t += 2) {
        const [i0, j0] = run[t]!, [i1, j1] = run[t + 1]!;
        c.get(p0).simdMem(SIMD.load, 3, offset(i0, j0)).get(p1).simdMem(SIMD.load, 3, offset(i0, j0)).set(s);
        c.tee(d).get(s).simd(SIMD.i8x16Shuffle, LOW_LANES);
        set(X(g, i0, j0));
        c.get(d).get(s).simd(SIMD.i8x16Shuffle, HIGH_LANES); set(X(g, i1, j1));
      }
      // float32: two neighbours of each matrix in one 8-byte load, shuffled to (a0, b0 | a1, b1), widened.
      for (; f32 && t + 1 < run.length; t += 2) {
        const [i0, j0] = run[t]!, [i1, j1] = run[t + 1]!;
        c.get(p0).simdMem(SIMD.load64Splat, 3, offset(i0, j0)).tee(d).get(p1).simdMem(SIMD.load64Splat, 3, offset(i0, j0)).tee(s);
        c.simd(SIMD.i8x16Shuffle, F32_LOW).simd(SIMD.f64x2PromoteLowF32x4);
        set(X(g, i0, j0));
        c.get(d).get(s).simd(SIMD.i8x16Shuffle, F32_HIGH).simd(SIMD.f64x2PromoteLowF32x4); set(X(g, i1, j1));
      }
      for (; t < run.length; t++) {
        const [i, j] = run[t]!;
        loadScalar(p0, offset(i, j)); c.simd(SIMD.f64x2Splat);
        loadScalar(p1, offset(i, j)); c.simd(SIMD.f64x2ReplaceLane, 1); set(X(g, i, j));
      }
    }
    c.i64x2(0).set(g.info);
  };

  /**
   * Step j's pivot: d, the lane mask, info, sqrt, the diagonal to store and 1 / L(j,j) (in g.s, or
   * for 'lower' in g.s / g.s1 by the parity of j: the eager order below needs two alive). 'lower'
   * takes the sum of squares accumulated column by column (ssq), 'upper' sums it here.
   */
  const pivot = (g: Group, j: number): void => {
    const { d, ok, info } = g;
    const s = upper || inMemory || j % 2 === 0 ? g.s : g.s1;
    if (fma && upper && !inMemory && j > 0) fusedSubtract(() => get(X(g, j, j)), range(0, j).map((k) => [X(g, j, k), X(g, j, k)] as const));
    else {
      get(X(g, j, j));
      if ((upper && !inMemory) || j === 0) {
        c.f64x2(0);
        for (let k = 0; k < j; k++) { mul(X(g, j, k), X(g, j, k)); c.simd(SIMD.f64x2Add); }
      } else get(g.ssq[j]!);
      c.simd(SIMD.f64x2Sub);
    }
    c.set(d);
    c.get(d).f64x2(0).simd(SIMD.f64x2Gt).set(ok);
    c.i64x2(j + 1).get(info);
    c.get(info).i64x2(0).simd(SIMD.i64x2Eq).get(ok).simd(SIMD.v128AndNot);
    c.simd(SIMD.v128Bitselect).set(info);
    c.get(d).simd(SIMD.f64x2Sqrt).tee(tmp); set(X(g, j, j));
    c.get(tmp).get(d).get(ok).simd(SIMD.v128Bitselect); set(g.dg[j]!);
    c.f64x2(1).get(tmp).simd(SIMD.f64x2Div).set(s);
  };

  /**
   * 'lower' in an eager order (the same operations on each element in the same order, emitted
   * as soon as their operands are final, so that the chain from one pivot to the next is short:
   * L(j+1, j), its square into ssq(j+1), pivot j+1, then the rest of column j and its
   * contributions to the later columns). Column k's contribution to L(i, jj), i >= jj > k: on
   * the diagonal the square added to ssq(jj); below it, within jj's groups of four columns, the
   * group's four products summed and subtracted once k closes the group; past them, the product
   * subtracted alone (kernels/potrf-js.ts's order).
   */
  const contribute = (g: Group, k: number, i: number, jj: number): void => {
    if (i === jj && fma && k > 0) {
      get(X(g, jj, k)); get(X(g, jj, k)); get(g.ssq[jj]!); c.simd(SIMD.f64x2RelaxedMadd); set(g.ssq[jj]!);
    } else if (i === jj) {
      if (k === 0) c.f64x2(0); else get(g.ssq[jj]!);
      mul(X(g, jj, k), X(g, jj, k));
      c.simd(SIMD.f64x2Add); set(g.ssq[jj]!);
    } else if (fma) {
      // the same contributions as below, each subtracted fused as soon as it is emitted
      fusedSubtract(() => get(X(g, i, jj)), [[X(g, jj, k), X(g, i, k)]]);
      set(X(g, i, jj));
    } else if (k < 4 * Math.floor(jj / 4)) {
      if (k % 4 !== 3) return;
      get(X(g, i, jj));
      for (let q = k - 3; q <= k; q++) { mul(X(g, jj, q), X(g, i, q)); if (q > k - 3) c.simd(SIMD.f64x2Add); }
      c.simd(SIMD.f64x2Sub); set(X(g, i, jj));
    } else {
      get(X(g, i, jj));
      mul(X(g, jj, k), X(g, i, k));
      c.simd(SIMD.f64x2Sub); set(X(g, i, jj));
    }
  };
  /** L(i, j) *= 1 / L(j, j) once every contribution is in. */
  const scale = (g: Group, i: number, j: number): void => {
    get(X(g, i, j)); c.get(j % 2 === 0 ? g.s : g.s1).simd(SIMD.f64x2Mul); set(X(g, i, j));
  };
  /** Step j after its pivot ('lower'): as `contribute` says, pivot j + 1 emitted early. */
  const stepLowerHead = (g: Group, j: number): void => {
    if (j + 1 >= n) return;
    scale(g, j + 1, j);
    contribute(g, j, j + 1, j + 1);
    pivot(g, j + 1);
  };
  const stepLowerTail = (g: Group, j: number): void => {
    for (let i = j + 2; i < n; i++) scale(g, i, j);
    for (let jj = j + 1; jj < n; jj++) for (let i = jj; i < n; i++) if (i !== j + 1 || jj !== j + 1) contribute(g, j, i, jj);
  };

  const [a0, p0] = [c.local('v128'), c.local('v128')];
  /**
   * The 'loop' form's step j after its pivot: the rows below j, one per trip of a runtime loop
   * (left-looking, dpotf2's order per element as `update` and `contribute`), then L(i, j) stored
   * and its square added to ssq(i). The triangle's slots are its rows in turn (row i at
   * tri(i, 0)), so a row pointer advances by i + 1 slots, ssq by one.
   */
  const [ri, si, inc, cnt] = [c.local('i32'), c.local('i32'), c.local('i32'), c.local('i32')];
  const at = (v: number): number => -1 - v;
  const stepLoop = (g: Group, j: number): void => {
    if (j + 1 >= n) return;
    c.get(SCRATCH).i32(at(X(g, j + 1, 0))).op(OP.i32Add).set(ri);
    c.get(SCRATCH).i32(at(g.ssq[j + 1]!)).op(OP.i32Add).set(si);
    c.i32(16 * (j + 2)).set(inc);
    c.i32(n - j - 1).set(cnt);
    const xi = (k: number): void => { c.get(ri).simdMem(SIMD.load, 4, 16 * k); };
    c.loop_(() => {
      if (fma) {
        // a0 = L(i, j) - L(j, 0) L(i, 0) - L(j, 1) L(i, 1) - ..., one fused step per product
        xi(j); c.set(a0);
        for (let k = 0; k < j; k++) { get(X(g, j, k)); xi(k); c.get(a0).simd(SIMD.f64x2RelaxedNmadd).set(a0); }
      } else if (upper) {
        c.f64x2(0).set(p0);
        for (let k = 0; k < j; k++) { c.get(p0); xi(k); get(X(g, j, k)); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(p0); }
        xi(j); c.get(p0).simd(SIMD.f64x2Sub).set(a0);
      } else {
        xi(j); c.set(a0);
        let k = 0;
        for (; k + 3 < j; k += 4) {
          for (let q = k; q < k + 4; q++) {
            if (q > k) c.get(p0);
            get(X(g, j, q)); xi(q); c.simd(SIMD.f64x2Mul);
            if (q > k) c.simd(SIMD.f64x2Add);
            c.set(p0);
          }
          c.get(a0).get(p0).simd(SIMD.f64x2Sub).set(a0);
        }
        for (; k < j; k++) { c.get(a0); get(X(g, j, k)); xi(k); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(a0); }
      }
      c.get(ri).get(a0).get(g.s).simd(SIMD.f64x2Mul).tee(a0).simdMem(SIMD.store, 4, 16 * j);
      c.get(si);
      if (fma && j > 0) c.get(a0).get(a0).get(si).simdMem(SIMD.load, 4, 0).simd(SIMD.f64x2RelaxedMadd).simdMem(SIMD.store, 4, 0);
      else {
        if (j === 0) c.f64x2(0); else c.get(si).simdMem(SIMD.load, 4, 0);
        c.get(a0).get(a0).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).simdMem(SIMD.store, 4, 0);
      }
      c.get(ri).get(inc).op(OP.i32Add).set(ri);
      c.get(inc).i32(16).op(OP.i32Add).set(inc);
      c.get(si).i32(16).op(OP.i32Add).set(si);
      c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
    });
  };

  /** 'upper': L(i, j) of step j (one sequential dot, then (a - s) * rcp), the reference's order. */
  const update = (g: Group, i: number, j: number): void => {
    if (fma && j > 0) fusedSubtract(() => get(X(g, i, j)), range(0, j).map((k) => [X(g, i, k), X(g, j, k)] as const));
    else {
      get(X(g, i, j)); c.f64x2(0);
      for (let k = 0; k < j; k++) { mul(X(g, i, k), X(g, j, k)); c.simd(SIMD.f64x2Add); }
      c.simd(SIMD.f64x2Sub);
    }
    c.get(g.s).simd(SIMD.f64x2Mul); set(X(g, i, j));
  };

  /**
   * The solve of B's columns for every lane of the trip (ops in the reference's order, on the
   * factor as stored), the groups' steps emitted in turn so that their chains of divisions and
   * dependent subtractions overlap; each column stored to the lanes whose info is 0.
   */
  const solve = (): void => {
    if (!p.solve) return;
    const ldb = p.solve.ldb;
    const r = G[0]!.r;
    const each = (emit: (g: Group) => void): void => { for (const g of G) emit(g); };
    /** The factor element X(i, j) as stored (float32 data: rounded). */
    const x = (g: Group, i: number, j: number): void => {
      get(X(g, i, j));
      if (f32) c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4);
    };
    c.get(NRHS).tee(r).if_(() => {
      c.loop_(() => {
        each(({ y, b0, b1 }) => {
          for (let i = 0; i < n; i++) { loadScalar(b0, i * es); c.simd(SIMD.f64x2Splat); loadScalar(b1, i * es); c.simd(SIMD.f64x2ReplaceLane, 1).set(y[i]!); }
        });
        if (!upper) {
          for (let j = 0; j < n; j++) each((g) => {
            const { y } = g;
            c.get(y[j]!); x(g, j, j); c.simd(SIMD.f64x2Div).set(y[j]!);
            for (let i = j + 1; i < n; i++) { c.get(y[i]!).get(y[j]!); x(g, i, j); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(y[i]!); }
          });
          for (let j = n - 1; j >= 0; j--) each((g) => {
            const { y } = g;
            c.get(y[j]!);
            for (let i = j + 1; i < n; i++) { x(g, i, j); c.get(y[i]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
            x(g, j, j); c.simd(SIMD.f64x2Div).set(y[j]!);
          });
        } else {
          for (let j = 0; j < n; j++) each((g) => {
            const { y } = g;
            c.get(y[j]!);
            for (let i = 0; i < j; i++) { x(g, j, i); c.get(y[i]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
            x(g, j, j); c.simd(SIMD.f64x2Div).set(y[j]!);
          });
          for (let j = n - 1; j >= 0; j--) each((g) => {
            const { y } = g;
            c.get(y[j]!); x(g, j, j); c.simd(SIMD.f64x2Div).set(y[j]!);
            for (let i = 0; i < j; i++) { c.get(y[i]!).get(y[j]!); x(g, j, i); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(y[i]!); }
          });
        }
        each(({ info, y, b0, b1 }) => {
          // Both lanes factored (the common case) in a branch of its own: with only the two
          // per-lane branches, TurboFan's scheduler split the solve's pure arithmetic into each
          // branch that uses it (node splitting), so a pair whose lanes both stored ran the
          // whole solve twice (posv n = 8: 88 ns a matrix, 51 of it the solve).
          const lanes = (which: readonly (0 | 1)[]): void => {
            for (const lane of which) for (let i = 0; i < n; i++) storeLane(lane === 0 ? b0 : b1, i * es, y[i]!, lane);
          };
          c.get(info).simd(SIMD.v128AnyTrue).op(OP.i32Eqz).if_(() => lanes([0, 1]), () => {
            for (const lane of [0, 1] as const) c.get(info).simd(SIMD.i32x4ExtractLane, 2 * lane).op(OP.i32Eqz).if_(() => lanes([lane]));
          });
          c.get(b0).i32(ldb * es).op(OP.i32Add).set(b0);
          c.get(b1).i32(ldb * es).op(OP.i32Add).set(b1);
        });
        c.get(r).i32(1).op(OP.i32Sub).tee(r);
      });
    });
  };

  const scatter = (g: Group, infoOffset: number): void => {
    const { p0, p1, d, s, info, f } = g;
    // Every lane factored (the common case): each run stored two elements per v128 store and matrix.
    c.get(info).simd(SIMD.v128AnyTrue).op(OP.i32Eqz).if_(() => {
      c.get(INFO).i64x2(0).simdMemLane(SIMD.store64Lane, 3, infoOffset, 0);
      for (const run of runs) {
        let t = 0;
        for (; !f32 && t + 1 < run.length; t += 2) {
          const [i0, j0] = run[t]!, [i1, j1] = run[t + 1]!;
          get(X(g, i0, j0)); c.set(d); get(X(g, i1, j1)); c.set(s);
          c.get(p0).get(d).get(s).simd(SIMD.i8x16Shuffle, LOW_LANES).simdMem(SIMD.store, 3, offset(i0, j0));
          c.get(p1).get(d).get(s).simd(SIMD.i8x16Shuffle, HIGH_LANES).simdMem(SIMD.store, 3, offset(i0, j0));
        }
        for (; f32 && t + 1 < run.length; t += 2) {
          // Rounded once to float32 (a, b, 0, 0) per vector, then (a_t, a_t+1) to the even matrix, (b_t, b_t+1) to the odd.
          const [i0, j0] = run[t]!, [i1, j1] = run[t + 1]!;
          get(X(g, i0, j0)); c.simd(SIMD.f32x4DemoteF64x2Zero).set(d);
          get(X(g, i1, j1)); c.simd(SIMD.f32x4DemoteF64x2Zero).set(s);
          c.get(p0).get(d).get(s).simd(SIMD.i8x16Shuffle, F32_LOW).simdMemLane(SIMD.store64Lane, 2, offset(i0, j0), 0);
          c.get(p1).get(d).get(s).simd(SIMD.i8x16Shuffle, F32_HIGH).simdMemLane(SIMD.store64Lane, 2, offset(i0, j0), 0);
        }
        for (; t < run.length; t++) for (const lane of [0, 1]) storeLane(lane === 0 ? p0 : p1, offset(run[t]![0], run[t]![1]), X(g, run[t]![0], run[t]![1]), lane);
      }
    }, () => {
      // Lane by lane: info f; column j is written where f = 0 or f > j + 1, its diagonal also where f = j + 1.
      for (const lane of [0, 1]) {
        const ptr = lane === 0 ? p0 : p1;
        c.get(info).simd(SIMD.i32x4ExtractLane, 2 * lane).set(f);
        c.get(INFO).get(f).mem(OP.i32Store, 2, infoOffset + 4 * lane);
        for (let j = 0; j < n; j++) {
          c.get(f).op(OP.i32Eqz).get(f).i32(j + 1).op(OP.i32GeS).op(OP.i32Or).if_(() => {
            storeLane(ptr, offset(j, j), g.dg[j]!, lane);
            c.get(f).op(OP.i32Eqz).get(f).i32(j + 1).op(OP.i32GtS).op(OP.i32Or).if_(() => {
              for (let i = j + 1; i < n; i++) storeLane(ptr, offset(i, j), X(g, i, j), lane);
            });
          });
        }
      }
    });
  };

  c.loop_(() => {
    G.forEach((g, q) => {
      c.get(A);
      if (q > 0) c.get(STRIDE).i32(2 * q).op(OP.i32Mul).op(OP.i32Add);
      c.tee(g.p0).get(STRIDE).op(OP.i32Add).set(g.p1);
      if (p.solve) {
        c.get(BP);
        if (q > 0) c.get(BSTRIDE).i32(2 * q).op(OP.i32Mul).op(OP.i32Add);
        c.tee(g.b0).get(BSTRIDE).op(OP.i32Add).set(g.b1);
      }
    });
    for (const g of G) gather(g);
    if (inMemory) {
      for (let j = 0; j < n; j++) {
        for (const g of G) pivot(g, j);
        for (const g of G) stepLoop(g, j);
      }
    } else if (upper) {
      for (let j = 0; j < n; j++) {
        for (const g of G) pivot(g, j);
        for (let i = j + 1; i < n; i++) for (const g of G) update(g, i, j);
      }
    } else {
      for (const g of G) pivot(g, 0);
      for (let j = 0; j < n; j++) {
        for (const g of G) stepLowerHead(g, j);
        for (const g of G) stepLowerTail(g, j);
      }
    }
    G.forEach((g, q) => scatter(g, 8 * q));
    // B of the lanes that factored (the solve emitted once per group, its stores per lane: the kernel stays small)
    solve();
    c.get(A).get(STRIDE).i32(2 * groups).op(OP.i32Mul).op(OP.i32Add).set(A);
    if (p.solve) c.get(BP).get(BSTRIDE).i32(2 * groups).op(OP.i32Mul).op(OP.i32Add).set(BP);
    c.get(INFO).i32(8 * groups).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return c;
}

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
 * below the safe minimum (where the reference divides instead of scaling, or reports info) leaves
 * its A and B untouched (the work is in the scratch) and its two info entries ZGETRF_PAIR_REDO:
 * the driver runs the one-matrix kernel on both, which handles such cases as the reference does.
 * For complex64 (`zeroMax`) a pivot that stores as zero, both parts within 2^-150, is zero too
 * and goes back the same way (far above the safe minimum, it needs a test of its own).
 * So a pair that completes has info 0 in both lanes, and gesv solves it: B's rows interchanged per
 * lane, then unit L forward and U backward, each element's products in the reference's ascending
 * order, `pairs` pairs' solves side by side where all of them factored. complex64's gesv solves
 * with the factor rounded to float32, as the reference reads it back.
 *
 * The factorisation is one function of the module, called per pair. Right-looking (`crout` 0): its
 * steps unrolled (offsets constant), the trailing update a runtime loop over columns with the rows
 * unrolled; the solves' products runtime loops. The module grows with n^2 (70 kB for gesv at n =
 * 16), so from tuning.ts complexLuWasmPairLoopMin (`rowLoops`) the pivot search, the column scaling
 * and the solves' rows are runtime loops too (35 kB at 16). From tuning.ts complexLuWasmPairCrout
 * the factorisation is left-looking in Crout's order instead (croutFactorFunction): the same
 * terms in the same order per element, each element's accumulator in registers through its
 * products, and every loop, the steps' too, a runtime one (4.4 kB at 16 for getrf), about 30%
 * faster at n = 16 (the kernel alone); there gesv with one right-hand side solves within the factorisation (the
 * forward rows as row j's extra column, complex64's beside the rounding, the backward rows beside
 * the copy back), no solve function called. Past n = 16 the pairs stop paying (tuning.ts
 * complexLuWasmPairs).
 */
import type { LuOp } from './getrf-js.js';
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { PAIR_E, PAIR_HI, PAIR_LO, PAIR_SLOT, pairEmitters, type LoopPointer } from '../wasm/pair.js';

export interface ZgetrfInterleavedParams {
  /** getrf or gesv (getrs stays on the one-matrix kernel). */
  readonly op: Exclude<LuOp, 'getrs'>;
  readonly n: number;
  /** gesv on complex64: the solve reads the factor rounded to float32 (as stored, as the reference). */
  readonly roundFactor: boolean;
  /**
   * gesv: pairs per trip (1 or more) whose solves run side by side, so that each substitution's
   * serial chain overlaps the others' (the factorisation is one function, called per pair).
   */
  readonly pairs: number;
  /**
   * The pivot search, the column scaling and the solves' rows as runtime loops (the update's
   * multipliers then read from the scratch, not locals), so the module stays small enough for the
   * instruction cache (tuning.ts complexLuWasmPairLoopMin); else unrolled.
   */
  readonly rowLoops: boolean;
  /**
   * The factorisation left-looking in Crout's order with every step a runtime loop (crout > 0,
   * `crout` rows of column j or columns of row j of U a trip), or right-looking (0).
   */
  readonly crout: number;
  /**
   * A pivot with both parts of magnitude <= zeroMax is zero, and its pair goes back: the parts'
   * DTypeInfo.zeroMax (dtype-table.ts), 0 for complex128 (an exact zero already fails the safe
   * minimum: the code as without it), 2^-150 for complex64, whose U(k, k) then stores as zero.
   */
  readonly zeroMax: number;
}

/** The info a pair it hands back leaves in both entries: the driver reruns both on the one-matrix kernel. */
export const ZGETRF_PAIR_REDO = -2;

const E = PAIR_E;
const SLOT = PAIR_SLOT;
const LO = PAIR_LO;
const HI = PAIR_HI;
/** LAPACK's dlamch('S'): below it (both parts) the reference divides by the pivot instead of scaling. */
const SAFE_MIN = 2.2250738585072014e-308;

/**
 * Pushes the lanes' mask of a pivot (pr, pi locals) the kernel takes: both parts finite, one at
 * least the safe minimum, and (zeroMax > 0) not both within zeroMax, where it stores as zero.
 */
function pivotTaken(c: Code, pr: number, pi: number, zeroMax: number): void {
  c.f64x2(Infinity).get(pr).simd(SIMD.f64x2Abs).simd(SIMD.f64x2Gt);
  c.f64x2(Infinity).get(pi).simd(SIMD.f64x2Abs).simd(SIMD.f64x2Gt).simd(SIMD.v128And);
  c.get(pr).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge);
  c.get(pi).simd(SIMD.f64x2Abs).f64x2(SAFE_MIN).simd(SIMD.f64x2Ge).simd(SIMD.v128Or).simd(SIMD.v128And);
  if (zeroMax === 0) return;
  c.get(pr).simd(SIMD.f64x2Abs).f64x2(zeroMax).simd(SIMD.f64x2Le);
  c.get(pi).simd(SIMD.f64x2Abs).f64x2(zeroMax).simd(SIMD.f64x2Le).simd(SIMD.v128And).simd(SIMD.v128AndNot);
}

/** Bytes of one pair's scratch: the split matrix, one split column of B, and the Crout factorisation's reciprocal. */
const pairScratch = (n: number): number => n * n * SLOT + n * SLOT + SLOT;
/** Pairs per trip: gesv's `pairs` (their solves side by side); getrf factors one pair a trip. */
const tripPairs = (p: Pick<ZgetrfInterleavedParams, 'op' | 'pairs'>): number => (p.op === 'gesv' ? Math.max(1, p.pairs) : 1);
/** Bytes of the kernel's scratch (reused by every trip): one pair's for each pair of a trip. */
export const zgetrfInterleavedScratch = (p: Pick<ZgetrfInterleavedParams, 'op' | 'n' | 'pairs'>): number => tripPairs(p) * pairScratch(p.n);

/**
 * Exported `zgetrf2(a, b, piv, info, pairs, nrhs, scratch)`: byte addresses of the first A, B,
 * int32 pivots and int32 infos, the number of pairs, B's columns (gesv), and a scratch of
 * zgetrfInterleavedScratch(p) bytes (16-byte aligned). The module's other functions:
 * `factor(a, piv, scratch) -> ok` and the solves of one pair and of `pairs` pairs.
 */
export function generateZgetrfInterleaved(p: ZgetrfInterleavedParams): Uint8Array<ArrayBuffer> {
  const G = tripPairs(p);
  const defs: FunctionDef[] = [mainFunction(p, G), p.crout > 0 ? croutFactorFunction(p, 1, 'factor') : factorFunction(p)];
  if (p.op === 'gesv') {
    defs.push(solveFunction(p, 1, 'solve1'));
    if (G > 1) defs.push(solveFunction(p, G, 'solveGroup', pairScratch(p.n)));
  }
  if (G > 1 && p.crout > 0) defs.push(croutFactorFunction(p, G, 'factorGroup'));
  return encodeModule(defs);
}
const FACTOR = 1, SOLVE1 = 2, SOLVE_GROUP = 3, FACTOR_GROUP = 4;

/** The emitting helpers every function of the module shares, on its Code (wasm/pair.ts's, and element offsets). */
function helpers(c: Code, n: number) {
  const { get, load, store, loop, from, select, divideLocals, divide } = pairEmitters(c);
  /** Byte offset of split element (i, k) in a pair's scratch (column-major, ld = n). */
  const at = (i: number, k: number): number => (i + k * n) * SLOT;
  return { get, load, store, loop, from, select, divideLocals, divide, at };
}

/** The batch loop: trips of G pairs (their solves side by side where all of them factored), then pairs one by one. */
function mainFunction(p: ZgetrfInterleavedParams, G: number): FunctionDef {
  const { n } = p;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, B, PIV, INFO, COUNT, NRHS, SCR] = [0, 1, 2, 3, 4, 5, 6];
  const bMat = c.local('i32');
  const MAT = n * n * E;
  const S = pairScratch(n);
  // pair g of a trip: its B, its scratch, whether it factored
  const bs = Array.from({ length: G }, () => c.local('i32'));
  const scrs = Array.from({ length: G }, () => c.local('i32'));
  const oks = Array.from({ length: G }, () => c.local('i32'));
  /** Pair g's B columns (b0, b1), pivots and scratch, for a solve. */
  const solveArgs = (g: number): void => { c.get(bs[g]!).get(bs[g]!).get(bMat).op(OP.i32Add).get(PIV).i32(8 * n * g).op(OP.i32Add).get(scrs[g]!); };
  // Crout's gesv solves one right-hand side within the factorisation (`fused`); others after it
  const fusedSolve = p.crout > 0 && p.op === 'gesv';
  /** Pair g's A, pivots and scratch (and with Crout's gesv its B), for a factorisation. */
  const factorArgs = (g: number): void => {
    c.get(A).i32(2 * g * MAT).op(OP.i32Add).get(PIV).i32(8 * n * g).op(OP.i32Add).get(scrs[g]!);
    if (fusedSolve) c.get(bs[g]!);
  };
  /** Pushes the factorisations' `fused` argument: 1 where nrhs = 1. */
  const fused = (): void => { if (fusedSolve) c.get(NRHS).i32(1).op(OP.i32Eq); };
  const trip = (k: number): void => {
    for (let g = 0; g < k; g++) {
      c.get(B).get(bMat).i32(2 * g).op(OP.i32Mul).op(OP.i32Add).set(bs[g]!);
      c.get(SCR).i32(g * S).op(OP.i32Add).set(scrs[g]!);
    }
    const one = (g: number): void => { factorArgs(g); fused(); c.op(OP.call, FACTOR).set(oks[g]!); };
    if (k > 1 && p.crout > 0) {
      // the k pairs' factorisations side by side; where one fails, each again alone
      for (let g = 0; g < k; g++) factorArgs(g);
      fused();
      c.op(OP.call, FACTOR_GROUP).if_(() => { for (let g = 0; g < k; g++) c.i32(1).set(oks[g]!); }, () => { for (let g = 0; g < k; g++) one(g); });
    } else {
      for (let g = 0; g < k; g++) one(g);
    }
    for (let g = 0; g < k; g++) {
      // info 0 where it factored, else the pair goes back
      c.get(INFO).i32(0).i32(ZGETRF_PAIR_REDO).get(oks[g]!).op(OP.select).mem(OP.i32Store, 2, 8 * g);
      c.get(INFO).i32(0).i32(ZGETRF_PAIR_REDO).get(oks[g]!).op(OP.select).mem(OP.i32Store, 2, 8 * g + 4);
    }
    if (p.op !== 'gesv') return;
    const each = (): void => {
      for (let g = 0; g < k; g++) c.get(oks[g]!).if_(() => { solveArgs(g); c.get(NRHS).op(OP.call, SOLVE1); });
    };
    const solves = (): void => {
      if (k === 1) { each(); return; }
      c.get(oks[0]!);
      for (let g = 1; g < k; g++) c.get(oks[g]!).op(OP.i32And);
      c.if_(() => { for (let g = 0; g < k; g++) solveArgs(g); c.get(NRHS).op(OP.call, SOLVE_GROUP); }, each);
    };
    // (a fused factorisation has solved its pair already)
    if (fusedSolve) c.get(NRHS).i32(1).op(OP.i32Ne).if_(solves);
    else solves();
  };
  /** `trip(k)` while k pairs remain, each pass moving the pointers past them. */
  const loopOf = (k: number): void => {
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(COUNT).i32(k).op(OP.i32LtS).op(OP.brIf, 1);
    trip(k);
    c.get(A).i32(2 * k * MAT).op(OP.i32Add).set(A);
    c.get(B).get(bMat).i32(2 * k).op(OP.i32Mul).op(OP.i32Add).set(B);
    c.get(PIV).i32(8 * n * k).op(OP.i32Add).set(PIV);
    c.get(INFO).i32(8 * k).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(k).op(OP.i32Sub).set(COUNT);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
  };
  c.get(NRHS).i32(n * E).op(OP.i32Mul).set(bMat);
  if (G > 1) loopOf(G);
  loopOf(1);
  return { name: 'zgetrf2', params, results: [], code: c };
}

/**
 * `factor(a, piv, scratch) -> ok`: the pair at a and a + n^2 16 split into the scratch, factored
 * there (pivots to piv and piv + 4 n), the factor interleaved back over A and 1 returned; or 0,
 * A untouched, where a pivot is one the kernel does not take. complex64's gesv: the scratch's
 * factor then rounded to float32, as the solve reads it.
 */
function factorFunction(p: ZgetrfInterleavedParams): FunctionDef {
  const { n } = p;
  const params: ValType[] = ['i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, PIV, SCR] = [0, 1, 2];
  const { get, load, store, loop, from, select, divideLocals, divide, at } = helpers(c, n);
  const i32 = (): number => c.local('i32');
  const v = (): number => c.local('v128');
  const ok = i32(), sp = i32(), ap = i32(), x = i32(), y = i32(), p0 = i32(), p1 = i32();
  const tf = c.local('f64');
  const t = v(), pm = v(), pv = v(), mask = v(), pr = v(), pi = v(), rr = v(), ri = v(), ur = v(), ui = v();
  const t0 = v(), t1 = v(), xr = v(), xi = v();
  const dv = divideLocals();
  const lr = Array.from({ length: p.rowLoops ? 0 : n }, v), li = Array.from({ length: p.rowLoops ? 0 : n }, v);
  // the row offset of the search's loop (declared after the others: the unrolled form's locals as they were)
  const iv = p.rowLoops ? v() : -1;
  const MAT = n * n * E;
  /** Pushes |re| + |im| of the split element at base + off (the reference's abs1, per lane). */
  const abs1 = (base: number, off: number): void => {
    load(base, off); c.simd(SIMD.f64x2Abs);
    load(base, off + 16); c.simd(SIMD.f64x2Abs);
    c.simd(SIMD.f64x2Add);
  };
  /** The pair split into the scratch (inward) or its factor interleaved back over A, a column per loop trip. */
  const copy = (inward: boolean): void => {
    loop(n, [[ap, get(A), n * E], [sp, get(SCR), n * SLOT]], () => {
      for (let i = 0; i < n; i++) {
        if (inward) {
          load(ap, i * E); c.set(t0);
          load(ap, i * E + MAT); c.set(t1);
          store(sp, i * SLOT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
          store(sp, i * SLOT + 16, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
        } else {
          load(sp, i * SLOT); c.set(t0);
          load(sp, i * SLOT + 16); c.set(t1);
          store(ap, i * E, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
          store(ap, i * E + MAT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
        }
      }
    });
  };
  /** Lane `lane`'s rows j and p (the byte offset p SLOT in local `prow`) exchanged in every column. */
  const swapLane = (j: number, prow: number, lane: number): void => {
    const rowP = (): void => { c.get(SCR).get(prow).op(OP.i32Add).i32(8 * lane).op(OP.i32Add); };
    loop(n, [[x, from(SCR, j * SLOT + 8 * lane), n * SLOT], [y, rowP, n * SLOT]], () => {
      for (const off of [0, 16]) {
        c.get(x).mem(OP.f64Load, 3, off).set(tf);
        c.get(x).get(y).mem(OP.f64Load, 3, off).mem(OP.f64Store, 3, off);
        c.get(y).get(tf).mem(OP.f64Store, 3, off);
      }
    });
  };
  /** One row of the pivot search: the element at base + off, its row's byte offset pushed by `row`. */
  const searchRow = (base: number, off: number, row: () => void): void => {
    abs1(base, off); c.tee(t).get(pm).simd(SIMD.f64x2Gt).set(mask);
    // pm := t where t > pm: pmax(pm, t) = pm < t ? t : pm, one instruction where a bitselect is three
    c.get(pm).get(t).simd(SIMD.f64x2Pmax).set(pm);
    select(row, get(pv), mask); c.set(pv);
  };
  const step = (j: number): void => {
    // pivot search: per lane the first row of largest |re| + |im| (`t > pm` only), its byte offset i SLOT in pv
    abs1(SCR, at(j, j)); c.set(pm);
    c.i64x2(j * SLOT).set(pv);
    if (p.rowLoops && j < n - 1) {
      // rows j + 1 .. n - 1 a trip each, iv their byte offset
      c.i64x2((j + 1) * SLOT).set(iv);
      loop(n - 1 - j, [[x, from(SCR, at(j + 1, j)), SLOT]], () => {
        searchRow(x, 0, get(iv));
        c.get(iv).i64x2(SLOT).simd(SIMD.i64x2Add).set(iv);
      });
    } else {
      for (let i = j + 1; i < n; i++) searchRow(SCR, at(i, j), () => c.i64x2(i * SLOT));
    }
    c.get(pv).simd(SIMD.i64x2ExtractLane, 0).op(OP.i32WrapI64).set(p0);
    c.get(pv).simd(SIMD.i64x2ExtractLane, 1).op(OP.i32WrapI64).set(p1);
    c.get(PIV).get(p0).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, 4 * j);
    c.get(PIV).get(p1).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, 4 * n + 4 * j);
    // the interchanges (rows j and p of the whole matrix), each lane its own
    c.get(p0).i32(j * SLOT).op(OP.i32Ne).if_(() => swapLane(j, p0, 0));
    c.get(p1).i32(j * SLOT).op(OP.i32Ne).if_(() => swapLane(j, p1, 1));
    // both parts finite and one at least the safe minimum in both lanes, else the pair goes back
    // (labels: 0 this if, 1 the failing block)
    load(SCR, at(j, j)); c.set(pr);
    load(SCR, at(j, j) + 16); c.set(pi);
    pivotTaken(c, pr, pi, p.zeroMax);
    c.simd(SIMD.v128Not).simd(SIMD.v128AnyTrue).if_(() => { c.op(OP.br, 1); });
    if (j === n - 1) return;
    // the reciprocal 1 / (pr + i pi), then the column below the diagonal scaled by it
    divide(dv, () => c.f64x2(1), () => c.f64x2(0), pr, pi, rr, ri);
    /** L(i, j) = A(i, j) / pivot at base + off, into (outRe, outIm) and the scratch. */
    const scale = (base: number, off: number, outRe: number, outIm: number): void => {
      load(base, off); c.set(xr);
      load(base, off + 16); c.set(xi);
      c.get(xr).get(rr).simd(SIMD.f64x2Mul).get(xi).get(ri).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(outRe);
      c.get(xr).get(ri).simd(SIMD.f64x2Mul).get(xi).get(rr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(outIm);
      store(base, off, get(outRe));
      store(base, off + 16, get(outIm));
    };
    if (p.rowLoops) loop(n - 1 - j, [[x, from(SCR, at(j + 1, j)), SLOT]], () => scale(x, 0, t0, t1));
    else for (let i = j + 1; i < n; i++) scale(SCR, at(i, j), lr[i]!, li[i]!);
    // rank-1 update of columns j + 1 .. n - 1, a column per trip (sp at its top); the
    // multipliers in locals, or read back from the scratch where the scaling was a loop
    loop(n - 1 - j, [[sp, from(SCR, at(0, j + 1)), n * SLOT]], () => {
      load(sp, j * SLOT); c.set(ur);
      load(sp, j * SLOT + 16); c.set(ui);
      for (let i = j + 1; i < n; i++) {
        let mr = lr[i]!, mi = li[i]!;
        if (p.rowLoops) {
          mr = t0; mi = t1;
          load(SCR, at(i, j)); c.set(mr);
          load(SCR, at(i, j) + 16); c.set(mi);
        }
        store(sp, i * SLOT, () => {
          load(sp, i * SLOT);
          c.get(mr).get(ur).simd(SIMD.f64x2Mul).get(mi).get(ui).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub);
        });
        store(sp, i * SLOT + 16, () => {
          load(sp, i * SLOT + 16);
          c.get(mr).get(ui).simd(SIMD.f64x2Mul).get(mi).get(ur).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub);
        });
      }
    });
  };

  c.i32(0).set(ok);
  c.op(OP.block, OP.void); // left by a pivot the kernel does not take
  copy(true);
  for (let j = 0; j < n; j++) step(j);
  copy(false);
  if (p.op === 'gesv' && p.roundFactor) {
    // the factor in the scratch rounded to float32, as the solve reads it back
    loop(n, [[sp, get(SCR), n * SLOT]], () => {
      for (let h = 0; h < 2 * n; h++) {
        store(sp, 16 * h, () => { load(sp, 16 * h); c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); });
      }
    });
  }
  c.i32(1).set(ok);
  c.op(OP.end);
  c.get(ok);
  return { name: 'factor', params, results: ['i32'], code: c };
}

/**
 * `factor` as factorFunction's, in Crout's order: element (i, c) of the factor is A(i, c) less the
 * terms L(i, k) U(k, c), k < min(i, c), each subtracted as the right-looking update subtracts it
 * and in its ascending k, so the results are bitwise the same. Step j forms column j (rows j ..
 * n - 1) from the finished part, searches it for the pivot, interchanges rows j and p whole (their
 * columns past j still hold A's values, and their L parts move with them, as in the right-looking
 * order), forms row j of U (columns j + 1 .. n - 1) and scales column j below the diagonal. Each
 * element's terms are a runtime loop over k with `crout` rows (or columns) side by side, their
 * accumulators in registers: no stores in the inner loop. The steps too are a runtime loop (j and
 * its pointers in locals), so the function is a few kB whatever n: unrolled per step it was 45 kB
 * at n = 16 and ran slower than the right-looking kernel, out of the instruction cache.
 *
 * Each element is read once, where its accumulator starts, so it is read from A itself (split as it
 * is loaded), with no copy of the pair into the scratch first (getrf 16 about 5% faster): step j's
 * interchange moves the scratch's columns 0 .. j and A's columns j + 1 .. n - 1, the ones still to
 * be read. Where a pivot is not taken those interchanges of A are undone, last first, so every A
 * is as it came (the driver factors it again on the one-matrix kernel).
 *
 * With M > 1 (`factorGroup(a, piv, scratch, a', piv', scratch', ...) -> ok`, gesv's trips of two
 * pairs) the M pairs' steps run phase by phase side by side, so that one pair's serial chain
 * (search, interchange, reciprocal) overlaps the other's work; ok is 1 where all of them factored,
 * else 0 with every A untouched (the caller factors each alone then).
 *
 * gesv's functions take each pair's B after its scratch and a last argument `fused` (1: nrhs = 1):
 * then B is split into the scratch's column n, interchanged with the rows, and solved here: the
 * forward row j, y(j) = b(j) - L(j, k) y(k) in ascending k, is row j of U's extra column (complex128;
 * complex64's forward rows read the factor rounded, so they run beside the rounding, a column and
 * a row a trip), and the backward rows, each a chain of dependent terms and Smith's division, run
 * one a trip beside the copy of the factor back over A, where that throughput-bound work hides part
 * of their latency. B is written only where every pivot was taken, as the separate solve writes it.
 * complex64's factor is rounded in the scratch before it is copied back (the driver rounds A's
 * copy to float32 anyway: the same values).
 */
function croutFactorFunction(p: ZgetrfInterleavedParams, M: number, name: string): FunctionDef {
  const { n } = p;
  const gesv = p.op === 'gesv';
  // per pair A, pivots, scratch (and gesv's B); then gesv's `fused`
  const per = gesv ? 4 : 3;
  const params: ValType[] = Array.from({ length: per * M + (gesv ? 1 : 0) }, (): ValType => 'i32');
  const FUSED = per * M;
  const c = new Code(params);
  const { get, load, store, select, divideLocals, divide } = helpers(c, n);
  const i32 = (): number => c.local('i32');
  const v = (): number => c.local('v128');
  const ok = i32(), sp = i32(), ap = i32(), x = i32(), y = i32(), cnt = i32(), k = i32();
  // step j: j; a group's first element (i0, j) or (j, c0), the starts of its terms' L and U, and
  // the rows or columns left
  const j = i32(), e = i32(), gx = i32(), gy = i32(), left = i32(), cc = i32(), colS = i32(), colA = i32();
  // the member whose groups run (its A and scratch), and a group's first element in A
  const aNow = i32(), scrNow = i32(), ea = i32(), ju = i32();
  const tf = c.local('f64');
  const t = v(), mask = v(), ur = v(), ui = v(), t0 = v(), t1 = v(), xr = v(), xi = v();
  const R = p.crout;
  const accR = Array.from({ length: R }, v), accI = Array.from({ length: R }, v);
  // each pair's own: its A, pivots and scratch; at step j the byte addresses of (0, j), (j, 0),
  // (j, j) and its pivot entry; its pivot search, pivots, pivot and reciprocal
  const members = Array.from({ length: M }, (_, m) => ({
    A: per * m, PIV: per * m + 1, SCR: per * m + 2, B: per * m + 3,
    colJ: i32(), rowJ: i32(), diag: i32(), pivJ: i32(), p0: i32(), p1: i32(),
    pm: v(), pv: v(), iv: v(), pr: v(), pi: v(), rr: v(), ri: v(), dv: divideLocals(),
    // the fused solve's row i: (i, i), x(i) and B(i) of both matrices
    sd: i32(), sx: i32(), sb: i32(),
  }));
  type Member = (typeof members)[number];
  /** Each pair's part of a phase in turn: one pair's serial chain overlaps the other's work. */
  const each = (f: (m: Member) => void): void => { for (const m of members) f(m); };
  const MAT = n * n * E;
  const COL = n * SLOT;
  /** The right-hand side's split column in the scratch, column n of the factor's layout. */
  const X0 = n * COL;
  /** The reciprocal's place in the scratch, after the right-hand side. */
  const RCP = X0 + n * SLOT;
  /** A do-while loop of `trips` trips (> 0; it counts down `counter`), pointers stepping by their strides. */
  const runLoop = (trips: () => void, counter: number, pointers: readonly LoopPointer[], body: () => void): void => {
    for (const [ptr, start] of pointers) { start(); c.set(ptr); }
    trips(); c.set(counter);
    c.loop_(() => {
      body();
      for (const [ptr, , stride] of pointers) c.get(ptr).i32(stride).op(OP.i32Add).set(ptr);
      c.get(counter).i32(1).op(OP.i32Sub).tee(counter);
    });
  };
  /** `runLoop` where the trips may be zero. */
  const runLoop0 = (trips: () => void, counter: number, pointers: readonly LoopPointer[], body: () => void): void => {
    trips(); c.i32(0).op(OP.i32GtS).if_(() => runLoop(trips, counter, pointers, body));
  };

  /** Column q (j) of a pair's split factor interleaved back over its A. */
  const copyOut = ({ A, SCR }: Member): void => {
    c.get(SCR).get(colS).op(OP.i32Add).set(sp);
    c.get(A).get(colA).op(OP.i32Add).set(ap);
    for (let i = 0; i < n; i++) {
      load(sp, i * SLOT); c.set(t0);
      load(sp, i * SLOT + 16); c.set(t1);
      store(ap, i * E, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
      store(ap, i * E + MAT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
    }
  };
  /** The pair's right-hand sides (B and B + n 16, one column each) split into the scratch's column n. */
  const splitB = ({ SCR, B }: Member): void => {
    for (let i = 0; i < n; i++) {
      load(B, i * E); c.set(t0);
      load(B, (n + i) * E); c.set(t1);
      store(SCR, X0 + i * SLOT, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO));
      store(SCR, X0 + i * SLOT + 16, () => c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI));
    }
  };
  /** Column q (j) of a pair's split factor rounded to float32 (complex64's gesv). */
  const roundColumn = ({ SCR }: Member): void => {
    c.get(SCR).get(colS).op(OP.i32Add).set(sp);
    for (let h = 0; h < 2 * n; h++) {
      store(sp, 16 * h, () => { load(sp, 16 * h); c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); });
    }
  };
  /**
   * The fused solve's forward row q (j) on the rounded factor (complex64): y(q) = b(q) - L(q, k)
   * y(k), k = 0 .. q - 1 ascending (the reference's zgetrs 'N' and solveVector order).
   */
  const forwardRow = ({ SCR }: Member): void => {
    c.get(SCR).get(j).i32(5).op(OP.i32Shl).op(OP.i32Add).set(e);
    load(e, X0); c.set(accR[0]!);
    load(e, X0 + 16); c.set(accI[0]!);
    runLoop0(get(j), k, [[x, get(e), COL], [y, () => c.get(SCR).i32(X0).op(OP.i32Add), SLOT]], () => {
      load(x, 0); c.set(xr);
      load(x, 16); c.set(xi);
      load(y, 0); c.set(ur);
      load(y, 16); c.set(ui);
      subtractTerm(0, xr, xi);
    });
    store(e, X0, get(accR[0]!));
    store(e, X0 + 16, get(accI[0]!));
  };
  /**
   * The fused solve's backward row i = n - 1 - q (q in j): x(i) = (y(i) - U(i, k) x(k), k = i + 1
   * .. n - 1 ascending) / U(i, i) by Smith's division per lane, to the scratch and to both B; sd at
   * (i, i), sx at x(i), sb at B(i), each moved up a row.
   */
  const backwardRow = ({ sd, sx, sb, dv, pr, pi }: Member): void => {
    load(sx, 0); c.set(accR[0]!);
    load(sx, 16); c.set(accI[0]!);
    runLoop0(get(j), k, [[x, () => c.get(sd).i32(COL).op(OP.i32Add), COL], [y, () => c.get(sx).i32(SLOT).op(OP.i32Add), SLOT]], () => {
      load(x, 0); c.set(xr);
      load(x, 16); c.set(xi);
      load(y, 0); c.set(ur);
      load(y, 16); c.set(ui);
      subtractTerm(0, xr, xi);
    });
    load(sd, 0); c.set(pr);
    load(sd, 16); c.set(pi);
    divide(dv, get(accR[0]!), get(accI[0]!), pr, pi, accR[0]!, accI[0]!);
    store(sx, 0, get(accR[0]!));
    store(sx, 16, get(accI[0]!));
    store(sb, 0, () => c.get(accR[0]!).get(accI[0]!).simd(SIMD.i8x16Shuffle, LO));
    store(sb, n * E, () => c.get(accR[0]!).get(accI[0]!).simd(SIMD.i8x16Shuffle, HI));
    c.get(sd).i32(COL + SLOT).op(OP.i32Sub).set(sd);
    c.get(sx).i32(SLOT).op(OP.i32Sub).set(sx);
    c.get(sb).i32(E).op(OP.i32Sub).set(sb);
  };
  /** acc(u) -= l w (re -= lr wr - li wi; im -= lr wi + li wr), l in (lr, li), w in (ur, ui). */
  const subtractTerm = (u: number, lr: number, li: number): void => {
    c.get(accR[u]!).get(lr).get(ur).simd(SIMD.f64x2Mul).get(li).get(ui).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub).set(accR[u]!);
    c.get(accI[u]!).get(lr).get(ui).simd(SIMD.f64x2Mul).get(li).get(ur).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(accI[u]!);
  };
  /**
   * h elements from e on, `apart` bytes from one to the next, each less its j terms: column j's rows
   * (apart SLOT; L(i0 + u, k) from x = gx on by COL, U(k, j) from y = gy on by SLOT) or row j's
   * columns (apart COL; L(j, k) from gx by COL, U(k, c0 + u) from gy by SLOT).
   */
  const group = (h: number, column: boolean, fromA = true): void => {
    const apart = column ? SLOT : COL;
    if (fromA) {
      // each element's first value A's own, split from the pair as it is read (its place in A is
      // half its place in the scratch: 16 bytes an element there, 32 here)
      c.get(e).get(scrNow).op(OP.i32Sub).i32(1).op(OP.i32ShrU).get(aNow).op(OP.i32Add).set(ea);
      for (let u = 0; u < h; u++) {
        load(ea, (u * apart) / 2); c.set(t0);
        load(ea, (u * apart) / 2 + MAT); c.set(t1);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO).set(accR[u]!);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI).set(accI[u]!);
      }
    } else {
      for (let u = 0; u < h; u++) {
        load(e, u * apart); c.set(accR[u]!);
        load(e, u * apart + 16); c.set(accI[u]!);
      }
    }
    runLoop0(get(j), k, [[x, get(gx), COL], [y, get(gy), SLOT]], () => {
      // the operand shared by the h elements, then each one's own
      const [sr, si, or, oi] = column ? [ur, ui, xr, xi] : [xr, xi, ur, ui];
      load(column ? y : x, 0); c.set(sr);
      load(column ? y : x, 16); c.set(si);
      for (let u = 0; u < h; u++) {
        load(column ? x : y, u * apart); c.set(or);
        load(column ? x : y, u * apart + 16); c.set(oi);
        subtractTerm(u, xr, xi);
      }
    });
    for (let u = 0; u < h; u++) {
      store(e, u * apart, get(accR[u]!));
      store(e, u * apart + 16, get(accI[u]!));
    }
  };
  /**
   * Groups of R over `count` elements from e on (the rows of column j or the columns of row j),
   * then the h < R left over; a group's own operands' start moves with it (L's rows, gx, by SLOT;
   * U's columns, gy, by COL).
   */
  const groups = (count: () => void, column: boolean): void => {
    const step = R * (column ? SLOT : COL);
    const own = column ? gx : gy;
    count(); c.set(left);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(left).i32(R).op(OP.i32LtS).op(OP.brIf, 1);
    group(R, column);
    c.get(e).i32(step).op(OP.i32Add).set(e);
    c.get(own).i32(step).op(OP.i32Add).set(own);
    c.get(left).i32(R).op(OP.i32Sub).set(left);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
    for (let h = 1; h < R; h++) c.get(left).i32(h).op(OP.i32Eq).if_(() => group(h, column));
  };
  /** Lane `lane`'s parts of the split elements at x and y exchanged. */
  const swapParts = (): void => {
    for (const off of [0, 16]) {
      c.get(x).mem(OP.f64Load, 3, off).set(tf);
      c.get(x).get(y).mem(OP.f64Load, 3, off).mem(OP.f64Store, 3, off);
      c.get(y).get(tf).mem(OP.f64Store, 3, off);
    }
  };
  /**
   * Lane `lane`'s rows j and p (byte offset p SLOT in local prow) exchanged: in the scratch's
   * columns 0 .. j (L's and column j's, the ones formed so far) and the fused solve's right-hand
   * side, and in A's columns j + 1 .. n - 1, the ones still to be read (swapA).
   */
  const swapLane = (m: Member, prow: number, lane: number): void => {
    const { SCR, rowJ } = m;
    runLoop(() => c.get(j).i32(1).op(OP.i32Add), cnt, [[x, () => c.get(rowJ).i32(8 * lane).op(OP.i32Add), COL], [y, () => c.get(SCR).get(prow).op(OP.i32Add).i32(8 * lane).op(OP.i32Add), COL]], swapParts);
    if (gesv) {
      c.get(FUSED).if_(() => {
        c.get(rowJ).i32(X0 + 8 * lane).op(OP.i32Add).set(x);
        c.get(SCR).get(prow).op(OP.i32Add).i32(X0 + 8 * lane).op(OP.i32Add).set(y);
        swapParts();
      });
    }
    swapA(m, j, prow, lane);
  };
  /**
   * Lane `lane`'s matrix's rows jl and p (byte offset p SLOT in local prow) exchanged in A's
   * columns jl + 1 .. n - 1 (16-byte elements; jl a local).
   */
  const swapA = ({ A }: Member, jl: number, prow: number, lane: number): void => {
    /** Pushes A's byte offset of (0, jl + 1) in the lane's matrix. */
    const col = (): void => { c.get(A).i32(lane * MAT + n * E).op(OP.i32Add).get(jl).i32(n * E).op(OP.i32Mul).op(OP.i32Add); };
    runLoop0(() => c.i32(n - 1).get(jl).op(OP.i32Sub), cnt, [
      [x, () => { col(); c.get(jl).i32(4).op(OP.i32Shl).op(OP.i32Add); }, n * E],
      [y, () => { col(); c.get(prow).i32(1).op(OP.i32ShrU).op(OP.i32Add); }, n * E],
    ], () => {
      load(x, 0); c.set(t0);
      store(x, 0, () => load(y, 0));
      store(y, 0, get(t0));
    });
  };
  /** Pushes |re| + |im| of the split element at base + off (the reference's abs1, per lane). */
  const abs1 = (base: number, off: number): void => {
    load(base, off); c.simd(SIMD.f64x2Abs);
    load(base, off + 16); c.simd(SIMD.f64x2Abs);
    c.simd(SIMD.f64x2Add);
  };
  /** Pushes n - j - d. */
  const nLess = (d: number) => (): void => { c.i32(n - d).get(j).op(OP.i32Sub); };

  /** Column j, rows j .. n - 1: (i0, j) at e, L(i0, 0) = SCR + i0 SLOT, U(0, j) = (0, j). */
  const column = ({ colJ, rowJ, diag, A, SCR }: Member): void => {
    c.get(A).set(aNow); c.get(SCR).set(scrNow);
    c.get(diag).set(e);
    c.get(rowJ).set(gx);
    c.get(colJ).set(gy);
    groups(nLess(0), true);
  };
  /** The pivot search down column j: per lane the first row of largest |re| + |im| (`t > pm` only), its byte offset i SLOT in pv. */
  const search = ({ diag, pm, pv, iv }: Member): void => {
    abs1(diag, 0); c.set(pm);
    c.get(j).i32(5).op(OP.i32Shl).op(OP.i64ExtendI32U).simd(SIMD.i64x2Splat).tee(pv).set(iv);
    runLoop0(nLess(1), cnt, [[x, () => c.get(diag).i32(SLOT).op(OP.i32Add), SLOT]], () => {
      c.get(iv).i64x2(SLOT).simd(SIMD.i64x2Add).set(iv);
      abs1(x, 0); c.tee(t).get(pm).simd(SIMD.f64x2Gt).set(mask);
      // pm := t where t > pm: pmax(pm, t) = pm < t ? t : pm, one instruction where a bitselect is three
      c.get(pm).get(t).simd(SIMD.f64x2Pmax).set(pm);
      select(get(iv), get(pv), mask); c.set(pv);
    });
  };
  /**
   * The pivots stored, each lane's rows j and p interchanged (the whole matrix), the pivot checked:
   * both parts finite and one at least the safe minimum in both lanes, else the pairs go back
   * (labels: 0 the steps' loop, 1 the failing block).
   */
  const pivot = (m: Member): void => {
    const { pv, p0, p1, pivJ } = m;
    c.get(pv).simd(SIMD.i64x2ExtractLane, 0).op(OP.i32WrapI64).set(p0);
    c.get(pv).simd(SIMD.i64x2ExtractLane, 1).op(OP.i32WrapI64).set(p1);
    c.get(pivJ).get(p0).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, 0);
    c.get(pivJ).get(p1).i32(5).op(OP.i32ShrU).mem(OP.i32Store, 2, 4 * n);
    c.get(p0).get(j).i32(5).op(OP.i32Shl).op(OP.i32Ne).if_(() => swapLane(m, p0, 0));
    c.get(p1).get(j).i32(5).op(OP.i32Shl).op(OP.i32Ne).if_(() => swapLane(m, p1, 1));
  };
  /** Every pair's interchanges done (so that a failure undoes the same steps in each), the pivot checked. */
  const check = ({ diag, pr, pi }: Member): void => {
    load(diag, 0); c.set(pr);
    load(diag, 16); c.set(pi);
    pivotTaken(c, pr, pi, p.zeroMax);
    c.simd(SIMD.v128Not).simd(SIMD.v128AnyTrue).op(OP.brIf, 1);
  };
  /**
   * Row j of U, columns j + 1 .. n - 1: (j, c0) at e, L(j, 0) = (j, 0), U(0, c0). complex128's
   * fused solve adds column n, the right-hand side: y(j) = b(j) - L(j, k) y(k), k ascending, the
   * forward solve's row j in its order (complex64's reads the factor rounded: forwardRow).
   */
  const fusedForward = gesv && !p.roundFactor;
  const row = ({ colJ, rowJ, diag, A, SCR }: Member): void => {
    c.get(A).set(aNow); c.get(SCR).set(scrNow);
    c.get(diag).i32(COL).op(OP.i32Add).set(e);
    c.get(rowJ).set(gx);
    c.get(colJ).i32(COL).op(OP.i32Add).set(gy);
    groups(nLess(1), false);
    // the right-hand side's column n, from the scratch: (j, n) at e, y(0) at gy
    if (fusedForward) {
      c.get(FUSED).if_(() => {
        c.get(rowJ).i32(X0).op(OP.i32Add).set(e);
        c.get(SCR).i32(X0).op(OP.i32Add).set(gy);
        group(1, false, false);
      });
    }
  };
  /** L(i, j) = A(i, j) / pivot below the diagonal, by the reciprocal. */
  const scale = ({ diag, rr, ri, SCR }: Member): void => {
    load(SCR, RCP); c.set(rr);
    load(SCR, RCP + 16); c.set(ri);
    runLoop0(nLess(1), cnt, [[x, () => c.get(diag).i32(SLOT).op(OP.i32Add), SLOT]], () => {
      load(x, 0); c.set(xr);
      load(x, 16); c.set(xi);
      store(x, 0, () => c.get(xr).get(rr).simd(SIMD.f64x2Mul).get(xi).get(ri).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub));
      store(x, 16, () => c.get(xr).get(ri).simd(SIMD.f64x2Mul).get(xi).get(rr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add));
    });
  };

  c.i32(0).set(ok);
  c.op(OP.block, OP.void); // left by a pivot the kernel does not take
  // the fused solve's right-hand side split into column n (interchanged with the rows from here on)
  if (gesv) c.get(FUSED).if_(() => each(splitB));
  c.i32(0).set(j);
  each(({ SCR, PIV, colJ, rowJ, diag, pivJ }) => { c.get(SCR).tee(colJ).tee(rowJ).set(diag); c.get(PIV).set(pivJ); });
  c.loop_(() => {
    each(column);
    each(search);
    each(pivot);
    each(check);
    // the reciprocal 1 / (pr + i pi) (at the last step unused), stored in the scratch's right-hand
    // side area (free until the solve) and read back by the scaling: the stores keep its divisions
    // here, where row j's work hides their latency (V8 otherwise sinks them to the scaling)
    each(({ dv, pr, pi, rr, ri, SCR }) => {
      divide(dv, () => c.f64x2(1), () => c.f64x2(0), pr, pi, rr, ri);
      store(SCR, RCP, get(rr));
      store(SCR, RCP + 16, get(ri));
    });
    // (at j = 0 no terms: row 0 of U is A's, read into the scratch)
    each(row);
    each(scale);
    c.get(j).i32(1).op(OP.i32Add).set(j);
    each(({ colJ, rowJ, diag, pivJ }) => {
      c.get(colJ).i32(COL).op(OP.i32Add).set(colJ);
      c.get(rowJ).i32(SLOT).op(OP.i32Add).set(rowJ);
      c.get(diag).i32(COL + SLOT).op(OP.i32Add).set(diag);
      c.get(pivJ).i32(4).op(OP.i32Add).set(pivJ);
    });
    c.get(j).i32(n).op(OP.i32LtS);
  });
  // j counts columns from here on (q), colS and colA their byte offsets in the scratch and in A
  if (gesv && p.roundFactor) {
    // complex64: the factor in the scratch rounded to float32, as the solve reads it back, a
    // column a trip; the fused solve's forward row q beside it (its terms in columns < q, rounded)
    c.i32(0).tee(j).set(colS);
    runLoop(() => c.i32(n), cc, [], () => {
      each(roundColumn);
      c.get(FUSED).if_(() => each(forwardRow));
      c.get(j).i32(1).op(OP.i32Add).set(j);
      c.get(colS).i32(COL).op(OP.i32Add).set(colS);
    });
  }
  // the factor interleaved back over A a column a trip; the fused solve's backward row n - 1 - q
  // beside it, so that its chain of dependent rows overlaps the copies
  if (gesv) c.get(FUSED).if_(() => each(({ SCR, B, sd, sx, sb }) => {
    c.get(SCR).i32((n - 1) * (COL + SLOT)).op(OP.i32Add).set(sd);
    c.get(SCR).i32(X0 + (n - 1) * SLOT).op(OP.i32Add).set(sx);
    c.get(B).i32((n - 1) * E).op(OP.i32Add).set(sb);
  }));
  c.i32(0).tee(j).tee(colS).set(colA);
  runLoop(() => c.i32(n), cc, [], () => {
    each(copyOut);
    if (gesv) c.get(FUSED).if_(() => each(backwardRow));
    c.get(j).i32(1).op(OP.i32Add).set(j);
    c.get(colS).i32(COL).op(OP.i32Add).set(colS);
    c.get(colA).i32(n * E).op(OP.i32Add).set(colA);
  });
  c.i32(1).set(ok);
  c.op(OP.end);
  // a pivot not taken at step j: A's interchanges of steps j, j - 1, ..., 0 undone, so that every
  // A is as it came
  c.get(ok).op(OP.i32Eqz).if_(() => {
    each((m) => {
      const { PIV, p0, p1 } = m;
      c.get(j).set(ju);
      c.loop_(() => {
        c.get(PIV).get(ju).i32(2).op(OP.i32Shl).op(OP.i32Add).tee(x).mem(OP.i32Load, 2, 0).i32(5).op(OP.i32Shl).set(p0);
        c.get(x).mem(OP.i32Load, 2, 4 * n).i32(5).op(OP.i32Shl).set(p1);
        c.get(p0).get(ju).i32(5).op(OP.i32Shl).op(OP.i32Ne).if_(() => swapA(m, ju, p0, 0));
        c.get(p1).get(ju).i32(5).op(OP.i32Shl).op(OP.i32Ne).if_(() => swapA(m, ju, p1, 1));
        c.get(ju).i32(1).op(OP.i32Sub).tee(ju).i32(0).op(OP.i32GeS);
      });
    });
  });
  c.get(ok);
  return { name, params, results: ['i32'], code: c };
}

/**
 * `name(b0, b1, piv, scratch, ...(per pair), nrhs)`: each of the G pairs' right-hand sides (the
 * pair's matrices' B at b0 and b1, its pivots, its factor in its scratch), the pairs' instructions
 * side by side: P b, L y = P b (unit), U x = y, each element's products in ascending k (the
 * reference's zgetrs 'N' and solveVector), Smith's division per lane.
 */
function solveFunction(p: ZgetrfInterleavedParams, G: number, name: string, scratchStride?: number): FunctionDef {
  const { n } = p;
  const params: ValType[] = [...Array.from({ length: 4 * G }, (): ValType => 'i32'), 'i32'];
  const c = new Code(params);
  const NRHS = 4 * G;
  const { get, load, store, loop, from, divideLocals, divide, at } = helpers(c, n);
  const rhs = c.local('i32'), sp = c.local('i32'), xp = c.local('i32'), x = c.local('i32'), y = c.local('i32');
  const v = (): number => c.local('v128');
  const members = Array.from({ length: G }, (_, g) => ({
    b0: 4 * g, b1: 4 * g + 1, PIV: 4 * g + 2, SCR: 4 * g + 3,
    re: v(), im: v(), t0: v(), t1: v(), xr: v(), xi: v(), pr: v(), pi: v(), dv: divideLocals(),
  }));
  type Member = (typeof members)[number];
  const each = (f: (m: Member) => void): void => { for (const m of members) f(m); };
  /** The solve's split right-hand side, element i, in the pair's scratch. */
  const X0 = n * n * SLOT;
  const xAt = (i: number): number => X0 + i * SLOT;
  /** B's rows of the column at local bq interchanged by the pivots at piv + pivOff, in order. */
  const interchange = (bq: number, piv: number, pivOff: number, t0: number): void => {
    for (let j = 0; j < n - 1; j++) {
      c.get(piv).mem(OP.i32Load, 2, pivOff + 4 * j).tee(x).i32(j).op(OP.i32Ne).if_(() => {
        c.get(bq).get(x).i32(4).op(OP.i32Shl).op(OP.i32Add).set(y);
        load(bq, j * E); c.set(t0);
        store(bq, j * E, () => load(y, 0));
        store(y, 0, get(t0));
      });
    }
  };
  /**
   * re -= tr xr - ti xi; im -= tr xi + ti xr (the reference's solveVector term): T at tp + off, x
   * at xq + off, each part loaded once (t0, t1 are free while the terms run).
   */
  const term = ({ re, im, xr, xi, t0, t1 }: Member, tp: number, xq: number, off: number): void => {
    load(xq, off); c.set(xr);
    load(xq, off + 16); c.set(xi);
    load(tp, off); c.set(t0);
    load(tp, off + 16); c.set(t1);
    c.get(re).get(t0).get(xr).simd(SIMD.f64x2Mul).get(t1).get(xi).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub).set(re);
    c.get(im).get(t0).get(xi).simd(SIMD.f64x2Mul).get(t1).get(xr).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(im);
  };
  // the pairs' scratches as offsets from the first's (the loop pointers are the first pair's):
  // `scratchStride` apart where the caller says so (constant memory offsets), else a runtime distance
  const dOff = Array.from({ length: G }, () => c.local('i32'));
  /** Each pair's terms at its own scratch: sp and xp are pair 0's, the others' a distance off. */
  const terms = (): void => {
    members.forEach((m, g) => {
      if (g === 0) { term(m, sp, xp, 0); return; }
      if (scratchStride !== undefined) { term(m, sp, xp, g * scratchStride); return; }
      // pair g's pointers: sp + d, xp + d (d = its scratch minus pair 0's)
      c.get(sp).get(dOff[g]!).op(OP.i32Add).set(x);
      c.get(xp).get(dOff[g]!).op(OP.i32Add).set(y);
      term(m, x, y, 0);
    });
  };
  const solveColumn = (): void => {
    each(({ b0, b1, PIV, t0 }) => {
      interchange(b0, PIV, 0, t0);
      interchange(b1, PIV, 4 * n, t0);
    });
    for (let i = 0; i < n; i++) {
      each(({ b0, b1, t0, t1, re, im }) => {
        load(b0, i * E); c.set(t0);
        load(b1, i * E); c.set(t1);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO).set(re);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI).set(im);
      });
      if (i > 0) loop(i, [[sp, from(members[0]!.SCR, at(i, 0)), n * SLOT], [xp, from(members[0]!.SCR, xAt(0)), SLOT]], terms);
      each(({ SCR, re, im }) => {
        store(SCR, xAt(i), get(re));
        store(SCR, xAt(i) + 16, get(im));
      });
    }
    for (let i = n - 1; i >= 0; i--) {
      each(({ SCR, re, im }) => {
        load(SCR, xAt(i)); c.set(re);
        load(SCR, xAt(i) + 16); c.set(im);
      });
      if (i < n - 1) loop(n - 1 - i, [[sp, from(members[0]!.SCR, at(i, i + 1)), n * SLOT], [xp, from(members[0]!.SCR, xAt(i + 1)), SLOT]], terms);
      each(({ SCR, re, im, pr, pi, b0, b1, dv }) => {
        load(SCR, at(i, i)); c.set(pr);
        load(SCR, at(i, i) + 16); c.set(pi);
        divide(dv, get(re), get(im), pr, pi, re, im);
        if (i > 0) {
          store(SCR, xAt(i), get(re));
          store(SCR, xAt(i) + 16, get(im));
        }
        store(b0, i * E, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, LO));
        store(b1, i * E, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, HI));
      });
    }
  };
  // The same solve with its rows a runtime loop (rowLoops): xq at x(i), tq at the row's first
  // term, tc the row's number of terms, bq each member's B(i) (pair 0's scratch; the others' a
  // distance dOff away).
  // (declared only for that form: the unrolled one's module stays as it was)
  const index = (): number => (p.rowLoops ? c.local('i32') : -1);
  const xq = index(), tq = index(), dq = index(), tc = index(), rows = index(), k = index();
  const bq = members.map(() => [index(), index()] as const);
  /** Pushes member g's address of the pair-0 address in local `at`. */
  const own = (at: number, g: number): void => { c.get(at); if (g > 0) c.get(dOff[g]!).op(OP.i32Add); };
  /** The row's tc terms (tc may be 0), the factor's from tq by `stride`, x's from `xFrom`. */
  const rowTerms = (stride: number, xFrom: () => void): void => {
    c.get(tc).i32(0).op(OP.i32GtS).if_(() => {
      c.get(tq).set(sp);
      xFrom(); c.set(xp);
      c.get(tc).set(k);
      c.loop_(() => {
        terms();
        c.get(sp).i32(stride).op(OP.i32Add).set(sp);
        c.get(xp).i32(SLOT).op(OP.i32Add).set(xp);
        c.get(k).i32(1).op(OP.i32Sub).tee(k);
      });
    });
  };
  /** A runtime loop of `trips` rows. */
  const rowLoop = (trips: number, body: () => void): void => {
    c.i32(trips).set(rows);
    c.loop_(() => { body(); c.get(rows).i32(1).op(OP.i32Sub).tee(rows); });
  };
  const solveColumnLoops = (): void => {
    const S0 = members[0]!.SCR;
    each(({ b0, b1, PIV, t0 }) => {
      interchange(b0, PIV, 0, t0);
      interchange(b1, PIV, 4 * n, t0);
    });
    // forward: row i's terms k = 0 .. i - 1 (T from at(i, 0) by n SLOT)
    c.get(S0).i32(xAt(0)).op(OP.i32Add).set(xq);
    c.get(S0).i32(at(0, 0)).op(OP.i32Add).set(tq);
    c.i32(0).set(tc);
    members.forEach(({ b0, b1 }, g) => { c.get(b0).set(bq[g]![0]); c.get(b1).set(bq[g]![1]); });
    rowLoop(n, () => {
      members.forEach(({ t0, t1, re, im }, g) => {
        load(bq[g]![0], 0); c.set(t0);
        load(bq[g]![1], 0); c.set(t1);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, LO).set(re);
        c.get(t0).get(t1).simd(SIMD.i8x16Shuffle, HI).set(im);
      });
      rowTerms(n * SLOT, () => c.get(S0).i32(xAt(0)).op(OP.i32Add));
      members.forEach(({ re, im }, g) => {
        own(xq, g); c.get(re).simdMem(SIMD.store, 4, 0);
        own(xq, g); c.get(im).simdMem(SIMD.store, 4, 16);
        c.get(bq[g]![0]).i32(E).op(OP.i32Add).set(bq[g]![0]);
        c.get(bq[g]![1]).i32(E).op(OP.i32Add).set(bq[g]![1]);
      });
      c.get(xq).i32(SLOT).op(OP.i32Add).set(xq);
      c.get(tq).i32(SLOT).op(OP.i32Add).set(tq);
      c.get(tc).i32(1).op(OP.i32Add).set(tc);
    });
    // backward: row i's terms k = i + 1 .. n - 1 (T from at(i, i + 1) = at(i, i) + n SLOT by n SLOT),
    // then the division by U(i, i) at dq
    c.get(S0).i32(xAt(n - 1)).op(OP.i32Add).set(xq);
    c.get(S0).i32(at(n - 1, n - 1)).op(OP.i32Add).set(dq);
    c.i32(0).set(tc);
    members.forEach(({ b0, b1 }, g) => {
      c.get(b0).i32((n - 1) * E).op(OP.i32Add).set(bq[g]![0]);
      c.get(b1).i32((n - 1) * E).op(OP.i32Add).set(bq[g]![1]);
    });
    rowLoop(n, () => {
      members.forEach(({ re, im }, g) => {
        own(xq, g); c.simdMem(SIMD.load, 4, 0).set(re);
        own(xq, g); c.simdMem(SIMD.load, 4, 16).set(im);
      });
      c.get(dq).i32(n * SLOT).op(OP.i32Add).set(tq);
      rowTerms(n * SLOT, () => c.get(xq).i32(SLOT).op(OP.i32Add));
      members.forEach(({ re, im, pr, pi, dv }, g) => {
        own(dq, g); c.simdMem(SIMD.load, 4, 0).set(pr);
        own(dq, g); c.simdMem(SIMD.load, 4, 16).set(pi);
        divide(dv, get(re), get(im), pr, pi, re, im);
        own(xq, g); c.get(re).simdMem(SIMD.store, 4, 0);
        own(xq, g); c.get(im).simdMem(SIMD.store, 4, 16);
        store(bq[g]![0], 0, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, LO));
        store(bq[g]![1], 0, () => c.get(re).get(im).simd(SIMD.i8x16Shuffle, HI));
        c.get(bq[g]![0]).i32(E).op(OP.i32Sub).set(bq[g]![0]);
        c.get(bq[g]![1]).i32(E).op(OP.i32Sub).set(bq[g]![1]);
      });
      c.get(xq).i32(SLOT).op(OP.i32Sub).set(xq);
      c.get(dq).i32((n + 1) * SLOT).op(OP.i32Sub).set(dq);
      c.get(tc).i32(1).op(OP.i32Add).set(tc);
    });
  };
  members.forEach(({ SCR }, g) => { if (g > 0) c.get(SCR).get(members[0]!.SCR).op(OP.i32Sub).set(dOff[g]!); });
  c.get(NRHS).i32(0).op(OP.i32GtS).if_(() => {
    c.get(NRHS).set(rhs);
    c.loop_(() => {
      if (p.rowLoops) solveColumnLoops();
      else solveColumn();
      each(({ b0, b1 }) => {
        c.get(b0).i32(n * E).op(OP.i32Add).set(b0);
        c.get(b1).i32(n * E).op(OP.i32Add).set(b1);
      });
      c.get(rhs).i32(1).op(OP.i32Sub).tee(rhs);
    });
  });
  return { name, params, results: [], code: c };
}

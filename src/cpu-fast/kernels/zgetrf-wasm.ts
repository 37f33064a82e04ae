/**
 * Generated WebAssembly SIMD complex LU (getrf, gesv, getrs 'N') for one order n, on complex
 * matrices back to back in the module's memory as float64 pairs with ld = n (complex64 is
 * widened by the driver's copy in and rounded once by its copy out, as the reference computes
 * in float64 and rounds on store). One f64x2 holds one complex number (re, im).
 *
 * The factorisation is the complex reference's zgetf2 (src/cpu/complex/zgetrf.ts) step by step:
 * izamax's |re| + |im| pivot (a later entry wins only if strictly larger, so NaN never
 * displaces a number), the row interchange, the column scaled by the pivot's reciprocal (Smith's
 * division, the reference's divideInto), info = the first exactly zero pivot (the factorisation
 * goes on), and the rank-1 update x - (splat(ur) [lr, li] + splat(ui) [-li, lr]), which is the
 * reference's x - (lr ur - li ui) lane by lane (x - y is x + (-y) exactly, -(u v) = u (-v)
 * exactly, and the imaginary lane's sum is commutative). No fused multiply-add. The solves are
 * zgetrs 'N' (zsolve.ts): the interchanges on B, then L (unit, forward) and U (backward, Smith's
 * division) with one right-hand side in v128 locals, the products in the reference's order.
 *
 * A pivot that is not finite, or whose larger part is below the safe minimum, is left to the
 * reference: the reference tests hypot(pr, pi) >= safe minimum there (NaN, infinities and
 * subnormal pivots), which WebAssembly has no exact equivalent of. Such a matrix stops at once
 * with info = ZGETRF_WASM_DEFER and its memory unread; the driver runs the reference on it.
 *
 * Every index is a constant of the generated code except the pivot row; the trailing update loops
 * over blocks of columns with the rows unrolled. The factorisation and the solves are functions
 * of the module, called per matrix; the solves of `group` matrices run interleaved (solveGroup:
 * gesv where all of them factored, getrs), as each substitution is one chain of dependent
 * operations (the reference's order: each x(i) waits for x(i + 1), then subtracts its products
 * one by one).
 */
import type { LuOp } from './getrf-js.js';
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { divideLocals, emitDivide, pack2, swapNeg } from './zarith-wasm.js';
import { zgetrsWasmFunction, zgetrsWasmWorkBytes } from './zgetrs-wasm.js';

export interface ZgetrfWasmParams {
  readonly op: LuOp;
  /** Order of A. */
  readonly n: number;
  /** gesv on complex64: the factor rounded to float32 before the solve (the reference solves with the factor as stored). */
  readonly roundFactor: boolean;
  /** Columns of the trailing update per pass (tuning.ts complexLuWasmCols). */
  readonly cols: number;
  /** gesv, getrs: matrices per group whose solves run interleaved (tuning.ts complexLuWasmGroup). */
  readonly group: number;
  /** gesv, getrs: the solves as runtime loops, else unrolled (kernels/zgetrs-wasm.ts). */
  readonly solveLoops: boolean;
}

/** The info of a matrix left to the reference (its pivot is not finite or tiny); never a LAPACK info. */
export const ZGETRF_WASM_DEFER = -1;

const E = 16; // bytes of one complex128

/** Bytes of scratch the solves need at `work` (16-byte aligned). */
export function zgetrfWasmWorkBytes(p: ZgetrfWasmParams): number {
  return zgetrsWasmWorkBytes(p.n, p.group);
}
/** LAPACK's dlamch('S'): below it zgetf2 divides by the pivot instead of scaling by its reciprocal. */
const SAFE_MIN = 2.2250738585072014e-308;

/** The module's functions: `zgetrf` (exported entry) and the helpers it calls, by index. */
function functionsOf(p: ZgetrfWasmParams): readonly string[] {
  const solves = p.group > 1 ? ['solve', 'solveGroup'] : ['solve'];
  return ['zgetrf', ...(p.op === 'getrs' ? [] : ['factor']), ...(p.op === 'getrf' ? [] : solves)];
}

/**
 * Exported `zgetrf(a, b, piv, info, count, nrhs, work)`: byte addresses of the first A (n x n),
 * B (n x nrhs; unused by getrf), the int32 pivots (n per matrix; read by getrs, written
 * otherwise), the int32 infos (one per matrix) and the solves' scratch (zgetrfWasmWorkBytes).
 */
export function generateZgetrfWasm(p: ZgetrfWasmParams): Uint8Array<ArrayBuffer> {
  const names = functionsOf(p);
  const defs: FunctionDef[] = names.map((name) => {
    if (name === 'zgetrf') return mainFunction(p, names);
    if (name === 'factor') return factorFunction(p);
    return zgetrsWasmFunction(p.n, name === 'solveGroup' ? p.group : 1, name, p.solveLoops);
  });
  return encodeModule(defs);
}

/** The batch loop: matrices `group` at a time (their solves interleaved), then the rest one by one. */
function mainFunction(p: ZgetrfWasmParams, names: readonly string[]): FunctionDef {
  const { n, op } = p;
  const G = Math.max(1, p.group);
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, B, PIV, INFO, COUNT, NRHS, WORK] = [0, 1, 2, 3, 4, 5, 6];
  const bStride = c.local('i32'), col = c.local('i32'), aEnd = c.local('i32');
  // member g of a group: its A, B, pivots (member 0: the parameters) and info
  const as = [A, ...Array.from({ length: G - 1 }, () => c.local('i32'))];
  const bs = [B, ...Array.from({ length: G - 1 }, () => c.local('i32'))];
  const pivs = [PIV, ...Array.from({ length: G - 1 }, () => c.local('i32'))];
  const infos = Array.from({ length: G }, () => c.local('i32'));
  const call = (name: string): void => { c.op(OP.call, names.indexOf(name)); };
  const aStride = n * n * E;

  /** Every element of the factor at `base` rounded to float32 and back (the factor as a complex64 caller stores it). */
  const roundFactor = (base: number): void => {
    c.get(base).set(col);
    c.get(base).i32(aStride).op(OP.i32Add).set(aEnd);
    c.loop_(() => {
      c.get(col);
      c.get(col).simdMem(SIMD.load, 3, 0).simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4);
      c.simdMem(SIMD.store, 3, 0);
      c.get(col).i32(E).op(OP.i32Add).tee(col).get(aEnd).op(OP.i32LtU);
    });
  };
  const factor = (g: number): void => { c.get(as[g]!).get(pivs[g]!); call('factor'); c.set(infos[g]!); };
  /** gesv's solve of one factored matrix. */
  const solveOne = (g: number): void => {
    c.get(infos[g]!).op(OP.i32Eqz).if_(() => {
      if (p.roundFactor) roundFactor(as[g]!);
      c.get(as[g]!).get(bs[g]!).get(pivs[g]!).get(NRHS).get(WORK); call('solve');
    });
  };
  /** Members 0 .. k - 1 (k = G: a group, interleaved solves; 1: one matrix). */
  const members = (k: number): void => {
    const all = Array.from({ length: k }, (_, g) => g);
    const solveAll = (): void => {
      for (const g of all) c.get(as[g]!).get(bs[g]!).get(pivs[g]!);
      c.get(NRHS).get(WORK); call(k > 1 ? 'solveGroup' : 'solve');
    };
    if (op === 'getrs') {
      solveAll();
      for (const g of all) c.get(INFO).i32(0).mem(OP.i32Store, 2, 4 * g);
      return;
    }
    for (const g of all) factor(g);
    if (op === 'gesv') {
      if (k === 1) solveOne(0);
      else {
        c.get(infos[0]!);
        for (const g of all.slice(1)) c.get(infos[g]!).op(OP.i32Or);
        c.op(OP.i32Eqz).if_(() => {
          if (p.roundFactor) for (const g of all) roundFactor(as[g]!);
          solveAll();
        }, () => { for (const g of all) solveOne(g); });
      }
    }
    for (const g of all) c.get(INFO).get(infos[g]!).mem(OP.i32Store, 2, 4 * g);
  };
  /** `members(k)` while k matrices remain, each pass moving the pointers past them. */
  const loopOf = (k: number): void => {
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(COUNT).i32(k).op(OP.i32LtS).op(OP.brIf, 1);
    for (let g = 1; g < k; g++) {
      c.get(as[g - 1]!).i32(aStride).op(OP.i32Add).set(as[g]!);
      c.get(bs[g - 1]!).get(bStride).op(OP.i32Add).set(bs[g]!);
      c.get(pivs[g - 1]!).i32(4 * n).op(OP.i32Add).set(pivs[g]!);
    }
    members(k);
    c.get(A).i32(k * aStride).op(OP.i32Add).set(A);
    c.get(bs[k - 1]!).get(bStride).op(OP.i32Add).set(B);
    c.get(PIV).i32(4 * n * k).op(OP.i32Add).set(PIV);
    c.get(INFO).i32(4 * k).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(k).op(OP.i32Sub).set(COUNT);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
  };

  c.get(NRHS).i32(n * E).op(OP.i32Mul).set(bStride);
  if (G > 1 && op !== 'getrf') loopOf(G);
  loopOf(1);
  return { name: 'zgetrf', params, results: [], code: c };
}

/** `factor(a, piv) -> info`: zgetf2 on the matrix at byte a, its pivots to piv. */
function factorFunction(p: ZgetrfWasmParams): FunctionDef {
  const { n } = p;
  const params: ValType[] = ['i32', 'i32'];
  const c = new Code(params);
  const [A, PIV] = [0, 1];
  const info = c.local('i32'), pv = c.local('i32'), rowp = c.local('i32'), ptr = c.local('i32'), col = c.local('i32'), passes = c.local('i32');
  const pm = c.local('f64'), t = c.local('f64'), pr = c.local('f64'), pi = c.local('f64');
  const outRe = c.local('f64'), outIm = c.local('f64');
  const dv = divideLocals(c);
  // column j's multipliers [lr, li] and [-li, lr]
  const L = Array.from({ length: n }, () => c.local('v128'));
  const S = Array.from({ length: n }, () => c.local('v128'));
  const tmp = c.local('v128'), R = c.local('v128'), Rs = c.local('v128');
  const cols = Math.max(1, p.cols);
  const U = Array.from({ length: cols }, () => c.local('v128')), V = Array.from({ length: cols }, () => c.local('v128'));
  const at = (i: number, j: number): number => (i + j * n) * E;

  /** Pushes |re| + |im| of A(i, j). */
  const abs1 = (i: number, j: number): void => {
    c.get(A).mem(OP.f64Load, 3, at(i, j)).op(OP.f64Abs);
    c.get(A).mem(OP.f64Load, 3, at(i, j) + 8).op(OP.f64Abs).op(OP.f64Add);
  };
  const step = (j: number): void => {
    // pivot search (izamax) as a runtime loop, rowp the address of the pivot row's A(., 0)
    c.get(A).i32(at(j, 0)).op(OP.i32Add).tee(rowp).set(ptr);
    abs1(j, j); c.set(pm);
    const row = (): void => {
      c.get(ptr).i32(E).op(OP.i32Add).tee(ptr).mem(OP.f64Load, 3, j * n * E).op(OP.f64Abs);
      c.get(ptr).mem(OP.f64Load, 3, j * n * E + 8).op(OP.f64Abs).op(OP.f64Add);
      c.tee(t).get(pm).op(OP.f64Gt).if_(() => { c.get(t).set(pm); c.get(ptr).set(rowp); });
    };
    // one row below the diagonal: no loop
    if (j + 2 === n) row();
    else if (j + 2 < n) c.loop_(() => { row(); c.get(ptr).get(A).i32(at(n - 1, 0)).op(OP.i32Add).op(OP.i32LtU); });
    c.get(rowp).get(A).op(OP.i32Sub).i32(4).op(OP.i32ShrU).set(pv);
    c.get(PIV).get(pv).mem(OP.i32Store, 2, 4 * j);
    c.get(rowp).mem(OP.f64Load, 3, j * n * E).f64(0).op(OP.f64Ne);
    c.get(rowp).mem(OP.f64Load, 3, j * n * E + 8).f64(0).op(OP.f64Ne).op(OP.i32Or);
    c.if_(() => {
      c.get(pv).i32(j).op(OP.i32Ne).if_(() => {
        // the rows exchanged column by column, a runtime loop (rare: kept out of the code's size)
        c.get(A).i32(at(j, 0)).op(OP.i32Add).set(ptr);
        c.loop_(() => {
          c.get(ptr).simdMem(SIMD.load, 3, 0).set(tmp);
          c.get(ptr).get(rowp).simdMem(SIMD.load, 3, 0).simdMem(SIMD.store, 3, 0);
          c.get(rowp).get(tmp).simdMem(SIMD.store, 3, 0);
          c.get(rowp).i32(n * E).op(OP.i32Add).set(rowp);
          c.get(ptr).i32(n * E).op(OP.i32Add).tee(ptr).get(A).i32(at(j, n)).op(OP.i32Add).op(OP.i32LtU);
        });
      });
      c.get(A).mem(OP.f64Load, 3, at(j, j)).set(pr);
      c.get(A).mem(OP.f64Load, 3, at(j, j) + 8).set(pi);
      // both parts finite and one at least the safe minimum: then hypot(pr, pi) >= safe minimum
      c.get(pr).op(OP.f64Abs).f64(Infinity).op(OP.f64Lt);
      c.get(pi).op(OP.f64Abs).f64(Infinity).op(OP.f64Lt).op(OP.i32And);
      c.get(pr).op(OP.f64Abs).f64(SAFE_MIN).op(OP.f64Ge);
      c.get(pi).op(OP.f64Abs).f64(SAFE_MIN).op(OP.f64Ge).op(OP.i32Or).op(OP.i32And);
      c.if_(() => {
        // the reciprocal 1 / (pr + i pi), then the column below the diagonal scaled by it
        c.f64(1).set(dv.nr); c.f64(0).set(dv.ni); c.get(pr).set(dv.dr); c.get(pi).set(dv.di);
        emitDivide(c, dv, outRe, outIm);
        pack2(c, outRe, outIm); c.set(R);
        swapNeg(c, R); c.set(Rs);
        for (let i = j + 1; i < n; i++) {
          c.get(A);
          c.get(A).simdMem(SIMD.load64Splat, 3, at(i, j)).get(R).simd(SIMD.f64x2Mul);
          c.get(A).simdMem(SIMD.load64Splat, 3, at(i, j) + 8).get(Rs).simd(SIMD.f64x2Mul);
          c.simd(SIMD.f64x2Add).simdMem(SIMD.store, 3, at(i, j));
        }
      }, () => {
        // labels: 0 this if, 1 the pivot's if, 2 the matrix's block
        c.i32(ZGETRF_WASM_DEFER).set(info).op(OP.br, 2);
      });
    }, () => {
      c.get(info).op(OP.i32Eqz).if_(() => { c.i32(j + 1).set(info); });
    });
    if (j + 1 === n) return;
    // rank-1 update of columns j+1 .. n-1, rows j+1 .. n-1, `cols` columns per pass: the
    // multipliers [lr, li] and [-li, lr] in locals for the step, each column's splat(ur) and
    // splat(ui) held for the pass
    const h = n - j - 1;
    const W = Math.min(cols, h);
    const pass = (w: number): void => {
      for (let t = 0; t < w; t++) {
        c.get(col).simdMem(SIMD.load64Splat, 3, t * n * E + j * E).set(U[t]!);
        c.get(col).simdMem(SIMD.load64Splat, 3, t * n * E + j * E + 8).set(V[t]!);
      }
      for (let i = j + 1; i < n; i++) {
        for (let t = 0; t < w; t++) {
          const off = t * n * E + i * E;
          c.get(col);
          c.get(col).simdMem(SIMD.load, 3, off);
          c.get(U[t]!).get(L[i]!).simd(SIMD.f64x2Mul);
          c.get(V[t]!).get(S[i]!).simd(SIMD.f64x2Mul);
          c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub);
          c.simdMem(SIMD.store, 3, off);
        }
      }
    };
    for (let i = j + 1; i < n; i++) {
      c.get(A).simdMem(SIMD.load, 3, at(i, j)).set(L[i]!);
      swapNeg(c, L[i]!); c.set(S[i]!);
    }
    const full = Math.floor(h / W), rest = h - full * W;
    c.get(A).i32(at(0, j + 1)).op(OP.i32Add).set(col);
    const body = (): void => { pass(W); c.get(col).i32(W * n * E).op(OP.i32Add).set(col); };
    if (full === 1) body();
    else {
      c.i32(full).set(passes);
      c.loop_(() => { body(); c.get(passes).i32(1).op(OP.i32Sub).tee(passes); });
    }
    if (rest > 0) pass(rest);
  };

  c.i32(0).set(info);
  c.op(OP.block, OP.void);
  for (let j = 0; j < n; j++) step(j);
  c.op(OP.end);
  c.get(info);
  return { name: 'factor', params, results: ['i32'], code: c };
}

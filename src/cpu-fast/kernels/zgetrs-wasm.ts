/**
 * The solves of the generated WebAssembly complex LU (kernels/zgetrf-wasm.ts): `solve(a, b, piv,
 * nrhs, work)` (lanes = 1) or `solveGroup(a0, b0, piv0, a1, b1, piv1, ..., nrhs, work)` (the
 * lanes' instructions interleaved, as each substitution is one chain of dependent operations),
 * zgetrs 'N' (the complex reference's zsolve.ts) on each of the nrhs columns of B: the
 * interchanges, L y = P b (unit, forward), U x = y (backward, Smith's division), the products of
 * each x(i) subtracted one by one in the reference's order. Unrolled below `loopMin`
 * (tuning.ts complexLuWasmSolveLoopMin), runtime loops from there.
 */
import { Code, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { divideLocals, emitDivide, pack2, swapNeg } from './zarith-wasm.js';

const E = 16; // bytes of one complex128

/** Bytes of scratch the looped solve needs at `work` (16-byte aligned): n complex numbers per lane. */
export function zgetrsWasmWorkBytes(n: number, lanes: number): number {
  return Math.max(1, lanes) * n * E;
}

/** The solve function of `lanes` matrices named `name`, looped or unrolled. */
export function zgetrsWasmFunction(n: number, lanes: number, name: string, looped: boolean): FunctionDef {
  return looped ? solveLooped(n, lanes, name) : solveUnrolled(n, lanes, name);
}

/**
 * The unrolled solve (small n: no loop overhead, x in v128 locals; `work` unused): every
 * index a constant, the lanes' instructions interleaved row by row.
 */
function solveUnrolled(n: number, lanes: number, name: string): FunctionDef {
  const params: ValType[] = [...Array.from({ length: 3 * lanes }, (): ValType => 'i32'), 'i32', 'i32'];
  const c = new Code(params);
  const NRHS = 3 * lanes;
  const bEnd = c.local('i32');
  const at = (i: number, j: number): number => (i + j * n) * E;
  const ls = Array.from({ length: lanes }, (_, q) => ({
    A: 3 * q, bq: 3 * q + 1, PIV: 3 * q + 2,
    pv: c.local('i32'), rowp: c.local('i32'), tmp: c.local('v128'), outRe: c.local('f64'), outIm: c.local('f64'), dv: divideLocals(c),
    // x(i) as [re, im] and [-im, re]
    X: Array.from({ length: n }, () => c.local('v128')), XS: Array.from({ length: n }, () => c.local('v128')),
  }));
  type Lane = (typeof ls)[number];
  const each = (f: (l: Lane) => void): void => { for (const l of ls) f(l); };
  /** Pushes [re, im] - (splat(s.re) x + splat(s.im) xs): s the complex at `base` + `off`, x and xs locals, the top of the stack [re, im]. */
  const subProduct = (base: number, off: number, x: number, xs: number): void => {
    c.get(base).simdMem(SIMD.load64Splat, 3, off).get(x).simd(SIMD.f64x2Mul);
    c.get(base).simdMem(SIMD.load64Splat, 3, off + 8).get(xs).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub);
  };

  c.get(NRHS).i32(0).op(OP.i32GtS).if_(() => {
    c.get(NRHS).i32(n * E).op(OP.i32Mul).get(ls[0]!.bq).op(OP.i32Add).set(bEnd);
    c.loop_(() => {
      each(({ bq, PIV, pv, rowp, tmp }) => {
        for (let j = 0; j < n; j++) {
          c.get(PIV).mem(OP.i32Load, 2, 4 * j).tee(pv).i32(j).op(OP.i32Ne).if_(() => {
            c.get(bq).get(pv).i32(4).op(OP.i32Shl).op(OP.i32Add).set(rowp);
            c.get(bq).simdMem(SIMD.load, 3, j * E).set(tmp);
            c.get(bq).get(rowp).simdMem(SIMD.load, 3, 0).simdMem(SIMD.store, 3, j * E);
            c.get(rowp).get(tmp).simdMem(SIMD.store, 3, 0);
          });
        }
      });
      each(({ bq, X }) => { for (let i = 0; i < n; i++) c.get(bq).simdMem(SIMD.load, 3, i * E).set(X[i]!); });
      for (let i = 0; i < n; i++) {
        each(({ A, X, XS }) => {
          if (i > 0) {
            c.get(X[i]!);
            for (let k = 0; k < i; k++) subProduct(A, at(i, k), X[k]!, XS[k]!);
            c.set(X[i]!);
          }
          if (i < n - 1) { swapNeg(c, X[i]!); c.set(XS[i]!); }
        });
      }
      for (let i = n - 1; i >= 0; i--) {
        each(({ A, X, XS, tmp, dv, outRe, outIm }) => {
          c.get(X[i]!);
          for (let k = i + 1; k < n; k++) subProduct(A, at(i, k), X[k]!, XS[k]!);
          c.set(tmp);
          c.get(tmp).simd(SIMD.f64x2ExtractLane, 0).set(dv.nr);
          c.get(tmp).simd(SIMD.f64x2ExtractLane, 1).set(dv.ni);
          c.get(A).mem(OP.f64Load, 3, at(i, i)).set(dv.dr);
          c.get(A).mem(OP.f64Load, 3, at(i, i) + 8).set(dv.di);
          emitDivide(c, dv, outRe, outIm);
          pack2(c, outRe, outIm); c.set(X[i]!);
          if (i > 0) { swapNeg(c, X[i]!); c.set(XS[i]!); }
        });
      }
      each(({ bq, X }) => { for (let i = 0; i < n; i++) c.get(bq).get(X[i]!).simdMem(SIMD.store, 3, i * E); });
      each(({ bq }) => { c.get(bq).i32(n * E).op(OP.i32Add).set(bq); });
      c.get(ls[0]!.bq).get(bEnd).op(OP.i32LtU);
    });
  });
  return { name, params, results: [], code: c };
}

/**
 * The looped solve: rows and inner products are runtime loops, so the code stays a few
 * kilobytes at every n and in the instruction cache beside the factorisation (unrolled, the
 * solves of three matrices at n = 16 were most of a 77 kB module). x(i) lives in B's column,
 * [-im, re] of it in `work` (n complex numbers a lane); each x(i) subtracts its products k by
 * k in the reference's order.
 */
function solveLooped(n: number, lanes: number, name: string): FunctionDef {
  const params: ValType[] = [...Array.from({ length: 3 * lanes }, (): ValType => 'i32'), 'i32', 'i32'];
  const c = new Code(params);
  const NRHS = 3 * lanes, WORK = NRHS + 1;
  const nE = n * E;
  const bEnd = c.local('i32'), ib = c.local('i32'), kb = c.local('i32'), off = c.local('i32'), pp = c.local('i32');
  const ls = Array.from({ length: lanes }, (_, q) => ({
    A: 3 * q, bq: 3 * q + 1, PIV: 3 * q + 2, ws: q * nE,
    pv: c.local('i32'), rowp: c.local('i32'), acc: c.local('v128'), outRe: c.local('f64'), outIm: c.local('f64'), dv: divideLocals(c),
  }));
  type Lane = (typeof ls)[number];
  const each = (f: (l: Lane) => void): void => { for (const l of ls) f(l); };
  /** `body` while the i32 condition `cond` pushes holds, tested before each trip. */
  const whileLoop = (cond: () => void, body: () => void): void => {
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    cond(); c.op(OP.i32Eqz).op(OP.brIf, 1);
    body();
    c.op(OP.br, 0).op(OP.end).op(OP.end);
  };
  /** acc := acc - (splat(s.re) x(k) + splat(s.im) [-x(k).im, x(k).re]), s the complex at A + off, k = kb / E. */
  const subProduct = ({ A, bq, ws, acc }: Lane): void => {
    c.get(acc);
    c.get(A).get(off).op(OP.i32Add).tee(pp).simdMem(SIMD.load64Splat, 3, 0);
    c.get(bq).get(kb).op(OP.i32Add).simdMem(SIMD.load, 3, 0).simd(SIMD.f64x2Mul);
    c.get(pp).simdMem(SIMD.load64Splat, 3, 8);
    c.get(WORK).get(kb).op(OP.i32Add).simdMem(SIMD.load, 3, ws).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(acc);
  };
  /** x(i) := acc, and its [-im, re] to work. */
  const storeX = ({ bq, ws, acc }: Lane): void => {
    c.get(bq).get(ib).op(OP.i32Add).get(acc).simdMem(SIMD.store, 3, 0);
    c.get(WORK).get(ib).op(OP.i32Add); swapNeg(c, acc); c.simdMem(SIMD.store, 3, ws);
  };

  c.get(NRHS).i32(0).op(OP.i32GtS).if_(() => {
    c.get(NRHS).i32(nE).op(OP.i32Mul).get(ls[0]!.bq).op(OP.i32Add).set(bEnd);
    c.loop_(() => {
      each(({ bq, PIV, pv, rowp, acc }) => {
        // the interchanges, row j with row piv(j), in order
        c.i32(0).set(ib);
        c.loop_(() => {
          c.get(PIV).get(ib).i32(2).op(OP.i32ShrU).op(OP.i32Add).mem(OP.i32Load, 2, 0).tee(pv);
          c.get(ib).i32(4).op(OP.i32ShrU).op(OP.i32Ne).if_(() => {
            c.get(bq).get(pv).i32(4).op(OP.i32Shl).op(OP.i32Add).set(rowp);
            c.get(bq).get(ib).op(OP.i32Add).tee(pp).simdMem(SIMD.load, 3, 0).set(acc);
            c.get(pp).get(rowp).simdMem(SIMD.load, 3, 0).simdMem(SIMD.store, 3, 0);
            c.get(rowp).get(acc).simdMem(SIMD.store, 3, 0);
          });
          c.get(ib).i32(E).op(OP.i32Add).tee(ib).i32(nE).op(OP.i32LtU);
        });
      });
      // forward: x(i) = b(i) - L(i, 0) x(0) - ... - L(i, i - 1) x(i - 1), rows i = ib / E
      c.i32(0).set(ib);
      c.loop_(() => {
        each(({ bq, acc }) => { c.get(bq).get(ib).op(OP.i32Add).simdMem(SIMD.load, 3, 0).set(acc); });
        c.i32(0).set(kb); c.get(ib).set(off);
        whileLoop(() => { c.get(kb).get(ib).op(OP.i32LtU); }, () => {
          each(subProduct);
          c.get(kb).i32(E).op(OP.i32Add).set(kb);
          c.get(off).i32(nE).op(OP.i32Add).set(off);
        });
        each(storeX);
        c.get(ib).i32(E).op(OP.i32Add).tee(ib).i32(nE).op(OP.i32LtU);
      });
      // backward: x(i) = (y(i) - U(i, i + 1) x(i + 1) - ... - U(i, n - 1) x(n - 1)) / U(i, i)
      c.i32(nE - E).set(ib);
      c.loop_(() => {
        each(({ bq, acc }) => { c.get(bq).get(ib).op(OP.i32Add).simdMem(SIMD.load, 3, 0).set(acc); });
        c.get(ib).i32(E).op(OP.i32Add).tee(kb).i32(n).op(OP.i32Mul).get(ib).op(OP.i32Add).set(off);
        whileLoop(() => { c.get(kb).i32(nE).op(OP.i32LtU); }, () => {
          each(subProduct);
          c.get(kb).i32(E).op(OP.i32Add).set(kb);
          c.get(off).i32(nE).op(OP.i32Add).set(off);
        });
        each((l) => {
          const { A, acc, dv, outRe, outIm } = l;
          c.get(acc).simd(SIMD.f64x2ExtractLane, 0).set(dv.nr);
          c.get(acc).simd(SIMD.f64x2ExtractLane, 1).set(dv.ni);
          c.get(A).get(ib).i32(n + 1).op(OP.i32Mul).op(OP.i32Add).tee(pp).mem(OP.f64Load, 3, 0).set(dv.dr);
          c.get(pp).mem(OP.f64Load, 3, 8).set(dv.di);
          emitDivide(c, dv, outRe, outIm);
          pack2(c, outRe, outIm); c.set(acc);
          storeX(l);
        });
        c.get(ib).i32(E).op(OP.i32Sub).tee(ib).i32(0).op(OP.i32GeS);
      });
      each(({ bq }) => { c.get(bq).i32(nE).op(OP.i32Add).set(bq); });
      c.get(ls[0]!.bq).get(bEnd).op(OP.i32LtU);
    });
  });
  return { name, params, results: [], code: c };
}

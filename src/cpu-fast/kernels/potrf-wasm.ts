/**
 * Generated WebAssembly Cholesky ('lower', dpotf2's left-looking order) for one n, on float64
 * working copies packed in the module's memory (ld = n rounded up to even, matrices back to
 * back). The column update (all of the O(n^3) work) runs two rows per f64x2 instruction and four
 * columns of L per pass, exactly as the reference groups them: A(i,j) -= t0 L(i,k) + t1 L(i,k+1)
 * + t2 L(i,k+2) + t3 L(i,k+3), added left to right, so results and info are bitwise the
 * reference's (src/cpu/lapack/potrf.ts), unless `fma`. A failing matrix stops at its step, as the reference.
 */
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { addr as address, constant as bound, whileLess as loopLess } from '../wasm/structured.js';

export interface PotrfWasmParams {
  readonly n: number;
  /**
   * The column update's vector rows fused (f64x2.relaxed_nmadd: A(i,j) - t0 L(i,k) - t1 L(i,k+1)
   * - ..., each step rounded once where the hardware fuses): within rounding of the reference,
   * no longer bitwise; only where wasm/features.ts validates relaxed SIMD (context.ts fmaFor).
   * The scalar row and the diagonal's sum of squares stay as the reference's. Absent: false.
   */
  readonly fma?: boolean;
}

export const cholLd = (n: number): number => n + (n % 2);


/** Exported `potrf(a, info, count)`: byte addresses of the packed matrices and the int32 infos. */
export function generatePotrfWasm(p: PotrfWasmParams): Uint8Array<ArrayBuffer> {
  const { n } = p;
  const ld = cholLd(n);
  const params: ValType[] = ['i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, INFO, COUNT] = [0, 1, 2];
  const j = c.local('i32'), k = c.local('i32'), i = c.local('i32'), i0 = c.local('i32');
  const colj = c.local('i32'), colk = c.local('i32'), info = c.local('i32');
  const d = c.local('f64'), s = c.local('f64');
  const t = [c.local('f64'), c.local('f64'), c.local('f64'), c.local('f64')];
  const tv = [c.local('v128'), c.local('v128'), c.local('v128'), c.local('v128')];
  const acc = c.local('v128');

  const addr = (col: number, row: number, extra = 0): void => address(c, col, row, extra);
  const whileLess = (iv: number, end: () => void, step: number, body: () => void): void => loopLess(c, iv, end, step, body);
  const constant = (v: number): (() => void) => bound(c, v);
  /** The first row below the diagonal when j + 1 is odd (scalar), then two rows per vector to the padded end. */
  const rows = (scalar: () => void, vector: () => void): void => {
    c.get(j).i32(1).op(OP.i32Add).set(i0);
    c.get(i0).i32(1).op(OP.i32And).get(i0).i32(n).op(OP.i32LtS).op(OP.i32And).if_(() => { c.get(i0).set(i); scalar(); });
    c.get(i0).i32(1).op(OP.i32Add).i32(-2).op(OP.i32And).set(i);
    whileLess(i, constant(ld), 2, vector);
  };

  /**
   * A(i,j) -= t0 L(i,k) + ... + t(w-1) L(i,k+w-1) for the row(s) at i: one row in scalar code or
   * two in a vector, the products added left to right as the reference's expression does.
   */
  const update = (scalar: boolean, w: number): void => {
    if (p.fma && !scalar) return fusedUpdate(w);
    const load = (): void => { if (scalar) c.mem(OP.f64Load, 3, 0); else c.simdMem(SIMD.load, 3, 0); };
    const arith = (f: number, v: number): void => { if (scalar) c.op(f); else c.simd(v); };
    addr(colj, i);
    addr(colj, i); load();
    for (let q = 0; q < w; q++) {
      c.get(scalar ? t[q]! : tv[q]!); addr(colk, i, q * ld * 8); load(); arith(OP.f64Mul, SIMD.f64x2Mul);
      if (q > 0) arith(OP.f64Add, SIMD.f64x2Add);
    }
    arith(OP.f64Sub, SIMD.f64x2Sub);
    if (scalar) c.mem(OP.f64Store, 3, 0); else c.simdMem(SIMD.store, 3, 0);
  };

  /** The vector rows' update fused: nmadd(t(w-1), L(i,k+w-1), ... nmadd(t0, L(i,k), A(i,j))), the products subtracted in turn. */
  const fusedUpdate = (w: number): void => {
    addr(colj, i);
    for (let q = w - 1; q >= 0; q--) { c.get(tv[q]!); addr(colk, i, q * ld * 8); c.simdMem(SIMD.load, 3, 0); }
    addr(colj, i); c.simdMem(SIMD.load, 3, 0);
    for (let q = 0; q < w; q++) c.simd(SIMD.f64x2RelaxedNmadd);
    c.simdMem(SIMD.store, 3, 0);
  };

  c.loop_(() => {
    c.i32(0).set(info);
    c.i32(0).set(j);
    c.get(A).set(colj);
    c.op(OP.block, OP.void); // left early by a failing step
    c.loop_(() => {
      // d = A(j,j) - (0 + L(j,0)^2 + ... + L(j,j-1)^2)
      c.f64(0).set(s);
      c.i32(0).set(k);
      c.get(A).set(colk);
      whileLess(k, () => c.get(j), 1, () => {
        addr(colk, j); c.mem(OP.f64Load, 3, 0).tee(d).get(d).op(OP.f64Mul).get(s).op(OP.f64Add).set(s);
        c.get(colk).i32(ld * 8).op(OP.i32Add).set(colk);
      });
      addr(colj, j); c.mem(OP.f64Load, 3, 0).get(s).op(OP.f64Sub).set(d);
      c.get(d).f64(0).op(OP.f64Gt).op(OP.i32Eqz).if_(() => {
        addr(colj, j); c.get(d).mem(OP.f64Store, 3, 0);
        c.get(j).i32(1).op(OP.i32Add).set(info);
        c.op(OP.br, 2); // out of the column loop's block
      });
      addr(colj, j); c.get(d).op(OP.f64Sqrt).tee(d).mem(OP.f64Store, 3, 0);
      // four columns of L per pass, then the rest one by one
      c.i32(0).set(k);
      c.get(A).set(colk);
      whileLess(k, () => { c.get(j).i32(3).op(OP.i32Sub); }, 4, () => {
        for (let q = 0; q < 4; q++) { addr(colk, j, q * ld * 8); c.mem(OP.f64Load, 3, 0).tee(t[q]!).simd(SIMD.f64x2Splat).set(tv[q]!); }
        rows(() => update(true, 4), () => update(false, 4));
        c.get(colk).i32(4 * ld * 8).op(OP.i32Add).set(colk);
      });
      whileLess(k, () => c.get(j), 1, () => {
        addr(colk, j); c.mem(OP.f64Load, 3, 0).tee(t[0]!).simd(SIMD.f64x2Splat).set(tv[0]!);
        rows(() => update(true, 1), () => update(false, 1));
        c.get(colk).i32(ld * 8).op(OP.i32Add).set(colk);
      });
      // scale by 1 / L(j,j), as dpotf2's dscal
      c.f64(1).get(d).op(OP.f64Div).tee(s).simd(SIMD.f64x2Splat).set(acc);
      rows(() => {
        addr(colj, i); addr(colj, i); c.mem(OP.f64Load, 3, 0).get(s).op(OP.f64Mul).mem(OP.f64Store, 3, 0);
      }, () => {
        addr(colj, i); addr(colj, i); c.simdMem(SIMD.load, 3, 0).get(acc).simd(SIMD.f64x2Mul).simdMem(SIMD.store, 3, 0);
      });
      c.get(colj).i32(ld * 8).op(OP.i32Add).set(colj);
      c.get(j).i32(1).op(OP.i32Add).tee(j).i32(n).op(OP.i32LtS);
    });
    c.op(OP.end);
    c.get(INFO).get(info).mem(OP.i32Store, 2, 0);
    c.get(A).i32(ld * n * 8).op(OP.i32Add).set(A);
    c.get(INFO).i32(4).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'potrf', params, results: [], code: c }]);
}

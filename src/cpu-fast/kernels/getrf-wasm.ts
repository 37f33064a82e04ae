/**
 * Generated WebAssembly LU (dgetf2, right-looking) for one m x n, on float64 working copies packed
 * in the module's memory (ld = m rounded up to even, matrices back to back; float32 data is
 * widened on packing, as the reference does). The trailing rank-1 update, which is all of the
 * O(n^3) work, runs two rows per f64x2 instruction and two columns per pass (each loaded vector
 * of L used twice); pivot search, swaps and scaling are scalar.
 *
 * Every operation is the reference's (src/cpu/lapack/getrf.ts) on the same float64 values
 * (a multiply then a subtract, no fused multiply-add), so factors, pivots and info are bitwise
 * the reference's, the zero pivot test included (`zeroMax`: float32 data's pivot that stores as
 * zero is zero, and takes no interchange). Padding rows compute garbage that is never read back.
 */
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { addr as address, constant, storesNonzero, whileLess as loopLess } from '../wasm/structured.js';

export interface GetrfWasmParams {
  readonly m: number;
  readonly n: number;
  /** Column stride in elements (default ldOf(m)): a panel of a larger packed matrix (ops/getrf-blocked.ts) has its matrix's. */
  readonly ld?: number;
  /** Bytes from one matrix to the next (default ld * n * 8). */
  readonly stride?: number;
  /**
   * A pivot of magnitude <= zeroMax is zero (info; no interchange, no scaling): the data's
   * DTypeInfo.zeroMax (dtype-table.ts), 0 for float64 (exactly zero: the code as without it),
   * 2^-150 for float32, whose U(k, k) then stores as zero.
   */
  readonly zeroMax: number;
}

export const ldOf = (m: number): number => m + (m % 2);

const SAFE_MIN = 2.2250738585072014e-308;

/** Exported `getrf(a, ipiv, info, count)`: byte addresses of the packed matrices, the int32 pivots (min(m,n) per matrix), the int32 infos. */
export function generateGetrfWasm(p: GetrfWasmParams): Uint8Array<ArrayBuffer> {
  const { m, n } = p;
  const ld = p.ld ?? ldOf(m);
  const rowsEnd = ldOf(m); // the vector loops' end: padding rows (or, in a panel, the rows just below it) past m
  const steps = Math.min(m, n);
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, PIV, INFO, COUNT] = [0, 1, 2, 3];
  const j = c.local('i32'), i = c.local('i32'), pv = c.local('i32'), col = c.local('i32'), colj = c.local('i32');
  const cc = c.local('i32'), info = c.local('i32'), i0 = c.local('i32');
  const pm = c.local('f64'), v = c.local('f64'), s = c.local('f64'), t0 = c.local('f64'), t1 = c.local('f64');
  const tv0 = c.local('v128'), tv1 = c.local('v128'), lv = c.local('v128');

  const addr = (col: number, row: number): void => address(c, col, row);
  const whileLess = (iv: number, end: number, step: number, body: () => void): void => loopLess(c, iv, constant(c, end), step, body);

  c.loop_(() => {
    c.i32(0).set(info);
    c.i32(0).set(j);
    c.get(A).set(colj);
    c.loop_(() => {
      // pivot search: first entry of largest magnitude (idamax)
      c.get(j).set(pv);
      addr(colj, j); c.mem(OP.f64Load, 3, 0).op(OP.f64Abs).set(pm);
      c.get(j).i32(1).op(OP.i32Add).set(i);
      whileLess(i, m, 1, () => {
        addr(colj, i); c.mem(OP.f64Load, 3, 0).op(OP.f64Abs).tee(v).get(pm).op(OP.f64Gt).if_(() => { c.get(v).set(pm); c.get(i).set(pv); });
      });
      c.get(PIV).get(j).i32(2).op(OP.i32Shl).op(OP.i32Add).get(pv).mem(OP.i32Store, 2, 0);
      storesNonzero(c, p.zeroMax, () => { addr(colj, pv); c.mem(OP.f64Load, 3, 0); });
      c.if_(() => {
        // swap rows j and pv across all n columns
        c.get(pv).get(j).op(OP.i32Ne).if_(() => {
          c.get(A).set(col);
          c.i32(0).set(cc);
          whileLess(cc, n, 1, () => {
            addr(col, j); c.mem(OP.f64Load, 3, 0).set(s);
            addr(col, j); addr(col, pv); c.mem(OP.f64Load, 3, 0).mem(OP.f64Store, 3, 0);
            addr(col, pv); c.get(s).mem(OP.f64Store, 3, 0);
            c.get(col).i32(ld * 8).op(OP.i32Add).set(col);
          });
        });
        // scale the column below the diagonal by 1 / pivot (or divide, below the safe minimum)
        addr(colj, j); c.mem(OP.f64Load, 3, 0).set(s);
        c.get(j).i32(1).op(OP.i32Add).set(i);
        c.get(s).op(OP.f64Abs).f64(SAFE_MIN).op(OP.f64Ge).if_(() => {
          c.f64(1).get(s).op(OP.f64Div).set(s);
          whileLess(i, m, 1, () => { addr(colj, i); addr(colj, i); c.mem(OP.f64Load, 3, 0).get(s).op(OP.f64Mul).mem(OP.f64Store, 3, 0); });
        }, () => {
          whileLess(i, m, 1, () => { addr(colj, i); addr(colj, i); c.mem(OP.f64Load, 3, 0).get(s).op(OP.f64Div).mem(OP.f64Store, 3, 0); });
        });
      }, () => {
        // a tiny zero pivot may lie below j (the whole column is tiny): no interchange, ipiv[j] = j
        if (p.zeroMax > 0) c.get(PIV).get(j).i32(2).op(OP.i32Shl).op(OP.i32Add).get(j).mem(OP.i32Store, 2, 0);
        c.get(info).op(OP.i32Eqz).if_(() => { c.get(j).i32(1).op(OP.i32Add).set(info); });
      });
      // rank-1 update of columns j+1..n-1, rows j+1..m-1: A(i,c) -= L(i,j) * U(j,c)
      c.get(j).i32(1).op(OP.i32Add).set(i0);
      c.get(j).i32(1).op(OP.i32Add).set(cc);
      c.get(colj).i32(ld * 8).op(OP.i32Add).set(col);
      const scalarHead = (t: number, off: number): void => {
        // the first row when j + 1 is odd, so that the vectors start on an even row
        c.get(i0).i32(1).op(OP.i32And).get(i0).i32(m).op(OP.i32LtS).op(OP.i32And).if_(() => {
          addr(col, i0);
          addr(col, i0); c.mem(OP.f64Load, 3, off);
          addr(colj, i0); c.mem(OP.f64Load, 3, 0).get(t).op(OP.f64Mul);
          c.op(OP.f64Sub).mem(OP.f64Store, 3, off);
        });
      };
      const vectorRows = (pairs: number): void => {
        // i from the even row at or after j + 1 to the padded end, two rows per vector
        c.get(i0).i32(1).op(OP.i32Add).i32(-2).op(OP.i32And).set(i);
        whileLess(i, rowsEnd, 2, () => {
          addr(colj, i); c.simdMem(SIMD.load, 3, 0).set(lv);
          for (let q = 0; q < pairs; q++) {
            addr(col, i);
            addr(col, i); c.simdMem(SIMD.load, 3, q * ld * 8).get(lv).get(q === 0 ? tv0 : tv1).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
            c.simdMem(SIMD.store, 3, q * ld * 8);
          }
        });
      };
      // two columns per pass
      whileLess(cc, n - 1, 2, () => {
        addr(col, j); c.mem(OP.f64Load, 3, 0).tee(t0).simd(SIMD.f64x2Splat).set(tv0);
        addr(col, j); c.mem(OP.f64Load, 3, ld * 8).tee(t1).simd(SIMD.f64x2Splat).set(tv1);
        scalarHead(t0, 0);
        scalarHead(t1, ld * 8);
        vectorRows(2);
        c.get(col).i32(2 * ld * 8).op(OP.i32Add).set(col);
      });
      // the last column when an odd number remain
      c.get(cc).i32(n).op(OP.i32LtS).if_(() => {
        addr(col, j); c.mem(OP.f64Load, 3, 0).tee(t0).simd(SIMD.f64x2Splat).set(tv0);
        scalarHead(t0, 0);
        vectorRows(1);
      });
      c.get(colj).i32(ld * 8).op(OP.i32Add).set(colj);
      c.get(j).i32(1).op(OP.i32Add).tee(j).i32(steps).op(OP.i32LtS);
    });
    c.get(INFO).get(info).mem(OP.i32Store, 2, 0);
    c.get(A).i32(p.stride ?? ld * n * 8).op(OP.i32Add).set(A);
    c.get(PIV).i32(steps * 4).op(OP.i32Add).set(PIV);
    c.get(INFO).i32(4).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'getrf', params, results: [], code: c }]);
}

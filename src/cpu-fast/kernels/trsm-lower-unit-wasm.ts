/**
 * Generated WebAssembly B := L^-1 B for a unit lower triangular kb x kb L and a kb x cols B, both
 * in place inside float64 matrices packed in the module's memory (the blocked LU's block row
 * U12 := L11^-1 A12, ops/getrf-blocked.ts). Column by column of B, dtrsm's axpy order (LAPACK's
 * 'Left', 'Lower', 'No transpose', 'Unit'): for j, B(j+1:kb, c) -= L(j+1:kb, j) B(j, c), two rows
 * per f64x2 multiply then subtract (no fused multiply-add), an odd first row and an odd last row
 * scalar, so nothing outside the kb rows is written.
 */
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { addr as address, constant, whileLess as loopLess } from '../wasm/structured.js';

export interface TrsmLowerUnitWasmParams {
  /** L's order and B's rows. */
  readonly kb: number;
  /** B's columns. */
  readonly cols: number;
  /** Column stride of both, in elements. */
  readonly ld: number;
  /** Bytes from one matrix to the next. */
  readonly stride: number;
}

/** Exported `trsm(l, b, count)`: byte addresses of the first matrix's L and B. */
export function generateTrsmLowerUnitWasm(p: TrsmLowerUnitWasmParams): Uint8Array<ArrayBuffer> {
  const { kb, cols, ld, stride } = p;
  const params: ValType[] = ['i32', 'i32', 'i32'];
  const c = new Code(params);
  const [L, B, COUNT] = [0, 1, 2];
  const col = c.local('i32'), lcol = c.local('i32'), cc = c.local('i32'), j = c.local('i32'), i = c.local('i32'), i0 = c.local('i32');
  const t = c.local('f64'), tv = c.local('v128');
  const addr = (base: number, row: number): void => address(c, base, row);
  const whileLess = (iv: number, end: number, step: number, body: () => void): void => loopLess(c, iv, constant(c, end), step, body);
  /** B(row, c) -= L(row, j) t, scalar. */
  const scalarRow = (): void => {
    addr(col, i);
    addr(col, i); c.mem(OP.f64Load, 3, 0);
    addr(lcol, i); c.mem(OP.f64Load, 3, 0).get(t).op(OP.f64Mul);
    c.op(OP.f64Sub).mem(OP.f64Store, 3, 0);
  };

  if (kb > 1 && cols > 0) c.loop_(() => {
    c.get(B).set(col);
    c.i32(0).set(cc);
    whileLess(cc, cols, 1, () => {
      c.get(L).set(lcol);
      c.i32(0).set(j);
      whileLess(j, kb - 1, 1, () => {
        addr(col, j); c.mem(OP.f64Load, 3, 0).tee(t).simd(SIMD.f64x2Splat).set(tv);
        c.get(j).i32(1).op(OP.i32Add).tee(i0).set(i);
        // an odd first row alone, so that the vectors start on even rows
        c.get(i0).i32(1).op(OP.i32And).if_(() => {
          scalarRow();
          c.get(i).i32(1).op(OP.i32Add).set(i);
        });
        whileLess(i, kb - 1, 2, () => {
          addr(col, i);
          addr(col, i); c.simdMem(SIMD.load, 3, 0);
          addr(lcol, i); c.simdMem(SIMD.load, 3, 0).get(tv).simd(SIMD.f64x2Mul);
          c.simd(SIMD.f64x2Sub).simdMem(SIMD.store, 3, 0);
        });
        // the last row when one is left
        c.get(i).i32(kb).op(OP.i32LtS).if_(() => scalarRow());
        c.get(lcol).i32(ld * 8).op(OP.i32Add).set(lcol);
      });
      c.get(col).i32(ld * 8).op(OP.i32Add).set(col);
    });
    c.get(L).i32(stride).op(OP.i32Add).set(L);
    c.get(B).i32(stride).op(OP.i32Add).set(B);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'trsm', params, results: [], code: c }]);
}

/** Helpers shared by the WebAssembly generators: element addresses, counted loops, the LU's zero pivot test. */
import type { Code } from './emit.js';
import { OP, SIMD } from './opcodes.js';

/** Pushes the byte address of float64 element `row` (a local) of the column at local `col`, plus `extra` bytes. */
export function addr(c: Code, col: number, row: number, extra = 0): void {
  c.get(col).get(row).i32(3).op(OP.i32Shl).op(OP.i32Add);
  if (extra) c.i32(extra).op(OP.i32Add);
}

/** `for (; iv < end; iv += step) body()` with `iv` preset; `end` pushes the bound (an i32). */
export function whileLess(c: Code, iv: number, end: () => void, step: number, body: () => void): void {
  c.op(OP.block, OP.void);
  c.get(iv); end(); c.op(OP.i32GeS).op(OP.brIf, 0);
  c.loop_(() => {
    body();
    c.get(iv).i32(step).op(OP.i32Add).tee(iv); end(); c.op(OP.i32LtS);
  });
  c.op(OP.end);
}

/** A bound that is a constant. */
export const constant = (c: Code, v: number) => (): void => { c.i32(v); };

/**
 * Pushes an i32, nonzero where the pivot that `parts` push (its f64 value, or a complex pivot's
 * two parts) does not store as zero in a data type whose largest magnitude that rounds to zero is
 * `zeroMax` (dtype-table.ts DTypeInfo.zeroMax): where zeroMax is 0 (float64 data) `p != 0`
 * (complex `re != 0 | im != 0`), the instructions the LU kernels always had; else
 * `!(|p| <= zeroMax)` (complex: both parts within it), so that a NaN is not zero.
 */
export function storesNonzero(c: Code, zeroMax: number, ...parts: readonly (() => void)[]): void {
  parts.forEach((push, k) => {
    push();
    if (zeroMax === 0) c.f64(0).op(OP.f64Ne);
    else c.op(OP.f64Abs).f64(zeroMax).op(OP.f64Le);
    if (k > 0) c.op(zeroMax === 0 ? OP.i32Or : OP.i32And);
  });
  if (zeroMax !== 0) c.op(OP.i32Eqz);
}

/** The same per f64x2 lane: pushes a v128 mask, all ones in each lane whose value (`value` pushes the f64x2) does not store as zero. */
export function storesNonzeroLanes(c: Code, zeroMax: number, value: () => void): void {
  value();
  if (zeroMax === 0) c.f64x2(0).simd(SIMD.f64x2Ne);
  else c.simd(SIMD.f64x2Abs).f64x2(zeroMax).simd(SIMD.f64x2Le).simd(SIMD.v128Not);
}

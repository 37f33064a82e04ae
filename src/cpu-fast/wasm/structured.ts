/** Helpers shared by the WebAssembly generators: element addresses, counted loops. */
import type { Code } from './emit.js';
import { OP } from './opcodes.js';

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

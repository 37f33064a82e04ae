/** Helpers shared by the WebAssembly generators: scalar opcodes, element addresses, counted loops. */
import { OP, type Code } from './emit.js';

/** float64 and int32 opcodes (core spec 5.4.5). */
export const F64 = { load: 0x2b, store: 0x39, abs: 0x99, sqrt: 0x9f, add: 0xa0, sub: 0xa1, mul: 0xa2, div: 0xa3, ne: 0x62, gt: 0x64, ge: 0x66, promoteF32: 0xbb } as const;
export const I32 = { ltS: 0x48, gtS: 0x4a, geS: 0x4e, and: 0x71, or: 0x72, store: 0x36, shl: 0x74 } as const;

/** Pushes the byte address of float64 element `row` (a local) of the column at local `col`, plus `extra` bytes. */
export function addr(c: Code, col: number, row: number, extra = 0): void {
  c.get(col).get(row).i32(3).op(I32.shl).op(OP.i32Add);
  if (extra) c.i32(extra).op(OP.i32Add);
}

/** `for (; iv < end; iv += step) body()` with `iv` preset; `end` pushes the bound (an i32). */
export function whileLess(c: Code, iv: number, end: () => void, step: number, body: () => void): void {
  c.op(OP.block, OP.void);
  c.get(iv); end(); c.op(I32.geS).op(OP.brIf, 0);
  c.loop_(() => {
    body();
    c.get(iv).i32(step).op(OP.i32Add).tee(iv); end(); c.op(I32.ltS);
  });
  c.op(OP.end);
}

/** A bound that is a constant. */
export const constant = (c: Code, v: number) => (): void => { c.i32(v); };

/**
 * Complex arithmetic as generated WebAssembly, shared by the complex kernels' generators
 * (kernels/zgemm-wasm.ts, zgetrf-wasm.ts): one f64x2 holds one complex number (re, im), and every
 * operation is the complex reference's (src/cpu/complex/scalar.ts) lane by lane, so a kernel
 * that emits these keeps the reference's results bit for bit.
 */
import type { Code } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

// The lane swaps live with the other complex lane helpers (wasm/complex.ts).
export { swapNeg, swapNegHi } from '../wasm/complex.js';

/** Scalar f64 locals for emitDivide's temporaries. */
export interface DivideLocals { readonly r: number; readonly d: number; readonly nr: number; readonly ni: number; readonly dr: number; readonly di: number }

/** Six f64 locals for emitDivide. */
export function divideLocals(c: Code): DivideLocals {
  return { r: c.local('f64'), d: c.local('f64'), nr: c.local('f64'), ni: c.local('f64'), dr: c.local('f64'), di: c.local('f64') };
}

/**
 * outRe, outIm (f64 locals) := (nr + i ni) / (dr + i di) by Smith's algorithm, the reference's
 * divideInto in its order of operations: `t` holds the operands (set by the caller; outRe and
 * outIm may be any locals, they are written last).
 */
export function emitDivide(c: Code, t: DivideLocals, outRe: number, outIm: number): void {
  const { r, d, nr, ni, dr, di } = t;
  c.get(dr).op(OP.f64Abs).get(di).op(OP.f64Abs).op(OP.f64Ge).if_(() => {
    c.get(di).get(dr).op(OP.f64Div).set(r);
    c.get(dr).get(di).get(r).op(OP.f64Mul).op(OP.f64Add).set(d);
    c.get(nr).get(ni).get(r).op(OP.f64Mul).op(OP.f64Add).get(d).op(OP.f64Div).set(outRe);
    c.get(ni).get(nr).get(r).op(OP.f64Mul).op(OP.f64Sub).get(d).op(OP.f64Div).set(outIm);
  }, () => {
    c.get(dr).get(di).op(OP.f64Div).set(r);
    c.get(di).get(dr).get(r).op(OP.f64Mul).op(OP.f64Add).set(d);
    c.get(nr).get(r).op(OP.f64Mul).get(ni).op(OP.f64Add).get(d).op(OP.f64Div).set(outRe);
    c.get(ni).get(r).op(OP.f64Mul).get(nr).op(OP.f64Sub).get(d).op(OP.f64Div).set(outIm);
  });
}

/** Pushes the v128 [re, im] of two f64 locals. */
export function pack2(c: Code, re: number, im: number): void {
  c.get(re).simd(SIMD.f64x2Splat).get(im).simd(SIMD.f64x2ReplaceLane, 1);
}

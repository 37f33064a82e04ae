/**
 * Complex arithmetic helpers of the WebAssembly generators where one f64x2 holds one complex
 * number (re, im): the lane swaps with one sign flipped that turn a complex product into two
 * vector multiplies, (xr + i xi) y = splat(xr) [yr, yi] + splat(xi) [-yi, yr].
 */
import type { Code } from './emit.js';
import { SIMD } from './opcodes.js';

/** i8x16.shuffle lanes: [lane 1 of the second operand, lane 0 of the first] as two float64. */
const SWAP_NEG = [24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3, 4, 5, 6, 7];
/** [lane 1 of the first operand, lane 0 of the second]. */
const SWAP_NEG_HI = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];

/** Pushes [-v.im, v.re] of the v128 in local v. */
export function swapNeg(c: Code, v: number): void {
  c.get(v).get(v).simd(SIMD.f64x2Neg).simd(SIMD.i8x16Shuffle, SWAP_NEG);
}

/** Pushes [v.im, -v.re] of the v128 in local v. */
export function swapNegHi(c: Code, v: number): void {
  c.get(v).get(v).simd(SIMD.f64x2Neg).simd(SIMD.i8x16Shuffle, SWAP_NEG_HI);
}

/** i8x16.shuffle lanes: lane 0 (re) of the first operand twice, lane 1 (im) twice. */
const LANE0 = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7];
const LANE1 = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];

/** Pushes [v.re, v.re] (lane 0) or [v.im, v.im] (lane 1) of the v128 in local v. */
export function splatLane(c: Code, v: number, lane: 0 | 1): void {
  c.get(v).get(v).simd(SIMD.i8x16Shuffle, lane === 0 ? LANE0 : LANE1);
}

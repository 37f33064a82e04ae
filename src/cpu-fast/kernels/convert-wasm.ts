/**
 * Generated WebAssembly that widens float32 to float64 and narrows back inside the module's
 * memory, for float32 batches crossing into the float64 working copy of the factorisations
 * (ops/getrf-wasm.ts): the caller's float32 chunk is copied in byte for byte (a native copy) and
 * widened here, and narrowed here before it is copied out. The native converting copies cost
 * 0.15 ns an element widening (Float64Array.set of a Float32Array) and 0.6 narrowing (the other
 * way; about 150 ns a 16 x 16 matrix, a fifth of gesv float32 16); these loops move four
 * elements per trip with f64x2.promote_low_f32x4 and f32x4.demote_f64x2_zero, which round as the
 * native copy does (IEEE round to nearest even: Math.fround).
 */
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

/** i8x16.shuffle lanes: bytes 8 ... 15 of the first operand into the low half (the other half unused). */
const HIGH_PAIR = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];
/** The low 8 bytes of each operand side by side. */
const LOW_HALVES = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];

/**
 * Exported `widen(src, dst, count)`: float32 at byte src to float64 at byte dst, and
 * `narrow(src, dst, count)`: float64 at src to float32 at dst; count elements, any count. The
 * regions must not overlap.
 */
export function generateConvertWasm(): Uint8Array<ArrayBuffer> {
  const params: ValType[] = ['i32', 'i32', 'i32'];
  return encodeModule([
    { name: 'widen', params, results: [], code: body(true) },
    { name: 'narrow', params, results: [], code: body(false) },
  ]);
}

function body(widen: boolean): Code {
  const c = new Code(['i32', 'i32', 'i32']);
  const [SRC, DST, COUNT] = [0, 1, 2];
  const v = c.local('v128');
  const [inStep, outStep] = widen ? [16, 32] : [32, 16];
  // four elements a trip while at least four are left
  c.op(OP.block, OP.void);
  c.get(COUNT).i32(4).op(OP.i32LtS).op(OP.brIf, 0);
  c.loop_(() => {
    if (widen) {
      c.get(SRC).simdMem(SIMD.load, 2, 0).set(v);
      c.get(DST).get(v).simd(SIMD.f64x2PromoteLowF32x4).simdMem(SIMD.store, 3, 0);
      c.get(DST).get(v).get(v).simd(SIMD.i8x16Shuffle, HIGH_PAIR).simd(SIMD.f64x2PromoteLowF32x4).simdMem(SIMD.store, 3, 16);
    } else {
      c.get(DST);
      c.get(SRC).simdMem(SIMD.load, 3, 0).simd(SIMD.f32x4DemoteF64x2Zero);
      c.get(SRC).simdMem(SIMD.load, 3, 16).simd(SIMD.f32x4DemoteF64x2Zero);
      c.simd(SIMD.i8x16Shuffle, LOW_HALVES).simdMem(SIMD.store, 2, 0);
    }
    c.get(SRC).i32(inStep).op(OP.i32Add).set(SRC);
    c.get(DST).i32(outStep).op(OP.i32Add).set(DST);
    c.get(COUNT).i32(4).op(OP.i32Sub).tee(COUNT).i32(4).op(OP.i32GeS);
  });
  c.op(OP.end);
  // the rest one by one
  c.op(OP.block, OP.void);
  c.get(COUNT).op(OP.i32Eqz).op(OP.brIf, 0);
  c.loop_(() => {
    c.get(DST).get(SRC);
    if (widen) c.mem(OP.f32Load, 2, 0).op(OP.f64PromoteF32).mem(OP.f64Store, 3, 0);
    else c.mem(OP.f64Load, 3, 0).op(OP.f32DemoteF64).mem(OP.f32Store, 2, 0);
    c.get(SRC).i32(widen ? 4 : 8).op(OP.i32Add).set(SRC);
    c.get(DST).i32(widen ? 8 : 4).op(OP.i32Add).set(DST);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  c.op(OP.end);
  return c;
}

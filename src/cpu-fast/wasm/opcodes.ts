/**
 * The one table of WebAssembly opcodes the emitter and the generators use (core spec 2.0,
 * section 5.4; SIMD opcodes follow the 0xfd prefix and are LEB-encoded by `Code.simd`). A
 * generator names every instruction from here: no opcode is written as a number anywhere else.
 */

/** Single-byte instructions: control, variables, memory, numeric (core spec 5.4.1-5.4.7). */
export const OP = {
  // control
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, brIf: 0x0d, call: 0x10, select: 0x1b,
  /** The empty block type. */
  void: 0x40,
  // variables
  localGet: 0x20, localSet: 0x21, localTee: 0x22,
  // memory (each followed by a memarg)
  i32Load: 0x28, f32Load: 0x2a, f64Load: 0x2b, i32Store: 0x36, f32Store: 0x38, f64Store: 0x39,
  // constants
  i32Const: 0x41, f64Const: 0x44,
  // i32
  i32Eqz: 0x45, i32Eq: 0x46, i32Ne: 0x47, i32LtS: 0x48, i32LtU: 0x49, i32GtS: 0x4a, i32GeS: 0x4e,
  i32Add: 0x6a, i32Sub: 0x6b, i32Mul: 0x6c, i32And: 0x71, i32Or: 0x72, i32Shl: 0x74, i32ShrU: 0x76,
  // f64
  f64Eq: 0x61, f64Ne: 0x62, f64Lt: 0x63, f64Gt: 0x64, f64Le: 0x65, f64Ge: 0x66,
  f64Abs: 0x99, f64Sqrt: 0x9f, f64Add: 0xa0, f64Sub: 0xa1, f64Mul: 0xa2, f64Div: 0xa3,
  // conversions
  i32WrapI64: 0xa7, i64ExtendI32U: 0xad, f32DemoteF64: 0xb6, f64PromoteF32: 0xbb,
  /** The prefix of every SIMD instruction. */
  simdPrefix: 0xfd,
} as const;

/** SIMD instructions (the opcode after the 0xfd prefix; simd proposal, core spec 5.4.8). */
export const SIMD = {
  // memory (memarg; the lane forms then a lane index)
  load: 0x00, load32Splat: 0x09, load64Splat: 0x0a, store: 0x0b,
  load64Lane: 0x57, store32Lane: 0x5a, store64Lane: 0x5b, load64Zero: 0x5d,
  // constants, shuffles, lanes
  v128Const: 0x0c, i8x16Shuffle: 0x0d,
  i64x2Splat: 0x12, f32x4Splat: 0x13, f64x2Splat: 0x14,
  i32x4ExtractLane: 0x1b, i64x2ExtractLane: 0x1d, f64x2ExtractLane: 0x21, f64x2ReplaceLane: 0x22,
  // comparisons
  f64x2Eq: 0x47, f64x2Ne: 0x48, f64x2Gt: 0x4a, f64x2Le: 0x4b, f64x2Ge: 0x4c, i64x2Eq: 0xd6, i64x2Ne: 0xd7,
  // bitwise
  v128Not: 0x4d, v128And: 0x4e, v128AndNot: 0x4f, v128Or: 0x50, v128Bitselect: 0x52, v128AnyTrue: 0x53, i64x2AllTrue: 0xc3,
  // conversions
  f32x4DemoteF64x2Zero: 0x5e, f64x2PromoteLowF32x4: 0x5f,
  // arithmetic
  i64x2Add: 0xce,
  f32x4Add: 0xe4, f32x4Sub: 0xe5, f32x4Mul: 0xe6,
  f64x2Abs: 0xec, f64x2Neg: 0xed, f64x2Sqrt: 0xef, f64x2Add: 0xf0, f64x2Sub: 0xf1, f64x2Mul: 0xf2, f64x2Div: 0xf3, f64x2Pmax: 0xf7,
  /**
   * Relaxed SIMD (relaxed-simd proposal, Wasm 3.0; used only where wasm/features.ts's probe
   * validates): madd(a, b, c) = a b + c, nmadd(a, b, c) = -(a b) + c, each rounded once where the
   * hardware fuses (x86 FMA3, Arm) and twice where it does not.
   */
  f32x4RelaxedMadd: 0x105, f32x4RelaxedNmadd: 0x106, f64x2RelaxedMadd: 0x107, f64x2RelaxedNmadd: 0x108,
} as const;

/**
 * What the engine's WebAssembly accepts beyond the core SIMD set, probed once with
 * WebAssembly.validate (feature detection, never the Node version). Relaxed SIMD (its fused
 * multiply-add) validates by default from V8 11.4 (Node 22; Node 24 measured); Node 20 accepts
 * it only with --experimental-wasm-relaxed-simd. Which kernels use it, and MYRIAD_CPU_FMA, are
 * tuning.ts's (fmaDecision; context.ts fmaFor asks it).
 */

/** A module of one function (v128) -> v128 whose body is f64x2.relaxed_madd of its argument three times. */
export const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x06, 0x01, 0x60, 0x01, 0x7b, 0x01, 0x7b, // type: (v128) -> v128
  0x03, 0x02, 0x01, 0x00, // one function of type 0
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x00, 0x20, 0x00, 0xfd, 0x87, 0x02, 0x0b, // local.get 0 x3, f64x2.relaxed_madd (0x107), end
]);

let relaxed: boolean | undefined;
/**
 * Whether this engine validates relaxed SIMD: probed on the first call, remembered after (so a
 * test process may turn Node 20's V8 flag on before the backend first asks).
 */
export function relaxedSimdSupported(): boolean {
  relaxed ??= WebAssembly.validate(RELAXED_PROBE);
  return relaxed;
}

/**
 * The JavaScript scratch arrays the ops lend their kernels, owned by the thread's context
 * (context.ts cpuScratch()) rather than by the modules: one growable array per user, so that no
 * two users that may be active at once share one. Each grows to the largest size asked and is
 * kept (a call allocates nothing once the sizes are seen).
 */

/** float64 scratches: the unrolled LU's working copy and right-hand side, the WebAssembly solves' columns. */
export type F64Scratch = 'getrfJs' | 'getrfJsRhs' | 'zgetrfJs' | 'zgetrfJsRhs' | 'getrfWasmSolve' | 'getrfBlockedSolve' | 'potrfWasmSolve';
/** int32 scratches: the blocked LU's pivots, the blocked inverses' leaf info, heev's eigenvalue order. */
export type I32Scratch = 'getrfBlockedPivots' | 'trtriLeafInfo' | 'zheevOrder';

export class Scratch {
  private readonly f64s: Record<F64Scratch, Float64Array> = {
    getrfJs: new Float64Array(100), getrfJsRhs: new Float64Array(10), zgetrfJs: new Float64Array(200), zgetrfJsRhs: new Float64Array(20),
    getrfWasmSolve: new Float64Array(64), getrfBlockedSolve: new Float64Array(64), potrfWasmSolve: new Float64Array(64),
  };
  private readonly i32s: Record<I32Scratch, Int32Array> = { getrfBlockedPivots: new Int32Array(64), trtriLeafInfo: new Int32Array(64), zheevOrder: new Int32Array(16) };

  /** User `key`'s float64 scratch, at least `length` long. */
  f64(key: F64Scratch, length: number): Float64Array {
    const a = this.f64s[key];
    return a.length >= length ? a : (this.f64s[key] = new Float64Array(length));
  }
  /** User `key`'s int32 scratch, at least `length` long. */
  i32(key: I32Scratch, length: number): Int32Array {
    const a = this.i32s[key];
    return a.length >= length ? a : (this.i32s[key] = new Int32Array(length));
  }
}

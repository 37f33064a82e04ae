/**
 * Block copies between a caller's batch and the float64 working copies in the WebAssembly
 * memory, for chunks that lie back to back in the caller's array as they do in the memory (no
 * gaps: one native copy, in place of a packing loop). float32 data crosses through a float32
 * staging area and is widened or narrowed in WebAssembly (kernels/convert-wasm.ts).
 */
import { isFloat32Array, type FloatArray } from '../../core/dtype.js';
import { moduleFactory } from '../jit/compile.js';
import { generateConvertWasm } from '../kernels/convert-wasm.js';
import { heap, loadModule } from '../wasm/runtime.js';

type WasmConvert = (src: number, dst: number, count: number) => void;
const widenKernel = moduleFactory<Record<string, never>, WasmConvert>(generateConvertWasm, 'widen', loadModule);
const narrowKernel = moduleFactory<Record<string, never>, WasmConvert>(generateConvertWasm, 'narrow', loadModule);
// looked up once (a factory lookup keys its parameters by JSON: about a microsecond)
let widen: WasmConvert | undefined, narrow: WasmConvert | undefined;

/**
 * A chunk of `count` float32 elements lying back to back in the caller's array, crossing to and
 * from float64 at byte `at` of the wasm memory through a float32 staging area at byte `stage`:
 * a native byte copy and the widening or narrowing in WebAssembly (kernels/convert-wasm.ts; the
 * native converting copy narrows at 0.6 ns an element).
 */
export function widenIn(src: Float32Array, off: number, count: number, at: number, stage: number): void {
  heap(0).f32.set(src.subarray(off, off + count), stage / 4);
  (widen ??= widenKernel({}))(stage, at, count);
}
export function narrowOut(at: number, count: number, stage: number, dst: Float32Array, off: number): void {
  (narrow ??= narrowKernel({}))(at, stage, count);
  dst.set(heap(0).f32.subarray(stage / 4, stage / 4 + count), off);
}

/**
 * One triangle of each of `count` back-to-back n x n complex matrices (float64 pairs at byte
 * `at`, column-major), rounded into the float32 copy of the chunk that widenIn left at byte
 * `stage`, then the whole chunk to dst[off] in one native copy: the other triangle goes back as
 * the caller's own float32 bits (a NaN's among them), as a packing loop over the triangle leaves
 * it. One narrowing call a column: the triangle's part of a column is contiguous.
 */
export function narrowTriangleOut(at: number, n: number, count: number, upper: boolean, stage: number, dst: Float32Array, off: number): void {
  const down = (narrow ??= narrowKernel({}));
  for (let q = 0; q < count; q++) {
    for (let j = 0; j < n; j++) {
      // floats from the chunk's start: column j of matrix q, from row j (lower) or row 0 (upper)
      const first = 2 * (q * n * n + j * n) + (upper ? 0 : 2 * j);
      down(at + 8 * first, stage + 4 * first, upper ? 2 * (j + 1) : 2 * (n - j));
    }
  }
  const total = 2 * n * n * count;
  dst.set(heap(0).f32.subarray(stage / 4, stage / 4 + total), off);
}

/** `count` elements from src[off] to float64 at byte `at` (float32 widened through `stage`). */
export function blockIn(src: FloatArray, off: number, count: number, at: number, stage: number): void {
  if (isFloat32Array(src)) widenIn(src, off, count, at, stage);
  else heap(0).f64.set(src.subarray(off, off + count), at / 8);
}
/** `count` float64 elements at byte `at` to dst[off] (rounded to float32 through `stage`). */
export function blockOut(at: number, count: number, stage: number, dst: FloatArray, off: number): void {
  if (isFloat32Array(dst)) narrowOut(at, count, stage, dst, off);
  else dst.set(heap(0).f64.subarray(at / 8, at / 8 + count), off);
}

/** Whether a batch's chunk lies back to back as the packed chunk does (rows = ld = packed ld, stride rows x cols). */
export const backToBack = (v: { ld: number; stride: number }, rows: number, cols: number, ldp: number): boolean =>
  v.ld === rows && ldp === rows && v.stride === rows * cols;

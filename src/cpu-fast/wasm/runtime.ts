/**
 * One WebAssembly memory per thread and the compiled-module cache: modules are keyed by the
 * sha256 of their bytes (derived, never written by hand), compiled once per thread and
 * instantiated against this thread's memory. The memory only grows; views are refreshed after.
 */
import { createHash } from 'node:crypto';

const PAGE = 65536;
const memory = new WebAssembly.Memory({ initial: 16 });
const instances = new Map<string, WebAssembly.Exports>();

export const moduleKey = (bytes: Uint8Array<ArrayBuffer>): string => createHash('sha256').update(bytes).digest('hex');

/** The exports of this module, instantiated on this thread's memory. */
export function instantiate(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Exports {
  const key = moduleKey(bytes);
  let exports = instances.get(key);
  if (!exports) {
    const module = new WebAssembly.Module(bytes);
    exports = new WebAssembly.Instance(module, { env: { mem: memory } }).exports;
    instances.set(key, exports);
  }
  return exports;
}

let f64View = new Float64Array(memory.buffer);
let f32View = new Float32Array(memory.buffer);

/** Makes the memory at least `bytes` long; returns the views over it. */
export function heap(bytes: number): { f64: Float64Array; f32: Float32Array } {
  if (memory.buffer.byteLength < bytes) {
    memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    f64View = new Float64Array(memory.buffer);
    f32View = new Float32Array(memory.buffer);
  }
  return { f64: f64View, f32: f32View };
}

let i32View = new Int32Array(memory.buffer);

/** An int32 view of the memory (after heap() has made it large enough). */
export function heapInts(): Int32Array {
  if (i32View.buffer !== memory.buffer) i32View = new Int32Array(memory.buffer);
  return i32View;
}

/**
 * One WebAssembly memory per thread and the compiled-module cache: modules are keyed by the
 * sha256 of their bytes (derived, never written by hand), instantiated once per thread against
 * this thread's memory. The memory only grows; views are refreshed after.
 *
 * A module is generated and compiled once per process where it can be: each compiled module is
 * also remembered under its generator's name and parameters (`source`, from jit/compile.ts's
 * moduleFactory) and handed to the listener that the worker pool installs (shareModules), which
 * posts it to every worker (a WebAssembly.Module can be posted: the workers instantiate the same
 * compiled code against their own memory). A worker looks a module up among those it has
 * received (pulling what has arrived so far) before it generates one itself, which it still does
 * when the caller has not compiled that module yet.
 */
import { createHash } from 'node:crypto';

const PAGE = 65536;
const memory = new WebAssembly.Memory({ initial: 16 });
const instances = new Map<string, WebAssembly.Exports>();

export const moduleKey = (bytes: Uint8Array<ArrayBuffer>): string => createHash('sha256').update(bytes).digest('hex');

/** A compiled module as threads share it: the generator and parameters it came from, its bytes' key, the module. */
export interface SharedModule { readonly source: string; readonly key: string; readonly module: WebAssembly.Module }

const compiled = new Map<string, SharedModule>();
let listener: ((m: SharedModule) => void) | undefined;
let pull: (() => void) | undefined;

/** The exports of this module, instantiated on this thread's memory. */
export function instantiate(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Exports {
  const key = moduleKey(bytes);
  return instantiateModule(key, () => new WebAssembly.Module(bytes));
}

function instantiateModule(key: string, module: () => WebAssembly.Module): WebAssembly.Exports {
  let exports = instances.get(key);
  if (!exports) {
    exports = new WebAssembly.Instance(module(), { env: { mem: memory } }).exports;
    instances.set(key, exports);
  }
  return exports;
}

/**
 * The exports of the module that `source` (a generator's name and parameters) names: one this
 * thread or another has already compiled, else generated and compiled here (and shared).
 */
export function loadModule(source: string, generate: () => Uint8Array<ArrayBuffer>): WebAssembly.Exports {
  let shared = compiled.get(source);
  if (!shared && pull) {
    pull();
    shared = compiled.get(source);
  }
  if (!shared) {
    const bytes = generate();
    const key = moduleKey(bytes);
    shared = { source, key, module: new WebAssembly.Module(bytes) };
    compiled.set(source, shared);
    listener?.(shared);
  }
  const { key, module } = shared;
  return instantiateModule(key, () => module);
}

/** Every module compiled or received so far (what a new worker starts with). */
export const sharedModules = (): SharedModule[] => [...compiled.values()];

/** Modules from another thread (a module already here stays as it is). */
export function receiveModules(modules: readonly SharedModule[]): void {
  for (const m of modules) if (!compiled.has(m.source)) compiled.set(m.source, m);
}

/**
 * The caller's side (the pool): `onCompiled` gets each module this thread compiles. A worker's
 * side: `pullModules` receives what has been posted so far, run before a module is generated.
 */
export function shareModules(hooks: { onCompiled?: (m: SharedModule) => void; pullModules?: () => void }): void {
  listener = hooks.onCompiled;
  pull = hooks.pullModules;
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

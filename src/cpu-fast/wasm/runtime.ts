/**
 * One WebAssembly memory per thread and the compiled-module cache: modules are keyed by the
 * sha256 of their bytes (derived, never written by hand), instantiated once per thread against
 * this thread's memory. The memory only grows; views are refreshed after.
 *
 * The caller's memory is an ordinary one; a worker's is shared (sharedKernelMemory, created by
 * the pool, which packs chunks straight into it: threads/parallel.ts), and a worker runs each
 * module in its shared-memory form (emit.ts withSharedMemory: the same code, another import).
 *
 * A module is generated once per process where it can be: each module the caller compiles is
 * remembered under its generator's name and parameters (`source`, from jit/compile.ts's
 * moduleFactory), and once the pool has workers its shared-memory form is compiled and handed to
 * the listener that the pool installs (shareModules), which posts it to every worker (a
 * WebAssembly.Module can be posted: the workers instantiate the same compiled code against
 * their own memories). A worker looks a module up among those it has received (pulling what has
 * arrived so far) before it generates one itself, which it still does when the caller has not
 * compiled that module yet.
 */
import { createHash } from 'node:crypto';
import { withSharedMemory } from './emit.js';

const PAGE = 65536;

/**
 * Typed views over a kernel memory, made at least so many bytes long on request. A shared
 * memory may be grown by another thread (the caller grows a worker's before packing into it),
 * which gives it a new, longer buffer: the views follow the memory's buffer, not only this
 * thread's own growth.
 */
export class Heap {
  f64: Float64Array;
  f32: Float32Array;
  i32: Int32Array;
  private buffer: ArrayBufferLike;
  constructor(readonly memory: WebAssembly.Memory) {
    this.buffer = memory.buffer;
    this.f64 = new Float64Array(this.buffer);
    this.f32 = new Float32Array(this.buffer);
    this.i32 = new Int32Array(this.buffer);
  }
  /** At least `bytes` long (grown if not), the views current. */
  reserve(bytes: number): this {
    const length = this.memory.buffer.byteLength;
    if (length < bytes) this.memory.grow(Math.ceil((bytes - length) / PAGE));
    if (this.memory.buffer !== this.buffer) {
      this.buffer = this.memory.buffer;
      this.f64 = new Float64Array(this.buffer);
      this.f32 = new Float32Array(this.buffer);
      this.i32 = new Int32Array(this.buffer);
    }
    return this;
  }
}

let own = new Heap(new WebAssembly.Memory({ initial: 16 }));
let memoryShared = false;
const instances = new Map<string, WebAssembly.Exports>();

/**
 * A worker's side: this thread's kernels run on `memory` (shared, created by the pool, which
 * packs into it) instead of a memory of its own. Only before any module is instantiated here.
 */
export function adoptMemory(memory: WebAssembly.Memory): void {
  if (instances.size > 0) throw new Error("adoptMemory: modules are already instantiated on this thread's memory");
  if (!(memory.buffer instanceof SharedArrayBuffer)) throw new Error('adoptMemory: expected a shared memory');
  own = new Heap(memory);
  memoryShared = true;
}

/** This thread's kernel memory and its views, at least `bytes` long. */
export const ownHeap = (bytes: number): Heap => own.reserve(bytes);

export const moduleKey = (bytes: Uint8Array<ArrayBuffer>): string => createHash('sha256').update(bytes).digest('hex');

/**
 * A compiled module as threads share it: the generator and parameters it came from, its bytes'
 * key, the module, and whether it imports a shared memory (a worker's) or an unshared one.
 */
export interface SharedModule { readonly source: string; readonly key: string; readonly module: WebAssembly.Module; readonly shared: boolean }

/** Modules by source and memory kind. */
const compiled = new Map<string, SharedModule>();
const variant = (source: string, shared: boolean): string => (shared ? `${source} (shared memory)` : source);
/** The bytes of each module generated here in unshared form (their shared form is compiled for workers on demand). */
const generated = new Map<string, Uint8Array<ArrayBuffer>>();
let listener: ((m: SharedModule) => void) | undefined;
let pull: (() => void) | undefined;

function instantiateModule(key: string, module: () => WebAssembly.Module): WebAssembly.Exports {
  let exports = instances.get(key);
  if (!exports) {
    exports = new WebAssembly.Instance(module(), { env: { mem: own.memory } }).exports;
    instances.set(key, exports);
  }
  return exports;
}

function compile(source: string, bytes: Uint8Array<ArrayBuffer>, shared: boolean): SharedModule {
  const b = shared ? withSharedMemory(bytes) : bytes;
  const m = { source, key: moduleKey(b), module: new WebAssembly.Module(b), shared };
  compiled.set(variant(source, shared), m);
  return m;
}

/** The shared-memory form of a module generated here (what the workers run), compiled once. */
function forWorkers(source: string, bytes: Uint8Array<ArrayBuffer>): SharedModule {
  return compiled.get(variant(source, true)) ?? compile(source, bytes, true);
}

/**
 * The exports of the module that `source` (a generator's name and parameters) names: one this
 * thread or another has already compiled for this kind of memory, else generated and compiled
 * here (and its shared form handed to the workers, where there are any).
 */
export function loadModule(source: string, generate: () => Uint8Array<ArrayBuffer>): WebAssembly.Exports {
  const name = variant(source, memoryShared);
  let m = compiled.get(name);
  if (!m && pull) {
    pull();
    m = compiled.get(name);
  }
  if (!m) {
    const bytes = generate();
    m = compile(source, bytes, memoryShared);
    if (!memoryShared) {
      generated.set(source, bytes);
      if (listener) listener(forWorkers(source, bytes));
    }
  }
  const { key, module } = m;
  return instantiateModule(key, () => module);
}

/** The shared-memory form of every module generated here so far (what a new worker starts with). */
export const sharedModules = (): SharedModule[] => [...generated].map(([source, bytes]) => forWorkers(source, bytes));

/** Modules from another thread (a module already here stays as it is). */
export function receiveModules(modules: readonly SharedModule[]): void {
  for (const m of modules) {
    const name = variant(m.source, m.shared);
    if (!compiled.has(name)) compiled.set(name, m);
  }
}

/**
 * The caller's side (the pool, once it starts workers): `onCompiled` gets the shared-memory form
 * of each module this thread compiles from now on. A worker's side: `pullModules` receives what
 * has been posted so far, run before a module is generated.
 */
export function shareModules(hooks: { onCompiled?: (m: SharedModule) => void; pullModules?: () => void }): void {
  listener = hooks.onCompiled;
  pull = hooks.pullModules;
}

/** Makes this thread's memory at least `bytes` long; returns the views over it. */
export function heap(bytes: number): { f64: Float64Array; f32: Float32Array } {
  return own.reserve(bytes);
}

/** An int32 view of this thread's memory (after heap() has made it large enough). */
export function heapInts(): Int32Array {
  return own.reserve(0).i32;
}

/**
 * The WebAssembly memories of a thread and its module cache: modules are keyed by the sha256 of
 * their bytes (derived, never written by hand), instantiated once per thread against the memory
 * of their kind. A memory only grows; views are refreshed after.
 *
 * Two kinds of memory. The caller's own memory is an ordinary one: most of its copies go there,
 * and V8 copies into and out of shared buffers at about half the speed (emit.ts
 * sharedKernelMemory). A worker's memory is shared (created by the pool, which packs the worker's
 * chunks straight into it: threads/parallel.ts), and so is the caller's second memory, where it
 * runs its own chunks of such a stream; there a module runs in its shared-memory form
 * (emit.ts withSharedMemory: the same code, another import).
 *
 * A module is generated once per process where it can be: the caller remembers the bytes of each
 * module it generates under its generator's name and parameters (`source`, from jit/compile.ts's
 * moduleFactory) and hands them to the listener that the worker pool installs (shareModules),
 * which posts them to every worker; a worker looks a module's bytes up among those it has
 * received (pulling what has arrived so far) before it generates them itself. Compiling is left
 * to each thread: V8 keeps one compiled module per process for the same bytes, so a worker's
 * compile of a form the caller has compiled returns the caller's code, and the two share its
 * tier-up (from the baseline compiler to the optimising one, measured 4-5x faster for the LU
 * kernel): the caller runs its own chunks of a stream in the shared form for that reason.
 */
import { createHash } from 'node:crypto';
import { sharedKernelMemory, withSharedMemory } from './emit.js';

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

/** This thread's own memory: the caller's unshared one, or the shared one a worker adopted. */
let own = new Heap(new WebAssembly.Memory({ initial: 16 }));
/** Whether `own` is shared (a worker's). */
let ownShared = false;
/** The caller's shared memory (its chunks of a packed stream), made on first use. */
let sharedHeap: Heap | undefined;
const instances = new Map<string, WebAssembly.Exports>();

/**
 * A worker's side: this thread's kernels run on `memory` (shared, created by the pool, which
 * packs into it) instead of a memory of its own. Only before any module is instantiated here.
 */
export function adoptMemory(memory: WebAssembly.Memory): void {
  if (instances.size > 0) throw new Error("adoptMemory: modules are already instantiated on this thread's memory");
  if (!(memory.buffer instanceof SharedArrayBuffer)) throw new Error('adoptMemory: expected a shared memory');
  own = new Heap(memory);
  ownShared = true;
}

/** The heap of this thread's shared memory (a worker's own) where `shared`, else its own. */
function heapOf(shared: boolean): Heap {
  if (!shared || ownShared) return own;
  return (sharedHeap ??= new Heap(sharedKernelMemory(16)));
}

/** This thread's kernel memory (with `shared`, its shared one) and its views, at least `bytes` long. */
export const ownHeap = (bytes: number, shared = false): Heap => heapOf(shared).reserve(bytes);

export const moduleKey = (bytes: Uint8Array<ArrayBuffer>): string => createHash('sha256').update(bytes).digest('hex');

/** A module's bytes as threads share them: the generator and parameters they came from, the bytes (unshared form). */
export interface SharedModule { readonly source: string; readonly bytes: Uint8Array<ArrayBuffer> }

/** Module bytes by source: generated here or received. */
const generated = new Map<string, Uint8Array<ArrayBuffer>>();
/** Compiled modules by source and form. */
const compiled = new Map<string, { key: string; module: WebAssembly.Module }>();
let listener: ((m: SharedModule) => void) | undefined;
let pull: (() => void) | undefined;

/**
 * The exports of the module that `source` (a generator's name and parameters) names, on this
 * thread's own memory or (`shared`) its shared one: bytes this thread or another has already
 * generated, else generated here (and handed to the workers, where there are any); compiled
 * once per form.
 */
export function loadModule(source: string, generate: () => Uint8Array<ArrayBuffer>, shared = false): WebAssembly.Exports {
  const heap = heapOf(shared);
  const form = heap === own ? ownShared : true;
  const name = form ? `${source} (shared memory)` : source;
  let m = compiled.get(name);
  if (!m) {
    let bytes = generated.get(source);
    if (!bytes && pull) {
      pull();
      bytes = generated.get(source);
    }
    if (!bytes) {
      bytes = generate();
      generated.set(source, bytes);
      listener?.({ source, bytes });
    }
    const b = form ? withSharedMemory(bytes) : bytes;
    m = { key: moduleKey(b), module: new WebAssembly.Module(b) };
    compiled.set(name, m);
  }
  let exports = instances.get(m.key);
  if (!exports) {
    exports = new WebAssembly.Instance(m.module, { env: { mem: heap.memory } }).exports;
    instances.set(m.key, exports);
  }
  return exports;
}

/** The bytes of every module generated here or received so far (what a new worker starts with). */
export const sharedModules = (): SharedModule[] => [...generated].map(([source, bytes]) => ({ source, bytes }));

/** Modules' bytes from another thread (bytes already here stay as they are). */
export function receiveModules(modules: readonly SharedModule[]): void {
  for (const m of modules) if (!generated.has(m.source)) generated.set(m.source, m.bytes);
}

/**
 * The caller's side (the pool, once it starts workers): `onGenerated` gets the bytes of each
 * module this thread generates from now on. A worker's side: `pullModules` receives what has
 * been posted so far, run before a module is generated.
 */
export function shareModules(hooks: { onGenerated?: (m: SharedModule) => void; pullModules?: () => void }): void {
  listener = hooks.onGenerated;
  pull = hooks.pullModules;
}

/** Makes this thread's own memory at least `bytes` long; returns the views over it. */
export function heap(bytes: number): { f64: Float64Array; f32: Float32Array } {
  return own.reserve(bytes);
}

/** An int32 view of this thread's own memory (after heap() has made it large enough). */
export function heapInts(): Int32Array {
  return own.reserve(0).i32;
}

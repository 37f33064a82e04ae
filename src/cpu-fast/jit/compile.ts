/**
 * Compiles generated JavaScript once per distinct source. The cache key is the sha256 of the
 * source and the parameter list (derived, never written by hand: a changed generator can never
 * reuse a stale function). The dtype is part of every generated source, so float32 and float64
 * kernels are separate functions and V8 keeps each one monomorphic.
 *
 * MYRIAD_PRINT_SOURCE=1 prints each new source to stderr (as tfjs's WEBGPU_PRINT_SHADER).
 */
import { createHash } from 'node:crypto';
import { printSourceOn } from '../context.js';

/** A generated JavaScript kernel: its parameter names and body, from a pure generator (the CUDA wing's KernelSource, src/cuda/runtime/types.ts, is CUDA text). */
export interface JsKernelSource {
  readonly params: readonly string[];
  readonly body: string;
}

const cache = new Map<string, unknown>();

export function sourceKey(src: JsKernelSource): string {
  return createHash('sha256').update(src.params.join(',')).update('\0').update(src.body).digest('hex');
}

/** The function for this source, built on first use. */
export function compileKernel<F>(src: JsKernelSource): F {
  const key = sourceKey(src);
  let fn = cache.get(key);
  if (fn === undefined) {
    if (printSourceOn()) process.stderr.write(`// myriad kernel ${key}\n${src.body}\n`);
    fn = new Function(...src.params, src.body);
    cache.set(key, fn);
  }
  return fn as F;
}

/** Distinct kernels compiled so far (tests). */
export const compiledKernelCount = (): number => cache.size;

/** Lines of generated code with indentation. */
export class Emitter {
  private readonly lines: string[] = [];
  private depth = 0;
  line(text: string): this {
    this.lines.push('  '.repeat(this.depth) + text);
    return this;
  }
  open(text: string): this {
    this.line(text);
    this.depth++;
    return this;
  }
  /** `} else {` and the like: closes one block and opens the next at the same depth. */
  middle(text: string): this {
    this.depth--;
    this.line(text);
    this.depth++;
    return this;
  }
  close(text = '}'): this {
    this.depth--;
    return this.line(text);
  }
  toString(): string {
    return this.lines.join('\n');
  }
}

/**
 * A generator with its compiled functions remembered per parameter object (keyed by the
 * object's JSON: derived from the parameters, so a new field can never be left out), so a hot
 * path pays neither generation nor hashing after the first call.
 */
export function kernelFactory<P extends object, F>(generate: (p: P) => JsKernelSource): (p: P) => F {
  const memo = new Map<string, F>();
  return (p: P): F => {
    const key = JSON.stringify(p);
    let fn = memo.get(key);
    if (fn === undefined) memo.set(key, (fn = compileKernel<F>(generate(p))));
    return fn;
  };
}

/**
 * The same for WebAssembly modules: bytes from a generator, exports per parameter object. The
 * generator's name and the parameters' JSON name the module for `load` (wasm/runtime.ts's
 * loadModule), which shares one compiled module between the threads.
 */
export function moduleFactory<P extends object, F>(
  generate: (p: P) => Uint8Array<ArrayBuffer>, exportName: string,
  load: (source: string, generate: () => Uint8Array<ArrayBuffer>) => WebAssembly.Exports,
): (p: P) => F {
  if (!generate.name) throw new Error('moduleFactory: the generator needs a name (it names the module between threads)');
  const memo = new Map<string, F>();
  return (p: P): F => {
    const key = JSON.stringify(p);
    let fn = memo.get(key);
    if (fn === undefined) memo.set(key, (fn = load(`${generate.name}:${key}`, () => generate(p))[exportName] as F));
    return fn;
  };
}

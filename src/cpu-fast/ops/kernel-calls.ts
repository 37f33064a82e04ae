/**
 * The WebAssembly kernels that run on chunks packed into a kernel memory (ops/chunks.ts), as
 * data: a chunk's kernel, its parameters, where the chunk starts and how many matrices it holds.
 * A worker runs such a call on its own memory, into which the caller packed the chunk; the
 * caller runs its own chunks through the same runners, so both threads lay out and process a
 * chunk the same way. The modules are the same too (moduleFactory names them by generator and
 * parameters: a worker instantiates the caller's compiled module, or generates its own when it
 * has not arrived).
 */
import { moduleFactory } from '../jit/compile.js';
import { generateGetrfBlockWasm, type GetrfBlockWasmParams } from '../kernels/getrf-block-wasm.js';
import { ldOf } from '../kernels/getrf-wasm.js';
import { generatePotrfInterleavedStrided, scratchBytes, type PotrfInterleavedStridedParams } from '../kernels/potrf-interleaved.js';
import { loadModule } from '../wasm/runtime.js';

type WasmGetrfBlock = (a: number, ipiv: number, info: number, count: number, b: number) => void;
export const blockKernel = moduleFactory<GetrfBlockWasmParams, WasmGetrfBlock>(generateGetrfBlockWasm, 'getrf', loadModule);
type WasmPotrf = (a: number, strideBytes: number, info: number, pairs: number, b: number, bStrideBytes: number, nrhs: number, scratch: number) => void;
export const interleavedKernel = moduleFactory<PotrfInterleavedStridedParams, WasmPotrf>(generatePotrfInterleavedStrided, 'potrf', loadModule);

/**
 * The interleaved Cholesky's chunk (ops/cholesky-interleaved.ts): the kernel's parameters
 * (pairsPerTrip 1; `pairsPerTrip` here says whether the two-pair form runs the chunk's quads),
 * the strided batch's matrix stride and footprint in elements (copied byte for byte, gaps
 * included), B's (0 for potrf) and its column count, and the element size.
 */
export interface InterleavedChunk {
  readonly kernel: PotrfInterleavedStridedParams;
  readonly pairsPerTrip: 1 | 2;
  readonly stride: number;
  readonly footprint: number;
  readonly bStride: number;
  readonly bFootprint: number;
  readonly nrhs: number;
  readonly es: number;
}

/** A kernel call on a chunk of `count` matrices laid out from byte `base` of the memory. */
export type KernelCall =
  | { readonly kernel: 'getrf-block'; readonly params: GetrfBlockWasmParams; readonly base: number; readonly count: number }
  | { readonly kernel: 'potrf-interleaved'; readonly params: InterleavedChunk; readonly base: number; readonly count: number };

/** Runs chunks: (base, count). */
export type ChunkRunner = (base: number, count: number) => void;

/** A delayed-update LU chunk of c matrices: c packed A (ld = ldOf(m)), c packed B, c x min(m, n) pivots, c infos. */
export function luLayout(p: GetrfBlockWasmParams, base: number, c: number): { b: number; piv: number; info: number } {
  const ld = ldOf(p.m);
  const b = base + c * ld * p.n * 8;
  const piv = b + c * ld * p.nrhs * 8;
  return { b, piv, info: piv + c * Math.min(p.m, p.n) * 4 };
}

export function luRunner(p: GetrfBlockWasmParams, shared: boolean): ChunkRunner {
  const fn = blockKernel(p, shared);
  return (base, c) => {
    const l = luLayout(p, base, c);
    fn(base, l.piv, p.solveOnly ? 0 : l.info, c, l.b); // getrs writes no infos
  };
}

const align16 = (x: number): number => (x + 15) & ~15;

/** An interleaved chunk of c matrices: A's span as it lies in the caller's array, B's, c infos, the kernel's scratch. */
export function interleavedLayout(p: InterleavedChunk, base: number, c: number): { b: number; info: number; scratch: number; aLength: number; bLength: number } {
  const aLength = (c - 1) * p.stride + p.footprint;
  const bLength = p.nrhs > 0 ? (c - 1) * p.bStride + p.bFootprint : 0;
  const b = align16(base + aLength * p.es);
  const info = align16(b + bLength * p.es);
  return { b, info, scratch: align16(info + (c + 2) * 4), aLength, bLength };
}

/** Bytes an interleaved chunk needs besides its matrices (alignment and the scratch). */
export const interleavedFixedBytes = (p: InterleavedChunk): number => 64 + scratchBytes(p.kernel.n, 2);

export function interleavedRunner(p: InterleavedChunk, shared: boolean): ChunkRunner {
  const fn = interleavedKernel(p.kernel, shared);
  const fn2 = p.pairsPerTrip === 2 ? interleavedKernel({ ...p.kernel, pairsPerTrip: 2 }, shared) : fn;
  const s = p.stride * p.es, bs = p.bStride * p.es;
  return (base, c) => {
    const { b, info, scratch } = interleavedLayout(p, base, c);
    if (p.pairsPerTrip === 2) {
      const quads = c >> 2;
      if (quads > 0) fn2(base, s, info, quads, b, bs, p.nrhs, scratch);
      if (c & 2) fn(base + quads * 4 * s, s, info + quads * 16, 1, b + quads * 4 * bs, bs, p.nrhs, scratch);
    } else if (c >= 2) fn(base, s, info, c >> 1, b, bs, p.nrhs, scratch);
    // an odd last matrix as a pair with itself (stride 0)
    if (c & 1) fn(base + (c - 1) * s, 0, info + (c - 1) * 4, 1, b + (c - 1) * bs, 0, p.nrhs, scratch);
  };
}

/** Runs a posted kernel call on this thread's (a worker's: shared) memory. */
export function runKernelCall(c: KernelCall): void {
  switch (c.kernel) {
    case 'getrf-block':
      luRunner(c.params, true)(c.base, c.count);
      return;
    case 'potrf-interleaved':
      interleavedRunner(c.params, true)(c.base, c.count);
      return;
  }
}

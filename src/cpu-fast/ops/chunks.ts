/**
 * Ops whose strided runs go chunk by chunk through one WebAssembly kernel: a chunk's inputs
 * packed into a kernel memory, the kernel run there, its outputs unpacked into the caller's
 * arrays. A plan keeps the copies apart from the kernel call so that the call can run on
 * another thread: the worker pool's caller packs a worker's chunk straight into that worker's
 * (shared) memory and posts only the call (threads/parallel.ts), instead of staging the chunk in
 * a shared arena for the worker to pack, and back: one copy fewer each way, and none of them on
 * the worker. Either way the same kernel runs on the same packed bytes, so results are the same.
 */
import type { DType } from '../../core/dtype.js';
import { isBatch } from '../split.js';
import { GEMM_WASM_CHUNK_BYTES } from '../tuning.js';
import { ownHeap, type Heap } from '../wasm/runtime.js';
import type { ChunkRunner, KernelCall } from './kernel-calls.js';

export type { KernelCall } from './kernel-calls.js';

export interface ChunkPlan {
  /** Bytes of kernel memory one matrix takes, and a chunk besides (a chunk of c matrices: chunkBytes). */
  readonly perMatrix: number;
  readonly fixed: number;
  /** Matrices per chunk on this thread, where the plan has its own (else runChunks fits its bytes). */
  readonly chunk?: number;
  /** Copies the inputs of matrices [p, p + count) of the request into `heap` from byte `base`. */
  pack(heap: Heap, base: number, p: number, count: number): void;
  /** Runs chunks (base, count) in this thread's own memory, or (`shared`) its shared one (made, and its module compiled, on first use). */
  runner(shared: boolean): ChunkRunner;
  /** The same as data, for the thread that owns the memory the chunk was packed into. */
  call(base: number, count: number): KernelCall;
  /** Copies the chunk's outputs back into the request's arrays (matrices [p, p + count)). */
  unpack(heap: Heap, base: number, p: number, count: number): void;
}

/** Bytes of kernel memory a chunk of `count` matrices takes (a multiple of 16, so chunks laid end to end stay aligned). */
export const chunkBytes = (plan: ChunkPlan, count: number): number => (count * plan.perMatrix + plan.fixed + 31) & ~15;

/**
 * Runs matrices [p0, p0 + count) on this thread, in chunks of about `bytes` (in cache:
 * GEMM_WASM_CHUNK_BYTES) or of `plan.chunk` matrices where the plan names its own.
 */
export function runChunks(plan: ChunkPlan, p0: number, count: number, shared = false, bytes = GEMM_WASM_CHUNK_BYTES): void {
  const chunk = Math.max(1, Math.min(count, plan.chunk ?? Math.floor(bytes / plan.perMatrix)));
  const run = plan.runner(shared);
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const heap = ownHeap(chunkBytes(plan, c), shared);
    plan.pack(heap, 0, q, c);
    run(0, c);
    plan.unpack(heap, 0, q, c);
  }
}

/** A plan's runners per form, each made on first use (`make(shared)`). */
export function runnersOf(make: (shared: boolean) => ChunkRunner): (shared: boolean) => ChunkRunner {
  let own: ChunkRunner | undefined, shared: ChunkRunner | undefined;
  return (s) => (s ? (shared ??= make(true)) : (own ??= make(false)));
}

/** Whether every batch of the request is strided (what a plan for a whole request needs). */
export const allStrided = (r: object): boolean => Object.values(r).every((v) => !isBatch(v) || v.kind === 'strided');

export const dtypeOf = (data: Float64Array | Float32Array): DType => (data instanceof Float32Array ? 'float32' : 'float64');

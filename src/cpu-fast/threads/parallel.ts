/**
 * Every operation on all cores: the batch is cut into one contiguous share per thread
 * (sliceRequest), workers get theirs (staged copies of unshared arrays, see staging.ts), the
 * caller runs its own share in place, then blocks until the workers are done and copies their
 * outputs back. Calls too small to pay for the hand-over (MIN_WORK) stay on the caller's thread.
 * Matrices are independent, so a failing matrix only sets its own info, whichever share it is in.
 */
import { batchCount, matrixAt, type Batch } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { OpName } from '../../core/ops.js';
import { OP_SPECS, WRITTEN_BATCHES } from '../../core/op-specs.js';
import { isBatch, sliceRequest } from '../split.js';
import { STREAM_ARENA_BYTES, cpuThreads, finished, post, postQueued, rethrow, slot, wait } from './pool.js';
import { floatsPer, isShared, stage, unstage, type Staged } from './staging.js';

/**
 * Below this estimate of a call's work (about flops plus element traffic) one thread is faster.
 * Arrays that are not on a SharedArrayBuffer must be copied for the workers: measured on the
 * 2-core EPYC, that wins only for matrices of at least copyMinSize (posv n = 64: 1.5x, n = 8:
 * 1.2x warm and 3x slower on a first call, which pays the first touch of the arena). Copies of
 * more than streamBytes are streamed (streamed() below): chunks of about streamChunkBytes through
 * STREAM_DEPTH arenas per worker that it touched at start-up, instead of one arena the size of
 * the share (a fresh arena costs about 3 ms per MiB of page faults on a first call).
 */
export const THREADING = {
  minWork: 1 << 19, minWorkPerThread: 1 << 17, copyMinSize: 32, minWorkPerCopiedByte: 2, streamBytes: 4 << 20, streamChunkBytes: STREAM_ARENA_BYTES >> 1,
};

type Op = (r: object) => void;

/** The batch whose count and shapes define the call (its op spec's `main`). */
function mainBatch(op: OpName, r: object): Batch<FloatArray> {
  return (r as Record<string, Batch<FloatArray>>)[OP_SPECS[op].main]!;
}

/** Rough work of a matrix: size^3 + 8 size^2 (flops and per-element costs). */
function cubeWork(rows: number, cols: number): number {
  const s = Math.max(rows, cols);
  return s * s * s + 8 * s * s;
}

/**
 * Rough work of a solve with a triangle or factor of order t and `vectors` right-hand sides (or
 * rows, side right): t^2 flops a vector (2 t^2 for the two triangles of potrs and getrs), and 8
 * per element of the triangle and of B. The main batch's cube would count a factorisation's
 * t^3 where one right-hand side costs t^2.
 */
function solveWork(t: number, vectors: number, triangles: number): number {
  return triangles * t * t * vectors + 8 * (t * t + t * vectors);
}

/** The operations whose work is a solve's (solveWork): potrs, getrs (two triangles), trsm and trmm (one). */
const SOLVES: Partial<Record<OpName, { readonly triangles: number }>> = { potrs: { triangles: 2 }, getrs: { triangles: 2 }, trsm: { triangles: 1 }, trmm: { triangles: 1 } };

/** The sum of `per` over a batch's matrices' shapes. */
function sumOver(b: Batch<FloatArray>, count: number, per: (rows: number, cols: number) => number): number {
  if (b.kind !== 'variable') return count * per(b.rows, b.cols);
  let w = 0;
  for (let p = 0; p < count; p++) {
    const m = matrixAt(b, p);
    w += per(m.rows, m.cols);
  }
  return w;
}

/** Rough work of a call: its matrices' work (cubeWork of the main batch's, or solveWork of B's). */
function work(op: OpName, r: object): number {
  const main = mainBatch(op, r);
  const count = batchCount(main);
  const solve = SOLVES[op];
  if (solve === undefined) return sumOver(main, count, cubeWork);
  const left = (r as { side?: string }).side !== 'right';
  return sumOver((r as Record<string, Batch<FloatArray>>)['b']!, count, (rows, cols) => solveWork(left ? rows : cols, left ? cols : rows, solve.triangles));
}

/** Bytes of the request's matrices that are not on a SharedArrayBuffer, and the largest matrix dimension. */
function unshared(r: object): { bytes: number; size: number } {
  let bytes = 0, size = 0;
  for (const v of Object.values(r)) {
    if (!isBatch(v)) continue;
    if (v.kind === 'strided') {
      size = Math.max(size, v.rows, v.cols);
      if (!isShared(v.data)) bytes += v.count * v.rows * v.cols * floatsPer(v) * v.data.BYTES_PER_ELEMENT;
      continue;
    }
    for (let p = 0; p < v.matrices.length; p++) {
      const m = matrixAt(v, p);
      size = Math.max(size, m.rows, m.cols);
      if (!isShared(m.data)) bytes += m.rows * m.cols * floatsPer(v) * m.data.BYTES_PER_ELEMENT;
    }
  }
  return { bytes, size };
}

/**
 * Threads for this call: 1 when small, or when copies for the workers would cost more than they
 * give: matrices below copyMinSize, or less work than minWorkPerCopiedByte a byte copied (potrs and
 * getrs with one right-hand side ran 1.6-3.8x longer on two threads than on one at n = 32-256,
 * float64, the 2-core EPYC: about 1.25 a byte; gemm 32, 1.7 a byte, 13% longer; posv, gemm, trsm and
 * potrf at 64-256, 3 and more a byte, 10-40% shorter).
 */
export function threadsFor(op: OpName, r: object, threads = cpuThreads()): number {
  const b = mainBatch(op, r);
  const w = work(op, r);
  // No work (every matrix empty): the caller alone, whatever the thresholds (0 / 0 would be NaN threads).
  if (threads <= 1 || w <= 0 || w < THREADING.minWork) return 1;
  const copies = unshared(r);
  if (copies.bytes > 0 && (copies.size < THREADING.copyMinSize || w < THREADING.minWorkPerCopiedByte * copies.bytes)) return 1;
  return Math.max(1, Math.min(threads, batchCount(b), Math.floor(w / THREADING.minWorkPerThread)));
}

export function parallel(op: OpName, serial: Op): Op {
  return (r: object): void => {
    const threads = threadsFor(op, r);
    if (threads <= 1) return serial(r);
    const count = batchCount(mainBatch(op, r));
    const copies = unshared(r).bytes;
    if (copies > THREADING.streamBytes) return streamed(op, r, serial, threads, count, copies);
    const bound = (t: number): number => Math.round((t * count) / threads);
    const jobs: { s: ReturnType<typeof slot>; staged: Staged }[] = [];
    for (let t = 1; t < threads; t++) {
      const s = slot(t - 1);
      const share = sliceRequest(r, bound(t), bound(t + 1));
      // An arena too small for this share grows on reset (to twice what the failed try had asked).
      let staged: Staged | undefined;
      do {
        s.arena.reset();
        staged = stage(share, WRITTEN_BATCHES[op], s.arena);
      } while (!staged);
      post(s, op, staged.request);
      jobs.push({ s, staged });
    }
    let failure: unknown;
    try {
      serial(sliceRequest(r, 0, bound(1)));
    } catch (e) {
      failure = e;
    }
    for (const { s, staged } of jobs) {
      try {
        wait(s);
        unstage(staged);
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== undefined) throw failure;
  };
}

/**
 * A call whose unshared data is large, as a stream of chunks: the caller runs chunks from the
 * front of the batch in place, the workers chunks from the back, each worker with up to
 * STREAM_DEPTH chunks staged at a time (the caller copies one in, or a finished one back, while
 * the worker runs the others), until the two ends meet. The caller copies between its own
 * chunks, so a faster or less loaded thread simply takes more chunks. Jobs queue in a worker and
 * finish in order.
 */
const streamedShapes = new Set<string>();
/** Whether this is the first streamed call of the op on matrices of this shape and element size. */
function firstCall(op: OpName, r: object): boolean {
  const b = mainBatch(op, r);
  const m = matrixAt(b, 0);
  const key = `${op} ${m.rows}x${m.cols} ${m.data.BYTES_PER_ELEMENT}`;
  if (streamedShapes.has(key)) return false;
  streamedShapes.add(key);
  return true;
}

function streamed(op: OpName, r: object, serial: Op, threads: number, count: number, copies: number): void {
  const sub = Math.max(1, Math.floor((THREADING.streamChunkBytes * count) / copies));
  let front = 0, back = count;
  let failure: unknown;
  const workers = Array.from({ length: threads - 1 }, (_, t) => {
    const s = slot(t);
    Atomics.store(s.flag, 0, 0);
    return { s, seen: s.posted, queue: [] as Staged[], next: 0 };
  });
  const refill = (w: (typeof workers)[number]): void => {
    while (w.queue.length < w.s.streams.length && back > front) {
      const p1 = back, p0 = Math.max(front, back - sub);
      back = p0;
      const arena = w.s.streams[w.next]!;
      w.next = (w.next + 1) % w.s.streams.length;
      let staged: Staged | undefined;
      do {
        arena.reset();
        staged = stage(sliceRequest(r, p0, p1), WRITTEN_BATCHES[op], arena);
      } while (!staged);
      postQueued(w.s, op, staged.request);
      w.queue.push(staged);
    }
  };
  /** Copies back every chunk the worker has finished (all of them, waiting, with `block`). */
  const harvest = (w: (typeof workers)[number], block: boolean): void => {
    while (w.queue.length > 0) {
      const d = finished(w.s, w.seen, block);
      if (d <= w.seen) return; // below: an earlier job's count still to come
      for (; w.seen < d && w.queue.length > 0; w.seen++) unstage(w.queue.shift()!);
    }
  };
  // On the first streamed call of a shape, the caller runs its first chunk before the workers
  // get theirs: it generates and compiles the kernels, which reach the workers with their first
  // chunk (wasm/runtime.ts), instead of every thread generating its own at the same time.
  const shape = firstCall(op, r);
  if (!shape) for (const w of workers) refill(w);
  while (front < back) {
    const p0 = front, p1 = Math.min(back, front + sub);
    front = p1;
    try {
      serial(sliceRequest(r, p0, p1));
    } catch (e) {
      failure ??= e;
    }
    for (const w of workers) {
      harvest(w, false);
      refill(w);
    }
  }
  for (const w of workers) {
    harvest(w, true);
    try {
      rethrow(w.s);
    } catch (e) {
      failure ??= e;
    }
  }
  if (failure !== undefined) throw failure;
}

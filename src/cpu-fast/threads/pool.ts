/**
 * The worker pool behind the fast CPU backend: `threads - 1` workers (the caller is the last
 * thread), started on first use and unref'd so that they never keep the process alive. The
 * count is MYRIAD_THREADS, else the machine's available parallelism; setCpuThreads() changes it.
 */
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { OpName } from '../../core/ops.js';
import { shareModules, sharedModules } from '../wasm/runtime.js';
import { Arena } from './staging.js';
import { cpuThreads } from './count.js';
import { workerDoneDelayFromProcess } from '../context.js';
import { startWorker } from '../../core/worker-start.js';

export { cpuThreads, setCpuThreads } from './count.js';

/**
 * A worker and what the caller shares with it: `flag` (0 running, 1 done, 2 failed) and `text`
 * (the failure's message) for one-off jobs; `done` counts finished jobs of a stream (jobs queue
 * in the worker and finish in order); `arena` for one-off copies, `streams` the STREAM_DEPTH
 * arenas a stream goes round (the caller copies into one while the worker runs the others).
 */
interface Slot {
  worker: Worker; modules: MessagePort; flag: Int32Array; done: Int32Array; text: Uint16Array; arena: Arena; streams: readonly Arena[];
  /**
   * Jobs sent to the worker so far, counted by the caller: `done` reaches it once all have finished.
   * A stream counts its chunks from here, not from `done` as read at its start: the worker raises a
   * one-off job's flag (which wait() returns on) before it adds to `done`, so that read may still lack
   * the last job, whose late count would then pass for the stream's first chunk.
   */
  posted: number;
}

/** Bytes of each stream arena a worker starts with: the worker writes them once at start-up, so a first call does not pay their page faults. */
export const STREAM_ARENA_BYTES = 3 << 20;
/**
 * Chunks of a stream queued in a worker at most (one arena each). With two, the worker of a
 * gesv 64 x 10,000 on the 2-core EPYC sat idle 11-26 ms of a 90-100 ms call, waiting for the
 * caller to finish its own chunk and refill; with three, 1-7 ms, and the call took 86-93 ms
 * (2-core AMD EPYC, 2026-11-26; docs/cpu-backend.md).
 */
export const STREAM_DEPTH = 3;

const slots: Slot[] = [];

// Each WebAssembly module the caller compiles goes to every worker at once, on a port of its own
// that the worker reads before it would generate a module (wasm/runtime.ts): a worker then skips
// generating and compiling what the caller already has (10-30 ms per kernel on a first call).
shareModules({ onCompiled: (m) => { for (const s of slots) s.modules.postMessage(m); } });

/** Worker `i` (0-based), started on first use. */
export function slot(i: number): Slot {
  while (slots.length <= i) {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const done = new Int32Array(new SharedArrayBuffer(4));
    const text = new Uint16Array(new SharedArrayBuffer(2048));
    const streams = Array.from({ length: STREAM_DEPTH }, () => new Arena(STREAM_ARENA_BYTES));
    const { port1: modules, port2 } = new MessageChannel();
    modules.unref();
    const worker = startWorker(new URL('./worker.js', import.meta.url), {
      workerData: { flag, done, text, touch: streams.map((a) => a.bytes()), modules: sharedModules(), port: port2, doneDelayMs: workerDoneDelayFromProcess() },
      transferList: [port2],
    });
    worker.unref();
    slots.push({ worker, modules, flag, done, text, arena: new Arena(), streams, posted: 0 });
  }
  return slots[i]!;
}

/** Sends one job; wait() collects it. */
export function post(s: Slot, op: OpName, request: object): void {
  Atomics.store(s.flag, 0, 0);
  s.posted++;
  s.worker.postMessage({ op, request });
}

/** Queues one job of a stream: jobs run in order, `done` counts each when finished (a failure sets the flag to 2, which stays). */
export function postQueued(s: Slot, op: OpName, request: object): void {
  s.posted++;
  s.worker.postMessage({ op, request });
}

/** Finished jobs of the slot's stream so far; with `block`, waits until more than `seen` have finished. */
export function finished(s: Slot, seen: number, block: boolean): number {
  let d = Atomics.load(s.done, 0);
  while (block && d <= seen) {
    Atomics.wait(s.done, 0, d);
    d = Atomics.load(s.done, 0);
  }
  return d;
}

/** Throws what the slot's worker threw (flag 2), if it did. */
export function rethrow(s: Slot): void {
  if (Atomics.load(s.flag, 0) !== 2) return;
  let message = '';
  for (let i = 0; i < s.text.length && s.text[i] !== 0; i++) message += String.fromCharCode(s.text[i]!);
  throw new Error(`cpu-fast worker failed: ${message}`);
}

/** Blocks until the slot's job is done; throws what the worker threw. */
export function wait(s: Slot): void {
  while (Atomics.load(s.flag, 0) === 0) Atomics.wait(s.flag, 0, 0);
  rethrow(s);
}

/** Starts the workers in the background (open() calls it, so they boot while the caller prepares data). */
export function startCpuWorkers(): void {
  if (cpuThreads() > 1) slot(cpuThreads() - 2);
}

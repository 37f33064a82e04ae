/**
 * The worker pool behind the fast CPU backend: `threads - 1` workers (the caller is the last
 * thread), started on first use and unref'd so that they never keep the process alive. The
 * count is MYRIAD_THREADS, else the machine's available parallelism; setCpuThreads() changes it.
 */
import { Worker } from 'node:worker_threads';
import type { OpName } from '../../core/ops.js';
import { Arena } from './staging.js';
import { cpuThreads } from './count.js';

export { cpuThreads, setCpuThreads } from './count.js';

interface Slot { worker: Worker; flag: Int32Array; text: Uint16Array; arena: Arena }

const slots: Slot[] = [];
/** Worker `i` (0-based), started on first use. */
export function slot(i: number): Slot {
  while (slots.length <= i) {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const text = new Uint16Array(new SharedArrayBuffer(2048));
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { flag, text } });
    worker.unref();
    slots.push({ worker, flag, text, arena: new Arena() });
  }
  return slots[i]!;
}

/** Sends one job; wait() collects it. */
export function post(s: Slot, op: OpName, request: object): void {
  Atomics.store(s.flag, 0, 0);
  s.worker.postMessage({ op, request });
}

/** Blocks until the slot's job is done; throws what the worker threw. */
export function wait(s: Slot): void {
  while (Atomics.load(s.flag, 0) === 0) Atomics.wait(s.flag, 0, 0);
  if (Atomics.load(s.flag, 0) === 2) {
    let message = '';
    for (let i = 0; i < s.text.length && s.text[i] !== 0; i++) message += String.fromCharCode(s.text[i]!);
    throw new Error(`cpu-fast worker failed: ${message}`);
  }
}

/** Starts the workers in the background (open() calls it, so they boot while the caller prepares data). */
export function startCpuWorkers(): void {
  if (cpuThreads() > 1) slot(cpuThreads() - 2);
}

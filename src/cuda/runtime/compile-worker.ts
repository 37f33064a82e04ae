/**
 * One compile worker (compile-pool.ts): loads NVRTC itself (NVRTC is thread-safe per program) and
 * takes jobs from the batch it is given, the next index from a shared counter, until none is
 * left; each result goes back on its port (the binary transferred, not copied), then the batch's
 * done counter is raised and the pool woken.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openNvrtc, type CompileRequest, type NvrtcCompiler } from './compiler.js';

export interface WorkerBatch {
  readonly id: number;
  readonly requests: readonly CompileRequest[];
  /** Int32Array over a SharedArrayBuffer: [0] the next job to take, [1] jobs finished. */
  readonly control: SharedArrayBuffer;
}

export interface WorkerResult {
  readonly batch: number;
  readonly index: number;
  readonly binary?: Uint8Array;
  readonly error?: string;
  readonly ms: number;
}

const { port, started } = workerData as { port: MessagePort; started: SharedArrayBuffer };
let compiler: NvrtcCompiler | undefined;
// NVRTC loaded as the worker starts, before any job; where it cannot load, each job reports why.
try {
  compiler = openNvrtc();
} catch {
  compiler = undefined;
}
// Started: the native libraries are loaded (a worker terminated while koffi loads ends the process).
const startedFlag = new Int32Array(started);
Atomics.store(startedFlag, 0, 1);
Atomics.notify(startedFlag, 0);

parentPort?.on('message', (batch: WorkerBatch) => {
  const control = new Int32Array(batch.control);
  for (;;) {
    const index = Atomics.add(control, 0, 1);
    if (index >= batch.requests.length) break;
    const request = batch.requests[index] as CompileRequest;
    const t0 = performance.now();
    try {
      compiler ??= openNvrtc();
      const binary = compiler.compile(request).slice();
      port.postMessage({ batch: batch.id, index, binary, ms: performance.now() - t0 } satisfies WorkerResult, [binary.buffer]);
    } catch (e) {
      port.postMessage({ batch: batch.id, index, error: e instanceof Error ? e.message : String(e), ms: performance.now() - t0 } satisfies WorkerResult);
    }
    Atomics.add(control, 1, 1);
    Atomics.notify(control, 1);
  }
});

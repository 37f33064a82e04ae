/**
 * Compiles several sources at once on worker threads (compile-worker.ts), each of which loads
 * NVRTC itself. Used where one call, or `ctx.warm`, needs several kernels that are neither in
 * memory nor on disk: a cold getrf of a large matrix compiles a dozen, one after the other
 * without this.
 *
 * The workers start on first use, stay for later batches and do not keep the process alive
 * (unref). A process that ends while a worker is still loading its native libraries (koffi)
 * would abort, so the process's 'exit' waits for those loads (`waitForLoadsAtExit`), whether it
 * ends by itself or by process.exit(). A batch is handed to every worker
 * used; each takes the next job from a shared counter, so a long compile never holds the short
 * ones behind it (jobs go longest source first). Results
 * come back on a port per worker and are read with receiveMessageOnPort, so the synchronous form
 * (a call in progress: the API is synchronous) blocks on Atomics.wait without needing the event
 * loop, and the asynchronous form (warm) awaits Atomics.waitAsync.
 *
 * `prestart` starts the workers ahead of any batch (a CUDA context does so when it opens, unless
 * MYRIAD_COMPILE_PRESTART=0): each loads NVRTC at once, so a first call's compiles do not also wait
 * for threads to boot and libraries to load (scripts/probe/compile-pool-start.mjs measures what that
 * costs).
 *
 * A failed or missing result is not an error here: the caller compiles that source itself, on
 * its own thread, and reports the failure as a single compile would (NvrtcError with the log).
 * MYRIAD_COMPILE_THREADS sets the most workers (default: the cores, at most 16: a cold large getrf
 * needs 15 kernels, and each compiles on one core; 0 or 1: none).
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import type { CompileRequest } from './compiler.js';
import type { WorkerBatch, WorkerResult } from './compile-worker.js';
import type { Env } from './libraries.js';
import { startWorker } from '../../core/worker-start.js';

export interface PoolOutcome {
  readonly binary?: Uint8Array;
  readonly error?: string;
  /** The worker's compile time (0 where none came back). */
  readonly ms: number;
}

/** Whether a CUDA context starts the compile workers when it opens (MYRIAD_COMPILE_PRESTART=0: on first use). */
export function prestartWorkers(env: Env = process.env): boolean {
  return env['MYRIAD_COMPILE_PRESTART'] !== '0';
}

/** The most compile workers: MYRIAD_COMPILE_THREADS, else the cores (at most 16). */
export function compileThreads(env: Env = process.env): number {
  const set = env['MYRIAD_COMPILE_THREADS'];
  if (set !== undefined && /^\d+$/.test(set)) return Number(set);
  return Math.max(1, Math.min(16, availableParallelism()));
}

/** Atomics.waitAsync (V8, Node 16+; not in this TypeScript's lib). */
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync.bind(Atomics);

/** Give up on a batch no worker has started within this long (a worker that failed to load). */
const START_LIMIT_MS = 20_000;

interface PoolWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
  failed: boolean;
  /** Awaited batches on this worker: while any, it keeps the process alive. */
  holds: number;
  /** [0] = 1 once the worker has loaded its libraries (compile-worker.ts). */
  readonly started: Int32Array;
}

function hold(w: PoolWorker): void {
  if (w.holds++ === 0) w.worker.ref();
}

function release(w: PoolWorker): void {
  if (--w.holds === 0) w.worker.unref();
}

/** Every pool's workers, started and not closed (the process's 'exit' looks at them). */
const liveWorkers = new Set<PoolWorker>();
let exitHooked = false;

/** The longest the process's end waits for a worker's libraries (a load takes well under a second). */
const EXIT_LOAD_LIMIT_MS = 5_000;

/**
 * At the process's 'exit' (synchronous: nothing else runs there), blocks until every worker still
 * loading has finished: Node terminates the workers after this event, and a worker terminated
 * inside koffi's module registration aborts the process (FATAL ERROR, exit 134).
 */
function waitForLoadsAtExit(): void {
  const deadline = performance.now() + EXIT_LOAD_LIMIT_MS;
  for (const w of liveWorkers) {
    while (!w.failed && Atomics.load(w.started, 0) === 0) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      Atomics.wait(w.started, 0, 0, Math.min(left, 50));
    }
  }
}

/** Resolves once the worker has loaded its native libraries, has failed, or START_LIMIT_MS has passed. */
async function loaded(w: PoolWorker): Promise<void> {
  const deadline = performance.now() + START_LIMIT_MS;
  while (!w.failed && Atomics.load(w.started, 0) === 0 && performance.now() < deadline) {
    const wait = waitAsync(w.started, 0, 0, 50);
    if (wait.async) await wait.value;
  }
}

export class CompilePool {
  private readonly workers: PoolWorker[] = [];
  private batches = 0;
  /** The results received so far of each batch not yet collected. */
  private readonly live = new Map<number, WorkerResult[]>();

  constructor(readonly limit: number = compileThreads()) {}

  /** Starts every worker now (each loads NVRTC on its own thread); nothing waits for them. */
  prestart(): void {
    if (this.limit >= 2) this.grow(this.limit);
  }

  /** Whether a batch of `jobs` would run in parallel (two jobs or more and two workers allowed). */
  worthIt(jobs: number): boolean {
    return jobs >= 2 && this.limit >= 2;
  }

  /** Compiles `requests`, blocking this thread until all are done (or `timeoutMs` passed). */
  compileSync(requests: readonly CompileRequest[], timeoutMs = 600_000): PoolOutcome[] {
    if (requests.length === 0) return [];
    return this.waitSync(this.submit(requests), timeoutMs);
  }

  /** As compileSync, awaiting instead of blocking. */
  async compile(requests: readonly CompileRequest[], timeoutMs = 600_000): Promise<PoolOutcome[]> {
    if (requests.length === 0) return [];
    return this.wait(this.submit(requests), timeoutMs);
  }

  /** Hands `requests` to the workers and returns at once; `waitSync` or `wait` collects the outcomes (either, or both: the outcomes are the same). */
  submit(requests: readonly CompileRequest[]): PoolBatch {
    const used = Math.max(1, Math.min(requests.length, this.limit));
    this.grow(used);
    // Longest source first: the long compiles start at once and the short ones fill in around them.
    const order = requests.map((_, i) => i).sort((x, y) => (requests[y] as CompileRequest).source.length - (requests[x] as CompileRequest).source.length);
    const sorted = order.map((i) => requests[i] as CompileRequest);
    const control = new Int32Array(new SharedArrayBuffer(8));
    const id = ++this.batches;
    const workers = this.workers.filter((w) => !w.failed).slice(0, used);
    for (const w of workers) w.worker.postMessage({ id, requests: sorted, control: control.buffer } satisfies WorkerBatch);
    this.live.set(id, []);
    return new Batch(id, control, order, workers, performance.now());
  }

  /** Blocks this thread until `batch` is done (or `timeoutMs` passed, or no worker took it), then its outcomes. */
  waitSync(handle: PoolBatch, timeoutMs = 600_000): PoolOutcome[] {
    const batch = handle as Batch;
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (batch.outcomes !== undefined) return batch.outcomes;
      const done = Atomics.load(batch.control, 1);
      if (done >= batch.order.length || this.stalled(batch, deadline)) break;
      Atomics.wait(batch.control, 1, done, 500);
    }
    return this.finish(batch);
  }

  /** As waitSync, awaiting; the batch's workers keep the process alive meanwhile (their compiles reach the cache before it exits). */
  async wait(handle: PoolBatch, timeoutMs = 600_000): Promise<PoolOutcome[]> {
    const batch = handle as Batch;
    const deadline = performance.now() + timeoutMs;
    // A pending Atomics.waitAsync does not keep the event loop alive: the workers do, while awaited.
    for (const w of batch.workers) hold(w);
    try {
      for (;;) {
        if (batch.outcomes !== undefined) return batch.outcomes;
        const done = Atomics.load(batch.control, 1);
        if (done >= batch.order.length || this.stalled(batch, deadline)) break;
        const wait = waitAsync(batch.control, 1, done, 500);
        if (wait.async) await wait.value;
      }
    } finally {
      for (const w of batch.workers) release(w);
    }
    return this.finish(batch);
  }

  /** Ends the workers (they never keep the process alive; this is for tests and dispose). */
  async close(): Promise<void> {
    const all = this.workers.splice(0);
    // Held while they stop (an unreferenced worker's exit would not keep the event loop waiting for it), whatever waits end meanwhile.
    for (const w of all) { w.holds = Infinity; w.worker.ref(); }
    // A worker still loading its native libraries is let finish first: terminating it there ends the process.
    await Promise.all(all.map(async (w) => {
      await loaded(w);
      await w.worker.terminate();
      liveWorkers.delete(w);
    }));
  }

  private stalled(batch: Batch, deadline: number): boolean {
    const now = performance.now();
    if (batch.workers.length === 0 || now >= deadline) return true;
    return Atomics.load(batch.control, 0) === 0 && now - batch.started > START_LIMIT_MS;
  }

  private finish(batch: Batch): PoolOutcome[] {
    if (batch.outcomes !== undefined) return batch.outcomes;
    // No more jobs handed out (a batch given up on); a job in progress finishes and is dropped.
    Atomics.store(batch.control, 0, batch.order.length);
    this.drain();
    const outcomes: PoolOutcome[] = batch.order.map(() => ({ error: 'not compiled by a worker', ms: 0 }));
    for (const r of this.live.get(batch.id) ?? []) {
      const original = batch.order[r.index] as number;
      outcomes[original] = r.binary ? { binary: r.binary, ms: r.ms } : { error: r.error ?? 'no binary', ms: r.ms };
    }
    this.live.delete(batch.id);
    batch.outcomes = outcomes;
    Atomics.notify(batch.control, 1); // an awaiting `wait` of this batch returns now, not at its next timeout
    return outcomes;
  }

  /** Moves every result waiting on the workers' ports to its batch (batches share workers: one may be collected while another runs). */
  private drain(): void {
    for (const w of this.workers) {
      for (let m = receiveMessageOnPort(w.port); m !== undefined; m = receiveMessageOnPort(w.port)) {
        const r = m.message as WorkerResult;
        this.live.get(r.batch)?.push(r); // a late result of a batch given up on has no entry: dropped
      }
    }
  }

  private grow(n: number): void {
    while (this.workers.filter((w) => !w.failed).length < n) {
      const { port1, port2 } = new MessageChannel();
      const started = new Int32Array(new SharedArrayBuffer(4));
      const worker = startWorker(new URL('./compile-worker.js', import.meta.url), { workerData: { port: port2, started: started.buffer }, transferList: [port2] });
      const entry: PoolWorker = { worker, port: port1, failed: false, holds: 0, started };
      worker.on('error', () => { entry.failed = true; });
      worker.on('exit', () => { entry.failed = true; });
      worker.unref();
      if (!exitHooked) { process.on('exit', waitForLoadsAtExit); exitHooked = true; }
      liveWorkers.add(entry);
      this.workers.push(entry);
    }
  }
}

/** One batch handed to the workers (`submit`). */
export interface PoolBatch {
  /** Whether every job has finished (a look, no wait). */
  done(): boolean;
}

class Batch implements PoolBatch {
  outcomes: PoolOutcome[] | undefined;
  constructor(
    readonly id: number,
    /** [0] the next job to hand out, [1] jobs finished. */
    readonly control: Int32Array,
    /** order[k] = the caller's index of the k-th job handed out. */
    readonly order: readonly number[],
    readonly workers: readonly PoolWorker[],
    readonly started: number,
  ) {}

  done(): boolean {
    return this.outcomes !== undefined || Atomics.load(this.control, 1) >= this.order.length;
  }
}

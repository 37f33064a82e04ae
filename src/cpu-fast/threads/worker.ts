/**
 * A pool worker: runs the serial fast kernels on the share of a batch it is sent, then raises
 * its flag (1 done, 2 failed, with the message in the shared text buffer) and wakes the caller,
 * which waits with Atomics.wait so that the public API stays synchronous.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import type { OpName } from '../../core/ops.js';
import { serialOp } from '../backend.js';
import { receiveModules, shareModules, type SharedModule } from '../wasm/runtime.js';

/** doneDelayMs: tests only, a pause between raising the flag and counting the job done (context.ts workerDoneDelayFromProcess). */
interface Setup { flag: Int32Array; done: Int32Array; text: Uint16Array; touch: SharedArrayBuffer[]; modules: SharedModule[]; port: MessagePort; doneDelayMs: number }
const { flag, done, text, touch, modules, port, doneDelayMs } = workerData as Setup;

// The modules the caller had compiled when this worker started, then those it compiles later
// (read synchronously, in the middle of a job, just before this thread would generate one).
receiveModules(modules);
shareModules({
  pullModules: () => {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) receiveModules([m.message as SharedModule]);
  },
});
port.unref();

// The stream arenas' pages, written once now (in the background of the caller's first call)
// rather than on the caller's first copy: a compare-exchange of 0 with 0 per page faults the page
// in for writing and never changes what the caller may already have copied there.
for (const b of touch) {
  const words = new Int32Array(b);
  for (let i = 0; i < words.length; i += 1024) Atomics.compareExchange(words, i, 0, 0);
}

// Tests only (doneDelayMs): a pause between raising the flag and counting the job done, which makes
// the window between the two (see pool.ts Slot.posted) wide enough to hit every time.
const pause = new Int32Array(new SharedArrayBuffer(4));

parentPort!.on('message', (job: { op: OpName; request: object }) => {
  try {
    serialOp(job.op)(job.request as never);
    Atomics.compareExchange(flag, 0, 0, 1); // a stream's earlier failure (2) stays
  } catch (e) {
    const message = String(e instanceof Error ? e.stack ?? e.message : e).slice(0, text.length - 1);
    for (let i = 0; i < message.length; i++) text[i] = message.charCodeAt(i);
    text[message.length] = 0;
    Atomics.store(flag, 0, 2);
  }
  Atomics.notify(flag, 0);
  if (doneDelayMs > 0) Atomics.wait(pause, 0, 0, doneDelayMs);
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
});

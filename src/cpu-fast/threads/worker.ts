/**
 * A pool worker: runs the serial fast kernels on the share of a batch it is sent, then raises
 * its flag (1 done, 2 failed, with the message in the shared text buffer) and wakes the caller,
 * which waits with Atomics.wait so that the public API stays synchronous.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { OpName } from '../../core/ops.js';
import { serialOp } from '../backend.js';

interface Setup { flag: Int32Array; text: Uint16Array }
const { flag, text } = workerData as Setup;

parentPort!.on('message', (job: { op: OpName; request: object }) => {
  try {
    serialOp(job.op)(job.request as never);
    Atomics.store(flag, 0, 1);
  } catch (e) {
    const message = String(e instanceof Error ? e.stack ?? e.message : e).slice(0, text.length - 1);
    for (let i = 0; i < message.length; i++) text[i] = message.charCodeAt(i);
    text[message.length] = 0;
    Atomics.store(flag, 0, 2);
  }
  Atomics.notify(flag, 0);
});

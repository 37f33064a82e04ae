/**
 * Captured pipelines: `ctx.capture(fn)` runs `fn` once (its calls do their work, and every
 * kernel they need is compiled and loaded), then records the same calls again, without running
 * them, as one CUDA graph; `replay()` enqueues the whole recording with one launch. Calls inside
 * must be on device data in strided batches (a host array, a list batch, an operation without a
 * GPU kernel, a wait or a host copy throws a MyriadError before anything is recorded), and each
 * replay does exactly what was recorded: the same storages, shapes and scalars. A replay after
 * one of those device arrays was freed throws DISPOSED instead of launching. On the CPU a
 * capture keeps the closure and `replay()` calls it again.
 */
import { batchCount, isBatch, type Batch } from '../core/batch.js';
import { MyriadError } from '../core/errors.js';
import type { OpName } from '../core/ops.js';
import { isDeviceStorage, type DeviceStorage, type Storage } from '../core/storage.js';

/** A recorded pipeline. */
export interface Captured {
  /** Runs the recorded calls again (enqueued in stream order on a GPU: `await ctx.synchronize()` waits). */
  replay(): void;
  /** Frees the recording (the context's dispose frees those still open). */
  dispose(): void;
  readonly disposed: boolean;
}

/** The device arrays the calls of one capture use (kept alive, checked at each replay). */
export class CaptureRecorder {
  readonly arrays = new Set<DeviceStorage>();

  /** Checks that one validated request can be recorded, and notes its device arrays. */
  admit(op: OpName, request: Record<string, unknown>, capturable: boolean): void {
    if (!capturable) throw new MyriadError('UNSUPPORTED', `${op} has no GPU kernel yet and cannot be recorded in ctx.capture()`, 'capture');
    for (const key in request) {
      const v = request[key];
      if (isBatch(v)) {
        const b = v as Batch<Storage>;
        if (b.kind !== 'strided') {
          if (batchCount(b) === 0) continue;
          throw new MyriadError('UNSUPPORTED', `${op}: ctx.capture() records strided batches only (a ${b.kind} batch needs a pointer upload per call)`, key);
        }
        this.note(op, b.data, key);
      } else if (ArrayBuffer.isView(v) || isDeviceStorage(v)) {
        this.note(op, v, key);
      }
    }
  }

  private note(op: OpName, s: unknown, argument: string): void {
    if (!isDeviceStorage(s)) throw new MyriadError('INVALID_ARGUMENT', `${op}: calls inside ctx.capture() must be on device data (ctx.upload / ctx.alloc), got host memory`, argument);
    this.arrays.add(s);
  }
}

/** A recording: `run` replays it, `release` frees it; `alive` checks the context first. */
export class Recording implements Captured {
  #run: (() => void) | undefined;

  constructor(run: () => void, private readonly release: () => void, private readonly alive: () => void) {
    this.#run = run;
  }

  get disposed(): boolean {
    return this.#run === undefined;
  }

  replay(): void {
    this.alive();
    if (this.#run === undefined) throw new MyriadError('DISPOSED', 'this capture was disposed', 'capture');
    this.#run();
  }

  dispose(): void {
    if (this.#run === undefined) return;
    this.#run = undefined;
    this.release();
  }
}

/** A capture on a device: the graph, launched after checking that the arrays it uses are alive. */
export function deviceRecording(graph: { launch(): void; dispose(): void }, arrays: ReadonlySet<DeviceStorage>, alive: () => void): Recording {
  const run = (): void => {
    for (const a of arrays) {
      if ((a as { disposed?: boolean }).disposed === true)
        throw new MyriadError('DISPOSED', `a device array this capture uses (${a.dtype}[${a.length}]) was freed: capture again`, 'capture');
    }
    graph.launch();
  };
  return new Recording(run, () => graph.dispose(), alive);
}

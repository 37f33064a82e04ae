/**
 * The per-device scratch workspace: one device buffer per GpuDevice (so per context), allocated on
 * first use, grown on demand (never shrunk), from which every operation that needs scratch takes
 * views: the Jacobi block designs' global slices, the large factorisations' scratch info, the
 * inverted diagonal blocks of the large trsm, the solves' copy of B.
 *
 * Frames, stack-like: an operation opens a frame, takes what it needs, and ends the frame when it
 * has *enqueued* its work (not when the work is done). A nested operation (potrf calling trsm)
 * opens its frame above its caller's, so their views never overlap while both are open. After the
 * outermost frame ends, the next call reuses the same bytes: safe without a wait, because every
 * call of a device is enqueued on its one stream, so the next call's kernels run after this one's.
 *
 * Growth never frees a buffer the stream may still use: the buffer that was too small is retired
 * (views taken from it stay valid; the frame goes on in a new buffer, sized for everything the open
 * frames hold plus the request, at least twice the old one), and retired buffers are freed when the
 * outermost frame ends, after waiting for the stream (growth is rare: geometric, and never undone).
 * While a graph is being recorded (CudaDevice.capture) nothing waits: retired buffers are kept, and
 * every buffer a recording used is held until its graph is disposed (a replay launches the
 * recorded pointers), then freed at the next quiet frame end.
 *
 * Out of memory: a CudaError (a MyriadError) that says how many bytes were needed and for what.
 */
import { MyriadError } from '../../core/errors.js';
import { CudaError } from './errors.js';
import { ELEMENT_BYTES } from './memory.js';
import type { DeviceArray, DeviceDType, GpuDevice } from './types.js';

/** Views start on 256-byte boundaries (the alignment cuMemAlloc gives). */
const ALIGN = 256;
/** The first buffer's size at least (1 MiB): small requests do not grow it byte by byte. */
const MIN_BYTES = 1 << 20;

interface Buffer {
  /** float64 elements, so any dtype's view is aligned (views are cut by bytes). */
  readonly array: DeviceArray;
  readonly bytes: number;
  /** Live graphs that recorded views of this buffer. */
  holds: number;
  /** Taken from while a graph was being recorded (cleared when the recording ends). */
  touched: boolean;
}

/** Where the next view started when a frame opened (restored when it ends). */
interface Mark {
  readonly top: number;
}

export class WorkspaceFrame {
  private open = true;

  constructor(private readonly ws: Workspace, readonly depth: number) {}

  /**
   * A device array of `length` elements of `dtype` (contents undefined), valid until this frame
   * ends; `purpose` names it in an out-of-memory error.
   */
  take(dtype: DeviceDType, length: number, purpose: string): DeviceArray {
    if (!this.open) throw new MyriadError('DISPOSED', `workspace frame used after end() (taking ${purpose})`);
    return this.ws.takeFor(this, dtype, length, purpose);
  }

  /** Gives the frame's views back (their bytes are reused by later calls, in stream order). */
  end(): void {
    if (!this.open) return;
    this.ws.endFrame(this);
    this.open = false;
  }
}

export class Workspace {
  private static readonly spaces = new WeakMap<GpuDevice, Workspace>();
  private current: Buffer | undefined;
  private top = 0;
  /** Buffers grown out of: freed (after a wait) once no frame or graph can use them. */
  private retired: Buffer[] = [];
  private readonly marks: Mark[] = [];
  private capturing = false;
  /** Growth events so far (for tests and probes). */
  grows = 0;

  private constructor(private readonly dev: GpuDevice) {}

  /** The workspace of `dev` (created empty on first use). */
  static of(dev: GpuDevice): Workspace {
    let w = Workspace.spaces.get(dev);
    if (!w) Workspace.spaces.set(dev, (w = new Workspace(dev)));
    return w;
  }

  /** Bytes of the current buffer (0 before the first take). */
  get bytes(): number {
    return this.current?.bytes ?? 0;
  }

  /** Device buffers allocated now (the current one and retired ones not yet freed). */
  get buffers(): number {
    return (this.current ? 1 : 0) + this.retired.length;
  }

  /** Opens a frame above the open ones. End it (try/finally) once its work is enqueued. */
  frame(): WorkspaceFrame {
    this.marks.push({ top: this.top });
    return new WorkspaceFrame(this, this.marks.length);
  }

  /** @internal (WorkspaceFrame.take) */
  takeFor(frame: WorkspaceFrame, dtype: DeviceDType, length: number, purpose: string): DeviceArray {
    if (frame.depth !== this.marks.length)
      throw new MyriadError('INVALID_ARGUMENT', `a workspace frame takes only while it is the innermost open one (taking ${purpose})`, 'frame');
    if (!Number.isSafeInteger(length) || length < 0) throw new MyriadError('INVALID_ARGUMENT', `must be a non-negative integer, got ${length}`, 'length');
    const bytes = length * ELEMENT_BYTES[dtype];
    let start = Math.ceil(this.top / ALIGN) * ALIGN;
    if (!this.current || start + bytes > this.current.bytes) {
      this.grow(start + bytes, purpose, bytes);
      start = Math.ceil(this.top / ALIGN) * ALIGN;
    }
    const buffer = this.current!;
    if (this.capturing) buffer.touched = true;
    this.top = start + bytes;
    // `start` counts the buffer's own (float64) elements: it is a multiple of 256 bytes.
    return this.dev.view(buffer.array, start / 8, length, dtype);
  }

  /** @internal (WorkspaceFrame.end) */
  endFrame(frame: WorkspaceFrame): void {
    if (frame.depth !== this.marks.length)
      throw new MyriadError('INVALID_ARGUMENT', 'workspace frames end in the reverse order of their opening', 'frame');
    const mark = this.marks.pop()!;
    // Back to the caller's top. A frame that grew left the caller's views in the retired buffer;
    // the new one keeps their offsets unused, so the caller's later takes never overlap them.
    this.top = mark.top;
    if (this.marks.length === 0) {
      this.top = 0;
      this.freeRetired();
    }
  }

  /** A buffer of at least `need` bytes replaces the current one, which is retired. */
  private grow(need: number, purpose: string, bytes: number): void {
    const size = Math.ceil(Math.max(need, 2 * this.bytes, MIN_BYTES) / ALIGN) * ALIGN;
    let array: DeviceArray;
    try {
      array = this.dev.alloc('float64', size / 8);
    } catch (e) {
      const held = this.marks.length > 1 || this.top > 0 ? `, with ${this.top} bytes held by the calls in progress` : '';
      const detail = `the device workspace needed ${size} bytes (${bytes} for ${purpose}${held}) and the device could not allocate them`;
      if (e instanceof CudaError) throw new CudaError(e.status, e.result, e.call, detail);
      throw new MyriadError('CUDA', detail, purpose);
    }
    if (this.current) this.retired.push(this.current);
    this.current = { array, bytes: size, holds: 0, touched: this.capturing };
    this.grows++;
  }

  /** Frees retired buffers no graph holds, after the stream has finished with them (not while recording). */
  private freeRetired(): void {
    if (this.capturing) return;
    // After the device's dispose its arrays are gone already: nothing to wait for.
    this.retired = this.retired.filter((b) => !b.array.disposed);
    const free = this.retired.filter((b) => b.holds === 0);
    if (free.length === 0) return;
    this.dev.synchronize();
    for (const b of free) b.array.dispose();
    this.retired = this.retired.filter((b) => b.holds > 0);
  }

  /** A recording starts (CudaDevice.capture): no waits until `endCapture`. */
  beginCapture(): void {
    this.capturing = true;
  }

  /**
   * The recording ended: the buffers it took views from are held until the returned function is
   * called (the graph's dispose).
   */
  endCapture(): () => void {
    this.capturing = false;
    const used = [this.current, ...this.retired].filter((b): b is Buffer => b !== undefined && b.touched);
    for (const b of used) {
      b.touched = false;
      b.holds++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const b of used) b.holds--;
      if (this.marks.length === 0) this.freeRetired();
    };
  }
}

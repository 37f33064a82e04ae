/**
 * Per-device host scratch for the launchers of variable batches: the flat member fields, class
 * orders and member tables a call of 200,000 members fills (tens of MB of typed arrays) are cut
 * from one reused ArrayBuffer instead of made afresh per call. Fresh arrays of that size cost more
 * than the loops that fill them: every call's backing stores are allocated and zeroed, and their
 * external memory makes V8 collect (several scavenges of milliseconds each per call).
 *
 * Frames, stack-like, as the device workspace's (runtime/workspace.ts): a launcher opens a frame,
 * takes arrays, and ends the frame once nothing it took is read any more (the tables uploaded:
 * `upload` has read the host bytes when it returns). A nested launcher (trsm's updates on gemm's)
 * opens its frame above its caller's, so their arrays never overlap while both are open. Nothing
 * taken may outlive its frame (a plan kept in a memo, a view handed back to the caller).
 *
 * Growth: where the buffer is too small, a new one (at least twice the size) becomes current; the
 * arrays already taken keep the old one alive until they are dropped. The buffer is kept for the
 * device's life (its size the largest call's need), as the device workspace is.
 */
import type { GpuDevice } from '../../runtime/types.js';

/** Arrays start on 8-byte boundaries (BigInt64Array and Float64Array views need it). */
const ALIGN = 8;
/** The first buffer's size at least (1 MiB). */
const MIN_BYTES = 1 << 20;

export class HostFrame {
  private open = true;

  constructor(private readonly scratch: HostScratch, readonly buffer: ArrayBuffer, readonly top: number, readonly held: number) {}

  /** `length` int32 entries (contents undefined: the caller writes every one it reads). */
  int32(length: number): Int32Array {
    const [buffer, at] = this.take(length * 4);
    return new Int32Array(buffer, at, length);
  }

  /** `length` float64 entries (contents undefined). */
  float64(length: number): Float64Array {
    const [buffer, at] = this.take(length * 8);
    return new Float64Array(buffer, at, length);
  }

  /** `length` int64 entries (contents undefined). */
  bigint64(length: number): BigInt64Array {
    const [buffer, at] = this.take(length * 8);
    return new BigInt64Array(buffer, at, length);
  }

  /** `length` int32 entries, all 0. */
  zeroedInt32(length: number): Int32Array {
    return this.int32(length).fill(0);
  }

  /** Gives the frame's arrays back (the next frame at this depth reuses their bytes). */
  end(): void {
    if (!this.open) return;
    this.open = false;
    this.scratch.endFrame(this);
  }

  private take(bytes: number): [ArrayBuffer, number] {
    if (!this.open) throw new Error('host scratch frame used after end()');
    return this.scratch.takeBytes(bytes);
  }
}

export class HostScratch {
  private static readonly byDevice = new WeakMap<GpuDevice, HostScratch>();
  private buffer = new ArrayBuffer(0);
  private top = 0;
  /** Bytes the open frames hold, in every buffer (a new buffer is sized for them all). */
  private held = 0;

  /** The scratch of `dev` (made on first use). */
  static of(dev: GpuDevice): HostScratch {
    let s = HostScratch.byDevice.get(dev);
    if (s === undefined) HostScratch.byDevice.set(dev, (s = new HostScratch()));
    return s;
  }

  /** Opens a frame above every open one. */
  frame(): HostFrame {
    return new HostFrame(this, this.buffer, this.top, this.held);
  }

  /** Bytes of the current buffer (tests, probes). */
  get capacity(): number {
    return this.buffer.byteLength;
  }

  /** @internal `bytes` from the current buffer: [buffer, byte offset]. */
  takeBytes(bytes: number): [ArrayBuffer, number] {
    const at = Math.ceil(this.top / ALIGN) * ALIGN;
    const aligned = Math.ceil(bytes / ALIGN) * ALIGN;
    this.held += aligned;
    if (at + bytes > this.buffer.byteLength) {
      // The open frames' arrays stay in the old buffer; the new one is empty, and large enough
      // for all they hold, so that the next call of the same size takes everything from it.
      this.buffer = new ArrayBuffer(Math.max(MIN_BYTES, 2 * this.buffer.byteLength, this.held));
      this.top = bytes;
      return [this.buffer, 0];
    }
    this.top = at + bytes;
    return [this.buffer, at];
  }

  /**
   * @internal Back to where `f` opened; where the buffer grew inside `f`, everything in the new one
   * was taken inside `f` (the frames below hold arrays of older buffers only), so all of it is free.
   */
  endFrame(f: HostFrame): void {
    this.top = f.buffer === this.buffer ? f.top : 0;
    this.held = f.held;
  }
}

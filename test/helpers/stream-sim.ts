/**
 * A fake GPU with streams: every copy and kernel is queued on its stream (copy: uploads; main:
 * kernels and stream-ordered downloads; download: downloadBehind) with the waits that the CUDA
 * device records (awaitUploads, downloadBehind's wait on the main stream, awaitDownloads), and
 * runs only when the host waits, in a random order that keeps each stream's order and those waits.
 * A host copy reads or writes the caller's array when it runs, as a page-locked copy does. So a
 * host path that orders its copies wrongly gives wrong results on some schedules; the tests run
 * many schedules and compare each with the CPU reference.
 */
import { isDeviceStorage, type IntStorage, type Storage } from '../../src/core/storage.js';
import { OP_NAMES, type Backend, type OpName } from '../../src/core/ops.js';
import { batchCount, type Batch } from '../../src/core/batch.js';
import { cpuBackend } from '../../src/cpu/backend.js';
import type { DeviceArray, HostArray } from '../../src/cuda/runtime/types.js';
import { Random } from '../../src/bench/data.js';
import { FakeDevice } from './fake-gpus.js';

type StreamName = 'copy' | 'main' | 'download';
const STREAMS: readonly StreamName[] = ['copy', 'main', 'download'];

interface Op {
  readonly label: string;
  /** Runs once every stream named here has run this many of its ops. */
  readonly after: Partial<Record<StreamName, number>>;
  readonly run: () => void;
}

export class StreamSimDevice extends FakeDevice {
  private readonly queues: Record<StreamName, Op[]> = { copy: [], main: [], download: [] };
  /** Ops enqueued and run so far, per stream. */
  private readonly enqueued: Record<StreamName, number> = { copy: 0, main: 0, download: 0 };
  private readonly ran: Record<StreamName, number> = { copy: 0, main: 0, download: 0 };
  /** Every op in the order it ran ('main:launch', 'download:down', ...). */
  readonly executed: string[] = [];
  /** Every op in the order it was enqueued. */
  readonly enqueueOrder: string[] = [];
  /** A negative control: downloadBehind without its wait on the main stream (a bug the tests must catch). */
  unorderedDownloads = false;

  constructor(ordinal: number, log: string[], private readonly rng: Random) {
    super(ordinal, log);
  }

  /** Queues `run` on `stream` behind the waits `after`. */
  enqueue(stream: StreamName, label: string, run: () => void, after: Partial<Record<StreamName, number>> = {}): void {
    this.queues[stream].push({ label, after, run });
    this.enqueued[stream]++;
    this.enqueueOrder.push(`${stream}:${label}`);
  }

  override pin(): boolean { return true; }
  override uploadRange(host: HostArray, lo: number, hi: number, dst: DeviceArray, dstOffset: number): void {
    const d = this.own(dst);
    this.enqueue('copy', 'up', () => { (d.host as Float64Array).set((host as Float64Array).subarray(lo, hi), dstOffset); });
  }
  override awaitUploads(): void {
    this.enqueue('main', 'wait-uploads', () => {}, { copy: this.enqueued.copy });
  }
  override downloadRange(src: DeviceArray, srcOffset: number, host: HostArray, lo: number, hi: number): void {
    const s = this.own(src);
    this.enqueue('main', 'down', () => { (host as Float64Array).set((s.host as Float64Array).subarray(srcOffset, srcOffset + hi - lo), lo); });
  }
  downloadBehind(src: DeviceArray, srcOffset: number, host: HostArray, lo: number, hi: number): void {
    const s = this.own(src);
    const after = this.unorderedDownloads ? {} : { main: this.enqueued.main };
    this.enqueue('download', 'down', () => { (host as Float64Array).set((s.host as Float64Array).subarray(srcOffset, srcOffset + hi - lo), lo); }, after);
  }
  awaitDownloads(): void {
    this.enqueue('main', 'wait-downloads', () => {}, { download: this.enqueued.download });
  }
  override copy(src: DeviceArray, so: number, dst: DeviceArray, d0: number, n: number): void {
    const [s, d] = [this.own(src), this.own(dst)];
    this.enqueue('main', 'copy', () => { (d.host as Float64Array).set((s.host as Float64Array).subarray(so, so + n), d0); });
  }
  override upload(host: HostArray, dst?: DeviceArray): ReturnType<FakeDevice['upload']> {
    this.drain(STREAMS);
    return super.upload(host, dst);
  }
  override download(src: DeviceArray, dst?: HostArray): HostArray {
    this.drain(['main']);
    return super.download(src, dst);
  }
  override synchronize(): void {
    super.synchronize();
    this.drain(['main']);
  }
  override async idle(): Promise<void> { this.synchronize(); }
  override dispose(): void {
    this.drain(STREAMS);
    super.dispose();
  }

  /** True when nothing is queued on any stream. */
  get quiet(): boolean {
    return STREAMS.every((s) => this.queues[s].length === 0);
  }

  /** Runs queued ops, a random ready one at a time, until the named streams are empty. */
  private drain(streams: readonly StreamName[]): void {
    while (streams.some((s) => this.queues[s].length > 0)) {
      const ready = STREAMS.filter((s) => {
        const head = this.queues[s][0];
        return head !== undefined && Object.entries(head.after).every(([t, n]) => this.ran[t as StreamName] >= n!);
      });
      if (ready.length === 0) throw new Error(`deadlock: ${STREAMS.map((s) => `${s}: ${this.queues[s].map((o) => o.label).join(',')}`).join('; ')}`);
      const s = ready[Math.min(ready.length - 1, Math.floor(((this.rng.next() + 1) / 2) * ready.length))]!; // next() is in [-1, 1)
      const op = this.queues[s].shift()!;
      op.run();
      this.ran[s]++;
      this.executed.push(`${s}:${op.label}`);
    }
  }
}

/** A backend whose kernels are queued on the simulated main stream (the CPU reference on the fake arrays, when they run). */
export function queuedBackend(dev: StreamSimDevice, counts: number[] = []): Backend<Storage, IntStorage> {
  const host = (s: unknown): unknown => (isDeviceStorage(s) ? dev.own(s as DeviceArray).host : s);
  const mapBatch = (b: Batch<Storage>): unknown =>
    b.kind === 'strided' ? { ...b, data: host(b.data) } : { ...b, matrices: b.matrices.map((m) => ({ ...m, data: host(m.data) })) };
  const run = (op: OpName) => (r: Record<string, unknown>): void => {
    const mapped: Record<string, unknown> = {};
    let count = -1;
    for (const [k, v] of Object.entries(r)) {
      const batch = typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'strided' || v.kind === 'list' || v.kind === 'variable');
      if (batch && count < 0) count = batchCount(v as Batch<Storage>);
      mapped[k] = batch ? mapBatch(v as Batch<Storage>) : host(v);
    }
    counts.push(count);
    dev.enqueue('main', 'launch', () => (cpuBackend[op] as unknown as (x: unknown) => void)(mapped));
  };
  return Object.fromEntries([['name', 'queued'], ...OP_NAMES.map((op) => [op, run(op)])]) as unknown as Backend<Storage, IntStorage>;
}

/**
 * The multi-device backend without a GPU: fake devices keep "device" memory in host arrays and
 * run each part with the CPU reference, and log every upload, launch, wait and download. So the
 * splitting, staging, ordering (info/ipiv in original order), sharded batches and failure
 * handling run in CI against the CPU context.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuContext, type Context } from '../../src/api/context.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { Backend, OpName } from '../../src/core/ops.js';
import { isDeviceStorage, type IntStorage, type Storage } from '../../src/core/storage.js';
import { cpuBackend } from '../../src/cpu/backend.js';
import { CudaError } from '../../src/cuda/runtime/errors.js';
import type { DeviceArray, DeviceDType, DeviceInfo, GpuDevice, GpuEvent, HostArray, Kernel } from '../../src/cuda/runtime/types.js';
import { MultiDeviceBackend } from '../../src/cuda/multi/backend.js';
import { MultiDeviceContext } from '../../src/api/multi-context.js';
import { DeviceFailure, type Lane } from '../../src/cuda/multi/lane.js';
import { isSharded, ShardedArray } from '../../src/cuda/multi/sharded.js';
import { runMultiBench } from '../../src/bench/multi.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { hasGpuOp } from '../../src/cuda/registry.js';

class FakeArray implements DeviceArray {
  readonly kind = 'device' as const;
  disposed = false;
  readonly ptr = 0n;
  constructor(readonly dtype: DeviceDType, readonly length: number, readonly device: number, readonly host: HostArray, private readonly live: Set<FakeArray>) {
    live.add(this);
  }
  get byteLength(): number { return this.host.byteLength; }
  dispose(): void { this.disposed = true; this.live.delete(this); }
}

const newHost = (dtype: DeviceDType, n: number): HostArray =>
  dtype === 'float64' ? new Float64Array(n) : dtype === 'float32' ? new Float32Array(n) : dtype === 'int32' ? new Int32Array(n) : new BigInt64Array(n);
const dtypeOf = (h: HostArray): DeviceDType =>
  h instanceof Float64Array ? 'float64' : h instanceof Float32Array ? 'float32' : h instanceof Int32Array ? 'int32' : 'int64';

class FakeDevice implements GpuDevice {
  readonly info: DeviceInfo;
  readonly live = new Set<FakeArray>();
  readonly streamHandle = null;
  /** Throw CUDA_ERROR_OUT_OF_MEMORY from alloc/upload after this many allocations. */
  allocsLeft = Infinity;
  failSync = false;
  constructor(ordinal: number, readonly log: string[]) {
    this.info = { ordinal, name: `Fake GPU ${ordinal}`, arch: 'sm_90', major: 9, minor: 0, smCount: 4, warpSize: 32, maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536, sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1e6, memoryClockKHz: 1e6, memoryBusWidthBits: 1024, l2Bytes: 1 << 20, totalMemoryBytes: 1 << 30 };
  }
  kernel(): Kernel { throw new Error('no kernels on a fake device'); }
  alloc(dtype: DeviceDType, length: number): FakeArray {
    if (this.allocsLeft-- <= 0) throw new CudaError('CUDA_ERROR_OUT_OF_MEMORY', 2, 'cuMemAlloc_v2', `out of memory; ${length} elements on device ${this.info.ordinal}`);
    return new FakeArray(dtype, length, this.info.ordinal, newHost(dtype, length), this.live);
  }
  own(a: DeviceArray): FakeArray {
    assert.ok(a instanceof FakeArray && a.device === this.info.ordinal && !a.disposed, `array of device ${a.device} used on ${this.info.ordinal}`);
    return a;
  }
  upload(host: HostArray, dst?: DeviceArray): FakeArray {
    const d = dst ? this.own(dst) : this.alloc(dtypeOf(host), host.length);
    (d.host as Float64Array).set(host as Float64Array);
    this.log.push(`up${this.info.ordinal}`);
    return d;
  }
  download(src: DeviceArray, dst?: HostArray): HostArray {
    const s = this.own(src);
    const out = dst ?? newHost(s.dtype, s.length);
    (out as Float64Array).set((s.host as Float64Array).subarray(0, out.length));
    this.log.push(`down${this.info.ordinal}`);
    return out;
  }
  copy(src: DeviceArray, so: number, dst: DeviceArray, d0: number, n: number): void {
    (this.own(dst).host as Float64Array).set((this.own(src).host as Float64Array).subarray(so, so + n), d0);
  }
  fill(dst: DeviceArray, byte: number): void { new Uint8Array(this.own(dst).host.buffer).fill(byte); }
  event(): GpuEvent {
    const e = { t: 0, record() { e.t = performance.now(); }, synchronize() {}, elapsedSince: (s: GpuEvent) => Math.max(1e-3, e.t - (s as typeof e).t), dispose() {} };
    return e;
  }
  synchronize(): void {
    this.log.push(`sync${this.info.ordinal}`);
    if (this.failSync) throw new CudaError('CUDA_ERROR_ILLEGAL_ADDRESS', 700, 'cuStreamSynchronize', 'an illegal memory access was encountered');
  }
  dispose(): void { for (const a of [...this.live]) a.dispose(); }
}

/** Runs each request with the CPU reference on the fake arrays' host memory (in place). */
function fakeBackend(dev: FakeDevice, counts: number[]): Backend<Storage, IntStorage> {
  const host = (s: unknown): unknown => (isDeviceStorage(s) ? dev.own(s as DeviceArray).host : s);
  const mapBatch = (b: Batch<Storage>): unknown =>
    b.kind === 'strided' ? { ...b, data: host(b.data) } : { ...b, matrices: b.matrices.map((m) => ({ ...m, data: host(m.data) })) };
  const run = (op: OpName) => (r: Record<string, unknown>): void => {
    const mapped: Record<string, unknown> = {};
    let count = 0;
    for (const [k, v] of Object.entries(r)) {
      const batch = typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'strided' || v.kind === 'list' || v.kind === 'variable');
      if (batch) { const b = v as Batch<Storage>; count = b.kind === 'strided' ? b.count : b.matrices.length; }
      mapped[k] = batch ? mapBatch(v as Batch<Storage>) : host(v);
    }
    dev.log.push(`launch${dev.info.ordinal}`);
    counts.push(count);
    (cpuBackend[op] as unknown as (x: unknown) => void)(mapped);
  };
  const ops = ['gemm', 'trsm', 'trmm', 'syrk', 'potrf', 'potrs', 'posv', 'getrf', 'getrs', 'gesv', 'trtri', 'lauum', 'potri'] as const;
  return Object.fromEntries([['name', 'fake'], ...ops.map((op) => [op, run(op)])]) as unknown as Backend<Storage, IntStorage>;
}

interface Rig { ctx: MultiDeviceContext; devices: FakeDevice[]; log: string[]; counts: number[][] }

export function rig(lanes = 2, weights?: number[]): Rig {
  const log: string[] = [];
  const devices = Array.from({ length: lanes }, (_, i) => new FakeDevice(i, log));
  const counts = devices.map(() => [] as number[]);
  const laneList: Lane[] = devices.map((device, i) => ({ device, backend: fakeBackend(device, counts[i]!), hasKernel: () => true }));
  const ctx = new MultiDeviceContext(new MultiDeviceBackend(laneList, 'fake', weights ? { weights } : {}));
  return { ctx, devices, log, counts };
}

const rng = new Random(42);
const intsOf = (x: unknown): number[] => [...(x as Int32Array)];

/** Runs `call` on copies of `arrays` on the CPU context and on `ctx`; every array and result must agree exactly. */
function same(ctx: Context, arrays: Float64Array[], call: (c: Context, xs: Float64Array[]) => unknown): void {
  const mine = arrays.map((a) => a.slice());
  const ref = arrays.map((a) => a.slice());
  const got = call(ctx, mine);
  const want = call(cpuContext, ref);
  mine.forEach((m, i) => assert.deepEqual(m, ref[i], `array ${i}`));
  const norm = (r: unknown): unknown => JSON.parse(JSON.stringify(r ?? null, (_k, v) => (v instanceof Int32Array ? [...v] : v)));
  assert.deepEqual(norm(got), norm(want));
}

/** SPD matrices with some made not positive definite (a negative diagonal entry). */
function spdWithFailures(n: number, count: number, failing: number[]): Float64Array {
  const a = randomSpd('float64', n, count, rng) as Float64Array;
  for (const i of failing) a[i * n * n + (n - 1) * (n + 1)] = -1;
  return a;
}

describe('multi-device backend on fake GPUs = CPU context', () => {
  it('gemm on a host batch that does not split evenly: both devices get work before any wait', () => {
    const { ctx, log, counts } = rig();
    const n = 3, count = 7;
    const xs = [0, 1, 2].map(() => randomMatrices('float64', n, n, count, rng) as Float64Array);
    same(ctx, xs, (c, [a, b, cc]) => c.gemm({ a: strided(a!, { rows: n, count }), b: strided(b!, { rows: n, count }), c: strided(cc!, { rows: n, count }), alpha: 1.5, beta: 0.5 }));
    assert.deepEqual(counts, [[4], [3]]);
    const firstWait = log.findIndex((e) => e.startsWith('sync'));
    assert.ok(log.indexOf('launch0') < firstWait && log.indexOf('launch1') < firstWait, log.join(' '));
    assert.ok(log.lastIndexOf('up1') < firstWait && log.indexOf('down0') > log.lastIndexOf('sync1'), `outputs copied back only after every device finished: ${log.join(' ')}`);
  });

  it('potrf with failing matrices: info in original order; a batch of 1 runs on one device', () => {
    const { ctx, counts } = rig();
    const n = 4, count = 9;
    same(ctx, [spdWithFailures(n, count, [0, 4, 5, 8])], (c, [a]) => c.potrf({ a: strided(a!, { rows: n, count }), uplo: 'lower' }));
    same(ctx, [spdWithFailures(n, 1, [0])], (c, [a]) => c.potrf({ a: strided(a!, { rows: n, count: 1 }), uplo: 'upper' }));
    assert.deepEqual(counts, [[5, 1], [4]]);
  });

  it('getrf and gesv: ipiv and info land in place, in order; odd strides and offsets', () => {
    const { ctx } = rig(3);
    const n = 5, count = 8, stride = 31, offset = 3;
    const big = new Float64Array(offset + count * stride);
    big.set(randomGeneral('float64', n, count * 6, rng).subarray(0, big.length));
    for (let i = 0; i < count; i++) big[offset + i * stride + 2 * 6 + 2] = 0; // keep some exactly singular
    for (let j = 0; j < n; j++) big[offset + 3 * stride + j * 6 + 2] = 0; // matrix 3: a zero row
    same(ctx, [big], (c, [a]) => c.getrf({ a: strided(a!, { rows: n, ld: 6, stride, offset, count }) }));
    const b = randomMatrices('float64', n, 2, count, rng) as Float64Array;
    same(ctx, [randomGeneral('float64', n, count, rng) as Float64Array, b], (c, [a, bb]) => c.gesv({ a: strided(a!, { rows: n, count }), b: strided(bb!, { rows: n, cols: 2, count }) }));
  });

  it('list batches whose matrices are out of order and variable batches', () => {
    const { ctx } = rig();
    const n = 3, count = 6;
    // Matrices 0, 2, 4 then 1, 3, 5 of one array: the two devices' ranges interleave.
    const slot = [0, 2, 4, 1, 3, 5];
    same(ctx, [spdWithFailures(n, count, [1])], (c, [a]) =>
      c.potrf({ a: list(slot.map((k) => ({ data: a!, offset: k * n * n })), { rows: n }), uplo: 'lower' }));
    const sizes = [1, 4, 2, 3, 5];
    const total = sizes.reduce((s, k) => s + k * k, 0);
    const spd = new Float64Array(total);
    let at = 0;
    for (const k of sizes) { spd.set(randomSpd('float64', k, 1, rng), at); at += k * k; }
    same(ctx, [spd], (c, [a]) => {
      let off = 0;
      return c.potrf({ a: variable(sizes.map((k) => { const m = { data: a!, rows: k, offset: off }; off += k * k; return m; })), uplo: 'lower' });
    });
  });

  it('one device: the same results through the same code', () => {
    const { ctx, counts } = rig(1);
    const n = 4, count = 5;
    same(ctx, [spdWithFailures(n, count, [2])], (c, [a]) => c.potrf({ a: strided(a!, { rows: n, count }), uplo: 'lower' }));
    assert.deepEqual(counts, [[5]]);
  });

  it('weights set the shares', () => {
    const { ctx, counts } = rig(2, [3, 1]);
    const n = 2, count = 10;
    same(ctx, [randomSpd('float64', n, count, rng) as Float64Array], (c, [a]) => c.potrf({ a: strided(a!, { rows: n, count }), uplo: 'lower' }));
    ctx.weights = [0, 1];
    same(ctx, [randomSpd('float64', n, count, rng) as Float64Array], (c, [a]) => c.potrf({ a: strided(a!, { rows: n, count }), uplo: 'lower' }));
    assert.deepEqual(counts, [[8], [2, 10]]);
  });
});

describe('sharded (device-resident) batches on fake GPUs', () => {
  it('scatter, potrf, getrs pipeline: each matrix runs where it lives; gather restores order', () => {
    const { ctx, devices, log, counts } = rig();
    const n = 3, count = 7;
    const host = randomGeneral('float64', n, count, rng) as Float64Array;
    const rhs = randomMatrices('float64', n, 1, count, rng) as Float64Array;
    const a = ctx.scatter(host, { rows: n, count });
    const b = ctx.scatter(rhs, { rows: n, cols: 1, count });
    assert.deepEqual(a.shards.map((s) => [s.ordinal, s.start, s.end]), [[0, 0, 36], [1, 36, 63]]);
    log.length = 0;
    const { info, ipiv } = ctx.getrf({ a: strided(a, { rows: n, count }) });
    const r = ctx.getrs({ a: strided(a, { rows: n, count }), b: strided(b, { rows: n, cols: 1, count }), ipiv });
    assert.ok(!log.some((e) => e.startsWith('sync') || e.startsWith('down') || e.startsWith('up')), `device-resident calls only enqueue: ${log.join(' ')}`);
    assert.ok(isSharded(info) && isSharded(ipiv) && info.placed);
    assert.deepEqual((ipiv as ShardedArray).shards.map((s) => [s.ordinal, s.start, s.end]), [[0, 0, 12], [1, 12, 21]]);
    const wantA = host.slice(), wantB = rhs.slice();
    const want = cpuContext.getrf({ a: strided(wantA, { rows: n, count }) });
    cpuContext.getrs({ a: strided(wantA, { rows: n, count }), b: strided(wantB, { rows: n, cols: 1, count }), ipiv: want.ipiv });
    assert.deepEqual(ctx.gather(a), wantA);
    assert.deepEqual(ctx.gather(b), wantB);
    assert.deepEqual(intsOf(ctx.gather(ipiv)), intsOf(want.ipiv));
    assert.deepEqual(intsOf(ctx.gather(info)), intsOf(want.info));
    assert.ok(isSharded(r.info));
    assert.deepEqual(counts, [[4, 4], [3, 3]]);
    for (const s of [a, b, info, ipiv, r.info] as ShardedArray[]) s.dispose();
    assert.deepEqual(devices.map((d) => d.live.size), [0, 0]);
  });

  it('shardedBy(count): upload/alloc/copy of code written for one GPU keep data spread', () => {
    const { ctx } = rig();
    const view = ctx.shardedBy(5);
    const host = randomSpd('float64', 2, 5, rng) as Float64Array;
    const pristine = view.upload(host) as ShardedArray;
    const work = view.alloc('float64', host.length) as ShardedArray;
    view.copy(pristine, work);
    assert.deepEqual(work.ordinals, [0, 1]);
    const { info } = view.potrf({ a: strided(work, { rows: 2, count: 5 }), uplo: 'lower' });
    const want = host.slice();
    const wantInfo = cpuContext.potrf({ a: strided(want, { rows: 2, count: 5 }), uplo: 'lower' }).info;
    assert.deepEqual(view.download(work), want);
    assert.deepEqual(intsOf(view.download(info as ShardedArray)), intsOf(wantInfo));
    view.dispose(); // a view frees nothing
    assert.equal(ctx.disposed, false);
  });

  it('a batch that straddles the devices\' shards, or plain memory of two GPUs, is refused before any work', () => {
    const { ctx, log, devices } = rig();
    const a = ctx.scatter(new Float64Array(40), { rows: 2, count: 10 });
    log.length = 0;
    assert.throws(() => ctx.potrf({ a: strided(a, { rows: 2, stride: 4, offset: 2, count: 9 }) }), (e: MyriadError) => e.code === 'LAYOUT');
    const p0 = devices[0]!.upload(new Float64Array(4));
    const p1 = devices[1]!.upload(new Float64Array(4));
    log.length = 0;
    assert.throws(() => ctx.gemm({ a: strided(p0, { rows: 2 }), b: strided(p1, { rows: 2 }), c: strided(p0, { rows: 2 }), beta: 0 }), /GPUs 0 and 1/);
    assert.deepEqual(log, []);
  });
});

describe('a failing device', () => {
  it('out of memory on GPU 1: a MyriadError naming it; no host output written; staging freed', () => {
    const { ctx, devices } = rig();
    const n = 3, count = 6;
    const a = randomSpd('float64', n, count, rng) as Float64Array;
    const before = a.slice();
    devices[1]!.allocsLeft = 0;
    assert.throws(() => ctx.potrf({ a: strided(a, { rows: n, count }), uplo: 'lower' }), (e: unknown) => {
      assert.ok(e instanceof DeviceFailure && e instanceof MyriadError);
      assert.equal(e.code, 'CUDA');
      assert.equal(e.ordinal, 1);
      assert.match(e.message, /GPU 1 \(Fake GPU 1\): CUDA_ERROR_OUT_OF_MEMORY/);
      assert.match(e.message, /No host output was written/);
      return true;
    });
    assert.deepEqual(a, before);
    assert.deepEqual(devices.map((d) => d.live.size), [0, 0]);
  });

  it('an asynchronous fault on GPU 0 surfaces at the wait, before anything is copied back', () => {
    const { ctx, devices, log } = rig();
    const n = 2, count = 4;
    const xs = [0, 1, 2].map(() => randomMatrices('float64', n, n, count, rng) as Float64Array);
    const before = xs[2]!.slice();
    devices[0]!.failSync = true;
    assert.throws(() => ctx.gemm({ a: strided(xs[0]!, { rows: n, count }), b: strided(xs[1]!, { rows: n, count }), c: strided(xs[2]!, { rows: n, count }), beta: 0 }),
      /gemm on 4 matrices failed on GPU 0 \(Fake GPU 0\): CUDA_ERROR_ILLEGAL_ADDRESS/);
    assert.deepEqual(xs[2], before);
    assert.ok(!log.some((e) => e.startsWith('down')));
    // Device-resident work: the failure comes from synchronize(), naming the GPU.
    const s = ctx.scatter(randomSpd('float64', n, count, rng), { rows: n, count });
    ctx.potrf({ a: strided(s, { rows: n, count }) });
    return assert.rejects(ctx.synchronize(), /synchronize failed on GPU 0 \(Fake GPU 0\)/);
  });
});

describe('the multi-device benchmark on fake GPUs', () => {
  it('rows for one device then two, resident and host-start, with shares, efficiency and link bytes', () => {
    const rows = runMultiBench('all', { op: 'potrf', dtypes: ['float64'], sizes: [4], batch: 11, repeats: 3 },
      (set) => rig(set === 'all' ? 2 : set.length).ctx);
    assert.deepEqual(rows.map((r) => [r.devices, r.mode]), [['0', 'resident'], ['0', 'host-start'], ['0,1', 'resident'], ['0,1', 'host-start']]);
    const two = rows[2]!;
    assert.deepEqual(two.perDevice!.map((d) => [d.ordinal, d.batch]), [[0, 6], [1, 5]]);
    assert.ok(rows.every((r) => r.batch === 11 && r.ms > 0 && r.gflops > 0));
    assert.ok(two.efficiency !== undefined && rows[3]!.efficiency !== undefined && Math.abs(rows[0]!.efficiency! - 100) < 1e-9);
    // host-start moves A and info up and back: 2 x 11 x (16 doubles + 1 int32) per call.
    assert.equal(Math.round(rows[1]!.linkGBs! * rows[1]!.ms * 1e6), 2 * 11 * (16 * 8 + 4));
  });
});

describe('with the real one-GPU CudaBackend per lane (fake memory)', () => {
  it('an op without a GPU kernel: host batches go to the CPU reference, sharded ones to each lane\'s CPU fallback', () => {
    const log: string[] = [];
    const devices = [0, 1].map((i) => new FakeDevice(i, log));
    const lanes: Lane[] = devices.map((device) => ({ device, backend: new CudaBackend(device, 'fake'), hasKernel: hasGpuOp }));
    const ctx = new MultiDeviceContext(new MultiDeviceBackend(lanes, 'fake'));
    assert.equal(hasGpuOp('syrk'), false, 'this test needs an op without a GPU kernel');
    const n = 4, count = 9;
    const a = randomGeneral('float64', n, count, rng) as Float64Array;
    const b = randomMatrices('float64', n, 2, count, rng) as Float64Array;
    // syrk: C (n x n) := A A^T + C with A n x 2, upper triangle.
    const args = (x: Float64Array | ShardedArray, y: Float64Array | ShardedArray) =>
      ({ a: strided(y, { rows: n, cols: 2, count }), c: strided(x, { rows: n, count }), uplo: 'upper' as const, beta: 1 });
    same(ctx, [a, b], (c, [x, y]) => c.syrk(args(x!, y!)));
    assert.deepEqual(log, [], 'host batches without a kernel never touch a device');
    const sa = ctx.scatter(a, { rows: n, count });
    const sb = ctx.scatter(b, { rows: n, cols: 2, count });
    ctx.syrk(args(sa, sb));
    const want = a.slice();
    cpuContext.syrk(args(want, b));
    assert.deepEqual(ctx.gather(sa), want);
    assert.ok((log as string[]).includes('down0') && (log as string[]).includes('down1'), 'each lane ran its own part');
  });
});

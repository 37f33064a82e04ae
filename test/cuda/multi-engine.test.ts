/**
 * The multi-device backend without a GPU: fake devices (test/helpers/fake-gpus.ts) keep "device"
 * memory in host arrays and run each part with the CPU reference, and log every upload, launch,
 * wait and download. So the splitting, staging, ordering (info/ipiv in original order), sharded
 * batches and failure handling run in CI against the CPU context.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuContext, referenceContext, type Context } from '../../src/api/context.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { list, strided, variable } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { MultiDeviceBackend } from '../../src/cuda/multi/backend.js';
import { FakeDevice, fakeBackend, rig } from '../helpers/fake-gpus.js';
import type { OpName } from '../../src/core/ops.js';
import { cpuBackend } from '../../src/cpu/backend.js';
import { MultiDeviceContext } from '../../src/api/multi-context.js';
import { DeviceFailure, type Lane } from '../../src/cuda/multi/lane.js';
import { isSharded, ShardedArray } from '../../src/cuda/multi/sharded.js';
import { runMultiBench } from '../../src/bench/multi.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { hasGpuOp } from '../../src/cuda/router.js';
import { HostCall, StagingArena } from '../../src/cuda/host/staging.js';


const rng = new Random(42);
const intsOf = (x: unknown): number[] => [...(x as Int32Array)];

/**
 * Runs `call` on copies of `arrays` on the reference context (what the fake devices run) and on
 * `ctx`; every array and result must agree exactly. (The fast CPU backend's gemm is not bitwise
 * the reference's: its WebAssembly kernel sums in another order.)
 */
function same(ctx: Context, arrays: Float64Array[], call: (c: Context, xs: Float64Array[]) => unknown): void {
  const mine = arrays.map((a) => a.slice());
  const ref = arrays.map((a) => a.slice());
  const got = call(ctx, mine);
  const want = call(referenceContext, ref);
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
    assert.ok(log.lastIndexOf('up1') < firstWait && log.indexOf('down0') > log.indexOf('sync1'), `outputs copied back only after every device finished: ${log.join(' ')}`);
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
    const want = referenceContext.getrf({ a: strided(wantA, { rows: n, count }) });
    referenceContext.getrs({ a: strided(wantA, { rows: n, count }), b: strided(wantB, { rows: n, cols: 1, count }), ipiv: want.ipiv });
    assert.deepEqual(ctx.gather(a), wantA);
    assert.deepEqual(ctx.gather(b), wantB);
    assert.deepEqual(intsOf(ctx.gather(ipiv)), intsOf(want.ipiv));
    assert.deepEqual(intsOf(ctx.gather(info)), intsOf(want.info));
    assert.ok(isSharded(r.info));
    assert.deepEqual(counts, [[4, 4], [3, 3]]);
    for (const s of [a, b, info, ipiv, r.info] as ShardedArray[]) s.dispose();
    assert.deepEqual(devices.map((d) => d.leaked), [0, 0]);
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
    const c0 = devices[0]!.upload(new Float64Array(4)); // c apart from a: an output over an input is a LAYOUT error of its own
    log.length = 0;
    assert.throws(() => ctx.gemm({ a: strided(p0, { rows: 2 }), b: strided(p1, { rows: 2 }), c: strided(c0, { rows: 2 }), beta: 0 }), /GPUs 0 and 1/);
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
    assert.deepEqual(devices.map((d) => d.leaked), [0, 0]);
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

describe('the asynchronous form on several (fake) GPUs', () => {
  it('posvAsync and getrfAsync in flight together give the synchronous results; a fault rejects with nothing written', async () => {
    const { ctx, devices } = rig();
    const n = 4, count = 9;
    const [a, b, g] = [randomSpd('float64', n, count, rng), randomMatrices('float64', n, 2, count, rng), randomGeneral('float64', n, count, rng)] as Float64Array[];
    const [a2, b2, g2] = [a!.slice(), b!.slice(), g!.slice()];
    const want = referenceContext.posv({ a: strided(a2, { rows: n, count }), b: strided(b2, { rows: n, cols: 2, count }) });
    const wantLu = referenceContext.getrf({ a: strided(g2, { rows: n, count }) });
    const p1 = ctx.posvAsync({ a: strided(a!, { rows: n, count }), b: strided(b!, { rows: n, cols: 2, count }) });
    const p2 = ctx.getrfAsync({ a: strided(g!, { rows: n, count }) });
    const [r1, r2] = await Promise.all([p1, p2]);
    assert.deepEqual([a, b, g, r1.info, r2.ipiv, r2.info], [a2, b2, g2, want.info, wantLu.ipiv, wantLu.info]);
    const c = randomSpd('float64', n, count, rng) as Float64Array, before = c.slice();
    devices[1]!.failSync = true;
    await assert.rejects(ctx.potrfAsync({ a: strided(c, { rows: n, count }) }), /potrf on 9 matrices failed on GPU 1/);
    assert.deepEqual(c, before);
  });
});

describe('the multi-device benchmark on fake GPUs', () => {
  it('rows for one device then two, resident and host-start, with shares, efficiency and link bytes', () => {
    const rows = runMultiBench('all', { op: 'potrf', dtypes: ['float64'], sizes: [4], batch: 11, repeats: 3, linkBytes: 2 ** 16 },
      (set) => rig(set === 'all' ? 2 : set.length).ctx);
    assert.deepEqual(rows.map((r) => [r.devices, r.mode]), [['0', 'resident'], ['0', 'host-start'], ['0,1', 'resident'], ['0,1', 'host-start'], ['0,1', 'host-auto']]);
    // 11 small matrices: the crossover keeps the call on one GPU; the rig's own spread is restored.
    assert.equal(rows[4]!.gpusUsed, 1);
    assert.ok(rows.filter((r) => r.mode !== 'resident').every((r) => r.aggregateGBs! > 0 && r.aggregateRoofline! > 0));
    const two = rows[2]!;
    assert.deepEqual(two.perDevice!.map((d) => [d.ordinal, d.batch]), [[0, 6], [1, 5]]);
    assert.ok(rows.every((r) => r.batch === 11 && r.ms > 0 && r.gflops > 0));
    assert.ok(two.efficiency !== undefined && rows[3]!.efficiency !== undefined && Math.abs(rows[0]!.efficiency! - 100) < 1e-9);
    // host-start moves A up and back and info (write-only: never uploaded) back: 2 x 11 x 16 doubles + 11 int32 per call.
    assert.equal(Math.round(rows[1]!.linkGBs! * rows[1]!.ms * 1e6), 2 * 11 * 16 * 8 + 11 * 4);
  });
});

describe('with the real one-GPU CudaBackend per lane (fake memory)', () => {
  it('an op without a GPU kernel: host batches go to the CPU reference, sharded ones to each lane\'s CPU fallback', () => {
    // gesvd beyond 512 rows has no GPU kernel (the Jacobi family covers max(m, n) <= 512): the lanes say so.
    const log: string[] = [];
    const devices = [0, 1].map((i) => new FakeDevice(i, log));
    const m = 600, n = 3, count = 4;
    const lanes: Lane[] = devices.map((device) => ({ device, backend: new CudaBackend(device, 'fake'), hasKernel: (op) => hasGpuOp(op) && op !== 'gesvd' }));
    const ctx = new MultiDeviceContext(new MultiDeviceBackend(lanes, 'fake'));
    const a = randomMatrices('float64', m, n, count, rng) as Float64Array;
    const s = new Float64Array(n * count);
    const args = (x: Float64Array | ShardedArray, y: Float64Array | ShardedArray) =>
      ({ a: strided(x, { rows: m, cols: n, count }), s: strided(y, { rows: n, cols: 1, count }), jobu: 'none' as const, jobvt: 'none' as const });
    same(ctx, [a, s], (c, [x, y]) => c.gesvd(args(x!, y!)));
    assert.deepEqual(log, [], 'host batches without a kernel never touch a device');
    const sa = ctx.scatter(a, { rows: m, cols: n, count });
    const ss = ctx.scatter(s, { rows: n, cols: 1, count });
    ctx.gesvd(args(sa, ss));
    const [wantA, wantS] = [a.slice(), s.slice()];
    cpuContext.gesvd(args(wantA, wantS));
    assert.deepEqual(ctx.gather(sa), wantA);
    assert.deepEqual(ctx.gather(ss), wantS);
    assert.ok((log as string[]).includes('down0') && (log as string[]).includes('down1'), 'each lane ran its own part');
  });
});

describe('host staging in chunks (host/staging.ts) on a fake GPU', () => {
  const tiny = { chunkBytes: 256, maxChunks: 16 };
  /** Runs `op` through a HostCall with tiny chunks; returns the kernel launches' matrix counts. */
  function staged(op: OpName, request: Record<string, unknown>): number[] {
    const counts: number[] = [];
    const dev = new FakeDevice(0, []);
    const backend = fakeBackend(dev, counts);
    const call = new HostCall(dev, op, request, (r) => (backend[op] as unknown as (x: unknown) => void)(r), { tuning: tiny });
    try {
      call.enqueueRuns();
      call.enqueueDownloads();
    } finally {
      call.dispose();
    }
    assert.equal(dev.leaked, 0, 'every staging buffer freed');
    return counts;
  }
  const reference = (op: OpName, request: Record<string, unknown>): void => (cpuBackend[op] as unknown as (x: unknown) => void)(request);

  it('potrf with gaps between matrices and failures in the first and last chunk: gaps and info exact', () => {
    const n = 3, count = 11, stride = n * n + 5;
    const spd = spdWithFailures(n, count, [0, 10]);
    const a = new Float64Array(stride * count + 7).map(() => rng.next());
    for (let i = 0; i < count; i++) a.set(spd.subarray(i * n * n, (i + 1) * n * n), 2 + i * stride);
    const ref = a.slice();
    const info = new Int32Array(count + 2).fill(-7), refInfo = info.slice();
    const counts = staged('potrf', { uplo: 'lower', a: strided(a, { rows: n, count, stride, offset: 2 }), info });
    reference('potrf', { uplo: 'lower', a: strided(ref, { rows: n, count, stride, offset: 2 }), info: refInfo });
    assert.ok(counts.length > 1, `several chunks (${counts})`);
    assert.equal(counts.reduce((x, y) => x + y, 0), count);
    assert.deepEqual(a, ref);
    assert.deepEqual(info, refInfo);
    assert.ok(info[0]! > 0 && info[10]! > 0 && info[11] === -7, 'failing matrices reported; the element past the batch untouched');
  });

  it('gemm with a broadcast B (stride 0) and beta = 0 (C never uploaded), a batch of one', () => {
    const n = 4, count = 9;
    const a = randomMatrices('float64', n, n, count, rng) as Float64Array;
    const b = randomMatrices('float64', n, n, 1, rng) as Float64Array;
    const c = new Float64Array(n * n * count).fill(Number.NaN), ref = c.slice();
    const req = (cc: Float64Array, cnt: number) => ({ transA: 'N', transB: 'N', alpha: 1, beta: 0, a: strided(a, { rows: n, count: cnt }), b: strided(b, { rows: n, count: cnt, stride: 0 }), c: strided(cc, { rows: n, count: cnt }) });
    assert.ok(staged('gemm', req(c, count)).length > 1);
    reference('gemm', req(ref, count));
    assert.deepEqual(c, ref);
    const one = new Float64Array(n * n), refOne = one.slice();
    assert.deepEqual(staged('gemm', req(one, 1)), [1]);
    reference('gemm', req(refOne, 1));
    assert.deepEqual(one, refOne);
  });

  it('two calls in flight: the first holds the staging arena, the second allocates its own arrays', () => {
    const dev = new FakeDevice(0, []);
    const n = 4, count = 5;
    const mk = () => ({ uplo: 'lower', a: strided(randomSpd('float64', n, count, rng) as Float64Array, { rows: n, count }), info: new Int32Array(count) });
    const [r1, r2] = [mk(), mk()];
    const run = (r: Record<string, unknown>) => (fakeBackend(dev, [])['potrf'] as unknown as (x: unknown) => void)(r);
    const c1 = new HostCall(dev, 'potrf', r1, run);
    const arena = StagingArena.of(dev).buffer;
    const c2 = new HostCall(dev, 'potrf', r2, run);
    assert.equal(dev.leaked, 2, 'a and info of the second call');
    for (const c of [c1, c2]) { c.enqueueRuns(); c.enqueueDownloads(); c.dispose(); }
    assert.equal(dev.leaked, 0);
    assert.equal(StagingArena.of(dev).buffer, arena, 'the arena stays for the next call');
    assert.ok(r1.info.every((x) => x === 0) && r2.info.every((x) => x === 0));
  });

  it('gesv: pivots and info of every chunk land in place', () => {
    const n = 3, count = 10;
    const a = randomGeneral('float64', n, count, rng) as Float64Array;
    a.fill(0, 4 * n * n, 4 * n * n + n); // a singular matrix in the middle
    const b = randomMatrices('float64', n, 2, count, rng) as Float64Array;
    const [a2, b2] = [a.slice(), b.slice()];
    const ipiv = new Int32Array(n * count), info = new Int32Array(count);
    const [ipiv2, info2] = [ipiv.slice(), info.slice()];
    const req = (x: Float64Array, y: Float64Array, p: Int32Array, i: Int32Array) => ({ a: strided(x, { rows: n, count }), b: strided(y, { rows: n, cols: 2, count }), ipiv: p, info: i, pivotStride: n });
    assert.ok(staged('gesv', req(a, b, ipiv, info)).length > 1);
    reference('gesv', req(a2, b2, ipiv2, info2));
    assert.deepEqual([a, b, ipiv, info], [a2, b2, ipiv2, info2]);
    assert.ok(info[4]! > 0);
  });
});

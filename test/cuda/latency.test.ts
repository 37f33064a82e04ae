/**
 * The cheap dispatch path without a GPU: the pool of small int32 arrays (bounded, released by
 * dispose), the plan and kernel memos (found by identity, keyed as before), and the prepared
 * and captured calls' checks on a context over a stub driver (scripts/host-latency.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntPool } from '../../src/cuda/runtime/int-pool.js';
import { kernelFor, plannedOnce } from '../../src/cuda/kernels/common/kernel-cache.js';
import type { Kernel, KernelSource } from '../../src/cuda/runtime/types.js';
import { FakeDevice } from '../helpers/fake-gpus.js';
import { open } from '../../src/api/open.js';
import { Random, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { strided, type StridedBatch } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { OP_NAMES } from '../../src/core/ops.js';
import type { Storage } from '../../src/core/storage.js';
import { stubContext } from '../../scripts/host-latency.js';

describe('IntPool', () => {
  it('cuts views from slabs, stays within maxSlabs and frees them on dispose', () => {
    const dev = new FakeDevice(0, []);
    const pool = new IntPool(dev, { slabInts: 1024, maxSlabs: 2 });
    const views = [];
    for (let i = 0; i < 16; i++) views.push(pool.take(100)); // 128 ints each (aligned): 8 per slab
    assert.equal(pool.slabCount, 2);
    assert.equal(pool.unpooled, 0);
    assert.equal(dev.live.size, 2, 'views allocate nothing');
    const extra = pool.take(100);
    assert.equal(pool.unpooled, 1, 'past the bound: an allocation of its own');
    assert.equal(pool.slabCount, 2);
    assert.equal(extra.length, 100);
    assert.ok(views.every((v) => v.length === 100 && v.dtype === 'int32'));
    pool.take(600); // more than a quarter of a slab: its own allocation
    assert.equal(pool.unpooled, 2);
    pool.dispose();
    assert.equal(pool.slabCount, 0);
    assert.equal(dev.live.size, 2, 'only the two unpooled arrays remain');
  });

  it('hands out disjoint, aligned ranges', () => {
    const dev = new FakeDevice(0, []);
    const pool = new IntPool(dev, { slabInts: 4096, maxSlabs: 1 });
    const a = pool.take(5) as unknown as { host: Int32Array };
    const b = pool.take(7) as unknown as { host: Int32Array };
    a.host.fill(1);
    b.host.fill(2);
    assert.deepEqual([...a.host], [1, 1, 1, 1, 1]);
    assert.equal(b.host.byteOffset - a.host.byteOffset, 128);
  });
});

describe('kernel and plan memos', () => {
  const stub = (): { dev: FakeDevice; compiled: string[] } => {
    const compiled: string[] = [];
    const dev = new FakeDevice(0, []);
    dev.kernel = ((src: KernelSource): Kernel => {
      compiled.push(src.name);
      return { name: src.name, registers: 0, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024, launch: () => {} };
    }) as FakeDevice['kernel'];
    return { dev, compiled };
  };
  const source = (name: string) => (): KernelSource => ({ name, source: '', entry: 'k' });

  it('finds a kernel by its parameter object, and equal objects share one kernel', () => {
    const { dev, compiled } = stub();
    const p = { n: 8, dtype: 'float64' };
    const k1 = kernelFor(dev, 'demo', p, source('one'));
    const k2 = kernelFor(dev, 'demo', p, source('never'));
    const k3 = kernelFor(dev, 'demo', { n: 8, dtype: 'float64' }, source('never'));
    assert.equal(k1, k2);
    assert.equal(k1, k3, 'an equal object maps to the same JSON key');
    assert.notEqual(kernelFor(dev, 'other', p, source('two')), k1, 'the design is part of the key');
    assert.notEqual(kernelFor(dev, 'demo', { n: 9, dtype: 'float64' }, source('three')), k1);
    assert.deepEqual(compiled, ['one', 'two', 'three']);
  });

  it('plans once per key and device', () => {
    const { dev } = stub();
    const other = new FakeDevice(1, []);
    let plans = 0;
    const plan = (): object => ({ plan: ++plans });
    const a = plannedOnce(dev, 'k', plan);
    assert.equal(plannedOnce(dev, 'k', plan), a);
    assert.notEqual(plannedOnce(dev, 'k2', plan), a);
    assert.notEqual(plannedOnce(other, 'k', plan), a);
    assert.equal(plans, 3);
  });
});

describe('prepared calls', () => {
  const n = 4;
  const count = 3;
  const rng = new Random(7);
  const batch = <S extends Storage>(data: S, c = count): StridedBatch<S> => strided(data, { rows: n, count: c });

  it('on the CPU: the same results as plain calls, on the prepared storages and on new ones', () => {
    const ctx = open({ backend: 'cpu' });
    const [a, b] = [randomMatrices('float64', n, n, count, rng), randomMatrices('float64', n, n, count, rng)];
    const c1 = new Float64Array(n * n * count);
    const c2 = new Float64Array(n * n * count);
    ctx.gemm({ transA: 'T', alpha: 2, a: batch(a), b: batch(b), c: batch(c1) });
    const f = ctx.prepare.gemm({ transA: 'T', alpha: 2, a: batch(a), b: batch(new Float64Array(b.length)), c: batch(c2) });
    f({ b });
    assert.deepEqual(c2, c1);
    const c3 = new Float64Array(n * n * count);
    f({ b, c: c3 });
    assert.deepEqual(c3, c1);
    assert.equal(f.op, 'gemm');
  });

  it('potrf without info reuses the info of the preparation; a given info is written', () => {
    const ctx = open({ backend: 'cpu' });
    const spd = randomSpd('float64', n, count, rng);
    const a = spd.slice();
    const f = ctx.prepare.potrf({ a: batch(a) });
    const r1 = f();
    const a2 = spd.slice();
    a2[0] = -1; // matrix 0 not positive definite
    const r2 = f({ a: a2 });
    assert.equal(r1.info, r2.info);
    assert.deepEqual([...(r2.info as Int32Array)], [1, 0, 0]);
    const info = new Int32Array(count);
    assert.equal(f({ a: spd.slice(), info }).info, info);
    const plain = spd.slice();
    ctx.potrf({ a: batch(plain) });
    const again = spd.slice();
    f({ a: again });
    assert.deepEqual(again, plain);
  });

  it('a storage that does not fit throws a MyriadError naming the argument', () => {
    const ctx = open({ backend: 'cpu' });
    const a = randomMatrices('float64', n, n, count, rng);
    const f = ctx.prepare.gemm({ a: batch(a), b: batch(a), c: batch(new Float64Array(a.length)) });
    const fails = (storages: object, argument: string, code = 'INVALID_ARGUMENT') =>
      assert.throws(() => f(storages), (e: unknown) => e instanceof MyriadError && e.argument === argument && e.code === code, JSON.stringify(Object.keys(storages)));
    fails({ c: new Float32Array(a.length) }, 'c');
    fails({ c: new Float64Array(a.length - 1) }, 'c', 'BOUNDS');
    fails({ a: new Float64Array(a.length) }, 'b'); // a and b shared one array when prepared
    fails({ c: a }, 'c', 'LAYOUT'); // the output overlapping an input
    fails({ d: a }, 'd');
    fails({ c: 3 }, 'c');
    const shared = new Float64Array(a.length);
    f({ a: shared, b: shared });
    const p = ctx.prepare.potrf({ a: batch(randomSpd('float64', n, count, rng)), info: new Int32Array(count) });
    assert.throws(() => p({ info: new Int32Array(count - 1) }), (e: unknown) => e instanceof MyriadError && e.argument === 'info' && e.code === 'BOUNDS');
    assert.throws(() => p({ info: new Float64Array(count) as never }), (e: unknown) => e instanceof MyriadError && e.argument === 'info');
  });

  it('on a CUDA context (stub driver): device storages must be alive and of the same device', () => {
    const { ctx, device } = stubContext();
    const len = n * n * count;
    const [a, b, c] = [ctx.alloc('float64', len), ctx.alloc('float64', len), ctx.alloc('float64', len)];
    const f = ctx.prepare.gemm({ a: batch(a), b: batch(b), c: batch(c) });
    f();
    f({ a: ctx.alloc('float64', len) });
    const launches = [...device.kernels.values()].reduce((s, k) => s + k.launches, 0);
    assert.equal(launches, 2);
    const gone = ctx.alloc("float64", len) as unknown as { dispose(): void };
    gone.dispose();
    assert.throws(() => f({ a: gone as never }), (e: unknown) => e instanceof MyriadError && e.argument === 'a' && e.code === 'DISPOSED');
    assert.throws(() => f({ a: new Float64Array(len) }), (e: unknown) => e instanceof MyriadError && e.argument === 'a');
    assert.throws(() => f({ b: ctx.alloc('float32', len) }), (e: unknown) => e instanceof MyriadError && e.argument === 'b');
    const other = new FakeDevice(1, []).alloc('float64', len);
    assert.throws(() => f({ c: other }), (e: unknown) => e instanceof MyriadError && e.argument === 'c');
  });

  it('every operation of the table can be prepared', () => {
    assert.deepEqual(Object.keys(open({ backend: 'cpu' }).prepare).sort(), [...OP_NAMES].sort());
  });
});

describe('captured pipelines', () => {
  const n = 4;
  const count = 2;
  const batch = <S extends Storage>(data: S): StridedBatch<S> => strided(data, { rows: n, count });

  it('on the CPU: runs once, and replay runs the closure again', () => {
    const ctx = open({ backend: 'cpu' });
    let runs = 0;
    const c = new Float64Array(n * n * count);
    const cap = ctx.capture(() => { runs++; ctx.gemm({ a: batch(new Float64Array(c.length).fill(1)), b: batch(new Float64Array(c.length).fill(1)), beta: 1, c: batch(c) }); });
    assert.equal(runs, 1);
    cap.replay();
    assert.equal(runs, 2);
    assert.equal(c[0], 2 * n);
    cap.dispose();
    assert.throws(() => cap.replay(), (e: unknown) => e instanceof MyriadError && e.code === 'DISPOSED');
  });

  it('on a CUDA context (stub driver): device data only; replay checks the arrays are alive; dispose frees captures', () => {
    const { ctx, device } = stubContext();
    const len = n * n * count;
    const [a, b, c] = [ctx.alloc('float64', len), ctx.alloc('float64', len), ctx.alloc('float64', len)];
    assert.throws(() => ctx.capture(() => ctx.gemm({ a: batch(a), b: batch(new Float64Array(len)) as never, c: batch(c) })),
      (e: unknown) => e instanceof MyriadError && e.argument === 'b' && /device data/.test(e.message));
    assert.throws(() => ctx.capture(() => { ctx.gemm({ a: batch(a), b: batch(b), c: batch(c) }); void ctx.synchronize(); }),
      (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED');
    assert.throws(() => ctx.capture(() => { ctx.alloc('float64', 4); }), (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED');
    assert.throws(() => ctx.capture(() => { ctx.capture(() => {}); }), (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED');
    let info: unknown;
    const cap = ctx.capture(() => {
      ctx.gemm({ a: batch(a), b: batch(b), c: batch(c) });
      info = ctx.potrf({ a: batch(c) }).info;
    });
    cap.replay();
    cap.replay();
    assert.equal(device.replays, 2);
    assert.ok(info !== undefined);
    (b as unknown as { dispose(): void }).dispose();
    assert.throws(() => cap.replay(), (e: unknown) => e instanceof MyriadError && e.code === 'DISPOSED');
    assert.equal(device.replays, 2, 'nothing launched');
    const cap2 = ctx.capture(() => ctx.potrf({ a: batch(a) }));
    ctx.dispose();
    assert.ok(cap2.disposed);
    assert.throws(() => cap2.replay(), (e: unknown) => e instanceof MyriadError && e.code === 'DISPOSED');
  });

  it('calls work as usual after a failed capture', () => {
    const { ctx } = stubContext();
    const a = ctx.alloc('float64', n * n * count);
    assert.throws(() => ctx.capture(() => ctx.potrf({ a: batch(new Float64Array(n * n * count)) as never })));
    ctx.potrf({ a: batch(a) });
    void ctx.synchronize();
  });
});

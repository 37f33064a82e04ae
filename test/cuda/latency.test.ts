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

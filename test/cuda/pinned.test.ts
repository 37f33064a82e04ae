/**
 * The page-locked registration cache (runtime/pinned.ts) against a recording fake of the two
 * driver calls: when a buffer is registered, that it is registered once, the bound, and that a
 * registration whose ArrayBuffer is gone (detached, another object at the same memory) is dropped
 * before any copy could trust it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressOf, PinnedRegistry } from '../../src/cuda/runtime/pinned.js';
import type { CudaDriverApi } from '../../src/cuda/runtime/ffi-cuda.js';

function fakeApi(): { api: CudaDriverApi; registered: Map<bigint, number>; log: string[] } {
  const registered = new Map<bigint, number>();
  const log: string[] = [];
  const api = {
    cuMemHostRegister_v2(host: ArrayBufferView, bytes: number): number {
      const at = addressOf(host);
      if (registered.has(at)) return 712;
      registered.set(at, bytes);
      log.push(`register ${bytes}`);
      return 0;
    },
    cuMemHostUnregister(at: bigint): number {
      if (!registered.delete(at)) return 713;
      log.push('unregister');
      return 0;
    },
    cuGetErrorName: () => 0,
    cuGetErrorString: () => 0,
  } as unknown as CudaDriverApi;
  return { api, registered, log };
}

const MiB = 2 ** 20;

describe('pinned host memory cache', () => {
  it('small buffers stay pageable; others on their second call, large ones at once, each once', () => {
    const { api, log } = fakeApi();
    const reg = new PinnedRegistry(api, { minBytes: MiB, maxBytes: 64 * MiB, eagerBytes: 8 * MiB });
    assert.equal(reg.pin(new Float64Array(1000)), false, 'below minBytes');
    const mid = new Float64Array((2 * MiB) / 8);
    assert.equal(reg.pin(mid), false, 'first sight of a mid-size buffer');
    assert.equal(reg.pin(mid.subarray(10)), true, 'second call (any view of the buffer)');
    assert.equal(reg.pin(mid), true);
    const big = new Float32Array((8 * MiB) / 4);
    assert.equal(reg.pin(big), true, 'eager');
    assert.equal(reg.pin(new Float64Array(10), true), false, 'now, but below minBytes');
    assert.deepEqual(log, [`register ${2 * MiB}`, `register ${8 * MiB}`]);
    assert.deepEqual(reg.stats, { bytes: 10 * MiB, buffers: 2 });
  });

  it('the bound: least recently used out first', () => {
    const { api, registered } = fakeApi();
    const reg = new PinnedRegistry(api, { minBytes: MiB, maxBytes: 20 * MiB, eagerBytes: MiB });
    const [a, b, c] = [0, 1, 2].map(() => new Float64Array((8 * MiB) / 8));
    reg.pin(a!); reg.pin(b!);
    reg.pin(a!); // a used more recently than b
    reg.pin(c!);
    assert.equal(reg.stats.buffers, 2);
    assert.ok(registered.has(addressOf(a!)) && registered.has(addressOf(c!)) && !registered.has(addressOf(b!)));
    assert.equal(reg.pin(new Float64Array((32 * MiB) / 8)), false, 'larger than the whole bound');
  });

  it('a detached buffer: its registration is dropped and the new owner of the memory registers afresh', () => {
    const { api, log } = fakeApi();
    const reg = new PinnedRegistry(api, { minBytes: MiB, maxBytes: 64 * MiB, eagerBytes: MiB });
    const a = new Float64Array((4 * MiB) / 8);
    assert.equal(reg.pin(a), true);
    const moved = new Float64Array(structuredClone(a.buffer, { transfer: [a.buffer] }));
    reg.guard(moved); // what every copy does first
    assert.equal(reg.stats.buffers, 0, 'the stale registration is gone before a copy could trust it');
    assert.equal(reg.pin(moved, true), true);
    assert.deepEqual(log, [`register ${4 * MiB}`, 'unregister', `register ${4 * MiB}`]);
    reg.clear();
    assert.deepEqual(reg.stats, { bytes: 0, buffers: 0 });
  });
});

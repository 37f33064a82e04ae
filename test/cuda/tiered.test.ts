/**
 * Quick builds (runtime/tiered.ts) without a GPU: which sources get one, the kernel that switches
 * from its quick build to its optimised one (fake kernels and builds), the background builds
 * shared per key, and the compile pool's batches collected in any order.
 */
// run-tests: process nvrtc-unloadable (tiered and warm point MYRIAD_LIBNVRTC at the same missing path, for their compile-pool tests alone, and restore it)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackgroundBuilds } from '../../src/cuda/runtime/background-builds.js';
import { CompilePool } from '../../src/cuda/runtime/compile-pool.js';
import { ModuleCache } from '../../src/cuda/runtime/module-cache.js';
import { QUICK_BUILD_OPTION, quickFirst, quickRequest, TieredKernel, wantsQuickBuild, type PendingBuild } from '../../src/cuda/runtime/tiered.js';
import type { Kernel, LaunchConfig } from '../../src/cuda/runtime/types.js';

test('a quick build for sources that unroll loops, not for those that do not; its request differs only by the option', () => {
  assert.equal(wantsQuickBuild('#pragma unroll\n  for (int i = 0; i < 8; ++i) {}'), true);
  assert.equal(wantsQuickBuild('#pragma unroll 4\n'), true);
  assert.equal(wantsQuickBuild('#pragma unroll 16\n'), true);
  assert.equal(wantsQuickBuild('#pragma unroll 1\n  for (;;) {}'), false);
  assert.equal(wantsQuickBuild('#pragma unroll(1)\n'), false);
  assert.equal(wantsQuickBuild('extern "C" __global__ void k() {}'), false);
  const r = { name: 'k.cu', source: 's', options: ['--gpu-architecture=sm_90', '-std=c++17'] };
  assert.deepEqual(quickRequest(r), { ...r, options: [...r.options, QUICK_BUILD_OPTION] });
  assert.deepEqual(r.options, ['--gpu-architecture=sm_90', '-std=c++17'], 'the request itself is unchanged');
  assert.equal(quickFirst({}), true);
  assert.equal(quickFirst({ MYRIAD_QUICK_FIRST: '0' }), false);
});

class FakeKernel implements Kernel {
  launches = 0;
  readonly registers = 32;
  readonly staticSharedBytes = 0;
  readonly localBytes = 0;
  constructor(readonly name: string, readonly maxThreadsPerBlock = 1024) {}
  launch(): void { this.launches++; }
}

class FakeBuild implements PendingBuild {
  ready = false;
  settled = 0;
  done(): boolean { return this.ready; }
  settle(): void { this.settled++; this.ready = true; }
  stored(): Promise<void> { return Promise.resolve(); }
}

const config = (threads: number): LaunchConfig => ({ grid: [1, 1, 1], block: [threads, 1, 1] });

test('a tiered kernel: its quick build serves the call that made it; a later call, a finished build or a launch the quick build cannot take switch it', () => {
  for (const how of ['later call', 'build done', 'too many threads'] as const) {
    const quick = new FakeKernel('quick', 256), optimised = new FakeKernel('optimised');
    const build = new FakeBuild();
    let call = 7, loads = 0;
    const k = new TieredKernel(quick, build, () => { loads++; return optimised; }, () => call, 7);
    k.launch(config(128), []);
    k.launch(config(128), []);
    assert.equal(quick.launches, 2, `${how}: the first call runs the quick build`);
    assert.equal(k.quick, true);
    assert.equal(build.settled, 0, 'nothing waited for');
    if (how === 'later call') call++;
    if (how === 'build done') build.ready = true;
    k.launch(config(how === 'too many threads' ? 512 : 128), []);
    k.launch(config(128), []);
    assert.equal(quick.launches, 2, how);
    assert.equal(optimised.launches, 2, how);
    assert.equal(loads, 1, `${how}: the optimised build loaded once`);
    assert.equal(k.quick, false);
    assert.equal(k.name, 'optimised');
    assert.equal(build.settled, 1, `${how}: the build settled once (its binaries stored) before the load`);
  }
});

test('upgrade() waits for the optimised build and is idempotent', () => {
  const build = new FakeBuild();
  const optimised = new FakeKernel('optimised');
  const k = new TieredKernel(new FakeKernel('quick'), build, () => optimised, () => 0, 0);
  k.upgrade();
  k.upgrade();
  assert.equal(build.settled, 1);
  k.launch(config(32), []);
  assert.equal(optimised.launches, 1);
});

/** NVRTC made unloadable for `fn` (the workers then answer every job with an error). */
async function withoutNvrtc(fn: () => Promise<void>): Promise<void> {
  const saved = process.env['MYRIAD_LIBNVRTC'];
  process.env['MYRIAD_LIBNVRTC'] = '/nonexistent/libnvrtc.so';
  try {
    await fn();
  } finally {
    if (saved === undefined) delete process.env['MYRIAD_LIBNVRTC'];
    else process.env['MYRIAD_LIBNVRTC'] = saved;
  }
}

const requests = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `${tag}${i}.cu`, source: `extern "C" __global__ void ${tag}${i}() {}`, options: ['--gpu-architecture=sm_90'], arch: 'sm_90' }));

test('the compile pool: batches on the same workers collected in any order each get all their own outcomes', () => withoutNvrtc(async () => {
  const pool = new CompilePool(2);
  try {
    const first = pool.submit(requests('a', 3)), second = pool.submit(requests('b', 4));
    const late = pool.waitSync(second);
    const early = await pool.wait(first);
    assert.equal(late.length, 4);
    assert.equal(early.length, 3);
    for (const o of [...late, ...early]) {
      assert.notEqual(o.error, 'not compiled by a worker', 'a result went to the wrong batch or was dropped');
      assert.match(o.error ?? '', /nvrtc/i);
    }
    assert.equal(first.done() && second.done(), true);
    assert.strictEqual(pool.waitSync(first), early, 'collected once');
  } finally {
    await pool.close();
  }
}));

test('background builds: one per key while pending, settled once, nothing stored from a failed build', () => withoutNvrtc(async () => {
  const pool = new CompilePool(1);
  let compiles = 0;
  const cache = new ModuleCache({ compile: () => { compiles++; return new Uint8Array([1]); }, nvrtcVersion: '13.0', driverVersion: '13.0', dir: null });
  const builds = new BackgroundBuilds(() => pool, () => cache);
  try {
    const rs = requests('c', 2);
    const [p0, p1] = builds.start(rs);
    const [again] = builds.start([rs[0]!]);
    assert.strictEqual(again, p0, 'a pending key is not compiled twice');
    assert.strictEqual(p1, p0, 'one batch for the requests started together');
    builds.settleAll();
    assert.equal(p0!.done(), true);
    assert.equal(cache.has(rs[0]!), false, 'a failed build is left for the kernel\'s own load to compile and report');
    assert.equal(compiles, 0, 'the cache compiled nothing itself');
    const [fresh] = builds.start([rs[0]!]);
    assert.notStrictEqual(fresh, p0, 'once settled, a key may be built again');
    fresh!.settle();
  } finally {
    await pool.close();
  }
}));

test('builds started ahead: found by key while pending (background ones are not), stored() settles after a failed batch too', () => withoutNvrtc(async () => {
  const background = new CompilePool(1), urgent = new CompilePool(1);
  const cache = new ModuleCache({ compile: () => new Uint8Array([1]), nvrtcVersion: '13.0', driverVersion: '13.0', dir: null });
  const builds = new BackgroundBuilds(() => background, () => cache);
  try {
    const [plain] = builds.start(requests('d', 1));
    const aheadRequests = requests('e', 2);
    const [a0, a1] = builds.start(aheadRequests, { pool: urgent, ahead: true });
    assert.equal(builds.aheadOf(cache.keyOf(requests('d', 1)[0]!)), undefined, 'a background build is not an ahead one');
    assert.strictEqual(builds.aheadOf(cache.keyOf(aheadRequests[1]!)), a1);
    assert.strictEqual(a0, a1, 'one batch');
    await a0!.stored();
    assert.equal(a0!.done(), true);
    assert.equal(builds.aheadOf(cache.keyOf(aheadRequests[0]!)), undefined, 'no longer pending once stored');
    assert.equal(cache.has(aheadRequests[0]!), false, 'nothing stored from the failed compiles');
    await plain!.stored();
  } finally {
    await Promise.all([background.close(), urgent.close()]);
  }
}));

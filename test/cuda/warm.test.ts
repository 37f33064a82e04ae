/**
 * ctx.warm and the in-call prefetch without a GPU: the kernels warm plans for a shape are exactly
 * those the call itself asks the device for (captured on a recording fake device, through the same
 * public API and CUDA backend), the prefetch hands the device that same list before the call loads
 * any kernel, and the CPU backend's warm does nothing and says so.
 */
// run-tests: process nvrtc-unloadable (tiered and warm point MYRIAD_LIBNVRTC at the same missing path, for their compile-pool tests alone, and restore it)
import assert from 'node:assert/strict';
import test from 'node:test';
import { execFile } from 'node:child_process';
import { Context, open } from '../../src/index.js';
import { planWarmCalls, warmShapes, type WarmOp, type WarmOptions } from '../../src/api/warm.js';
import { strided, list } from '../../src/core/batch.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { CudaBackend, planSignature } from '../../src/cuda/backend.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import { CompilePool, compileThreads } from '../../src/cuda/runtime/compile-pool.js';
import type { Kernel, KernelSource, PrefetchReport } from '../../src/cuda/runtime/types.js';
import { FakeDevice } from '../helpers/fake-gpus.js';
import { runDemo } from '../../src/bench/demo.js';
import { H100 } from '../helpers/devices.js';

/** A fake GPU (an H100's attributes) whose kernels record the sources asked for and run nothing; prefetches recorded too. */
class Recorder extends FakeDevice {
  readonly loaded: KernelSource[] = [];
  readonly prefetched: KernelSource[][] = [];
  /** loaded.length when each prefetch came. */
  readonly prefetchAt: number[] = [];
  constructor() {
    super(0, []);
    (this as { info: FakeDevice['info'] }).info = { ...H100 };
  }
  override kernel(src?: KernelSource): Kernel {
    this.loaded.push(src!);
    return { name: src!.entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024, launch: () => {} };
  }
  prefetch(sources: readonly KernelSource[]): PrefetchReport {
    this.prefetched.push([...sources]);
    this.prefetchAt.push(this.loaded.length);
    return { kernels: sources.length, cached: 0, compiled: sources.length, failed: 0, ms: 0, compileMs: 0, compiles: [] };
  }
  async prefetchAsync(sources: readonly KernelSource[]): Promise<PrefetchReport> {
    return this.prefetch(sources);
  }
  side(fn: () => void): void { fn(); }
  joinSide(): void {}
}

const ids = (sources: readonly KernelSource[]): string[] => [...new Set(sources.map((s) => `${s.name} ${s.entry} ${(s.options ?? []).join(' ')} ${s.source.length}:${hash(s.source)}`))];
function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/** What warm plans for op at one shape (on an H100's attributes). */
function warmPlan(op: WarmOp, options: WarmOptions): KernelSource[] {
  const device = new PlanningDevice({ ...H100 });
  const backend = new CudaBackend(device, 'planning');
  const { dtype, shapes } = warmShapes(op, options);
  planWarmCalls(new Context('cuda', backend, backend, () => {}), op, dtype, shapes, options);
  return device.sources;
}

/** What the real call path asks the device for: the same public call on a recording device, through the CUDA backend. */
function callPlan(op: WarmOp, options: WarmOptions): { loaded: KernelSource[]; recorder: Recorder } {
  const recorder = new Recorder();
  const backend = new CudaBackend(recorder, 'recording');
  const { dtype, shapes } = warmShapes(op, options);
  planWarmCalls(new Context('cuda', backend, backend, () => {}), op, dtype, shapes, options);
  return { loaded: recorder.loaded, recorder };
}

// Shapes over the designs: the small register kernels, the blocked drivers (many kernels), syev's rows design.
const CASES: [WarmOp, WarmOptions][] = [
  ['gemm', { sizes: [8, 33], count: 100 }],
  ['gemm', { sizes: [128], count: 2, dtype: 'float32' }],
  ['potrf', { sizes: [8, 128], count: 50 }],
  ['getrf', { sizes: [128], count: 10 }],
  ['getrf', { sizes: [512], count: 1 }],
  ['getrf', { sizes: [1100], count: 1, dtype: 'float32' }],
  ['getrf', { sizes: [1024], count: 1 }],
  ['posv', { sizes: [8, 256], count: 3 }],
  ['gesv', { sizes: [64], count: 100 }],
  ['syev', { sizes: [32], count: 10 }],
  ['trsm', { sizes: [40], count: 5 }],
  ['getri', { sizes: [8, 100], count: 4 }],
];

for (const [op, options] of CASES) {
  test(`warm ${op} ${options.dtype ?? 'float64'} n=${options.sizes.join(',')} x ${String(options.count)}: exactly the kernels the call compiles, and the call's prefetch hands them over first`, () => {
    const planned = warmPlan(op, options);
    const { loaded, recorder } = callPlan(op, options);
    assert.ok(planned.length > 0, 'warm plans something');
    assert.deepEqual(ids(planned), ids(loaded), 'warm\'s list is the call\'s, in the same order');
    // The prefetch (CudaBackend.run): before the call loaded any kernel, with that call's kernels (where two or more).
    const many = options.sizes.length === 1 && ids(planned).length >= 2;
    if (many) {
      assert.equal(recorder.prefetched.length, 1, 'one prefetch for a call of several kernels');
      assert.equal(recorder.prefetchAt[0], 0, 'before the call loaded any kernel');
      assert.deepEqual(ids(recorder.prefetched[0]!), ids(planned));
    }
  });
}

test('the prefetch runs once per call signature: a second call of the same shape plans nothing', () => {
  const recorder = new Recorder();
  const backend = new CudaBackend(recorder, 'recording');
  const ctx = new Context('cuda', backend, backend, () => {});
  const a = strided(ctx.alloc('float64', 1024 * 1024) as DeviceStorage, { rows: 1024, count: 1 });
  ctx.getrf({ a });
  ctx.getrf({ a });
  assert.equal(recorder.prefetched.length, 1);
});

test('the prefetch of a request like the last one (the same batches and scalars) is skipped; any other field value is a new request', () => {
  const recorder = new Recorder();
  const backend = new CudaBackend(recorder, 'recording');
  const ctx = new Context('cuda', backend, backend, () => {});
  const big = ctx.alloc('float64', 1024 * 1024) as DeviceStorage;
  const a = strided(big, { rows: 1024, count: 1 }), b = strided(big, { rows: 512, count: 1 });
  for (const x of [a, a, b, b, a]) ctx.getrf({ a: x });
  assert.equal(recorder.prefetched.length, 2, 'one prefetch a shape');
  ctx.getrf({ a: strided(big, { rows: 512, count: 2, stride: 512 * 512 }) });
  assert.equal(recorder.prefetched.length, 3, 'another count, another signature');
  // The same batch object, another scalar: not the last request.
  ctx.potrf({ a, uplo: 'lower' });
  const before = recorder.prefetched.length;
  ctx.potrf({ a, uplo: 'lower' });
  assert.equal(recorder.prefetched.length, before);
  ctx.potrf({ a, uplo: 'upper' });
  assert.equal(recorder.prefetched.length, before + 1, 'upper after lower on the same batch: prefetched');
});

test('planSignature: shapes, dtypes, scalars; none for list batches', () => {
  const d = new PlanningDevice({ ...H100 });
  const x = d.alloc('float64', 64 * 10), y = d.alloc('float64', 64 * 10), z = d.alloc('float32', 64 * 10);
  const s1 = planSignature('potrf', { a: strided(x, { rows: 8, count: 10 }), uplo: 'lower' });
  assert.equal(s1, planSignature('potrf', { a: strided(y, { rows: 8, count: 10 }), uplo: 'lower' }), 'the same shape on other memory');
  assert.notEqual(s1, planSignature('potrf', { a: strided(y, { rows: 8, count: 10 }), uplo: 'upper' }));
  assert.notEqual(s1, planSignature('potrf', { a: strided(y, { rows: 8, count: 5 }), uplo: 'lower' }));
  assert.notEqual(s1, planSignature('potrf', { a: strided(z, { rows: 8, count: 10 }), uplo: 'lower' }));
  assert.equal(planSignature('potrf', { a: list([{ data: x, offset: 0 }], { rows: 8 }), uplo: 'lower' }), undefined);
});

test('the planning device holds no memory: planning a 10240 x 10240 float32 getrf allocates nothing', () => {
  const before = process.memoryUsage().arrayBuffers;
  const planned = warmPlan('getrf', { sizes: [10240], dtype: 'float32', count: 1 });
  assert.ok(planned.length >= 5, `${planned.length} kernels`);
  assert.ok(process.memoryUsage().arrayBuffers - before < 64 << 20);
});

test('on the CPU backend warm does nothing, at once, and says so', async () => {
  const ctx = open({ backend: 'cpu' });
  const r = await ctx.warm('getrf', { sizes: [8, 512], dtype: 'float64' });
  assert.equal(r.kernels, 0);
  assert.equal(r.compiled, 0);
  assert.match(r.note ?? '', /nothing to warm/);
  assert.ok(r.ms < 1000);
  assert.deepEqual(r.shapes.map((s) => s.n), [8, 512]);
  await assert.rejects(ctx.warm('nope' as WarmOp, { sizes: [8] }), /warm takes one of/);
  await assert.rejects(ctx.warm('getrf', { sizes: [0] }), /positive integers/);
});

test('the compile pool: workers answer every job (here NVRTC is made unloadable: each job an error, none lost), blocking and awaited', async () => {
  const saved = process.env['MYRIAD_LIBNVRTC'];
  process.env['MYRIAD_LIBNVRTC'] = '/nonexistent/libnvrtc.so';
  const pool = new CompilePool(2);
  try {
    const requests = [1, 2, 3].map((i) => ({ name: `k${i}.cu`, source: `extern "C" __global__ void k${i}() {}`, options: ['--gpu-architecture=sm_90'] }));
    for (const outcomes of [pool.compileSync(requests), await pool.compile(requests)]) {
      assert.equal(outcomes.length, 3);
      for (const o of outcomes) assert.match(o.error ?? '', /nvrtc/i);
    }
    assert.deepEqual(pool.compileSync([]), []);
    assert.equal(pool.worthIt(1), false);
    assert.equal(new CompilePool(1).worthIt(5), false, 'one thread: compile on the caller\'s');
    assert.equal(compileThreads({ MYRIAD_COMPILE_THREADS: '0' }), 0);
  } finally {
    await pool.close();
    if (saved === undefined) delete process.env['MYRIAD_LIBNVRTC'];
    else process.env['MYRIAD_LIBNVRTC'] = saved;
  }
});

test('a process that starts the compile workers and ends at once exits cleanly, by itself or by process.exit() (a worker ended while koffi loads aborts it)', async () => {
  const pool = new URL('../../src/cuda/runtime/compile-pool.js', import.meta.url).href;
  // Four processes of eight workers, ending 0-2 ms after the start, two by themselves and two by
  // process.exit(0). Without the wait at 'exit', one or more aborted (exit 134) in four to five of
  // six runs of this test on a 2-core machine (the race is the machine's: a pass is not proof).
  // NVRTC is pointed at a missing path: the abort is koffi's load, and the workers start sooner.
  const env = { ...process.env, MYRIAD_LIBNVRTC: '/nonexistent/libnvrtc.so' };
  const endings = ['setTimeout(() => {}, 0)', 'setTimeout(() => {}, 2)', 'process.exit(0)', 'setTimeout(() => process.exit(0), 2)'];
  const runs = endings.map((end) => new Promise<number | null>((resolve) => {
    const script = `import(${JSON.stringify(pool)}).then((m) => { new m.CompilePool(8).prestart(); ${end}; });`;
    execFile(process.execPath, ['-e', script], { env }, (error) => resolve(error === null ? 0 : (error.code as number | null) ?? null));
  }));
  assert.deepEqual(await Promise.all(runs), endings.map(() => 0));
});

test('the demo (npm start) asks for every case\'s kernels, one prefetch a case, before its first call', async () => {
  const recorder = new Recorder();
  const backend = new CudaBackend(recorder, 'recording');
  const ctx = new Context('cuda', backend, backend, () => {});
  await runDemo(ctx, 'float64', [{ name: 'posv', n: 8, batch: 100, nrhs: 1 }, { name: 'gesv', n: 64, batch: 10, nrhs: 1 }]);
  // The first two prefetches are the demo's, one per case (a call of several kernels prefetches its own after).
  assert.deepEqual(recorder.prefetchAt.slice(0, 2), [0, 0], 'both before any kernel was loaded');
  assert.deepEqual(ids(recorder.prefetched.slice(0, 2).flat()), ids(recorder.loaded), 'the demo\'s prefetches are exactly what its calls load');
  assert.deepEqual(ids(recorder.prefetched[0]!), ids(recorder.loaded.slice(0, 1)), 'the first case\'s own kernel');
  assert.ok(ids(recorder.prefetched[1]!).length >= 2, 'gesv: the LU and the solve');
});

/**
 * The host path (cuda/host/staging.ts, runtime/pinned.ts) on a real GPU: host calls give, bit for
 * bit, what the same call gives on device-resident copies of the data, for every GPU operation,
 * staged in several chunks (batches not a multiple of the chunk, a batch of one, failing matrices
 * in the first and last chunk); registered buffers reused and detached; out-of-memory for the
 * staging; the asynchronous form with two calls in flight on one context.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { open, strided, type Context, type DeviceStorage, type FloatArray } from '../../src/index.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { cudaRuntime } from '../../src/cuda/runtime/runtime.js';
import type { CudaDevice } from '../../src/cuda/runtime/device.js';
import { gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

const bits = (x: ArrayBufferView): Uint8Array => new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
function identical(got: ArrayBufferView, want: ArrayBufferView, what: string): void {
  const [g, w] = [bits(got), bits(want)];
  assert.equal(g.length, w.length, what);
  const i = g.findIndex((v, k) => v !== w[k]);
  assert.equal(i, -1, `${what}: first differing byte ${i}`);
}

/** A SPD batch whose matrices `failing` are made indefinite. */
function spdWithFailures(n: number, count: number, failing: number[], rng: Random): Float64Array {
  const a = randomSpd('float64', n, count, rng) as Float64Array;
  for (const i of failing) a[i * n * n + (n - 1) * (n + 1)] = -1;
  return a;
}

type Op = (ctx: Context, xs: FloatArray[]) => unknown;

/** The call on host arrays, then on device copies of the same inputs: every output bit-identical. */
function hostEqualsDevice(ctx: Context, inputs: FloatArray[], call: Op, what: string): void {
  const host = inputs.map((x) => x.slice());
  const dev = inputs.map((x) => ctx.upload(x) as DeviceStorage);
  const rHost = call(ctx, host);
  const rDev = call(ctx, dev as unknown as FloatArray[]);
  dev.forEach((d, i) => identical(ctx.download(d) as FloatArray, host[i]!, `${what}: array ${i}`));
  for (const key of ['info', 'ipiv'] as const) {
    const h = (rHost as Record<string, Int32Array> | undefined)?.[key];
    const d = (rDev as Record<string, DeviceStorage> | undefined)?.[key];
    if (h && d) identical(ctx.download(d), h, `${what}: ${key}`);
  }
}

describe('host path: host calls = device-resident calls, bit for bit', { skip }, () => {
  const ctx = open({ backend: 'cuda' });
  const backend = ctx.deviceBackend as CudaBackend;
  const rng = new Random(77);

  it('every GPU operation, staged in several chunks, failures in the first and last chunk', () => {
    backend.stagingTuning = { chunkBytes: 64 * 1024, maxChunks: 16 };
    try {
      for (const n of [3, 8, 32, 33]) {
        for (const count of [1, 97, 1001]) {
          const fail = count > 1 ? [0, count - 1] : [0];
          const spd = () => spdWithFailures(n, count, fail, rng);
          const gen = () => { const a = randomGeneral('float64', n, count, rng) as Float64Array; a.fill(0, (count - 1) * n * n, (count - 1) * n * n + n); return a; };
          const rhs = () => randomMatrices('float64', n, 5, count, rng);
          const A = (x: FloatArray) => strided(x, { rows: n, count });
          const B = (x: FloatArray) => strided(x, { rows: n, cols: 5, count });
          const w = `n=${n} count=${count}`;
          hostEqualsDevice(ctx, [spd()], (c, [a]) => c.potrf({ a: A(a!), uplo: 'lower' }), `potrf ${w}`);
          hostEqualsDevice(ctx, [spd(), rhs()], (c, [a, b]) => c.posv({ a: A(a!), b: B(b!), uplo: 'upper' }), `posv ${w}`);
          hostEqualsDevice(ctx, [spd(), rhs()], (c, [a, b]) => c.potrs({ a: A(a!), b: B(b!) }), `potrs ${w}`);
          hostEqualsDevice(ctx, [gen()], (c, [a]) => c.getrf({ a: A(a!) }), `getrf ${w}`);
          hostEqualsDevice(ctx, [gen(), rhs()], (c, [a, b]) => c.gesv({ a: A(a!), b: B(b!) }), `gesv ${w}`);
          const g = randomMatrices('float64', n, n, count, rng);
          hostEqualsDevice(ctx, [g, randomMatrices('float64', n, n, 1, rng), randomMatrices('float64', n, n, count, rng)],
            (c, [a, b, cc]) => c.gemm({ a: A(a!), b: strided(b!, { rows: n, count, stride: 0 }), c: A(cc!), beta: 0 }), `gemm broadcast B ${w}`);
          hostEqualsDevice(ctx, [g, randomMatrices('float64', n, n, count, rng), randomMatrices('float64', n, n, count, rng)],
            (c, [a, b, cc]) => c.gemm({ a: A(a!), b: A(b!), c: A(cc!), alpha: -0.5, beta: 2 }), `gemm beta=2 ${w}`);
        }
      }
    } finally {
      backend.stagingTuning = undefined;
    }
  });

  it('duplex and after-all on page-locked arrays, several chunks: host calls = device calls, bit for bit', () => {
    backend.stagingTuning = { chunkBytes: 1 << 20, maxChunks: 16 };
    const outputs = backend.hostOutputs;
    try {
      for (const mode of ['duplex', 'after-all'] as const) {
        backend.hostOutputs = mode;
        const n = 16, count = 20_000; // 40 MiB: page-locked on its second call
        const a0 = spdWithFailures(n, count, [0, 9_999, count - 1], rng);
        const b0 = randomMatrices('float64', n, 3, count, rng) as Float64Array;
        const [a, b] = [a0.slice(), b0.slice()];
        const info = new Int32Array(count);
        const A = strided(a, { rows: n, count }), B = strided(b, { rows: n, cols: 3, count });
        const pinned = cudaRuntime().pinned();
        const registered = pinned.stats.buffers;
        for (let call = 0; call < 2; call++) {
          a.set(a0); b.set(b0);
          ctx.posv({ a: A, b: B, uplo: 'lower', info });
        }
        assert.ok(pinned.stats.buffers > registered, 'the arrays page-locked by their second call');
        const [da, db] = [ctx.upload(a0) as DeviceStorage, ctx.upload(b0) as DeviceStorage];
        const r = ctx.posv({ a: strided(da, { rows: n, count }), b: strided(db, { rows: n, cols: 3, count }), uplo: 'lower' });
        identical(ctx.download(da), a, `${mode}: A`);
        identical(ctx.download(db), b, `${mode}: B`);
        identical(ctx.download(r.info as DeviceStorage), info, `${mode}: info`);
      }
    } finally {
      backend.stagingTuning = undefined;
      backend.hostOutputs = outputs;
    }
  });

  it('float32 with gaps between matrices: the gaps keep their values', () => {
    const n = 16, count = 301, stride = n * n + 3;
    const a = new Float32Array(stride * count + 11).map(() => rng.next());
    const spd = randomSpd('float32', n, count, rng);
    for (let i = 0; i < count; i++) a.set(spd.subarray(i * n * n, (i + 1) * n * n), 5 + i * stride);
    hostEqualsDevice(ctx, [a], (c, [x]) => c.potrf({ a: strided(x!, { rows: n, count, stride, offset: 5 }) }), 'potrf f32 gaps');
  });

  it('a registered buffer is used again without registering again; a detached one is not reused', () => {
    const pinned = cudaRuntime().pinned();
    const n = 16, count = 4096; // 8 MiB: above the registration threshold
    const a0 = randomSpd('float64', n, count, rng) as Float64Array;
    const a = a0.slice();
    const before = pinned.stats.buffers;
    ctx.potrf({ a: strided(a, { rows: n, count }) });
    assert.equal(pinned.stats.buffers, before, 'a buffer seen once stays pageable');
    a.set(a0);
    ctx.potrf({ a: strided(a, { rows: n, count }) });
    const after = pinned.stats.buffers;
    assert.equal(after, before + 1, 'registered on its second call');
    a.set(a0);
    ctx.potrf({ a: strided(a, { rows: n, count }) });
    assert.equal(pinned.stats.buffers, after, 'no second registration');
    const first = a.slice();
    // Detach: the memory moves to a new ArrayBuffer; the old registration must not be trusted.
    const moved = new Float64Array(structuredClone(a.buffer, { transfer: [a.buffer] }));
    assert.equal(a.byteLength, 0);
    moved.set(a0);
    ctx.potrf({ a: strided(moved, { rows: n, count }) });
    identical(moved, first, 'same factors through the moved buffer');
    const dev = ctx.upload(a0) as DeviceStorage;
    ctx.potrf({ a: strided(dev, { rows: n, count }) });
    identical(ctx.download(dev), moved, 'host = device after the move');
  });

  it('out of memory for the staging: a MyriadError, outputs untouched, the context still usable', () => {
    const free = ((ctx.deviceBackend as CudaBackend).device as CudaDevice).memoryInfo().free;
    const hog = ctx.alloc('float64', Math.floor((free - 256 * 2 ** 20) / 8));
    try {
      const n = 32, count = 64 * 1024; // 512 MiB
      const a = randomSpd('float64', n, count, rng) as Float64Array;
      const before = a.slice();
      assert.throws(() => ctx.potrf({ a: strided(a, { rows: n, count }) }), /OUT_OF_MEMORY/);
      identical(a, before, 'A untouched');
    } finally {
      (hog as unknown as { dispose(): void }).dispose();
    }
    const small = randomSpd('float64', 4, 10, rng);
    hostEqualsDevice(ctx, [small], (c, [x]) => c.potrf({ a: strided(x!, { rows: 4, count: 10 }) }), 'after OOM');
  });

  it('async: two calls in flight on one context, enqueued and returned before any output is written', async () => {
    const n = 32, count = 20000;
    const [a1, b1, a2, b2] = [randomSpd('float64', n, count, rng), randomMatrices('float64', n, 4, count, rng), randomGeneral('float64', n, count, rng), randomMatrices('float64', n, 4, count, rng)];
    const [s1, t1, s2, t2] = [a1, b1, a2, b2].map((x) => x.slice());
    const r1 = ctx.posv({ a: strided(s1!, { rows: n, count }), b: strided(t1!, { rows: n, cols: 4, count }) });
    const r2 = ctx.gesv({ a: strided(s2!, { rows: n, count }), b: strided(t2!, { rows: n, cols: 4, count }) });
    const [b1In, b2In] = [b1.slice(), b2.slice()];
    const p1 = ctx.posvAsync({ a: strided(a1, { rows: n, count }), b: strided(b1, { rows: n, cols: 4, count }) });
    const p2 = ctx.gesvAsync({ a: strided(a2, { rows: n, count }), b: strided(b2, { rows: n, cols: 4, count }) });
    // Both calls returned with their work enqueued: no output is written before the event loop runs.
    identical(b1, b1In, 'posv B before the await'); identical(b2, b2In, 'gesv B before the await');
    const [q1, q2] = await Promise.all([p1, p2]);
    identical(a1, s1!, 'posv A'); identical(b1, t1!, 'posv B'); identical(q1.info, r1.info, 'posv info');
    identical(a2, s2!, 'gesv A'); identical(b2, t2!, 'gesv B'); identical(q2.ipiv, r2.ipiv, 'gesv ipiv');
    // Row-major B: the write-back waits for the device.
    const b3 = randomMatrices('float64', 4, n, count, rng), a3 = randomSpd('float64', n, count, rng);
    const [b4, a4] = [b3.slice(), a3.slice()];
    ctx.posv({ a: strided(a4, { rows: n, count }), b: strided(b4, { rows: n, cols: 4, count, order: 'row' }) });
    await ctx.posvAsync({ a: strided(a3, { rows: n, count }), b: strided(b3, { rows: n, cols: 4, count, order: 'row' }) });
    identical(b3, b4, 'row-major B async = sync');
  });
});

describe('CUDA contexts from open() are the caller\'s own', { skip }, () => {
  it('disposing one leaves another on the same GPU working; the last one releases the device', () => {
    const rng = new Random(3);
    const [c1, c2] = [open({ backend: 'cuda' }), open({ backend: 'cuda' })];
    assert.notEqual(c1, c2);
    c1.dispose();
    assert.throws(() => c1.potrf({ a: strided(randomSpd('float64', 4, 2, rng), { rows: 4, count: 2 }) }), /DISPOSED|disposed/);
    hostEqualsDevice(c2, [randomSpd('float64', 8, 50, rng)], (c, [a]) => c.potrf({ a: strided(a!, { rows: 8, count: 50 }) }), 'after a sibling was disposed');
    c2.dispose();
    const c3 = open({ backend: 'cuda' });
    hostEqualsDevice(c3, [randomSpd('float64', 8, 50, rng)], (c, [a]) => c.potrf({ a: strided(a!, { rows: 8, count: 50 }) }), 'a new context after all were disposed');
    c3.dispose();
  });
});

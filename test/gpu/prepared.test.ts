/**
 * Prepared calls, captured pipelines and the int pool on the GPU: prepared and captured calls
 * give results bit-identical to plain calls; a prepared call given storages that do not fit
 * throws a MyriadError naming the argument; a replay after a captured array was freed throws,
 * it does not crash; the pool of small device arrays is bounded and released by dispose.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MyriadError, open, strided, type Context, type DeviceStorage } from '../../src/index.js';
import { Random, randomMatrices, randomSpd } from '../../src/bench/data.js';
import type { CudaBackend } from '../../src/cuda/backend.js';
import { gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

const n = 8;
const count = 100;
const len = n * n * count;
const batch = (data: DeviceStorage) => strided(data, { rows: n, count });

interface Step { s0: DeviceStorage; h: DeviceStorage; x: DeviceStorage; s: DeviceStorage; y: DeviceStorage; info: DeviceStorage }

/** Device buffers of one filter step, from the same seed each time. */
function buffers(ctx: Context, seed = 11): Step {
  const rng = new Random(seed);
  const s0 = ctx.upload(randomSpd('float64', n, count, rng));
  const h = ctx.upload(randomMatrices('float64', n, n, count, rng));
  const x = ctx.upload(randomMatrices('float64', n, n, count, rng));
  return { s0, h, x, s: ctx.alloc('float64', len), y: ctx.alloc('float64', len), info: ctx.alloc('int32', count) };
}

/** S := H H^T + S0; S = L L^T; X := L^-1 X; Y := X^T X (4 calls). S0 is copied into S first by the caller. */
function step(ctx: Context, t: Step): void {
  ctx.gemm({ transB: 'T', a: batch(t.h), b: batch(t.h), beta: 1, c: batch(t.s) });
  ctx.potrf({ a: batch(t.s), info: t.info });
  ctx.trsm({ side: 'left', uplo: 'lower', a: batch(t.s), b: batch(t.x) });
  ctx.gemm({ transA: 'T', a: batch(t.x), b: batch(t.x), c: batch(t.y) });
}

async function results(ctx: Context, t: Step): Promise<unknown[]> {
  await ctx.synchronize();
  return [t.s, t.x, t.y, t.info].map((d) => ctx.download(d));
}

/** The filter step by plain calls on fresh buffers: what the other forms must reproduce bit for bit. */
async function plainResults(ctx: Context): Promise<unknown[]> {
  const plain = buffers(ctx);
  ctx.copy(plain.s0, plain.s);
  step(ctx, plain);
  return results(ctx, plain);
}

describe('prepared and captured calls on the GPU', { skip }, () => {
  it('a captured pipeline replays bit for bit what plain calls compute', async () => {
    const ctx = open({ backend: 'cuda' });
    try {
      const want = await plainResults(ctx);

      const cap = buffers(ctx);
      ctx.copy(cap.s0, cap.s);
      const pipeline = ctx.capture(() => step(ctx, cap)); // runs once, then records
      assert.deepEqual(await results(ctx, cap), want, 'the first run of capture()');
      for (let r = 0; r < 3; r++) {
        const fresh = buffers(ctx);
        ctx.copy(fresh.s0, cap.s);
        ctx.copy(fresh.x, cap.x);
        pipeline.replay();
        assert.deepEqual(await results(ctx, cap), want, `replay ${r}`);
      }
      pipeline.dispose();
    } finally {
      ctx.dispose();
    }
  });

  it('prepared calls give the plain calls\' results, on the prepared storages and on new ones', async () => {
    const ctx = open({ backend: 'cuda' });
    try {
      const want = await plainResults(ctx);
      const t = buffers(ctx);
      const gemm1 = ctx.prepare.gemm({ transB: 'T', a: batch(t.h), b: batch(t.h), beta: 1, c: batch(t.s) });
      const potrf = ctx.prepare.potrf({ a: batch(t.s), info: t.info });
      const trsm = ctx.prepare.trsm({ side: 'left', uplo: 'lower', a: batch(t.s), b: batch(t.x) });
      const gemm2 = ctx.prepare.gemm({ transA: 'T', a: batch(t.x), b: batch(t.x), c: batch(t.y) });
      ctx.copy(t.s0, t.s);
      gemm1(); potrf(); trsm(); gemm2();
      assert.deepEqual(await results(ctx, t), want);
      const u = buffers(ctx);
      ctx.copy(u.s0, u.s);
      gemm1({ a: u.h, b: u.h, c: u.s });
      potrf({ a: u.s, info: u.info });
      trsm({ a: u.s, b: u.x });
      gemm2({ a: u.x, b: u.x, c: u.y });
      assert.deepEqual(await results(ctx, u), want);
    } finally {
      ctx.dispose();
    }
  });

  it('storages that do not fit throw a MyriadError naming the argument', () => {
    const ctx = open({ backend: 'cuda' });
    try {
      const t = buffers(ctx);
      const f = ctx.prepare.gemm({ a: batch(t.h), b: batch(t.x), c: batch(t.y) });
      const fails = (storages: object, argument: string) =>
        assert.throws(() => f(storages), (e: unknown) => e instanceof MyriadError && e.argument === argument, argument);
      fails({ a: ctx.alloc('float32', len) }, 'a');
      fails({ b: ctx.alloc('float64', len - 1) }, 'b');
      fails({ c: new Float64Array(len) }, 'c');
      fails({ c: t.h }, 'c'); // the output overlapping an input
      const gone = ctx.alloc('float64', len) as DeviceStorage & { dispose(): void };
      gone.dispose();
      fails({ a: gone }, 'a');
    } finally {
      ctx.dispose();
    }
  });

  it('a replay after a captured array was freed throws and launches nothing', async () => {
    const ctx = open({ backend: 'cuda' });
    try {
      const t = buffers(ctx);
      ctx.copy(t.s0, t.s);
      const cap = ctx.capture(() => { ctx.potrf({ a: batch(t.s), info: t.info }); });
      await ctx.synchronize();
      (t.s as DeviceStorage & { dispose(): void }).dispose();
      assert.throws(() => cap.replay(), (e: unknown) => e instanceof MyriadError && e.code === 'DISPOSED');
      assert.throws(() => ctx.capture(() => { ctx.gemm({ a: strided(new Float64Array(len), { rows: n, count }) as never, b: batch(t.h), c: batch(t.y) }); }),
        (e: unknown) => e instanceof MyriadError && e.argument === 'a');
      ctx.gemm({ a: batch(t.h), b: batch(t.x), c: batch(t.y) }); // the context still works
      await ctx.synchronize();
    } finally {
      ctx.dispose();
    }
  });

  it('info from the pool: bounded, reused, released by dispose', async () => {
    const ctx = open({ backend: 'cuda' });
    const backend = ctx.deviceBackend as unknown as CudaBackend;
    const t = buffers(ctx);
    const infos: DeviceStorage[] = [];
    for (let i = 0; i < 2000; i++) {
      ctx.copy(t.s0, t.s);
      infos.push(ctx.potrf({ a: batch(t.s) }).info as DeviceStorage);
    }
    await ctx.synchronize();
    assert.ok(backend.ints.slabCount >= 1 && backend.ints.slabCount <= backend.ints.maxSlabs);
    assert.deepEqual([...(ctx.download(infos.at(-1)!) as Int32Array)], new Array(count).fill(0));
    ctx.dispose();
    assert.equal(backend.ints.slabCount, 0);
  });
});

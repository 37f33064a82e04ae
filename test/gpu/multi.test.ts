/**
 * Several GPUs behind one context, against the CPU context: gemm n=8 and potrf n=16 on host
 * batches that do not split evenly, a batch of 1, failing matrices (info in original order,
 * including at the split boundary), getrf pivots, a device-resident pipeline over scattered
 * batches, a device that runs out of memory, and chunked host calls whose outputs come back
 * 'duplex' and 'after-all'. The same tests run on GPU 0 alone (one device is the same code path);
 * host calls are spread over every GPU here (`spread = 'all'`: the crossover would keep these
 * small calls on one GPU). The two-GPU part checks the shares, per-device times, the crossover,
 * and that the second device of an architecture compiles nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuContext, type Context } from '../../src/api/context.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { probeCuda, type CudaDevice, type DeviceArray } from '../../src/cuda/runtime/index.js';
import { cudaRuntime } from '../../src/cuda/runtime/runtime.js';
import { DeviceFailure, isSharded, type ShardedArray } from '../../src/cuda/multi/index.js';
import type { MultiDeviceContext } from '../../src/api/multi-context.js';
import { openMultiDevice } from '../../src/api/multi-open.js';
import { gpuSkipReason } from '../helpers/gpu.js';

const probe = probeCuda();
const gpus = probe.usable ? probe.devices.length : 0;
const skip = gpuSkipReason();
const skip2 = skip ?? (gpus < 2 ? `needs 2 GPUs; this machine has ${gpus}` : undefined);

const rng = new Random(606);

function close(got: Float64Array, want: Float64Array, tol: number, what: string): void {
  assert.equal(got.length, want.length, what);
  for (let i = 0; i < got.length; i++) {
    const d = Math.abs(got[i]! - want[i]!) / (1 + Math.abs(want[i]!));
    if (!(d <= tol)) assert.fail(`${what}: element ${i}: ${got[i]} vs ${want[i]}`);
  }
}
const ints = (x: unknown): number[] => [...(x as Int32Array)];

/** Compares the matrices whose info is 0 (what a kernel leaves in a failed matrix is unspecified). */
function closeWhereOk(got: Float64Array, want: Float64Array, size: number, info: readonly number[], tol: number, what: string): void {
  info.forEach((v, m) => { if (v === 0) close(got.subarray(m * size, (m + 1) * size), want.subarray(m * size, (m + 1) * size), tol, `${what}: matrix ${m}`); });
}

/** SPD matrices, those listed made indefinite at their last diagonal entry (info = n). */
function spdFailing(n: number, count: number, failing: readonly number[]): Float64Array {
  const a = randomSpd('float64', n, count, rng) as Float64Array;
  for (const i of failing) a[i * n * n + (n - 1) * (n + 1)] = -1;
  return a;
}

function checkGemm(ctx: Context, n: number, count: number): void {
  const [a, b] = [0, 1].map(() => randomMatrices('float64', n, n, count, rng) as Float64Array);
  const c = new Float64Array(n * n * count).fill(NaN); // beta = 0 must never read C
  const want = new Float64Array(c.length);
  const S = (x: Float64Array) => strided(x, { rows: n, count });
  ctx.gemm({ a: S(a!), b: S(b!), c: S(c), alpha: 1, beta: 0, transB: 'T' });
  cpuContext.gemm({ a: S(a!), b: S(b!), c: S(want), alpha: 1, beta: 0, transB: 'T' });
  close(c, want, 1e-13 * n, `gemm n=${n} count=${count}`);
}

function checkPotrf(ctx: Context, n: number, count: number, failing: readonly number[]): void {
  const a = spdFailing(n, count, failing);
  const want = a.slice();
  const got = ctx.potrf({ a: strided(a, { rows: n, count }), uplo: 'lower' });
  const ref = cpuContext.potrf({ a: strided(want, { rows: n, count }), uplo: 'lower' });
  assert.deepEqual(ints(got.info), ints(ref.info), `potrf n=${n} count=${count}: info`);
  for (const i of failing) assert.equal(got.info[i], n, `matrix ${i} fails at minor ${n}`);
  closeWhereOk(a, want, n * n, ints(ref.info), 1e-12, `potrf n=${n} count=${count}`);
}

/** Every test of the suite on one context: all GPUs, then GPU 0 alone; host calls on every GPU of it. */
function suite(label: string, openContext: () => MultiDeviceContext): void {
  const open = (): MultiDeviceContext => {
    const ctx = openContext();
    ctx.spread = 'all';
    return ctx;
  };
  describe(`${label} = CPU context`, { skip }, () => {
    it('gemm n=8: a batch that does not split evenly, and a batch of 1', () => {
      const ctx = open();
      checkGemm(ctx, 8, 1001);
      checkGemm(ctx, 8, 1);
      checkGemm(ctx, 8, 3);
    });

    it('potrf n=16: failing matrices anywhere (first, last, both sides of the split) keep their info in order', () => {
      const ctx = open();
      checkPotrf(ctx, 16, 1001, [0, 3, 499, 500, 501, 502, 1000]);
      checkPotrf(ctx, 16, 1, [0]);
      checkPotrf(ctx, 16, 1, []);
      checkPotrf(ctx, 5, 7, [6]);
    });

    it('getrf n=16: pivots and info in original order', () => {
      const ctx = open();
      const n = 16, count = 333;
      const a = randomGeneral('float64', n, count, rng) as Float64Array;
      for (let j = 0; j < n; j++) a[200 * n * n + j * n + 4] = 0; // matrix 200: a zero row -> singular
      const want = a.slice();
      const got = ctx.getrf({ a: strided(a, { rows: n, count }) });
      const ref = cpuContext.getrf({ a: strided(want, { rows: n, count }) });
      assert.deepEqual(ints(got.info), ints(ref.info));
      assert.ok(got.info[200]! > 0);
      assert.deepEqual(ints(got.ipiv), ints(ref.ipiv));
      closeWhereOk(a, want, n * n, ints(ref.info), 1e-11, 'getrf');
    });

    it('device-resident pipeline: scatter, potrf, gemm, synchronize, gather; no host copy in between', async () => {
      const ctx = open();
      const n = 16, count = 777;
      const host = spdFailing(n, count, [1, 400, 776]);
      const a = ctx.scatter(host, { rows: n, count });
      assert.deepEqual(a.ordinals, ctx.devices.slice(0, a.shards.length));
      const before = { ...ctx.multi.transfers };
      const A = strided(a, { rows: n, count });
      const { info } = ctx.potrf({ a: A, uplo: 'lower' });
      const c = ctx.allocSharded('float64', host.length, { rows: n, count });
      ctx.gemm({ a: A, b: A, c: strided(c, { rows: n, count }), beta: 0, transB: 'T' });
      await ctx.synchronize();
      assert.deepEqual(ctx.multi.transfers, before, 'no bytes crossed the host link');
      const wantA = host.slice();
      const wantInfo = cpuContext.potrf({ a: strided(wantA, { rows: n, count }), uplo: 'lower' }).info;
      const wantC = new Float64Array(host.length);
      cpuContext.gemm({ a: strided(wantA, { rows: n, count }), b: strided(wantA, { rows: n, count }), c: strided(wantC, { rows: n, count }), beta: 0, transB: 'T' });
      assert.ok(isSharded(info));
      assert.deepEqual(ints(ctx.gather(info)), ints(wantInfo));
      closeWhereOk(ctx.gather(a) as Float64Array, wantA, n * n, ints(wantInfo), 1e-12, 'resident potrf');
      closeWhereOk(ctx.gather(c) as Float64Array, wantC, n * n, ints(wantInfo), 1e-12, 'resident gemm');
      for (const s of [a, c, info as ShardedArray]) s.dispose();
    });

    it('chunked host calls: duplex and after-all outputs agree with the CPU (pinned arrays, several chunks per GPU)', () => {
      const ctx = open();
      const before = ctx.hostOutputs;
      try {
        for (const outputs of ['duplex', 'after-all'] as const) {
          ctx.hostOutputs = outputs;
          // gemm with beta != 0: A, B and C up (about 100 MiB each: page-locked at once), C back.
          const n = 8, count = 200_000;
          const [a, b, c0] = [0, 1, 2].map(() => randomMatrices('float64', n, n, count, rng) as Float64Array);
          const c = c0!.slice(), want = c0!.slice();
          const S = (x: Float64Array) => strided(x, { rows: n, count });
          ctx.gemm({ a: S(a!), b: S(b!), c: S(c), alpha: 0.5, beta: -1.5 });
          cpuContext.gemm({ a: S(a!), b: S(b!), c: S(want), alpha: 0.5, beta: -1.5 });
          close(c, want, 1e-13 * n, `${outputs} gemm`);
          // potrf in place with failures spread over the chunks; info in a reused array.
          const m = 16, cnt = 40_000;
          const spd = spdFailing(m, cnt, [0, 7_777, 19_999, 20_000, 39_999]);
          const ref = spd.slice();
          const info = new Int32Array(cnt).fill(-9);
          for (let call = 0; call < 2; call++) { // the second call runs on page-locked arrays
            const x = spd.slice();
            ctx.potrf({ a: strided(x, { rows: m, count: cnt }), uplo: 'lower', info });
            const wantA = ref.slice();
            const wantInfo = cpuContext.potrf({ a: strided(wantA, { rows: m, count: cnt }), uplo: 'lower' }).info;
            assert.deepEqual(ints(info), ints(wantInfo), `${outputs} potrf info, call ${call}`);
            closeWhereOk(x, wantA, m * m, ints(wantInfo), 1e-12, `${outputs} potrf, call ${call}`);
          }
        }
      } finally {
        ctx.hostOutputs = before;
      }
    });

    it('ctx.capture of a resident pipeline (potrf n = 128, then gemm): replayed on fresh inputs in the same arrays, one graph a GPU', async () => {
      const ctx = open();
      const n = 128, count = 601;
      const first = spdFailing(n, count, []);
      const a = ctx.scatter(first, { rows: n, count });
      const c = ctx.scatter(new Float64Array(n * n * count), { rows: n, count });
      const info = ctx.allocSharded('int32', count, { count });
      const S = (x: ShardedArray) => strided(x, { rows: n, count });
      const captured = ctx.capture(() => {
        ctx.potrf({ a: S(a), uplo: 'lower', info });
        ctx.gemm({ a: S(a), b: S(a), c: S(c), beta: 0, transB: 'T' });
      });
      try {
        // Fresh inputs (failing matrices at both ends and inside) into A's arrays, C poisoned: beta 0 never reads it.
        const fresh = spdFailing(n, count, [0, 300, count - 1]);
        const staged = ctx.scatter(fresh, { rows: n, count });
        const poison = ctx.scatter(new Float64Array(n * n * count).fill(NaN), { rows: n, count });
        ctx.multi.copy(staged, a);
        ctx.multi.copy(poison, c);
        captured.replay();
        await ctx.synchronize();
        const wantA = fresh.slice();
        const wantInfo = cpuContext.potrf({ a: strided(wantA, { rows: n, count }), uplo: 'lower' }).info;
        const wantC = new Float64Array(fresh.length);
        cpuContext.gemm({ a: strided(wantA, { rows: n, count }), b: strided(wantA, { rows: n, count }), c: strided(wantC, { rows: n, count }), beta: 0, transB: 'T' });
        assert.deepEqual(ints(ctx.gather(info)), ints(wantInfo));
        closeWhereOk(ctx.gather(a) as Float64Array, wantA, n * n, ints(wantInfo), 1e-12, 'captured potrf');
        closeWhereOk(ctx.gather(c) as Float64Array, wantC, n * n, ints(wantInfo), 1e-11, 'captured gemm');
        for (const s of [staged, poison]) s.dispose();
      } finally {
        captured.dispose();
        for (const s of [a, c, info as ShardedArray]) s.dispose();
      }
    });

    it('device-resident getrf over scattered matrices: pivots and info in order', async () => {
      const ctx = open();
      const n = 16, count = 999;
      const host = randomGeneral('float64', n, count, rng) as Float64Array;
      for (let j = 0; j < n; j++) host[500 * n * n + j * n + 3] = 0; // matrix 500: singular
      const a = ctx.scatter(host, { rows: n, count });
      const got = ctx.getrf({ a: strided(a, { rows: n, count }) });
      await ctx.synchronize();
      const want = host.slice();
      const ref = cpuContext.getrf({ a: strided(want, { rows: n, count }) });
      assert.deepEqual(ints(ctx.gather(got.info as ShardedArray)), ints(ref.info));
      assert.deepEqual(ints(ctx.gather(got.ipiv as ShardedArray)), ints(ref.ipiv));
      closeWhereOk(ctx.gather(a) as Float64Array, want, n * n, ints(ref.info), 1e-11, 'resident getrf');
      for (const s of [a, got.info as ShardedArray, got.ipiv as ShardedArray]) s.dispose();
    });

    it('a device out of memory: a MyriadError naming it, host outputs untouched (after-all), the context still works', () => {
      const ctx = open();
      const outputs = ctx.hostOutputs;
      ctx.hostOutputs = 'after-all';
      const last = ctx.multi.lanes[ctx.multi.lanes.length - 1]!.device as CudaDevice;
      const hog: DeviceArray[] = [];
      let free = last.memoryInfo().free;
      for (let chunk = 1 << 30; chunk >= 1 << 20 && free > 16 << 20;) {
        try { hog.push(last.alloc('int32', chunk / 4)); free -= chunk; } catch { chunk /= 2; }
      }
      try {
        const n = 8, count = 200_000; // 100 MiB per operand per device
        const [a, b] = [0, 1].map(() => randomMatrices('float64', n, n, count, rng) as Float64Array);
        const c = randomMatrices('float64', n, n, count, rng) as Float64Array;
        const before = c.slice();
        assert.throws(() => ctx.gemm({ a: strided(a!, { rows: n, count }), b: strided(b!, { rows: n, count }), c: strided(c, { rows: n, count }), beta: 0 }), (e: unknown) => {
          assert.ok(e instanceof DeviceFailure && e instanceof MyriadError, String(e));
          assert.equal(e.ordinal, last.info.ordinal);
          assert.match(e.message, new RegExp(`GPU ${last.info.ordinal} \\(${last.info.name.replace(/[()]/g, '.')}\\): CUDA_ERROR_OUT_OF_MEMORY`));
          assert.match(e.message, /No host output was written/);
          return true;
        });
        assert.deepEqual(c, before);
      } finally {
        for (const h of hog) h.dispose();
        ctx.hostOutputs = outputs;
      }
      checkGemm(ctx, 8, 101);
    });
  });
}

suite('all GPUs', () => openMultiDevice('all'));
suite('GPU 0 alone through the multi-device backend', () => openMultiDevice([0]));

describe('two GPUs', { skip: skip2 }, () => {
  it('each device gets its share and its own time', () => {
    const ctx = openMultiDevice([0, 1]);
    if (probe.usable && probe.devices[0]!.name === probe.devices[1]!.name) assert.deepEqual(ctx.weights, [1, 1]);
    const n = 8, count = 100_001;
    const a = ctx.scatter(randomMatrices('float64', n, n, count, rng), { rows: n, count });
    assert.deepEqual(a.shards.map((s) => s.ordinal), [0, 1]);
    const A = strided(a, { rows: n, count });
    const c = ctx.allocSharded('float64', a.length, { rows: n, count });
    ctx.time(() => ctx.gemm({ a: A, b: A, c: strided(c, { rows: n, count }), beta: 0 }));
    assert.equal(ctx.lastDeviceTimes.length, 2);
    assert.ok(ctx.lastDeviceTimes.every((t) => t > 0), `per-device ms ${ctx.lastDeviceTimes.join(', ')}`);
    a.dispose();
    c.dispose();
  });

  it('the triangular family, the inverses and the Jacobi family run on both GPUs through the registry', () => {
    const ctx = openMultiDevice([0, 1]);
    const n = 40, count = 7;
    const spd = randomSpd('float64', n, count, rng) as Float64Array;
    const gen = randomGeneral('float64', n, count, rng) as Float64Array;
    const rhs = randomMatrices('float64', n, 12, count, rng) as Float64Array;
    const sq = <S extends Float64Array | ShardedArray>(x: S, cols = n) => strided(x, { rows: n, cols, count });
    type Call = (c: Context, xs: (Float64Array | ShardedArray)[]) => unknown;
    const cases: [string, Float64Array[], Call][] = [
      ['trsm', [spd, rhs], (c, [a, b]) => c.trsm({ a: sq(a!), b: sq(b!, 12), uplo: 'lower' })],
      ['trmm', [spd, rhs], (c, [a, b]) => c.trmm({ a: sq(a!), b: sq(b!, 12), uplo: 'upper', transA: 'T' })],
      ['syrk', [gen, spd], (c, [a, x]) => c.syrk({ a: sq(a!), c: sq(x!), uplo: 'lower', beta: 0.5 })],
      ['trtri', [spd], (c, [a]) => c.trtri({ a: sq(a!), uplo: 'lower' })],
      ['lauum', [spd], (c, [a]) => c.lauum({ a: sq(a!), uplo: 'upper' })],
      ['poti', [spd], (c, [a]) => c.poti({ a: sq(a!), uplo: 'lower' })],
      ['posv (trsm route)', [spd, rhs], (c, [a, b]) => c.posv({ a: sq(a!), b: sq(b!, 12), uplo: 'lower' })],
    ];
    for (const [what, inputs, call] of cases) {
      const shards = inputs.map((x) => ctx.scatter(x, { rows: n, cols: x.length / (n * count), count }));
      const got = call(ctx, shards) as { info?: Int32Array } | undefined;
      const want = inputs.map((x) => x.slice());
      const ref = call(cpuContext, want) as { info?: Int32Array } | undefined;
      shards.forEach((s, i) => close(ctx.gather(s) as Float64Array, want[i]!, 1e-9, `${what} operand ${i}`));
      const info = got?.info as unknown;
      if (ref?.info !== undefined) assert.deepEqual(ints(isSharded(info) ? ctx.gather(info) : info), ints(ref.info), `${what}: info`);
      for (const s of shards) s.dispose();
    }
    // syev (n <= 32: the GPU Jacobi) of 16 x 16 matrices: eigenvalues against the CPU.
    const m = 16;
    const a = randomSpd('float64', m, count, rng) as Float64Array;
    const sa = ctx.scatter(a, { rows: m, count });
    const sw = ctx.scatter(new Float64Array(m * count), { rows: m, cols: 1, count });
    ctx.syev({ a: strided(sa, { rows: m, count }), w: strided(sw, { rows: m, cols: 1, count }), jobz: 'values' });
    const w = new Float64Array(m * count);
    cpuContext.syev({ a: strided(a.slice(), { rows: m, count }), w: strided(w, { rows: m, cols: 1, count }), jobz: 'values' });
    close(ctx.gather(sw) as Float64Array, w, 1e-10, 'syev w');
    sa.dispose();
    sw.dispose();
  });

  it('weights set the shares of a scatter and of host batches', () => {
    const previous = openMultiDevice([0, 1]).weights;
    const ctx = openMultiDevice([0, 1], { weights: [3, 1] });
    const spread = ctx.spread;
    ctx.spread = 'all';
    try {
      const s = ctx.scatter(new Float64Array(64 * 8), { rows: 8, count: 8 });
      assert.deepEqual(s.shards.map((x) => [x.ordinal, x.start, x.end]), [[0, 0, 384], [1, 384, 512]]);
      s.dispose();
      checkPotrf(ctx, 16, 41, [0, 30, 31, 40]);
    } finally {
      ctx.weights = previous;
      ctx.spread = spread;
    }
  });

  it("the crossover: 'auto' keeps a short host call on one GPU and spreads a long one; both agree with the CPU", () => {
    const ctx = openMultiDevice([0, 1]);
    const spread = ctx.spread;
    ctx.spread = 'auto';
    try {
      checkPotrf(ctx, 8, 100, [0, 99]);
      assert.equal(ctx.multi.lastSpread, 1, 'potrf n=8 x 100 (about 0.1 MB) on one GPU');
      checkGemm(ctx, 8, 300_000); // about 460 MB over the links: several ms on one GPU
      assert.equal(ctx.multi.lastSpread, 2, 'gemm n=8 x 300000 on both GPUs');
      ctx.spread = 1;
      checkGemm(ctx, 8, 300_000);
      assert.equal(ctx.multi.lastSpread, 1, 'spread = 1 pins one GPU');
    } finally {
      ctx.spread = spread;
    }
  });

  it('the second device of an architecture loads the first one\'s binaries without compiling', () => {
    const cache = cudaRuntime().cache();
    // Twice on GPU 0: a first call may run quick builds whose optimised builds compile in the
    // background and land later; the second call takes them, so none lands during GPU 1's calls.
    for (let round = 0; round < 2; round++) {
      checkGemm(openMultiDevice([0]), 12, 10);
      checkPotrf(openMultiDevice([0]), 12, 10, [3]);
    }
    const compiles = cache.stats.compiles;
    const hits = cache.stats.memoryHits;
    checkGemm(openMultiDevice([1]), 12, 10);
    checkPotrf(openMultiDevice([1]), 12, 10, [3]);
    if (probe.usable && probe.devices[0]!.arch === probe.devices[1]!.arch) {
      assert.equal(cache.stats.compiles, compiles, 'no new compile on GPU 1');
      assert.ok(cache.stats.memoryHits > hits, 'GPU 1 took the binaries from the memory cache');
    }
  });

  it('plain device memory of GPU 1 runs on GPU 1; memory of two GPUs in one call is refused', () => {
    const ctx = openMultiDevice([0, 1]);
    const dev1 = ctx.multi.lanes[1]!.device;
    const n = 4, count = 9;
    const host = spdFailing(n, count, [8]);
    const d = dev1.upload(host);
    const { info } = ctx.potrf({ a: strided(d, { rows: n, count }), uplo: 'lower' });
    const want = host.slice();
    const wantInfo = cpuContext.potrf({ a: strided(want, { rows: n, count }), uplo: 'lower' }).info;
    closeWhereOk(ctx.download(d) as Float64Array, want, n * n, ints(wantInfo), 1e-12, 'potrf on GPU 1');
    assert.deepEqual(ints(ctx.download(info as ShardedArray)), ints(wantInfo));
    assert.deepEqual((info as ShardedArray).ordinals, [1]);
    const d0 = ctx.upload(host);
    const c0 = ctx.alloc('float64', host.length);
    assert.throws(() => ctx.gemm({ a: strided(d0, { rows: n, count }), b: strided(d, { rows: n, count }), c: strided(c0, { rows: n, count }), beta: 0 }), /GPUs 0 and 1/);
  });
});

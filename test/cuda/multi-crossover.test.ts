/**
 * The crossover of a multi-GPU context (multi/crossover.ts, model/call-time.ts): how many GPUs a
 * call on host arrays runs on, the estimate it rests on (checked against measured one-GPU rows),
 * and the option that pins the spread; on fake GPUs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { Random, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { checkSpread, gpusFor, weightsOnFastest } from '../../src/cuda/multi/crossover.js';
import { callMs, callWork } from '../../src/cuda/model/call-time.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { DeviceInfo } from '../../src/cuda/runtime/types.js';
import { rig } from '../helpers/fake-gpus.js';
import { referenceContext } from '../../src/api/context.js';

const rng = new Random(7);

/** An NVIDIA H200 as cuDeviceGetAttribute describes it (132 SMs, 1.98 GHz, HBM3e 6144 bits at 3.2 GHz). */
const H200: DeviceInfo = {
  ordinal: 0, name: 'NVIDIA H200', arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32, maxThreadsPerBlock: 1024,
  maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536, sharedPerBlock: 49152, sharedPerBlockOptin: 232448,
  sharedPerSM: 233472, clockKHz: 1980000, memoryClockKHz: 3201000, memoryBusWidthBits: 6144, l2Bytes: 60 << 20, totalMemoryBytes: 141e9,
};

/** A device-resident request of `count` n x n matrices (storage described as device memory: only shapes are read). */
function residentRequest(op: 'gemm' | 'potrf' | 'getrf', n: number, count: number): Record<string, unknown> {
  const data = { kind: 'device', device: 0, dtype: 'float64', length: n * n * count };
  const b = strided(data as never, { rows: n, count });
  return op === 'gemm' ? { transA: 'N', transB: 'N', alpha: 1, beta: 0, a: b, b, c: b } : { a: b, uplo: 'lower', pivotStride: n };
}

describe('the crossover decision', () => {
  it('gpusFor: one GPU below 2 x perExtraGpuMs, every GPU for long calls, ties to fewer', () => {
    assert.equal(gpusFor(0.1, 4, 0.15), 1);
    assert.equal(gpusFor(0.3, 2, 0.15), 1, 'a tie (0.15 + 0.15 = 0.3) keeps one GPU');
    assert.equal(gpusFor(0.31, 2, 0.15), 2);
    assert.equal(gpusFor(1, 4, 0.15), 3, '1/3 + 0.3 < 1/4 + 0.45');
    assert.equal(gpusFor(100, 4, 0.15), 4);
    assert.equal(gpusFor(100, 1, 0.15), 1);
    let last = 1;
    for (let ms = 0; ms < 20; ms += 0.05) {
      const g = gpusFor(ms, 8, 0.15);
      assert.ok(g >= last, `never fewer GPUs for a longer call (${ms} ms: ${g} after ${last})`);
      last = g;
    }
  });

  it('weightsOnFastest keeps the heaviest lanes (ties to the lower index)', () => {
    assert.deepEqual(weightsOnFastest([1, 1, 1, 1], 1), [1, 0, 0, 0]);
    assert.deepEqual(weightsOnFastest([0.5, 1, 0.8, 1], 2), [0, 1, 0, 1]);
    assert.deepEqual(weightsOnFastest([0.5, 1], 2), [0.5, 1]);
  });

  it('checkSpread names the argument', () => {
    assert.equal(checkSpread('auto', 2), 'auto');
    assert.equal(checkSpread(2, 2), 2);
    for (const bad of [0, 3, 1.5, 'some', undefined]) {
      assert.throws(() => checkSpread(bad, 2), (e: unknown) => e instanceof MyriadError && e.argument === 'spread' && e.code === 'INVALID_ARGUMENT');
    }
  });
});

describe('the one-GPU estimate (model/call-time.ts)', () => {
  it('counts bytes (outputs twice), host bytes and flops', () => {
    const w = callWork('gemm', residentRequest('gemm', 8, 1000));
    assert.equal(w.flops, 2 * 8 * 8 * 8 * 1000);
    assert.equal(w.deviceBytes, (1 + 1 + 2) * 8 * 8 * 8 * 1000);
    assert.equal(w.hostBytes, 0);
    const host = new Float64Array(4 * 4 * 10);
    const h = callWork('potrf', { a: strided(host, { rows: 4, count: 10 }), uplo: 'lower' });
    assert.equal(h.hostBytes, 2 * host.byteLength);
    assert.equal(h.dtype, 'float64');
    assert.equal(callWork('potrf', { a: strided(new Float32Array(16), { rows: 4, count: 1 }), uplo: 'lower' }).dtype, 'float32');
  });

  it('stays below the measured one-GPU times of 2 x H200 (BENCHMARKS.md, device-resident rows), within 5x', () => {
    const rates = tuningFor('sm_90', 'multi');
    const rows: ['gemm' | 'potrf' | 'getrf', number, number, number][] = [
      ['gemm', 8, 349525, 0.735], ['gemm', 32, 21845, 0.346], ['potrf', 16, 262144, 0.360],
      ['potrf', 128, 4096, 2.070], ['getrf', 16, 262144, 0.594], ['getrf', 128, 4096, 5.489],
    ];
    for (const [op, n, count, measured] of rows) {
      const est = callMs(callWork(op, residentRequest(op, n, count)), H200, rates);
      assert.ok(est <= measured && est >= measured / 5, `${op} n=${n}: estimate ${est.toFixed(3)} ms, measured ${measured} ms`);
    }
  });
});

describe('a multi-GPU context on host arrays (fake GPUs)', () => {
  const potrfCall = (count: number) => {
    const a = randomSpd('float64', 4, count, rng) as Float64Array;
    return { a, args: { a: strided(a, { rows: 4, count }), uplo: 'lower' as const } };
  };

  it("'auto': a short call runs on one GPU, a long one on both; results as the reference", () => {
    const { ctx, counts } = rig(2, undefined, 'auto');
    const small = potrfCall(100);
    const want = small.a.slice();
    referenceContext.potrf({ a: strided(want, { rows: 4, count: 100 }), uplo: 'lower' });
    ctx.potrf(small.args);
    assert.deepEqual(counts, [[100], []], 'one GPU');
    assert.equal(ctx.multi.lastSpread, 1);
    assert.deepEqual(small.a, want);
    // 100k matrices of 4 x 4: 25.6 MB over the link and back, about 0.47 ms at 55 GB/s: both GPUs.
    const big = potrfCall(100_000);
    ctx.potrf(big.args);
    assert.equal(ctx.multi.lastSpread, 2);
    assert.deepEqual(counts, [[100, 50_000], [50_000]]);
  });

  it("'all' and a number pin the spread; a bad value is refused", () => {
    const { ctx, counts } = rig(2, undefined, 'auto');
    ctx.spread = 'all';
    ctx.gemm({ a: strided(randomMatrices('float64', 3, 3, 6, rng) as Float64Array, { rows: 3, count: 6 }), b: strided(randomMatrices('float64', 3, 3, 6, rng) as Float64Array, { rows: 3, count: 6 }), c: strided(new Float64Array(54), { rows: 3, count: 6 }) });
    assert.deepEqual(counts, [[3], [3]]);
    ctx.spread = 1;
    ctx.potrf(potrfCall(100_000).args);
    assert.deepEqual(counts, [[3, 100_000], [3]]);
    assert.throws(() => { ctx.spread = 3; }, (e: unknown) => e instanceof MyriadError && e.argument === 'spread');
  });
});

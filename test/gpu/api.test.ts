/**
 * The public API on a CUDA context against the CPU context: every operation, host batches
 * (staged in and out) and device-resident batches, fresh random data, outputs poisoned where the
 * operation does not read them, failing matrices in the middle of a batch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuContext, open, strided, type Context, type DeviceStorage, type FloatArray } from '../../src/index.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

function close(got: FloatArray, want: FloatArray, tol: number, what: string): void {
  assert.equal(got.length, want.length, what);
  let worst = 0;
  for (let i = 0; i < got.length; i++) {
    const d = Math.abs(got[i]! - want[i]!) / (1 + Math.abs(want[i]!));
    if (!(d <= tol)) assert.fail(`${what}: element ${i}: ${got[i]} vs ${want[i]}`);
    worst = Math.max(worst, d);
  }
}

type Case = (ctx: Context, a: FloatArray, b: FloatArray, n: number, count: number) => unknown;

/** Runs `call` on copies of the data on both contexts and compares every output. */
function same(gpu: Context, call: Case, makeA: (n: number, count: number) => FloatArray, n: number, count: number, tol: number, what: string): void {
  const rng = new Random(n * 7919 + count);
  const a = makeA(n, count);
  const b = randomMatrices(a instanceof Float64Array ? 'float64' : 'float32', n, 3, count, rng);
  const [a1, b1, a2, b2] = [a.slice(), b.slice(), a.slice(), b.slice()] as FloatArray[];
  const r1 = call(cpuContext, a1!, b1!, n, count);
  const r2 = call(gpu, a2!, b2!, n, count);
  close(a2!, a1!, tol, `${what} n=${n}: A`);
  close(b2!, b1!, tol, `${what} n=${n}: B`);
  assert.deepEqual(JSON.stringify(r2, (_k, v) => (v instanceof Int32Array ? [...v] : v)),
    JSON.stringify(r1, (_k, v) => (v instanceof Int32Array ? [...v] : v)), `${what} n=${n}: info/ipiv`);
}

describe('CUDA context = CPU context', { skip }, () => {
  const gpu = (): Context => open({ backend: 'cuda' });
  const rng = new Random(1);
  const spd = (n: number, c: number): FloatArray => randomSpd('float64', n, c, rng);
  const gen = (n: number, c: number): FloatArray => randomGeneral('float64', n, c, rng);
  const sizes = [1, 2, 3, 5, 8, 13, 16, 31, 32, 33, 64];
  const A = (d: FloatArray, n: number, count: number) => strided(d, { rows: n, count });
  const B = (d: FloatArray, n: number, count: number) => strided(d, { rows: n, cols: 3, count });

  it('every operation on host batches (staged)', () => {
    const ctx = gpu();
    for (const n of sizes) {
      const count = 37;
      same(ctx, (c, a) => c.potrf({ a: A(a, n, count), uplo: 'lower' }), spd, n, count, 1e-12, 'potrf lower');
      same(ctx, (c, a) => c.potrf({ a: A(a, n, count), uplo: 'upper' }), spd, n, count, 1e-12, 'potrf upper');
      same(ctx, (c, a, b) => c.posv({ a: A(a, n, count), b: B(b, n, count) }), spd, n, count, 1e-11, 'posv');
      same(ctx, (c, a) => c.getrf({ a: A(a, n, count) }), gen, n, count, 1e-11, 'getrf');
      same(ctx, (c, a, b) => c.gesv({ a: A(a, n, count), b: B(b, n, count) }), gen, n, count, 1e-10, 'gesv');
      same(ctx, (c, a, b) => { c.trsm({ a: A(a, n, count), b: B(b, n, count), uplo: 'upper', transA: 'T' }); return null; }, gen, n, count, 1e-10, 'trsm');
      same(ctx, (c, a) => c.trtri({ a: A(a, n, count), uplo: 'lower' }), gen, n, count, 1e-10, 'trtri');
    }
  });

  it('gemm results match when C is a real gemm output (poisoned C, beta = 0)', () => {
    const ctx = gpu();
    for (const n of [1, 2, 4, 7, 8, 16, 32, 40, 64, 100]) {
      const count = 101;
      const a = randomMatrices('float64', n, n, count, rng);
      const b = randomMatrices('float64', n, n, count, rng);
      const c1 = new Float64Array(n * n * count).fill(NaN);
      const c2 = new Float64Array(n * n * count).fill(NaN);
      cpuContext.gemm({ a: A(a, n, count), b: A(b, n, count), c: A(c1, n, count) });
      ctx.gemm({ a: A(a, n, count), b: A(b, n, count), c: A(c2, n, count) });
      close(c2, c1, 1e-13 * n, `gemm n=${n}`);
    }
  });

  it('device-resident batches: enqueue, synchronize, download', async () => {
    const ctx = gpu();
    const n = 8, count = 1000;
    const host = randomSpd('float64', n, count, rng) as Float64Array;
    host.fill(0, 500 * n * n, 501 * n * n); // matrix 500 is not positive definite
    const want = host.slice();
    const wantInfo = cpuContext.potrf({ a: A(want, n, count) }).info;
    const dA = ctx.upload(host);
    const { info } = ctx.potrf({ a: strided(dA, { rows: n, count }) });
    await ctx.synchronize();
    const got = ctx.download(dA) as Float64Array;
    const gotInfo = ctx.download(info as DeviceStorage) as Int32Array;
    assert.equal(gotInfo[500], 1);
    assert.deepEqual([...gotInfo], [...wantInfo]);
    for (let m = 0; m < count; m++) if (m !== 500) close(got.subarray(m * n * n, (m + 1) * n * n), want.subarray(m * n * n, (m + 1) * n * n), 1e-12, `matrix ${m}`);
  });
});

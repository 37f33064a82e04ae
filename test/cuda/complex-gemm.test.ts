/**
 * Complex gemm on a CUDA context (a fake device) on its CPU route (`force: { gemm: 'cpu' }`; the GPU
 * routes are test/cuda/zgemm.test.ts's): the CPU reference with copies of device data (whole
 * arrays, so the interleaved pairs travel as they are), ctx.lastRoute says 'cpu', and the results
 * match the reference context's, for device-resident and host batches.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Context, newReferenceContext } from '../../src/api/context.js';
import { list, strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { Backend } from '../../src/core/ops.js';
import type { IntStorage, Storage } from '../../src/core/storage.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { FakeDevice, rig } from '../helpers/fake-gpus.js';
import { Rng } from '../helpers/random.js';

function fakeCuda(): Context {
  const backend = new CudaBackend(new FakeDevice(0, []), 'fake');
  backend.force = { gemm: 'cpu' };
  return new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend);
}
const randomArray = (rng: Rng, n: number, single: boolean): Float64Array | Float32Array => {
  const x = single ? new Float32Array(n) : new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = rng.uniform() - 0.5;
  return x;
};

describe('complex gemm on a CUDA context (fake device), route cpu: the CPU reference with copies', () => {
  for (const single of [false, true]) {
    const dtype = single ? 'complex64' : 'complex128';
    it(`device-resident and host ${dtype} batches match the reference context; lastRoute is 'cpu'`, () => {
      const rng = new Rng(3);
      const [m, n, k, count] = [3, 2, 4, 3];
      const A = randomArray(rng, 2 * k * m * count, single);
      const B = randomArray(rng, 2 * n * k * count, single);
      const C = randomArray(rng, 2 * m * n * count, single);
      const args = (a: Storage, b: Storage, c: Storage) => ({
        transA: 'C' as const, transB: 'T' as const, alpha: [0.5, -2] as [number, number], beta: [1, 0.25] as [number, number],
        a: strided(a, { rows: k, cols: m, count, dtype }), b: strided(b, { rows: n, cols: k, count, dtype }), c: strided(c, { rows: m, cols: n, count, dtype }),
      });
      const want = C.slice();
      const ref = newReferenceContext();
      ref.gemm(args(A, B, want));
      ref.dispose();
      const ctx = fakeCuda();
      try {
        const dA = ctx.upload(A);
        const dB = ctx.upload(B);
        const dC = ctx.upload(C);
        ctx.gemm(args(dA, dB, dC));
        assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'cpu', gpu: false });
        assert.deepEqual([...ctx.download(dC)], [...want]);
        assert.deepEqual([...ctx.download(dA)], [...A], 'A unchanged');
        const hostC = C.slice();
        ctx.gemm(args(A, B, hostC));
        assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'cpu', gpu: false });
        assert.deepEqual([...hostC], [...want]);
      } finally {
        ctx.dispose();
      }
    });
  }

  it('list batches of device arrays; a capture rejects complex gemm', () => {
    const rng = new Rng(5);
    const xs = Array.from({ length: 2 }, () => randomArray(rng, 8, false));
    const ys = Array.from({ length: 2 }, () => randomArray(rng, 8, false));
    const want = [new Float64Array(8), new Float64Array(8)];
    const ref = newReferenceContext();
    ref.gemm({ transB: 'C', a: list(xs, { rows: 2, dtype: 'complex128' }), b: list(ys, { rows: 2, dtype: 'complex128' }), c: list(want, { rows: 2, dtype: 'complex128' }) });
    ref.dispose();
    const ctx = fakeCuda();
    try {
      const dx = xs.map((x) => ctx.upload(x));
      const dy = ys.map((y) => ctx.upload(y));
      const dc = [ctx.alloc('float64', 8), ctx.alloc('float64', 8)];
      ctx.gemm({ transB: 'C', a: list(dx, { rows: 2, dtype: 'complex128' }), b: list(dy, { rows: 2, dtype: 'complex128' }), c: list(dc, { rows: 2, dtype: 'complex128' }) });
      dc.forEach((d, i) => assert.deepEqual([...ctx.download(d)], [...want[i]!]));
      assert.throws(() => ctx.capture(() => ctx.gemm({ a: strided(dx[0]!, { rows: 2, dtype: 'complex128' }), b: strided(dy[0]!, { rows: 2, dtype: 'complex128' }), c: strided(dc[0]!, { rows: 2, dtype: 'complex128' }) })),
        (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED' && /cannot be captured/.test(e.message));
    } finally {
      ctx.dispose();
    }
  });

  it('a multi-GPU context runs host batches on the CPU reference and refuses device batches', () => {
    const rng = new Rng(9);
    const [A, B] = [randomArray(rng, 2 * 4 * 5, false), randomArray(rng, 2 * 4 * 5, false)];
    const want = new Float64Array(2 * 4 * 5);
    const args = (a: Storage, b: Storage, c: Storage) => ({
      transA: 'C' as const, alpha: [1, -1] as [number, number],
      a: strided(a, { rows: 2, count: 5, dtype: 'complex128' }), b: strided(b, { rows: 2, count: 5, dtype: 'complex128' }), c: strided(c, { rows: 2, count: 5, dtype: 'complex128' }),
    });
    const ref = newReferenceContext();
    ref.gemm(args(A, B, want));
    ref.dispose();
    const { ctx } = rig(2);
    try {
      const c = new Float64Array(2 * 4 * 5);
      ctx.gemm(args(A, B, c));
      assert.deepEqual([...c], [...want]);
      assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'cpu', gpu: false });
      const dA = ctx.upload(A);
      assert.throws(() => ctx.gemm(args(dA, B, new Float64Array(40))),
        (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED' && e.argument === 'a');
    } finally {
      ctx.dispose();
    }
  });
});

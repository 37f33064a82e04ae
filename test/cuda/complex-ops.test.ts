/**
 * The complex operations beyond gemm on a CUDA context (a fake device) and on a multi-GPU one:
 * each runs on the CPU with copies of device data (forced to it where the operation has complex
 * GPU kernels: theirs are test/cuda/zpotrf.test.ts's), ctx.lastRoute says 'cpu', and A, B, info
 * and pivots equal the fast CPU context's bit for bit (the CUDA context's CPU route is that
 * backend), for device-resident and host batches, with failing and NaN members in the batch. The
 * multi-GPU context's host batches run on the CPU reference.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Context, newCpuContext, newReferenceContext } from '../../src/api/context.js';
import { strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { Backend } from '../../src/core/ops.js';
import type { DeviceStorage, IntStorage, Storage } from '../../src/core/storage.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { FakeDevice, rig } from '../helpers/fake-gpus.js';
import { Rng, randomHpd } from '../helpers/complex.js';

/** A context over a fake device whose `op` runs on the CPU route (forced: a name every complex operation has). */
function fakeCuda(op: string): Context {
  const backend = new CudaBackend(new FakeDevice(0, []), 'fake');
  backend.force = { [op]: 'cpu' };
  return new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend);
}

const n = 5;
const count = 4;
const dtype = 'complex128';
const square = (s: Storage) => strided(s, { rows: n, count, dtype });
const rhs = (s: Storage) => strided(s, { rows: n, cols: 2, count, dtype });

/** Four HPD matrices (interleaved, dense), the second not positive definite, the third with a NaN. */
function data(): { A: Float64Array; B: Float64Array } {
  const rng = new Rng(17);
  const A = new Float64Array(2 * n * n * count);
  for (let p = 0; p < count; p++) A.set(randomHpd(rng, n).d, 2 * n * n * p);
  A[2 * (n * n + 2 * (n + 1))] = -1;
  A[2 * (2 * n * n + 3)] = Number.NaN;
  const B = Float64Array.from({ length: 2 * n * 2 * count }, () => rng.uniform());
  return { A, B };
}

type Call = (ctx: Context, A: Storage, B: Storage) => (IntStorage | undefined)[];
const CALLS: Record<string, Call> = {
  trsm: (ctx, A, B) => { ctx.trsm({ transA: 'C', alpha: [0.5, 1], a: square(A), b: rhs(B) }); return []; },
  trmm: (ctx, A, B) => { ctx.trmm({ side: 'right', uplo: 'upper', transA: 'T', a: strided(A, { rows: 2, count, stride: n * n, dtype }), b: rhs(B) }); return []; },
  herk: (ctx, A, B) => { ctx.herk({ trans: 'C', alpha: 2, beta: 0.5, a: rhs(B), c: strided(A, { rows: 2, count, stride: n * n, dtype }) }); return []; },
  syrk: (ctx, A, B) => { ctx.syrk({ uplo: 'upper', alpha: [1, 1], a: rhs(B), c: square(A) }); return []; },
  potrf: (ctx, A) => [ctx.potrf({ a: square(A) }).info],
  posv: (ctx, A, B) => [ctx.posv({ uplo: 'upper', a: square(A), b: rhs(B) }).info],
  getrf: (ctx, A) => { const r = ctx.getrf({ a: square(A) }); return [r.info, r.ipiv]; },
  gesv: (ctx, A, B) => { const r = ctx.gesv({ a: square(A), b: rhs(B) }); return [r.info, r.ipiv]; },
  trtri: (ctx, A) => [ctx.trtri({ uplo: 'upper', a: square(A) }).info],
  lauum: (ctx, A) => [ctx.lauum({ a: square(A) }).info],
  potri: (ctx, A) => [ctx.potri({ uplo: 'upper', a: square(A) }).info],
  poti: (ctx, A) => [ctx.poti({ a: square(A) }).info],
  heev: (ctx, A, B) => [ctx.heev({ uplo: 'upper', a: square(A), w: strided(B, { rows: n, cols: 1, count, stride: n + 1 }) }).info],
  geqrf: (ctx, A, B) => [ctx.geqrf({ a: square(A), tau: strided(B, { rows: n, cols: 1, count, dtype }) }).info],
  orgqr: (ctx, A, B) => { ctx.orgqr({ a: square(A), tau: strided(B, { rows: 2, cols: 1, count, stride: 2 * n, dtype }) }); return []; },
  ormqr: (ctx, A, B) => { ctx.ormqr({ side: 'right', trans: 'C', a: strided(A, { rows: 2, count, stride: n * n, dtype }), tau: strided(A, { rows: 2, cols: 1, count, stride: n * n, dtype }), c: strided(B, { rows: 5, cols: 2, count, dtype }) }); return []; },
  gels: (ctx, A, B) => [ctx.gels({ a: square(A), b: rhs(B) }).info],
  gesvd: (ctx, A, B) => [ctx.gesvd({ jobu: 'none', jobvt: 'none', a: square(A), s: strided(B, { rows: n, cols: 1, count, stride: n + 2 }) }).info],
  getri: (ctx, A) => [ctx.getri({ a: square(A), ipiv: Int32Array.from({ length: n * count }, (_, k) => Math.max(k % n, (3 * k) % n)) }).info],
};

describe('complex operations on a CUDA context (fake device): the CPU reference with copies', () => {
  for (const [op, call] of Object.entries(CALLS)) {
    it(`${op}: device-resident and host batches equal the fast CPU context's; lastRoute is 'cpu'`, () => {
      const { A, B } = data();
      const [wantA, wantB] = [A.slice(), B.slice()];
      const ref = newCpuContext();
      const wantInts = call(ref, wantA, wantB).map((x) => [...(x as Int32Array)]);
      ref.dispose();
      const ctx = fakeCuda(op);
      try {
        const [dA, dB] = [ctx.upload(A), ctx.upload(B)];
        const ints = call(ctx, dA, dB);
        assert.deepEqual(ctx.lastRoute, { op, route: 'cpu', gpu: false });
        assert.deepEqual([...ctx.download(dA)], [...wantA]);
        assert.deepEqual([...ctx.download(dB)], [...wantB]);
        assert.deepEqual(ints.map((x) => [...ctx.download(x as DeviceStorage)]), wantInts);
        const [hA, hB] = [A.slice(), B.slice()];
        const hostInts = call(ctx, hA, hB);
        assert.deepEqual([...hA], [...wantA]);
        assert.deepEqual([...hB], [...wantB]);
        assert.deepEqual(hostInts.map((x) => [...(x as Int32Array)]), wantInts);
      } finally {
        ctx.dispose();
      }
    });
  }

  it('a multi-GPU context runs host batches on the CPU reference and refuses device batches', () => {
    const { A, B } = data();
    const [wantA, wantB] = [A.slice(), B.slice()];
    const ref = newReferenceContext();
    const want = [...(ref.posv({ a: square(wantA), b: rhs(wantB) }).info as Int32Array)];
    ref.dispose();
    const { ctx } = rig(2);
    try {
      assert.deepEqual([...(ctx.posv({ a: square(A), b: rhs(B) }).info as Int32Array)], want);
      assert.deepEqual([...A], [...wantA]);
      assert.deepEqual([...B], [...wantB]);
      assert.deepEqual(ctx.lastRoute, { op: 'posv', route: 'cpu', gpu: false });
      const dA = ctx.upload(A);
      assert.throws(() => ctx.potrf({ a: square(dA) }), (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED' && e.argument === 'a');
    } finally {
      ctx.dispose();
    }
  });
});

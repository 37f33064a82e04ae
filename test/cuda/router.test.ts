/**
 * The CUDA router without a GPU (a recording device): every operation's route ends in the CPU
 * reference; the route a call takes is visible in ctx.lastRoute (a CPU fallback too); `force` pins
 * a candidate and an unknown name is an error naming the routes; syev's and gemm's crossovers
 * are the router's, not a family's; getri takes its GPU route and can be captured, and forced to
 * the CPU reference inside a CUDA context it runs there, visibly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { OP_NAMES, type Backend } from '../../src/core/ops.js';
import type { IntStorage, Storage } from '../../src/core/storage.js';
import { Context, referenceContext } from '../../src/api/context.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { ROUTES, chooseArray, routeNames } from '../../src/cuda/router.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { recordingDevice } from '../helpers/fake-gpus.js';

function cudaContext(): { ctx: Context; backend: CudaBackend; launches: { entry: string }[] } {
  const { dev, launches } = recordingDevice();
  dev.synchronize = () => {};
  const backend = new CudaBackend(dev, 'fake');
  return { ctx: new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend), backend, launches };
}

test('every operation has a route, and every route ends in the CPU reference', () => {
  assert.deepEqual(Object.keys(ROUTES).sort(), [...OP_NAMES].sort());
  for (const op of OP_NAMES) assert.equal(routeNames(op).at(-1), 'cpu', op);
  assert.deepEqual(routeNames('syev'), ['cusolver', 'tridiag', 'ql-thread', 'jacobi', 'split', 'cusolver-syevd', 'cpu']);
  assert.deepEqual(routeNames('gesvd'), ['bidiag', 'jacobi', 'split', 'cusolver-gesvd', 'cpu']);
  assert.deepEqual(routeNames('heev'), routeNames('syev'), 'heev on real data is syev');
  assert.deepEqual(routeNames('gemm'), ['cublas', 'tsm2', 'vbatched', 'gemm', 'cpu']);
  assert.deepEqual(routeNames('potrf'), ['cusolver', 'vbatched', 'potrf', 'cpu']);
  assert.deepEqual(routeNames('getrf'), ['cusolver', 'vbatched', 'getrf', 'cpu']);
});

test('syev: the tridiagonal design from the table\'s crossover, Jacobi below, above 512 the CPU where cuSOLVER does not load (a fake device); force pins one', () => {
  const { ctx, backend, launches } = cudaContext();
  const from = tuningFor('sm_90', 'tridiag').syevFrom.float64;
  const call = (n: number): void => {
    const a = ctx.alloc('float64', n * n * 2), w = ctx.alloc('float64', n * 2);
    launches.length = 0;
    ctx.syev({ a: strided(a, { rows: n, count: 2 }), w: strided(w, { rows: n, cols: 1, count: 2 }) });
  };
  call(from);
  assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'tridiag', gpu: true });
  assert.match(launches[0]!.entry, /^syev_tridiag_/);
  call(from - 1);
  assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'jacobi', gpu: true });
  backend.force = { syev: 'jacobi' };
  call(from);
  assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'jacobi', gpu: true });
  assert.match(launches[0]!.entry, /^syev_(block|rows|warp)_/);
  backend.force = { syev: 'lapack' };
  assert.throws(() => call(8), /syev has no route 'lapack' \(routes: cusolver, tridiag, ql-thread, jacobi, split, cusolver-syevd, cpu\)/);
  backend.force = {};
  call(513);
  assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'cpu', gpu: false });
});

test('syev at n <= 8: the per-thread QL design in the table\'s band, the per-thread Jacobi outside it and where forced', () => {
  const { ctx, backend, launches } = cudaContext();
  const orders = tuningFor('sm_90', 'qlThread').syev.float64.vectors;
  const call = (n: number): void => {
    const a = ctx.alloc('float64', n * n * 2), w = ctx.alloc('float64', n * 2);
    launches.length = 0;
    ctx.syev({ a: strided(a, { rows: n, count: 2 }), w: strided(w, { rows: n, cols: 1, count: 2 }) });
  };
  for (let n = 1; n <= 9; n++) {
    call(n);
    const ql = orders.includes(n);
    assert.deepEqual(ctx.lastRoute, { op: 'syev', route: ql ? 'ql-thread' : 'jacobi', gpu: true }, `n = ${n}`);
    if (ql) assert.match(launches[0]!.entry, new RegExp(`^syev_qlthread_d_st_n${n}_`));
  }
  backend.force = { syev: 'jacobi' };
  call(orders[orders.length - 1]!);
  assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'jacobi', gpu: true });
  assert.match(launches[0]!.entry, /^syev_thread_/);
});

test('gemm: a batch goes to the batched kernels (TSM2 takes single tall-and-skinny products)', () => {
  const { ctx } = cudaContext();
  const n = 8;
  const [a, b, c] = [0, 1, 2].map(() => ctx.alloc('float64', n * n * 4));
  ctx.gemm({ a: strided(a!, { rows: n, count: 4 }), b: strided(b!, { rows: n, count: 4 }), c: strided(c!, { rows: n, count: 4 }) });
  assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'gemm', gpu: true });
  const m = 1 << 20;
  const [ta, tb, tc] = [ctx.alloc('float64', m * 4), ctx.alloc('float64', 16), ctx.alloc('float64', m * 4)];
  ctx.gemm({ a: strided(ta, { rows: m, cols: 4, count: 1 }), b: strided(tb, { rows: 4, cols: 4, count: 1 }), c: strided(tc, { rows: m, cols: 4, count: 1 }) });
  assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'tsm2', gpu: true });
});

test('getri on a CUDA context: the GPU route, capturable; forced to the CPU reference, visible as such, with the reference\'s result', () => {
  const { ctx, backend, launches } = cudaContext();
  const n = 4;
  const host = Float64Array.from({ length: n * n * 3 }, (_, i) => ((i * 7) % 11) - 5 + (i % (n + 1) === 0 ? 9 : 0));
  const want = host.slice();
  const wantPiv = referenceContext.getrf({ a: strided(want, { rows: n, count: 3 }) }).ipiv;
  referenceContext.getri({ a: strided(want, { rows: n, count: 3 }), ipiv: wantPiv });
  // Device data: getrf on the (fake) GPU would launch kernels that do not run, so factor on the host and upload.
  const lu = host.slice();
  const ipiv = referenceContext.getrf({ a: strided(lu, { rows: n, count: 3 }) }).ipiv;
  const da = ctx.upload(lu);
  launches.length = 0;
  ctx.getri({ a: strided(da, { rows: n, count: 3 }), ipiv: ctx.upload(ipiv) });
  assert.deepEqual(ctx.lastRoute, { op: 'getri', route: 'getri', gpu: true });
  assert.equal(launches[0]!.entry, 'getri_prepare_d_st');
  assert.equal(launches.at(-1)!.entry, 'getri_finish_d_st');
  assert.equal(backend.capturable('getri'), true);
  backend.force = { getri: 'cpu' };
  const db = ctx.upload(lu);
  const { info } = ctx.getri({ a: strided(db, { rows: n, count: 3 }), ipiv: ctx.upload(ipiv) });
  assert.deepEqual(ctx.lastRoute, { op: 'getri', route: 'cpu', gpu: false });
  assert.deepEqual([...ctx.download(info as never)], [0, 0, 0]);
  assert.deepEqual([...ctx.download(db)], [...want]);
});

test('the array-level qr: TSQR for a few tall-and-skinny matrices, geqrf + orgqr otherwise, by the router', () => {
  const { dev } = recordingDevice();
  assert.equal(chooseArray('qr', { m: 1 << 20, n: 8, count: 1 }, dev).name, 'tsqr');
  assert.equal(chooseArray('qr', { m: 64, n: 8, count: 1 }, dev).name, 'geqrf+orgqr');
  assert.equal(chooseArray('qr', { m: 1 << 20, n: 8, count: 1 }, dev, 'geqrf+orgqr').name, 'geqrf+orgqr');
});

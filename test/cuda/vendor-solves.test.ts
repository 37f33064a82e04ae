/**
 * The vendor routes of the solves (trsm on cublas?trsmBatched, getrs and gesv on
 * cublas?getrsBatched) without a GPU; potrs and posv have none (cusolverDn?potrsBatched writes the
 * opposite triangle of A):
 * - the table's rules by right-hand sides and side, and what each route asks the table (order,
 *   right-hand sides, side, count), or that it asks nothing (alpha = 0, mixed shapes);
 * - with the libraries missing (pointed at a path that does not exist) the own routes run, and a
 *   capture passes over the vendor candidates;
 * - forced on a device that runs nothing, each route plans its kernels, calls no library, factors
 *   gesv through the factorisation it is given, and refuses what it does not take before anything
 *   is written;
 * - the checks of the native calls' arguments;
 * - the new kernels compile (nvcc, where it is on PATH).
 * The sweep's cases for the solves, and the rules and source their rows give, are tested in
 * vendor.test.ts beside the other operations' (one TypeScript compiler loaded per file).
 */
// run-tests: process no-vendor-libraries (vendor, vendor-dense and vendor-solves point the two libraries at the same missing paths)
import assert from 'node:assert/strict';
import { test } from 'node:test';

process.env['MYRIAD_LIBCUBLAS'] = '/nonexistent/libcublas.so';
process.env['MYRIAD_LIBCUSOLVER'] = '/nonexistent/libcusolver.so';

const { list, strided, variable } = await import('../../src/core/batch.js');
const { choose, COMPLEX_ROUTES, ownRoute, ROUTES } = await import('../../src/cuda/router.js');
const { PlanningDevice } = await import('../../src/cuda/runtime/planning-device.js');
const { vendorRuleFor, vendorTables } = await import('../../src/cuda/model/tuning/vendor-tables.js');
const vendor = await import('../../src/cuda/vendor/index.js');
const { TRSM_RHS_MAX, trsmQuery } = await import('../../src/cuda/vendor/trsm.js');
const { luSolveQuery } = await import('../../src/cuda/vendor/getrs.js');
const { checkVendorArguments, vendorChunks, VENDOR_BATCH_MAX } = await import('../../src/cuda/vendor/native.js');
const { getrsPivotsSource, solveMaskSource, stridedPointersSource } = await import('../../src/cuda/vendor/kernels.js');
const { H100 } = await import('../helpers/devices.js');
const { NVCC_SKIP, compileForSm90 } = await import('../helpers/nvcc.js');

import type { VendorTable } from '../../src/cuda/model/tuning/vendor-tables.js';

const H200 = { ...H100, name: 'NVIDIA H200', totalMemoryBytes: 150e9 };
type Dev = InstanceType<typeof PlanningDevice>;

const TABLE: VendorTable = {
  card: 'Test card', provenance: 'made up',
  rules: [
    { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'left', n: [64, 512], nrhs: [16, Infinity], count: [100, Infinity], measured: [{ n: 64, count: 100, ratio: 0.5 }] },
    { op: 'getrs', route: 'cublas', dtype: 'float32', n: [8, Infinity], nrhs: [1, 1], count: [1000, Infinity], measured: [{ n: 8, count: 1000, ratio: 0.5 }] },
  ],
};

test('a solve\'s rule takes its right-hand sides and its side, and a query without them takes none', () => {
  const t = { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'left', n: 64, nrhs: 16, count: 100 } as const;
  assert.ok(vendorRuleFor(TABLE, t));
  assert.ok(vendorRuleFor(TABLE, { ...t, nrhs: 5000, n: 512 }));
  assert.equal(vendorRuleFor(TABLE, { ...t, nrhs: 15 }), undefined);
  assert.equal(vendorRuleFor(TABLE, { ...t, side: 'right' }), undefined);
  const { nrhs: _nrhs, ...withoutNrhs } = t;
  assert.equal(vendorRuleFor(TABLE, withoutNrhs), undefined);
  const g = { op: 'getrs', route: 'cublas', dtype: 'float32', n: 8, nrhs: 1, count: 1000 } as const;
  assert.ok(vendorRuleFor(TABLE, g));
  assert.equal(vendorRuleFor(TABLE, { ...g, nrhs: 2 }), undefined);
  assert.equal(vendorRuleFor(TABLE, { ...g, op: 'gesv' }), undefined);
});

test('the tables: every rule of a solve bounds its right-hand sides, every trsm rule names its side', () => {
  for (const t of vendorTables()) for (const r of t.rules) {
    if (['trsm', 'getrs', 'gesv'].includes(r.op)) assert.ok(r.nrhs && r.nrhs[0] >= 1 && r.nrhs[0] <= r.nrhs[1], `${t.card} ${r.op}: nrhs`);
    if (r.op === 'trsm') assert.ok(r.side === 'left' || r.side === 'right', `${t.card} trsm: side`);
  }
});

/** Device requests on a device that runs nothing. */
function requests(dev: Dev) {
  const batch = (rows: number, cols: number, count: number, dtype: 'float64' | 'float32' = 'float64') =>
    strided(dev.alloc(dtype, rows * cols * count), { rows, cols, count });
  return {
    batch,
    trsm: (side: 'left' | 'right', m: number, n: number, count: number, alpha = 1) => {
      const k = side === 'left' ? m : n;
      return { side, uplo: 'lower' as const, transA: 'N' as const, diag: 'nonunit' as const, alpha, a: batch(k, k, count), b: batch(m, n, count) };
    },
    getrs: (n: number, nrhs: number, count: number) =>
      ({ trans: 'N' as const, a: batch(n, n, count), b: batch(n, nrhs, count), ipiv: dev.alloc('int32', n * count), pivotStride: n, info: dev.alloc('int32', count) }),
    potrs: (n: number, nrhs: number, count: number) => ({ uplo: 'lower' as const, a: batch(n, n, count), b: batch(n, nrhs, count), info: dev.alloc('int32', count) }),
  };
}

test('what each route asks the table: order, right-hand sides, side and count; nothing for what it does not take', () => {
  const dev = new PlanningDevice(H200);
  const r = requests(dev);
  assert.deepEqual(trsmQuery(r.trsm('left', 33, 5, 7)), { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'left', n: 33, nrhs: 5, count: 7 });
  assert.deepEqual(trsmQuery(r.trsm('right', 33, 5, 7)), { op: 'trsm', route: 'cublas', dtype: 'float64', side: 'right', n: 5, nrhs: 33, count: 7 });
  assert.equal(trsmQuery(r.trsm('left', 33, 5, 7, 0)), undefined, 'alpha = 0 stays with the own routes');
  assert.equal(trsmQuery(r.trsm('left', 0, 5, 7)), undefined);
  assert.equal(trsmQuery(r.trsm('left', 33, 5, 0)), undefined);
  assert.equal(trsmQuery(r.trsm('left', 2, TRSM_RHS_MAX + 1, 1)), undefined, 'more right-hand sides than cuBLAS\'s grid takes');
  assert.equal(trsmQuery(r.trsm('right', TRSM_RHS_MAX + 1, 2, 1)), undefined);
  assert.equal(trsmQuery(r.trsm('left', 2, TRSM_RHS_MAX, 1))?.nrhs, TRSM_RHS_MAX);
  const mixed = variable([8, 9].map((n) => ({ data: dev.alloc('float64', n * n), rows: n, cols: n })));
  assert.equal(trsmQuery({ ...r.trsm('left', 8, 8, 2), a: mixed, b: mixed }), undefined, 'mixed shapes');
  assert.deepEqual(luSolveQuery('getrs', r.getrs(64, 16, 10)), { op: 'getrs', route: 'cublas', dtype: 'float64', n: 64, nrhs: 16, count: 10 });
  assert.deepEqual(luSolveQuery('gesv', r.getrs(64, 1, 10)), { op: 'gesv', route: 'cublas', dtype: 'float64', n: 64, nrhs: 1, count: 10 });
  assert.equal(luSolveQuery('getrs', r.getrs(64, 0, 10)), undefined);
});

test('with the libraries missing the own routes run, and a capture passes over the vendor candidates', () => {
  const dev = new PlanningDevice(H200);
  const r = requests(dev);
  const cases = [
    ['trsm', r.trsm('left', 256, 16, 1000), 'cublas'], ['getrs', r.getrs(256, 16, 1000), 'cublas'], ['gesv', r.getrs(256, 16, 1000), 'cublas'],
  ] as const;
  for (const [op, request, route] of cases) {
    const vendors = ROUTES[op].filter((c) => c.capturable === false);
    assert.deepEqual(vendors.map((c) => c.name), [route], `${op}: one vendor candidate`);
    assert.equal(ROUTES[op][0]!.name, route, `${op}: the vendor is asked first`);
    assert.equal(choose(op, request, dev).name, op, `${op}: the own route where the library does not load`);
    assert.equal(ownRoute(op, request, dev).name, op);
    assert.equal(choose(op, request, dev, route).name, route);
    assert.throws(() => choose(op, request, dev, route, true), /cannot be recorded in ctx.capture\(\)/);
  }
  assert.equal(vendor.cublasTrsmCovers(r.trsm('left', 256, 16, 1000) as never, dev), false);
  assert.equal(vendor.cublasTrsmCovers(r.trsm('left', 256, 16, 1000) as never, new PlanningDevice(H100)), false, 'a card without a table');
});

test('potrs and posv have no vendor candidate: cusolverDn?potrsBatched writes the opposite triangle of A', () => {
  const dev = new PlanningDevice(H200);
  const r = requests(dev);
  for (const op of ['potrs', 'posv'] as const) {
    assert.deepEqual(ROUTES[op].map((c) => c.name), ['vbatched', op, 'cpu'], `${op}: the variable-size, own and CPU routes`);
    assert.equal(ROUTES[op].filter((c) => c.capturable === false).length, 0, `${op}: no vendor candidate`);
    assert.equal(choose(op, r.potrs(256, 1, 1000), dev).name, op);
    assert.throws(() => choose(op, r.potrs(256, 1, 1000), dev, 'cusolver'), /has no route 'cusolver'/);
  }
  assert.equal('cusolverPotrs' in vendor || 'cusolverPosv' in vendor, false);
});

test('forced on a device that runs nothing, the routes plan their kernels and call no library', () => {
  const entries = (run: (dev: Dev, r: ReturnType<typeof requests>) => void): string[] => {
    const dev = new PlanningDevice(H200);
    run(dev, requests(dev));
    return dev.sources.map((s) => s.entry).sort();
  };
  assert.deepEqual(entries((dev, r) => assert.deepEqual(vendor.cublasTrsm(dev, r.trsm('right', 9, 4, 3) as never), [])), ['vendor_strided_pointers']);
  assert.deepEqual(entries((dev, r) => vendor.cublasGetrs(dev, r.getrs(9, 4, 3) as never)), ['info_zero', 'vendor_getrs_pivots', 'vendor_strided_pointers']);
  // gesv: the factorisation it is given, then the solve with failed matrices masked.
  const factored: unknown[] = [];
  assert.deepEqual(entries((dev, r) => {
    const q = r.getrs(9, 4, 3);
    vendor.cublasGesv(dev, q as never, (_d, f) => { factored.push(f); assert.equal(f.a, q.a); assert.equal(f.ipiv, q.ipiv); assert.equal(f.info, q.info); assert.equal(f.pivotStride, 9); });
  }), ['vendor_getrs_pivots', 'vendor_solve_mask', 'vendor_strided_pointers']);
  assert.equal(factored.length, 1);
  // List batches: their addresses uploaded by groups, no pointer kernel.
  assert.deepEqual(entries((dev) => {
    const lst = (rows: number, cols: number) => list([0, 1, 2].map(() => dev.alloc('float64', rows * cols)), { rows, cols });
    vendor.cublasTrsm(dev, { side: 'left', uplo: 'upper', transA: 'T', diag: 'unit', alpha: 2, a: lst(5, 5), b: lst(5, 2) } as never);
  }), []);
});

/** A device that runs nothing whose int32 downloads (the trsm route's diagonal flags) read 1 at the places `flagged`. */
class FlaggingDevice extends PlanningDevice {
  constructor(private readonly flagged: readonly number[]) { super(H200); }
  override download(src: Parameters<Dev['download']>[0], dst?: Parameters<Dev['download']>[1]): ReturnType<Dev['download']> {
    const h = super.download(src, dst);
    if (h instanceof Int32Array) for (const q of this.flagged) if (q < h.length) h[q] = 1;
    return h;
  }
}

test('the complex cuBLAS trsm sets aside the matrices whose diagonal it cannot take, and the router solves them on the own route', () => {
  const complexTrsm = (d: Dev, diag: 'unit' | 'nonunit' = 'nonunit') => {
    const pairs = (rows: number, cols: number) => strided(d.alloc('float64', 2 * rows * cols * 3), { rows, cols, count: 3, dtype: 'complex128' });
    return { side: 'left' as const, uplo: 'lower' as const, transA: 'C' as const, diag, alpha: [1, 0] as [number, number], a: pairs(9, 9), b: pairs(9, 4) };
  };
  // The vendor route alone: the flagged places back, their B pointers pointed at scratch.
  const dev = new FlaggingDevice([1]);
  assert.deepEqual(vendor.cublasTrsm(dev, complexTrsm(dev) as never), [1]);
  assert.deepEqual(dev.sources.map((s) => s.entry).sort(), ['vendor_solve_mask', 'vendor_strided_pointers', 'vendor_ztiny_diagonal_d_pa']);
  // A unit diagonal is not scanned, nor a real one (cuBLAS's real trsmBatched takes a subnormal diagonal): nothing set aside.
  const unit = new FlaggingDevice([0, 1, 2]);
  assert.deepEqual(vendor.cublasTrsm(unit, complexTrsm(unit, 'unit') as never), []);
  assert.deepEqual(vendor.cublasTrsm(unit, requests(unit).trsm('left', 9, 4, 3) as never), []);
  assert.deepEqual(unit.sources.map((s) => s.entry), ['vendor_strided_pointers']);
  // Through the router: after the vendor's kernels, the own route's for the member set aside.
  const d = new FlaggingDevice([2]);
  COMPLEX_ROUTES.trsm.find((x) => x.name === 'cublas')!.run!(d, complexTrsm(d) as never);
  const names = d.sources.map((s) => s.entry);
  const own = names.filter((e) => !e.startsWith('vendor_'));
  assert.ok(own.length > 0, `the own route solves the member set aside (${names.join(', ')})`);
  assert.ok(names.indexOf(own[0]!) > names.indexOf('vendor_solve_mask'), 'after the vendor route');
});

test('forced, a route refuses what it does not take before anything is written or factored', () => {
  const dev = new PlanningDevice(H200);
  const r = requests(dev);
  assert.throws(() => vendor.cublasTrsm(dev, r.trsm('left', 9, 4, 3, 0) as never), /alpha != 0/);
  assert.throws(() => vendor.cublasTrsm(dev, r.trsm('right', TRSM_RHS_MAX + 1, 2, 1) as never), /at most 65536 right-hand sides/);
  let factored = 0;
  const short = { ...r.getrs(9, 1, 3), ipiv: dev.alloc('int32', 9 * 3 - 1) };
  assert.throws(() => vendor.cublasGetrs(dev, short as never), (e: Error & { code?: string }) => e.code === 'BOUNDS' && /ipiv/.test(e.message));
  assert.throws(() => vendor.cublasGesv(dev, short as never, () => { factored++; }), (e: Error & { code?: string }) => e.code === 'BOUNDS');
  assert.equal(factored, 0);
  assert.equal(dev.sources.length, 0, 'nothing planned');
  // Nothing to do: no kernel, no call.
  const empty = new PlanningDevice(H200);
  vendor.cublasTrsm(empty, requests(empty).trsm('left', 9, 4, 0) as never);
  vendor.cublasGetrs(empty, requests(empty).getrs(9, 1, 0) as never);
  assert.equal(empty.sources.length, 0);
});

test('a batch beyond one grid dimension is split into vendor calls of at most 65535 matrices', () => {
  assert.equal(VENDOR_BATCH_MAX, 65535);
  assert.deepEqual(vendorChunks(0), []);
  assert.deepEqual(vendorChunks(65535), [[0, 65535]]);
  assert.deepEqual(vendorChunks(200000), [[0, 65535], [65535, 65535], [131070, 65535], [196605, 3395]]);
});

test('the native calls\' arguments are checked before they reach the library', () => {
  const ok = (): void => checkVendorArguments('call', 'float64', { n: 8, nrhs: 1, count: 3 }, [['lda', 8, 8], ['ldb', 10, 8]], { a: 16n, b: 32n });
  ok();
  const code = (c: string) => (e: Error & { code?: string }) => e.code === c;
  assert.throws(() => checkVendorArguments('call', 'complex128' as never, { n: 8 }, [], {}), code('DTYPE'));
  assert.throws(() => checkVendorArguments('call', 'float32', { n: 0 }, [], {}), code('INVALID_ARGUMENT'));
  assert.throws(() => checkVendorArguments('call', 'float32', { count: 2 ** 31 }, [], {}), code('INVALID_ARGUMENT'));
  assert.throws(() => checkVendorArguments('call', 'float32', { nrhs: 1.5 }, [], {}), code('INVALID_ARGUMENT'));
  assert.throws(() => checkVendorArguments('call', 'float32', { n: 8 }, [['lda', 7, 8]], {}), code('LAYOUT'));
  assert.throws(() => checkVendorArguments('call', 'float32', { n: 8 }, [['lda', 2 ** 31, 8]], {}), code('LAYOUT'));
  assert.throws(() => checkVendorArguments('call', 'float32', { n: 8 }, [['lda', 8, 8]], { b: 0n }), code('INVALID_ARGUMENT'));
});

test('the solves\' kernels around the vendor calls compile for sm_90', { skip: NVCC_SKIP }, async () => {
  for (const r of await compileForSm90([getrsPivotsSource(), solveMaskSource(), stridedPointersSource()])) assert.ok('report' in r, `${r.src.entry}: ${'error' in r ? r.error : ''}`);
});

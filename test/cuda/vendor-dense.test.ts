/**
 * The dense vendor routes beyond the own designs' range (cuda/vendor/syevd.ts, gesvd.ts), without a GPU:
 * - routing: which syev orders and gesvd shapes reach 'cusolver-syevd' / 'cusolver-gesvd' where the
 *   library loads (the router's lists walked with the capability routes' pure `takes` standing in
 *   for the library's presence), and that without the library (here) those requests go to the CPU
 *   reference, the own routes keeping their sizes; forced by name, the routes run any size; a
 *   capture passes over them;
 * - the transposed case's bookkeeping (`denseGesvdShape`): which factors the vendor computes, where
 *   u and vt come from, the scratch; checked by running the pack and unpack rules in JavaScript
 *   around the CPU reference's SVD of G (standing in for the vendor's) and asking A = U S VT;
 * - forced on a device that runs nothing, the routes plan their kernels and call no library;
 * - the new kernels compile for sm_90 (nvcc, where it is on PATH).
 */
// run-tests: process no-vendor-libraries (vendor, vendor-dense and vendor-solves point the two libraries at the same missing paths)
import assert from 'node:assert/strict';
import { test } from 'node:test';

process.env['MYRIAD_LIBCUSOLVER'] = '/nonexistent/libcusolver.so';
process.env['MYRIAD_LIBCUBLAS'] = '/nonexistent/libcublas.so';

const { batchCount, matrixAt, strided, variable } = await import('../../src/core/batch.js');
const { cpuGesvd } = await import('../../src/cpu/lapack/index.js');
const { choose, ownRoute, ROUTES } = await import('../../src/cuda/router.js');
const { splitBeyondOwn } = await import('../../src/cuda/route-split.js');
const { PlanningDevice } = await import('../../src/cuda/runtime/planning-device.js');
const vendor = await import('../../src/cuda/vendor/index.js');
const { densePackSource, denseUnpackSource, gesvdValuesSource } = await import('../../src/cuda/vendor/kernels-dense.js');
const { denseChunks, DENSE_CHUNK_BYTES } = await import('../../src/cuda/vendor/groups.js');
const { H100 } = await import('../helpers/devices.js');
const { Rng } = await import('../helpers/random.js');
const { orthoResidual, randomMat, svdResidual } = await import('../helpers/jacobi-checks.js');
const { NVCC_SKIP, compileForSm90 } = await import('../helpers/nvcc.js');

import type { Candidate, DeviceRequest } from '../../src/cuda/router.js';
import type { GpuDevice } from '../../src/cuda/runtime/types.js';

const H200 = { ...H100, name: 'NVIDIA H200', totalMemoryBytes: 150e9 };
const EPS = 2 ** -52;

type Dev = InstanceType<typeof PlanningDevice>;
const syev = (dev: Dev, orders: readonly number[], jobz: 'vectors' | 'values' = 'vectors', dtype: 'float64' | 'float32' = 'float64') => {
  const count = orders.length;
  const a = orders.every((n) => n === orders[0])
    ? strided(dev.alloc(dtype, Math.max(1, orders[0]! * orders[0]! * count)), { rows: orders[0]!, count })
    : variable(orders.map((n) => ({ data: dev.alloc(dtype, Math.max(1, n * n)), rows: n, cols: n, ld: Math.max(1, n) })));
  const w = orders.every((n) => n === orders[0])
    ? strided(dev.alloc(dtype, Math.max(1, orders[0]! * count)), { rows: orders[0]!, cols: 1, count })
    : variable(orders.map((n) => ({ data: dev.alloc(dtype, Math.max(1, n)), rows: n, cols: 1, ld: Math.max(1, n) })));
  return { jobz, uplo: 'lower' as const, a, w, info: dev.alloc('int32', count) };
};
const gesvd = (dev: Dev, m: number, n: number, count = 1, wantU = true, wantVt = true, dtype: 'float64' | 'float32' = 'float64') => {
  const k = Math.min(m, n);
  return {
    a: strided(dev.alloc(dtype, Math.max(1, m) * n * count + 1), { rows: m, cols: n, count }),
    s: strided(dev.alloc(dtype, Math.max(1, k * count)), { rows: k, cols: 1, count }),
    ...(wantU ? { u: strided(dev.alloc(dtype, Math.max(1, m * k * count)), { rows: m, cols: k, count }) } : {}),
    ...(wantVt ? { vt: strided(dev.alloc(dtype, Math.max(1, k) * n * count + 1), { rows: k, cols: n, count }) } : {}),
    info: dev.alloc('int32', count),
  };
};

/**
 * The route the router takes where libcusolver loads: its list walked in order, a capability
 * route's `covers` replaced by its pure part (the table's vendor candidates keep theirs, false here).
 */
function routeWithLibrary<K extends 'syev' | 'gesvd'>(op: K, r: DeviceRequest<K>, dev: GpuDevice): string {
  const list = ROUTES[op] as readonly Candidate<K>[];
  for (const c of list) {
    const covers = c.name === 'cusolver-syevd' || c.name === 'cusolver-gesvd' ? pureCapability(op).covers
      : c.name === 'split' ? splitWithLibrary(op).covers
        : c.covers;
    if (covers === undefined || covers(r, dev)) return c.name;
  }
  throw new Error('unreachable: the CPU reference covers everything');
}

/** The capability route of `op` with its pure `takes` as `covers` (the library's presence assumed); `run` records the request. */
function pureCapability<K extends 'syev' | 'gesvd'>(op: K, ran: DeviceRequest<K>[] = []): Candidate<K> & { run: (dev: GpuDevice, r: DeviceRequest<K>) => void } {
  const takes = (r: DeviceRequest<K>): boolean => (op === 'syev' ? vendor.syevdTakes((r as DeviceRequest<'syev'>).a) : vendor.gesvdDenseTakes(r as DeviceRequest<'gesvd'>));
  return { name: `cusolver-${op === 'syev' ? 'syevd' : 'gesvd'}`, covers: takes, run: (_dev, r) => { ran.push(r); } };
}

/** The router's 'split' of `op` over its own candidates (those before it in the list) and the pure capability route. */
function splitWithLibrary<K extends 'syev' | 'gesvd'>(op: K, ran: DeviceRequest<K>[] = []): Candidate<K> {
  const list = ROUTES[op] as readonly Candidate<K>[];
  return splitBeyondOwn(op, list.slice(0, list.findIndex((c) => c.name === 'split')), pureCapability(op, ran));
}

test('the capability routes stand after the own candidates and before the CPU reference, and are never recorded', () => {
  assert.deepEqual(ROUTES.syev.map((c) => c.name), ['cusolver', 'tridiag', 'ql-thread', 'jacobi', 'split', 'cusolver-syevd', 'cpu']);
  assert.deepEqual(ROUTES.heev.map((c) => c.name), ROUTES.syev.map((c) => c.name));
  assert.deepEqual(ROUTES.gesvd.map((c) => c.name), ['bidiag', 'jacobi', 'split', 'cusolver-gesvd', 'cpu']);
  for (const c of [...ROUTES.syev, ...ROUTES.gesvd]) if (c.name.startsWith('cusolver') || c.name === 'split') assert.equal(c.capturable, false, c.name);
});

test('syev: where the library loads, orders above 512 (and variable batches with such a member) go to cusolver-syevd, the rest stay on the own designs', () => {
  const dev = new PlanningDevice(H200);
  for (const dtype of ['float64', 'float32'] as const) for (const jobz of ['vectors', 'values'] as const) {
    for (const n of [1, 5, 8, 9, 32, 33, 100, 256, 512]) assert.notEqual(routeWithLibrary('syev', syev(dev, [n, n], jobz, dtype), dev), 'cusolver-syevd', `${dtype} ${jobz} ${n}`);
    for (const n of [513, 700, 1025, 4096, 8192]) assert.equal(routeWithLibrary('syev', syev(dev, [n], jobz, dtype), dev), 'cusolver-syevd', `${dtype} ${jobz} ${n}`);
  }
  assert.equal(routeWithLibrary('syev', syev(dev, [100, 600, 3]), dev), 'split', 'a variable batch with one member beyond 512: split');
  assert.equal(routeWithLibrary('syev', syev(dev, [0, 513]), dev), 'split');
  assert.equal(routeWithLibrary('syev', syev(dev, [600, 513, 700]), dev), 'cusolver-syevd', 'every member beyond 512: no split');
  assert.notEqual(routeWithLibrary('syev', syev(dev, [100, 200, 3]), dev), 'cusolver-syevd');
  assert.notEqual(routeWithLibrary('syev', syev(dev, [100, 200, 3]), dev), 'split');
  // A dense copy past the vendor's int32 counts is not taken (n^2 >= 2^31): the CPU reference then.
  assert.equal(vendor.syevdTakes(strided(dev.alloc('float32', 1), { rows: 46341, count: 1, ld: 46341, stride: 0 })), false);
  assert.equal(vendor.syevdTakes(strided(dev.alloc('float32', 1), { rows: 46340, count: 1, ld: 46340, stride: 0 })), true);
});

test('gesvd: where the library loads, shapes beyond the bidiagonalization range and Jacobi\'s 512 go to cusolver-gesvd, the rest stay', () => {
  const dev = new PlanningDevice(H200);
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of [[600, 520], [520, 600], [5000, 40], [40, 5000], [513, 513], [1024, 1024], [4097, 100], [100, 4097], [5000, 96], [600, 0]] as const) {
      assert.equal(routeWithLibrary('gesvd', gesvd(dev, m, n, 1, true, true, dtype), dev), 'cusolver-gesvd', `${dtype} ${m} x ${n}`);
    }
    for (const [m, n, want] of [[512, 512, 'bidiag'], [4096, 100, 'bidiag'], [100, 4096, 'bidiag'], [512, 40, 'jacobi'], [40, 512, 'jacobi'], [32, 32, 'jacobi']] as const) {
      assert.equal(routeWithLibrary('gesvd', gesvd(dev, m, n, 2, true, true, dtype), dev), want, `${dtype} ${m} x ${n}`);
    }
  }
  for (const [u, vt] of [[true, false], [false, true], [false, false]] as const) assert.equal(routeWithLibrary('gesvd', gesvd(dev, 600, 520, 1, u, vt), dev), 'cusolver-gesvd');
});

test("'split': the members an own candidate takes run as one variable batch on it, the rest on the capability route, info through compact arrays; not a split request: an error", () => {
  const dev = new PlanningDevice(H200);
  const ownRan: DeviceRequest<'syev'>[] = [], beyondRan: DeviceRequest<'syev'>[] = [];
  const rows = (r: DeviceRequest<'syev'>) => Array.from({ length: batchCount(r.a) }, (_, i) => matrixAt(r.a, i).rows);
  const own: Candidate<'syev'> = { name: 'own', covers: (r) => rows(r).every((n) => n <= 512), run: (_dev, r) => { ownRan.push(r); } };
  const split = splitBeyondOwn('syev', [own], pureCapability('syev', beyondRan));
  const r = syev(dev, [100, 600, 3, 513, 0]);
  assert.equal(split.covers!(r, dev), true);
  split.run!(dev, r);
  assert.equal(ownRan.length, 1);
  assert.equal(beyondRan.length, 1);
  assert.deepEqual(rows(ownRan[0]!), [100, 3, 0], 'the own part: members 0, 2, 4 in batch order');
  assert.deepEqual(rows(beyondRan[0]!), [600, 513], 'the rest: members 1, 3');
  assert.equal(matrixAt(ownRan[0]!.a, 1).data, matrixAt(r.a, 2).data, "a part's member is the batch's matrix, not a copy");
  for (const part of [ownRan[0]!, beyondRan[0]!]) assert.notEqual(part.info, r.info, 'info through a compact array of the part');
  for (const orders of [[100, 200, 3], [600, 700], [512]]) assert.equal(split.covers!(syev(dev, orders), dev), false, `${orders}`);
  assert.throws(() => split.run!(dev, syev(dev, [100, 200])), /route 'split' takes a variable batch with members both inside and beyond/);
  // gesvd: by shape; a tall member beyond 4096 rows and Jacobi's 512 goes to the dense route.
  const g = splitWithLibrary('gesvd');
  const k = (m: number, n: number) => Math.min(m, n);
  const shapes = [[30, 20], [5000, 40], [100, 100]] as const;
  const vr = {
    a: variable(shapes.map(([m, n]) => ({ data: dev.alloc('float64', m * n), rows: m, cols: n }))),
    s: variable(shapes.map(([m, n]) => ({ data: dev.alloc('float64', k(m, n)), rows: k(m, n), cols: 1 }))),
    info: dev.alloc('int32', shapes.length),
  };
  assert.equal(g.covers!(vr as never, dev), true);
});

test('without the library (here) those requests run on the CPU reference; forced by name the routes are chosen at any size; a capture passes over them', () => {
  const dev = new PlanningDevice(H200);
  assert.equal(vendor.vendorUsable(dev, 'cusolver'), false);
  assert.equal(vendor.cusolverSyevdCovers(syev(dev, [1025]) as never, dev), false);
  assert.equal(vendor.cusolverGesvdCovers(gesvd(dev, 600, 520) as never, dev), false);
  assert.equal(choose('syev', syev(dev, [1025]), dev).name, 'cpu');
  assert.equal(choose('syev', syev(dev, [512]), dev).name, 'tridiag');
  assert.equal(choose('gesvd', gesvd(dev, 5000, 40), dev).name, 'cpu');
  assert.equal(choose('gesvd', gesvd(dev, 256, 256), dev).name, 'bidiag');
  assert.equal(choose('syev', syev(dev, [64]), dev, 'cusolver-syevd').name, 'cusolver-syevd');
  assert.equal(choose('gesvd', gesvd(dev, 64, 40), dev, 'cusolver-gesvd').name, 'cusolver-gesvd');
  assert.throws(() => choose('syev', syev(dev, [1025]), dev, 'cusolver-syevd', true), /cannot be recorded in ctx.capture\(\)/);
  assert.equal(ownRoute('syev', syev(dev, [1025]), dev).name, 'cpu');
  // Devices that are not CUDA devices never take them.
  assert.equal(vendor.vendorUsable({ ...dev, info: H200 } as unknown as GpuDevice, 'cusolver'), false);
});

test('denseGesvdShape: jobs, sources and scratch of the tall and the wide (transposed) case', () => {
  assert.deepEqual(vendor.denseGesvdShape(600, 520, true, true), {
    m: 600, n: 520, k: 520, transpose: false, rows: 600, vendorU: true, vendorVt: true,
    u: { from: 'U', transpose: false, ld: 600 }, vt: { from: 'VT', transpose: false, ld: 520 },
    scratch: { g: 600 * 520, s: 520, u: 600 * 520, vt: 520 * 520 },
  });
  assert.deepEqual(vendor.denseGesvdShape(520, 600, true, true), {
    m: 520, n: 600, k: 520, transpose: true, rows: 600, vendorU: true, vendorVt: true,
    u: { from: 'VT', transpose: true, ld: 520 }, vt: { from: 'U', transpose: true, ld: 600 },
    scratch: { g: 600 * 520, s: 520, u: 600 * 520, vt: 520 * 520 },
  });
  // One side only: the vendor computes the one factor it comes from (the other side of G where transposed).
  const wideU = vendor.denseGesvdShape(40, 5000, true, false);
  assert.deepEqual([wideU.vendorU, wideU.vendorVt, wideU.u?.from, wideU.vt, wideU.scratch.u, wideU.scratch.vt], [false, true, 'VT', null, 0, 1600]);
  const wideVt = vendor.denseGesvdShape(40, 5000, false, true);
  assert.deepEqual([wideVt.vendorU, wideVt.vendorVt, wideVt.u, wideVt.vt?.from, wideVt.scratch.u, wideVt.scratch.vt], [true, false, null, 'U', 200000, 0]);
  const tallVt = vendor.denseGesvdShape(5000, 40, false, true);
  assert.deepEqual([tallVt.vendorU, tallVt.vendorVt, tallVt.vt?.from, tallVt.vt?.transpose], [false, true, 'VT', false]);
  const none = vendor.denseGesvdShape(520, 600, false, false);
  assert.deepEqual([none.vendorU, none.vendorVt, none.u, none.vt, none.scratch.u + none.scratch.vt], [false, false, null, null, 0]);
});

/** dense_pack in JavaScript: A (m x n, ld) into G, as it is or transposed (kernels-dense.ts). */
function pack(a: Float64Array, m: number, n: number, ld: number, transpose: boolean): Float64Array {
  const d = new Float64Array(m * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) d[transpose ? j + i * n : i + j * m] = a[i + j * ld]!;
  return d;
}
/** dense_unpack in JavaScript: rows x cols out of src (leading dimension ld), read transposed where asked. */
function unpack(src: Float64Array, rows: number, cols: number, ld: number, transpose: boolean): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) out[i + j * rows] = src[transpose ? j + i * ld : i + j * ld]!;
  return out;
}

test('the bookkeeping run around a stand-in vendor SVD of G gives A = U S VT, tall, square and wide, every job', () => {
  const rng = new Rng(31);
  for (const [m, n] of [[9, 5], [6, 6], [5, 9], [1, 7], [7, 1]] as const) for (const [wantU, wantVt] of [[true, true], [true, false], [false, true]] as const) {
    const shape = vendor.denseGesvdShape(m, n, wantU, wantVt);
    const ld = m + 2;
    const a = new Float64Array(ld * n).fill(NaN);
    const a0 = randomMat(rng, m, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) a[i + j * ld] = a0.d[i + j * m]!;
    const g = pack(a, m, n, ld, shape.transpose);
    const { rows: M, k } = shape;
    // The vendor's SVD of G (M x k, m >= n as it requires): U_G (M x k), S, VT_G (k x k).
    const uG = new Float64Array(M * k), s = new Float64Array(k), vtG = new Float64Array(k * k), info = new Int32Array(1);
    cpuGesvd({ a: strided(g, { rows: M, cols: k, count: 1 }), s: strided(s, { rows: k, cols: 1, count: 1 }),
      u: strided(uG, { rows: M, cols: k, count: 1 }), vt: strided(vtG, { rows: k, cols: k, count: 1 }), info });
    assert.equal(info[0], 0);
    const source = (f: NonNullable<typeof shape.u>) => (f.from === 'U' ? uG : vtG);
    const what = `${m} x ${n} u ${wantU} vt ${wantVt}`;
    if (shape.u !== null) {
      const u = { m, n: k, d: unpack(source(shape.u), m, k, shape.u.ld, shape.u.transpose) };
      assert.ok(orthoResidual(u, EPS) < 30, `${what}: U^T U`);
    }
    if (shape.vt !== null) {
      const vt = { m: k, n, d: unpack(source(shape.vt), k, n, shape.vt.ld, shape.vt.transpose) };
      assert.ok(orthoResidual(vt, EPS, true) < 30, `${what}: VT VT^T`);
    }
    if (shape.u !== null && shape.vt !== null) {
      const u = { m, n: k, d: unpack(source(shape.u), m, k, shape.u.ld, shape.u.transpose) };
      const vt = { m: k, n, d: unpack(source(shape.vt), k, n, shape.vt.ld, shape.vt.transpose) };
      assert.ok(svdResidual(a0, u, s, vt, EPS) < 30, `${what}: A - U S VT`);
    }
    // The side the job leaves out is the one the vendor need not compute.
    assert.equal(shape.vendorU, shape.transpose ? wantVt : wantU);
    assert.equal(shape.vendorVt, shape.transpose ? wantU : wantVt);
  }
});

test('denseChunks: as many matrices a chunk as the scratch budget holds, at least one', () => {
  assert.deepEqual(denseChunks(5, DENSE_CHUNK_BYTES / 2), [[0, 2], [2, 2], [4, 1]]);
  assert.deepEqual(denseChunks(3, DENSE_CHUNK_BYTES * 4), [[0, 1], [1, 1], [2, 1]]);
  assert.deepEqual(denseChunks(1000, 1024), [[0, 1000]]);
});

test('forced on a device that runs nothing, the dense routes plan their kernels and call no library', () => {
  const dev = new PlanningDevice(H200);
  vendor.cusolverSyevd(dev, syev(dev, [40, 40, 40]) as never);
  vendor.cusolverSyevd(dev, syev(dev, [3, 0, 5], 'values', 'float32') as never);
  vendor.cusolverGesvd(dev, gesvd(dev, 60, 40, 2) as never);
  vendor.cusolverGesvd(dev, gesvd(dev, 40, 60, 2, true, false, 'float32') as never);
  vendor.cusolverGesvd(dev, gesvd(dev, 0, 60, 2) as never);
  assert.deepEqual([...new Set(dev.sources.map((s) => s.entry))].sort(), [
    'vendor_dense_pack_d_n_st', 'vendor_dense_pack_s_t_st', 'vendor_dense_unpack_d_n_st', 'vendor_dense_unpack_s_t_st',
    'vendor_gesvd_values_d_st', 'vendor_gesvd_values_s_st', 'vendor_getrf_scatter',
    'vendor_syev_pack_d_l_st', 'vendor_syev_pack_s_l_pa', 'vendor_syev_unpack_d_st_st', 'vendor_syev_unpack_s_pa_pa',
  ]);
});

test('the dense routes\' kernels compile for sm_90', { skip: NVCC_SKIP }, async () => {
  // One of each generator (the others differ in the dtype, the operand form and one index expression).
  const sources = [densePackSource('float32', 'pointer', true), denseUnpackSource('float64', 'strided', true), gesvdValuesSource('float64', 'pointer')];
  for (const r of await compileForSm90(sources)) assert.ok('report' in r && r.report.spillStores === 0, `${r.src.entry}: ${'error' in r ? r.error : ''}`);
});

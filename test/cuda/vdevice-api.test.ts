/**
 * variableDevice batches (sizes and addresses on the device) without a GPU: the constructor's and
 * the calls' host-side checks (each error names its argument), the operations and backends that
 * refuse them, and the call path on a planning device (a context over CudaBackend that runs
 * nothing): the route, the launches (one classification, then one per class the maxima reach), and
 * that the class kernels asked for are the host-sized path's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Context, newCpuContext } from '../../src/api/context.js';
import { strided, variable } from '../../src/core/batch.js';
import { variableDevice, type DeviceVariableBatch } from '../../src/core/device-batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { deviceRegions } from '../../src/cuda/kernels/common/vdevice.js';
import { LaunchCounter } from '../../src/bench/vbatched.js';
import { H100 } from '../helpers/devices.js';
import { deviceBatch, planning } from '../helpers/vdevice-planning.js';
import { recordDeviceCalls } from '../helpers/vbatched-device-cases.js';
import { rig } from '../helpers/fake-gpus.js';

const named = (f: () => unknown, code: string, argument: string): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument,
    `expected ${code} naming ${argument}`);

/** Device memory as the core sees it (no backend behind it). */
const fake = (dtype: DeviceStorage['dtype'], length: number, device = 0): DeviceStorage => ({ kind: 'device', dtype, length, device });

function fakeBatch(count = 4, extra: Partial<Parameters<typeof variableDevice>[0]> = {}): DeviceVariableBatch {
  return variableDevice({ count, rows: fake('int32', count), ld: fake('int32', count), pointers: fake('int64', count), maxRows: 64, dtype: 'float64', ...extra });
}

test('variableDevice: every field checked, errors naming it', () => {
  const ok = { count: 4, rows: fake('int32', 4), ld: fake('int32', 4), pointers: fake('int64', 4), maxRows: 64, dtype: 'float64' as const };
  assert.equal(variableDevice(ok).maxCols, 64);
  named(() => variableDevice({ ...ok, count: -1 }), 'INVALID_ARGUMENT', 'variableDevice.count');
  named(() => variableDevice({ ...ok, count: 5 }), 'BOUNDS', 'variableDevice.rows');
  named(() => variableDevice({ ...ok, maxRows: 2.5 }), 'INVALID_ARGUMENT', 'variableDevice.maxRows');
  named(() => variableDevice({ ...ok, dtype: 'complex128' as never }), 'DTYPE', 'variableDevice.dtype');
  named(() => variableDevice({ ...ok, rows: new Int32Array(4) as never }), 'INVALID_ARGUMENT', 'variableDevice.rows');
  named(() => variableDevice({ ...ok, rows: fake('float64', 4) }), 'DTYPE', 'variableDevice.rows');
  named(() => variableDevice({ ...ok, ld: fake('int32', 3) }), 'BOUNDS', 'variableDevice.ld');
  named(() => variableDevice({ ...ok, pointers: fake('int32', 4) }), 'DTYPE', 'variableDevice.pointers');
  named(() => variableDevice({ ...ok, cols: fake('int32', 4) }), 'INVALID_ARGUMENT', 'variableDevice.maxCols');
  named(() => variableDevice({ ...ok, maxCols: 32 }), 'INVALID_ARGUMENT', 'variableDevice.maxCols');
  named(() => variableDevice({ ...ok, cols: fake('int32', 2), maxCols: 8 }), 'BOUNDS', 'variableDevice.cols');
  named(() => variableDevice({ ...ok, pointers: fake('int64', 4, 1) }), 'INVALID_ARGUMENT', 'variableDevice');
  named(() => variableDevice({ ...ok, Rows: 3 } as never), 'INVALID_ARGUMENT', 'variableDevice.Rows');
  assert.equal(variableDevice({ ...ok, count: 0, rows: fake('int32', 0) }).count, 0);
});

test('the CPU backend, and every operation but gemm, potrf, getrf, trsm, potrs, posv, getrs, gesv, syrk and trtri, refuse variableDevice batches, naming the argument', () => {
  const cpu = newCpuContext();
  named(() => cpu.potrf({ a: fakeBatch() }), 'UNSUPPORTED', 'a');
  named(() => cpu.getrf({ a: fakeBatch() }), 'UNSUPPORTED', 'a');
  named(() => cpu.gemm({ a: fakeBatch(), b: fakeBatch(), c: fakeBatch(), info: fake('int32', 4) }), 'UNSUPPORTED', 'a');
  named(() => cpu.trsm({ a: fakeBatch(), b: fakeBatch(), info: fake('int32', 4) }), 'UNSUPPORTED', 'a');
  named(() => cpu.potrs({ a: fakeBatch(), b: fakeBatch() }), 'UNSUPPORTED', 'a');
  named(() => cpu.posv({ a: fakeBatch(), b: fakeBatch(), info: fake('int32', 4) }), 'UNSUPPORTED', 'a');
  named(() => cpu.gesv({ a: fakeBatch(), b: fakeBatch() }), 'UNSUPPORTED', 'a');
  named(() => cpu.getrs({ a: fakeBatch(), b: fakeBatch(), ipiv: fake('int32', 4 * 64) }), 'UNSUPPORTED', 'a');
  for (const call of [
    () => cpu.getri({ a: fakeBatch() as never, ipiv: fake('int32', 4) }),
    () => cpu.lauum({ a: fakeBatch() }),
    () => cpu.poti({ a: fakeBatch() }),
    () => cpu.trmm({ a: fakeBatch() as never, b: fakeBatch() as never }),
    // The operations with real outputs of complex data read the batch's dtype field first: a
    // variableDevice batch's names its real type (not a DTYPE error about a complex field).
    () => cpu.syev({ a: fakeBatch() as never, w: variable([{ data: new Float64Array(3), rows: 3, cols: 1 }]) }),
    () => cpu.heev({ a: fakeBatch() as never, w: variable([{ data: new Float64Array(3), rows: 3, cols: 1 }]) }),
    () => cpu.gesvd({ jobu: 'none', jobvt: 'none', a: fakeBatch() as never, s: variable([{ data: new Float64Array(3), rows: 3, cols: 1 }]) }),
  ]) named(call, 'UNSUPPORTED', 'a');
});

test('trsm, potrs and posv on variableDevice batches: the call\'s host-side checks name the argument', () => {
  const cpu = newCpuContext();
  const info = fake('int32', 4);
  const two = { a: fakeBatch(), b: fakeBatch(), info };
  // trsm: info required (a member with invalid device sizes is reported there), device int32, count long.
  named(() => cpu.trsm({ ...two, info: undefined }), 'INVALID_ARGUMENT', 'info');
  named(() => cpu.trsm({ ...two, info: new Int32Array(4) }), 'INVALID_ARGUMENT', 'info');
  named(() => cpu.trsm({ ...two, info: fake('int32', 3) }), 'BOUNDS', 'info');
  named(() => cpu.trsm({ ...two, info: fake('float32', 4) }), 'DTYPE', 'info');
  named(() => cpu.trsm({ ...two, info: two.b.ld }), 'LAYOUT', 'info');
  named(() => cpu.trsm({ ...two, b: strided(new Float64Array(16), { rows: 2, count: 4 }) }), 'UNSUPPORTED', 'b');
  named(() => cpu.trsm({ ...two, a: undefined as never }), 'INVALID_ARGUMENT', 'a');
  named(() => cpu.trsm({ ...two, b: fakeBatch(5) }), 'SHAPE', 'b.count');
  named(() => cpu.trsm({ ...two, b: fakeBatch(4, { dtype: 'float32' }) }), 'DTYPE', 'b.dtype');
  named(() => cpu.trsm({ ...two, b: { ...two.b, ld: fake('int32', 3) } }), 'BOUNDS', 'b.ld');
  named(() => cpu.trsm({ ...two, a: { ...two.a, pointers: fake('int32', 4) } }), 'DTYPE', 'a.pointers');
  named(() => cpu.trsm({ ...two, b: { ...two.b, maxRows: -1 } }), 'INVALID_ARGUMENT', 'b.maxRows');
  named(() => cpu.trsm({ ...two, alpha: [1, 0] }), 'INVALID_ARGUMENT', 'alpha');
  named(() => cpu.trsm({ ...two, alpha: NaN }), 'INVALID_ARGUMENT', 'alpha');
  named(() => cpu.trsm({ ...two, side: 'up' as never }), 'ENUM', 'side');
  named(() => cpu.trsm({ ...two, uplo: 'middle' as never }), 'ENUM', 'uplo');
  named(() => cpu.trsm({ ...two, transA: 'X' as never }), 'ENUM', 'transA');
  named(() => cpu.trsm({ ...two, diag: 'half' as never }), 'ENUM', 'diag');
  named(() => cpu.trsm({ ...two, check: true } as never), 'INVALID_ARGUMENT', 'check');
  // potrs and posv: info optional; given, it is int32 device memory of count entries, apart from the size arrays.
  for (const op of ['potrs', 'posv'] as const) {
    const call = (args: Record<string, unknown>): unknown => cpu[op]({ a: fakeBatch(), b: fakeBatch(), ...args } as never);
    named(() => call({ info: fake('int32', 3) }), 'BOUNDS', 'info');
    named(() => call({ info: new Int32Array(4) }), 'INVALID_ARGUMENT', 'info');
    named(() => call({ info: fake('int64', 4) }), 'DTYPE', 'info');
    named(() => call({ check: true }), 'UNSUPPORTED', 'check');
    named(() => call({ uplo: 'middle' }), 'ENUM', 'uplo');
    named(() => call({ b: fakeBatch(3) }), 'SHAPE', 'b.count');
    named(() => call({ b: fakeBatch(4, { dtype: 'float32' }) }), 'DTYPE', 'b.dtype');
    named(() => call({ b: strided(new Float64Array(16), { rows: 2, count: 4 }) }), 'UNSUPPORTED', 'b');
    named(() => call({ b: { ...fakeBatch(), rows: new Int32Array(4) } }), 'INVALID_ARGUMENT', 'b.rows');
    named(() => call({ a: { ...fakeBatch(), cols: undefined, maxCols: 32 } }), 'INVALID_ARGUMENT', 'a.maxCols');
    const shared = fakeBatch();
    named(() => call({ a: shared, info: shared.rows }), 'LAYOUT', 'info');
    named(() => call({ transA: 'T' }), 'INVALID_ARGUMENT', 'transA');
  }
});

test('gemm, potrf and getrf on variableDevice batches: the call\'s host-side checks name the argument', () => {
  const cpu = newCpuContext();
  const info = fake('int32', 4);
  const three = { a: fakeBatch(), b: fakeBatch(), c: fakeBatch(), info };
  named(() => cpu.gemm({ ...three, info: undefined }), 'INVALID_ARGUMENT', 'info');
  named(() => cpu.gemm({ ...three, info: new Int32Array(4) }), 'INVALID_ARGUMENT', 'info');
  named(() => cpu.gemm({ ...three, info: fake('int32', 3) }), 'BOUNDS', 'info');
  named(() => cpu.gemm({ ...three, c: strided(new Float64Array(16), { rows: 2, count: 4 }) }), 'UNSUPPORTED', 'c');
  named(() => cpu.gemm({ ...three, b: fakeBatch(5) }), 'SHAPE', 'b.count');
  named(() => cpu.gemm({ ...three, c: fakeBatch(4, { dtype: 'float32' }) }), 'DTYPE', 'c.dtype');
  named(() => cpu.gemm({ ...three, alpha: [1, 0] }), 'INVALID_ARGUMENT', 'alpha');
  named(() => cpu.gemm({ ...three, transA: 'X' as never }), 'ENUM', 'transA');
  named(() => cpu.gemm({ ...three, info: three.a.rows }), 'LAYOUT', 'info');
  named(() => cpu.potrf({ a: fakeBatch(), check: true }), 'UNSUPPORTED', 'check');
  named(() => cpu.potrf({ a: fakeBatch(), info: fake('int32', 2) }), 'BOUNDS', 'info');
  named(() => cpu.potrf({ a: fakeBatch(), uplo: 'middle' as never }), 'ENUM', 'uplo');
  // getrf: pivotStride min(maxRows, maxCols) = 64, so ipiv needs count * 64.
  named(() => cpu.getrf({ a: fakeBatch(), ipiv: fake('int32', 4 * 64 - 1) }), 'BOUNDS', 'ipiv');
  named(() => cpu.getrf({ a: fakeBatch(), ipiv: new Int32Array(4 * 64) }), 'INVALID_ARGUMENT', 'ipiv');
  named(() => cpu.getrf({ a: fakeBatch(), info: fake('int32', 4), ipiv: fake('int32', 4 * 64) , check: true }), 'UNSUPPORTED', 'check');
  const shared = fake('int32', 4 * 64);
  named(() => cpu.getrf({ a: fakeBatch(), info: shared, ipiv: shared }), 'LAYOUT', 'info');
});

test('potrf and gemm on a planning device: route vdevice, a classification and one launch per class the maxima reach', () => {
  for (const [maxRows, classes] of [[20, 3], [64, 6], [512, 9], [600, 10]] as const) {
    assert.equal(deviceRegions(maxRows).launches.length, classes);
    const { ctx, dev } = planning();
    const r = ctx.potrf({ a: deviceBatch(ctx, 1000, maxRows) });
    assert.equal((r.info as DeviceStorage).length >= 1000, true);
    assert.deepEqual(ctx.lastRoute, { op: 'potrf', route: 'vdevice', gpu: true });
    assert.equal(dev.launches, 1 + classes, `potrf up to ${maxRows}`);
    const g = planning();
    g.ctx.gemm({ a: deviceBatch(g.ctx, 1000, maxRows), b: deviceBatch(g.ctx, 1000, maxRows), c: deviceBatch(g.ctx, 1000, maxRows), info: g.ctx.alloc('int32', 1000) });
    assert.deepEqual(g.ctx.lastRoute, { op: 'gemm', route: 'vdevice', gpu: true });
    assert.equal(g.dev.launches, 1 + classes, `gemm up to ${maxRows}`);
  }
  // alpha = 0 bounds the classes by m and n only.
  const g = planning();
  const small = deviceBatch(g.ctx, 10, 16), wide = variableDevice({ count: 10, rows: g.ctx.alloc('int32', 10), cols: g.ctx.alloc('int32', 10), ld: g.ctx.alloc('int32', 10), pointers: g.ctx.upload(new BigInt64Array(10)), maxRows: 16, maxCols: 600, dtype: 'float64' });
  g.ctx.gemm({ alpha: 0, a: wide, b: deviceBatch(g.ctx, 10, 600), c: small, info: g.ctx.alloc('int32', 10) });
  assert.equal(g.dev.launches, 1 + 2);
  // An empty batch launches nothing.
  const e = planning();
  e.ctx.potrf({ a: deviceBatch(e.ctx, 0, 600) });
  assert.equal(e.dev.launches, 0);
});

test('the class kernels of the device-sized path are the host-sized path\'s own (members up to 512): gemm, potrf, getrf', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    const sizes = [1, 9, 17, 25, 40, 60, 100, 200, 500];
    const host = planning();
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const members = (data: DeviceStorage): { data: DeviceStorage; rows: number; offset: number }[] => {
      let at = 0;
      return sizes.map((n) => { const m = { data, rows: n, offset: at }; at += n * n; return m; });
    };
    const a = members(host.ctx.alloc(dtype, elements)), c = members(host.ctx.alloc(dtype, elements));
    host.ctx.potrf({ a: variable(a) });
    host.ctx.gemm({ a: variable(a), b: variable(a), c: variable(c), beta: 1 });
    host.ctx.getrf({ a: variable(a) });
    const dev = planning();
    dev.ctx.potrf({ a: deviceBatch(dev.ctx, sizes.length, 512, dtype) });
    dev.ctx.gemm({ a: deviceBatch(dev.ctx, sizes.length, 512, dtype), b: deviceBatch(dev.ctx, sizes.length, 512, dtype), c: deviceBatch(dev.ctx, sizes.length, 512, dtype), beta: 1, info: dev.ctx.alloc('int32', sizes.length) });
    const r = dev.ctx.getrf({ a: deviceBatch(dev.ctx, sizes.length, 512, dtype) });
    assert.deepEqual(dev.ctx.lastRoute, { op: 'getrf', route: 'vdevice', gpu: true });
    assert.equal((r.ipiv as DeviceStorage).length, sizes.length * 512);
    const hostKernels = host.dev.sources.map((s) => s.entry).sort();
    // gemm's class kernels run in their device-count form there (entry suffix _dc): the same tiles.
    const deviceKernels = dev.dev.sources.map((s) => s.entry).filter((e) => !e.includes('classify')).map((e) => e.replace(/_dc$/, '')).sort();
    assert.deepEqual(deviceKernels, hostKernels, dtype);
    assert.ok(dev.dev.sources.some((s) => s.entry.startsWith('gemm_v') && s.entry.endsWith('_dc')), `${dtype}: device-count gemm class kernels`);
    assert.deepEqual(dev.dev.sources.filter((s) => s.entry.includes('classify')).map((s) => s.entry).sort(), ['gemm_vdevice_classify_NN', 'getrf_vdevice_classify', 'potrf_vdevice_classify']);
  }
});

test('trsm, potrs and posv on a planning device: route vdevice, the launches, and the class kernels are the host-sized path\'s own', () => {
  // Members up to 20 (classes 8, 16, 24: one leaf each, leafMax 32): trsm a classification and three leaves;
  // potrs a check, a classification and two solves; posv a check, three fused classes (every member is of order 32 at
  // most) and the solves' classification, which files none.
  const small = planning();
  const info = small.ctx.alloc('int32', 1000);
  small.ctx.trsm({ a: deviceBatch(small.ctx, 1000, 20), b: deviceBatch(small.ctx, 1000, 20), info });
  assert.deepEqual(small.ctx.lastRoute, { op: 'trsm', route: 'vdevice', gpu: true });
  assert.equal(small.dev.launches, 1 + 3);
  let before = small.dev.launches;
  small.ctx.trsm({ alpha: 0, a: deviceBatch(small.ctx, 1000, 20), b: deviceBatch(small.ctx, 1000, 20), info });
  assert.equal(small.dev.launches - before, 2, 'alpha = 0: the classification and the zero kernel');
  before = small.dev.launches;
  small.ctx.potrs({ a: deviceBatch(small.ctx, 1000, 20), b: deviceBatch(small.ctx, 1000, 20) });
  assert.deepEqual(small.ctx.lastRoute, { op: 'potrs', route: 'vdevice', gpu: true });
  assert.equal(small.dev.launches - before, 2 + 2 * 3);
  before = small.dev.launches;
  const r = small.ctx.posv({ a: deviceBatch(small.ctx, 1000, 20), b: deviceBatch(small.ctx, 1000, 20) });
  assert.deepEqual(small.ctx.lastRoute, { op: 'posv', route: 'vdevice', gpu: true });
  assert.equal((r.info as DeviceStorage).length >= 1000, true);
  assert.equal(small.dev.launches - before, 1 + 3 + 1);
  const e = planning();
  e.ctx.posv({ a: deviceBatch(e.ctx, 0, 600), b: deviceBatch(e.ctx, 0, 600) });
  e.ctx.trsm({ a: deviceBatch(e.ctx, 0, 600), b: deviceBatch(e.ctx, 0, 600), info: e.ctx.alloc('int32', 1) });
  assert.equal(e.dev.launches, 0, 'an empty batch launches nothing');
  for (const dtype of ['float64', 'float32'] as const) {
    const sizes = [1, 9, 17, 25, 40, 60, 100, 200, 500];
    const host = planning();
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const members = (data: DeviceStorage): { data: DeviceStorage; rows: number; offset: number }[] => {
      let at = 0;
      return sizes.map((n) => { const m = { data, rows: n, offset: at }; at += n * n; return m; });
    };
    const a = members(host.ctx.alloc(dtype, elements)), b = members(host.ctx.alloc(dtype, elements));
    host.ctx.trsm({ side: 'right', uplo: 'upper', transA: 'T', alpha: 2, a: variable(a), b: variable(b) });
    assert.equal(host.ctx.lastRoute?.route, 'vbatched');
    host.ctx.posv({ a: variable(a), b: variable(b) });
    assert.equal(host.ctx.lastRoute?.route, 'vbatched');
    const dev = planning();
    const batch = (): DeviceVariableBatch => deviceBatch(dev.ctx, sizes.length, 512, dtype);
    dev.ctx.trsm({ side: 'right', uplo: 'upper', transA: 'T', alpha: 2, a: batch(), b: batch(), info: dev.ctx.alloc('int32', sizes.length) });
    dev.ctx.posv({ a: batch(), b: batch() });
    // The device form launches every GEMM class its maxima reach; the host form those of its members.
    const deviceKernels = new Set(dev.dev.sources.map((s) => s.entry));
    for (const k of host.dev.sources.map((s) => s.entry)) {
      if (k.startsWith('copy_vbatched')) continue;   // the host form keeps a failed member's B aside; the device form never touches it
      // posv's fused classes: the device form passes over the maxima's widest B (the further passes' loop: 'r4m').
      if (k.startsWith('posv_vsmall')) { assert.ok(deviceKernels.has(k) || deviceKernels.has(k.replace(/_r4_/, '_r4m_')), `${dtype}: ${k}`); continue; }
      // gemm's class kernels (the updates') in their device-count form (_dc).
      assert.ok(deviceKernels.has(k) || (k.startsWith('gemm_v') && deviceKernels.has(`${k}_dc`)), `${dtype}: the host form's ${k} is not the device form's`);
    }
    const own = [...deviceKernels].filter((k) => k.includes('vdevice')).sort();
    assert.deepEqual(own, ['solve_vdevice_check', 'trsm_vdevice_classify_L', 'trsm_vdevice_classify_R', 'trsm_vdevice_update_rows_LN', 'trsm_vdevice_update_rows_LT', 'trsm_vdevice_update_rows_RT'], dtype);
  }
});

test('on a CUDA context: capture refuses them, another device\'s arrays are refused, an oversized panel names a.maxRows', () => {
  const dev = new LaunchCounter(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  named(() => backend.captureScope(() => ctx.potrf({ a: deviceBatch(ctx, 4, 8) })), 'UNSUPPORTED', 'a');
  named(() => backend.captureScope(() => ctx.trsm({ a: deviceBatch(ctx, 4, 8), b: deviceBatch(ctx, 4, 8), info: ctx.alloc('int32', 4) })), 'UNSUPPORTED', 'a');
  named(() => backend.captureScope(() => ctx.posv({ a: deviceBatch(ctx, 4, 8), b: deviceBatch(ctx, 4, 8) })), 'UNSUPPORTED', 'a');
  const sa = deviceBatch(ctx, 4, 8), sb = deviceBatch(ctx, 4, 8), si = ctx.alloc('int32', 4);
  named(() => ctx.capture(() => ctx.potrs({ a: sa, b: sb, info: si })), 'UNSUPPORTED', 'a');
  named(() => ctx.potrf({ a: variableDevice({ count: 2, rows: fake('int32', 2, 3), ld: fake('int32', 2, 3), pointers: fake('int64', 2, 3), maxRows: 8, dtype: 'float64' }), info: ctx.alloc('int32', 2) }), 'INVALID_ARGUMENT', 'data');
  named(() => ctx.potrf({ a: deviceBatch(ctx, 4, 400_000) }), 'UNSUPPORTED', 'a.maxRows');
  const a = ctx.alloc('float64', 100);
  assert.equal(ctx.deviceAddress(a, 3) - ctx.deviceAddress(a), 24n);
  named(() => ctx.deviceAddress(a, 101), 'BOUNDS', 'offset');
});

test('test/gpu/vbatched-device.test.ts\'s calls pass validation and take their routes on a planning device', () => {
  const dev = new LaunchCounter(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  const routes: string[] = [];
  recordDeviceCalls(ctx, H100.arch, () => routes.push(ctx.lastRoute!.route));
  assert.deepEqual(routes, Array.from({ length: 50 }, () => ['vbatched', 'vdevice']).flat());
  // The file's kernels (376 on sm_90): the classes of both forms (trsm's leaves of 16 variants and
  // the updates' GEMM classes, gemm's classes twice: the host form's and the device form's
  // device-count kernels), the device form's large class and classification kernels, the host
  // form's fused posv classes to 32 and per-size kernels beyond 512.
  assert.ok(dev.sources.length <= 380, `${dev.sources.length} kernels`);
});

test('prepared calls and *Async forms take variableDevice batches (potrf, trsm, posv, potrs); a prepared one takes a new info only', async () => {
  const { ctx, dev } = planning();
  const a = deviceBatch(ctx, 50, 100);
  const f = ctx.prepare.potrf({ a });
  f();
  assert.equal(ctx.lastRoute?.route, 'vdevice');
  const info = ctx.alloc('int32', 50);
  f({ info });
  named(() => f({ a: ctx.alloc('float64', 10) }), 'UNSUPPORTED', 'a');
  named(() => f({ info: a.rows }), 'LAYOUT', 'info');
  const before = dev.launches;
  await ctx.potrfAsync({ a, info });
  assert.equal(dev.launches, before + 1 + deviceRegions(100).launches.length);
  const small = deviceBatch(ctx, 50, 20);
  const t = ctx.prepare.trsm({ a: small, b: deviceBatch(ctx, 50, 20), info });
  t();
  assert.equal(ctx.lastRoute?.route, 'vdevice');
  const p = ctx.prepare.posv({ a: small, b: deviceBatch(ctx, 50, 20) });
  assert.equal(((p() as { info: DeviceStorage }).info).length >= 50, true);
  assert.deepEqual(ctx.lastRoute, { op: 'posv', route: 'vdevice', gpu: true });
  await ctx.potrsAsync({ a: small, b: deviceBatch(ctx, 50, 20), info });
  assert.deepEqual(ctx.lastRoute, { op: 'potrs', route: 'vdevice', gpu: true });
});

test('a context of several GPUs refuses them (UNSUPPORTED naming a)', () => {
  const { ctx } = rig(2);
  const count = 3;
  const a = variableDevice({ count, rows: ctx.alloc('int32', count), ld: ctx.alloc('int32', count), pointers: fake('int64', count), maxRows: 8, dtype: 'float64' });
  named(() => ctx.potrf({ a, info: ctx.alloc('int32', count) }), 'UNSUPPORTED', 'a');
});

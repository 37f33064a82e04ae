/**
 * The device form's column of `myriad bench <op> --vbatched a|b` (bench/vbatched-device.ts) without a
 * GPU: on a planning context, for every op of the bench, the device form's API call takes route
 * 'vdevice' and launches what its route launches on a planning device (the column's count), and the
 * table's device columns are declared once with the JSON row's fields ('-' where a row has none).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Context } from '../../src/api/context.js';
import { deviceFormCall } from '../../src/bench/vbatched-device.js';
import { benchVbatchedSizes, hasDeviceForm, LaunchCounter, logUniformSizes, parseVbatchedWays, VBATCHED_COLUMNS, VBATCHED_OPERANDS, VBATCHED_OPS, type VbatchedRow } from '../../src/bench/vbatched.js';
import { batchCost, referenceCost, uniformReference } from '../../src/bench/vbatched-uniform.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { DEVICE_VARIABLE_ROUTES } from '../../src/cuda/router.js';
import type { DeviceVariableRequest } from '../../src/core/device-batch.js';
import type { GpuDevice, GpuEvent } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { formatTable } from '../../src/bench/table.js';

test('the device form of every --vbatched op that has one: route vdevice, the launches its route counts, the same members', () => {
  const sizes = logUniformSizes(3000, 64, 1);
  // Every op of the bench has a device form (a 'vdevice' route).
  assert.deepEqual(VBATCHED_OPS.filter((op) => !hasDeviceForm(op)), []);
  for (const op of VBATCHED_OPS.filter(hasDeviceForm)) for (const dtype of ['float64', 'float32'] as const) {
    const dev = new LaunchCounter(H100);
    const backend = new CudaBackend(dev, 'planning');
    const ctx = new Context('cuda', backend, backend, () => {});
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const data = Array.from({ length: VBATCHED_OPERANDS[op] }, () => dev.alloc(dtype, elements));
    const call = deviceFormCall(ctx, dev, op, sizes, data, dev.alloc('int32', sizes.length), dtype);
    const counter = new LaunchCounter(H100);
    (DEVICE_VARIABLE_ROUTES[op].run as (d: GpuDevice, r: DeviceVariableRequest) => void)(counter, call.request);
    const before = dev.launches;
    call.run();
    assert.deepEqual(ctx.lastRoute, { op, route: 'vdevice', gpu: true }, `${op} ${dtype}`);
    // The timed call launches what the route plans: a classification and at least one class kernel.
    assert.ok(counter.launches >= 2, `${op} ${dtype}: ${counter.launches} launches planned`);
    assert.equal(dev.launches - before, counter.launches, `${op} ${dtype}: launches`);
    // The request's batches: the members' count and bound, every operand's addresses its own array's.
    const r = call.request as unknown as Record<string, { count: number; maxRows: number; dtype: string } | undefined>;
    assert.ok(r['a'] !== undefined, `${op}: operand a`);
    for (const key of ['a', 'b', 'c']) {
      const b = r[key];
      if (b === undefined) continue;
      assert.equal(b.count, sizes.length);
      assert.equal(b.maxRows, 64);
      assert.equal(b.dtype, dtype);
    }
    assert.equal(call.arrays.length >= 2 + VBATCHED_OPERANDS[op], true);
  }
});

test('the bench table\'s device columns: declared once, the row\'s fields, \'-\' where absent, left out where no row has them', () => {
  const headers = VBATCHED_COLUMNS.map((c) => c.header);
  assert.deepEqual(headers.filter((h) => h.startsWith('device')), ['device launches (class + driver)', 'device ms', 'device vs vendor', 'device rate vs uniform']);
  const row: VbatchedRow = { op: 'gesv', dtype: 'float64', workload: 'a', count: 10, shapes: 3, launches: 5, classLaunches: 4, driverLaunches: 1, ms: 2, loopLaunches: 3, loopMs: 4, speedup: 2 };
  const cell = (r: VbatchedRow, h: string): string | number | undefined => VBATCHED_COLUMNS.find((c) => c.header === h)!.value(r);
  assert.equal(cell(row, 'device ms'), undefined);
  assert.equal(cell(row, 'device vs vendor'), undefined);
  const full: VbatchedRow = { ...row, op: 'potrf', vendorCalls: 64, vendorMs: 4.2, vendorSpeedup: 2.1, deviceLaunches: 7, deviceClassLaunches: 7, deviceDriverLaunches: 0, deviceMs: 2.1, deviceVendorSpeedup: 2 };
  assert.equal(cell(full, 'device launches (class + driver)'), '7 + 0');
  assert.equal(cell(full, 'device ms'), '2.100');
  assert.equal(cell(full, 'device vs vendor'), '2.00x');
  // The printed table: '-' in a row without the device form, the columns of no row's ways left out.
  const lines = formatTable([row, full], VBATCHED_COLUMNS, 'markdown').split('\n');
  const header = lines[0]!.split('|').map((x) => x.trim());
  assert.ok(header.includes('device ms') && !header.includes('grouped ms') && !header.includes('uniform ms'), lines[0]);
  const gesv = lines[2]!.split('|').map((x) => x.trim());
  assert.equal(gesv[header.indexOf('device ms')], '-');
  assert.equal(gesv[header.indexOf('launches (class + driver)')], '4 + 1');
});

/** A planning device whose timed calls each take `ms` (its events' elapsed time): the bench runs on it end to end. */
class TimedPlanning extends LaunchCounter {
  constructor(private readonly ms: number) { super(H100); }
  override event(): GpuEvent {
    return { record: () => {}, synchronize: () => {}, elapsedSince: () => this.ms, dispose: () => {} };
  }
}

test('the bench end to end on a planning device: the ways asked for fill their fields, the others stay undefined; the uniform reference on the uniform API\'s route', () => {
  const dev = new TimedPlanning(60);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  const sizes = logUniformSizes(1000, 300, 4);
  const [row] = benchVbatchedSizes(dev, 'potrf', 'test', sizes, ['float64'], ctx, parseVbatchedWays('vbatched,device,uniform'));
  const r = row!;
  assert.deepEqual([r.count, r.shapes], [1000, new Set(sizes).size]);
  assert.equal(r.classLaunches! + r.driverLaunches!, r.launches);
  assert.equal(r.driverLaunches, 0);
  assert.equal(r.ms, 60);
  assert.equal(r.deviceClassLaunches! + r.deviceDriverLaunches!, r.deviceLaunches);
  assert.equal(r.deviceMs, 60);
  const ref = uniformReference(sizes);
  assert.deepEqual([r.uniformOrder, r.uniformCount, r.uniformRoute, r.uniformMs], [ref.order, ref.count, 'potrf', 60]);
  // Equal times: the rate ratio is the flop ratio.
  const ratio = batchCost('potrf', 'float64', sizes).flops / referenceCost('potrf', 'float64', ref).flops;
  assert.ok(Math.abs(r.uniformRate! - ratio) < 1e-12 && Math.abs(r.deviceUniformRate! - ratio) < 1e-12, `${r.uniformRate} against ${ratio}`);
  for (const key of ['loopMs', 'loopLaunches', 'speedup', 'vendorMs', 'groupedMs', 'vendorSpeedup'] as const) assert.equal(r[key], undefined, key);
});

test('trtri\'s and syrk\'s rows end to end on a planning device: every way but the vendor\'s (none has one), the device form beside the class route', () => {
  for (const op of ['trtri', 'syrk'] as const) {
    const dev = new TimedPlanning(40);
    const backend = new CudaBackend(dev, 'planning');
    const ctx = new Context('cuda', backend, backend, () => {});
    const sizes = logUniformSizes(600, 80, 5);   // classes above one leaf (48, 64, 80) without hundreds of per-size plans
    const [row] = benchVbatchedSizes(dev, op, 'test', sizes, ['float32'], ctx, parseVbatchedWays(undefined));
    const r = row!;
    assert.equal(r.op, op);
    assert.deepEqual([r.ms, r.loopMs, r.deviceMs, r.uniformMs], [40, 40, 40, 40], op);
    assert.equal(r.classLaunches! + r.driverLaunches!, r.launches);
    assert.equal(r.deviceClassLaunches! + r.deviceDriverLaunches!, r.deviceLaunches);
    assert.ok(r.deviceLaunches! >= 2 && r.loopLaunches! >= 2, `${op}: launches counted`);
    assert.equal(r.uniformRoute, op);
    for (const key of ['vendorMs', 'vendorCalls', 'groupedMs', 'deviceVendorSpeedup'] as const) assert.equal(r[key], undefined, `${op} ${key}`);
  }
});

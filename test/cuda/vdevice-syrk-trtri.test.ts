/**
 * syrk and trtri on variableDevice batches (route 'vdevice') without a GPU: the calls' host-side
 * checks (each error names its argument), the contexts and operations that refuse them, the call
 * path on a planning device (the route, the launches a call's maxima reach, nothing for an empty
 * batch, no capture), that the class kernels asked for are the host-sized path's own, the pure
 * designs of the device launchers (each class's recursion as the host plan's, the scan threshold),
 * and that the table kernels compile for sm_90 without spills.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Context, newCpuContext } from '../../src/api/context.js';
import { variable } from '../../src/core/batch.js';
import { variableDevice, type DeviceVariableBatch } from '../../src/core/device-batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { LaunchCounter } from '../../src/bench/vbatched.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { VBATCH_CLASSES } from '../../src/cuda/kernels/common/vbatch.js';
import { deviceRegions } from '../../src/cuda/kernels/common/vdevice.js';
import {
  generateSyrkClassify, generateSyrkOffdiagRows, planVbatchedSyrk, syrkDeviceBounds, syrkDeviceClasses, syrkSteps,
} from '../../src/cuda/kernels/syrk/index.js';
import { generateTrtriClassify, generateTrtriSolveRows, planVbatchedTrtri, trtriDeviceClasses } from '../../src/cuda/kernels/trtri/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { H100 } from '../helpers/devices.js';
import { deviceBatch, planning } from '../helpers/vdevice-planning.js';
import { compileFailures, compileForSm90, NVCC_SKIP } from '../helpers/nvcc.js';
import { recordCalls } from '../helpers/vdevice-syrk-trtri-cases.js';

const named = (f: () => unknown, code: string, argument: string): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument,
    `expected ${code} naming ${argument}`);

/** Device memory as the core sees it (no backend behind it). */
const fake = (dtype: DeviceStorage['dtype'], length: number, device = 0): DeviceStorage => ({ kind: 'device', dtype, length, device });

function fakeBatch(count = 4, extra: Partial<Parameters<typeof variableDevice>[0]> = {}): DeviceVariableBatch {
  return variableDevice({ count, rows: fake('int32', count), ld: fake('int32', count), pointers: fake('int64', count), maxRows: 64, dtype: 'float64', ...extra });
}

test('syrk and trtri on variableDevice batches: the call\'s host-side checks name the argument', () => {
  const cpu = newCpuContext();
  const info = fake('int32', 4);
  // The CPU backend cannot read them; herk (syrk's Hermitian sibling) does not take them.
  named(() => cpu.syrk({ a: fakeBatch(), c: fakeBatch(), info }), 'UNSUPPORTED', 'a');
  named(() => cpu.trtri({ a: fakeBatch() }), 'UNSUPPORTED', 'a');
  named(() => cpu.herk({ a: fakeBatch() as never, c: fakeBatch() as never }), 'UNSUPPORTED', 'a');
  const { ctx } = planning();
  const two = { a: deviceBatch(ctx, 4, 64), c: deviceBatch(ctx, 4, 64) };
  const dInfo = ctx.alloc('int32', 4);
  // syrk: info required (a member with invalid device sizes is reported there), device int32, count long.
  named(() => ctx.syrk(two), 'INVALID_ARGUMENT', 'info');
  named(() => ctx.syrk({ ...two, info: new Int32Array(4) as never }), 'INVALID_ARGUMENT', 'info');
  named(() => ctx.syrk({ ...two, info: ctx.alloc('float64', 4) as never }), 'DTYPE', 'info');
  named(() => ctx.syrk({ ...two, info: ctx.alloc('int32', 3) }), 'BOUNDS', 'info');
  named(() => ctx.syrk({ ...two, info: two.a.rows }), 'LAYOUT', 'info');
  named(() => ctx.syrk({ ...two, trans: 'X' as never, info: dInfo }), 'ENUM', 'trans');
  named(() => ctx.syrk({ ...two, uplo: 'middle' as never, info: dInfo }), 'ENUM', 'uplo');
  named(() => ctx.syrk({ ...two, alpha: [1, 0], info: dInfo }), 'INVALID_ARGUMENT', 'alpha');
  named(() => ctx.syrk({ ...two, beta: Number.NaN, info: dInfo }), 'INVALID_ARGUMENT', 'beta');
  named(() => ctx.syrk({ a: two.a, c: deviceBatch(ctx, 5, 64), info: dInfo }), 'SHAPE', 'c.count');
  named(() => ctx.syrk({ a: two.a, c: deviceBatch(ctx, 4, 64, 'float32'), info: dInfo }), 'DTYPE', 'c.dtype');
  named(() => ctx.syrk({ a: two.a, c: variable([{ data: ctx.alloc('float64', 4), rows: 2 }]) as never, info: dInfo }), 'UNSUPPORTED', 'c');
  named(() => ctx.syrk({ a: two.a, c: undefined as never, info: dInfo }), 'INVALID_ARGUMENT', 'c');
  named(() => ctx.syrk({ ...two, info: dInfo, check: true } as never), 'INVALID_ARGUMENT', 'check');
  named(() => ctx.syrk({ a: { ...two.a, maxRows: -1 }, c: two.c, info: dInfo }), 'INVALID_ARGUMENT', 'a.maxRows');
  // trtri: info optional (allocated), given: device int32 of count entries apart from the sizes.
  const a = deviceBatch(ctx, 4, 64);
  named(() => ctx.trtri({ a, diag: 'maybe' as never }), 'ENUM', 'diag');
  named(() => ctx.trtri({ a, uplo: 'sideways' as never }), 'ENUM', 'uplo');
  named(() => ctx.trtri({ a, info: ctx.alloc('int32', 2) }), 'BOUNDS', 'info');
  named(() => ctx.trtri({ a, info: a.ld }), 'LAYOUT', 'info');
  named(() => ctx.trtri({ a, check: true }), 'UNSUPPORTED', 'check');
  named(() => ctx.trtri({ a: { ...a, rows: ctx.alloc('float64', 4) } as never }), 'DTYPE', 'a.rows');
  named(() => ctx.trtri({ a, extra: 1 } as never), 'INVALID_ARGUMENT', 'extra');
  const r = ctx.trtri({ a });
  assert.equal((r.info as DeviceStorage).length >= 4, true);
  assert.deepEqual(ctx.lastRoute, { op: 'trtri', route: 'vdevice', gpu: true });
});

test('syrk and trtri on a planning device: route vdevice, a classification and the launches the maxima reach; nothing for an empty batch; capture refuses them; force pins vdevice', () => {
  for (const [maxRows, classes] of [[20, 3], [64, 6]] as const) {
    assert.equal(deviceRegions(maxRows).launches.length, classes);
    // syrk: the table's leafMax (64 on sm_90) holds every class here in one leaf: a classification and a leaf a class.
    const s = planning();
    s.ctx.syrk({ a: deviceBatch(s.ctx, 1000, maxRows), c: deviceBatch(s.ctx, 1000, maxRows), beta: 1, info: s.ctx.alloc('int32', 1000) });
    assert.deepEqual(s.ctx.lastRoute, { op: 'syrk', route: 'vdevice', gpu: true });
    assert.equal(s.dev.launches, 1 + classes, `syrk up to ${maxRows}`);
  }
  // trtri up to 20: a classification and a leaf with info a class (leafMax 32).
  const t = planning();
  t.ctx.trtri({ a: deviceBatch(t.ctx, 1000, 20) });
  assert.deepEqual(t.ctx.lastRoute, { op: 'trtri', route: 'vdevice', gpu: true });
  assert.equal(t.dev.launches, 1 + 3);
  // Up to 64: classes 48 and 64 are above one leaf (one step each): four leaves with info, the step's
  // rows, two trsm solves over triangles up to 32 (a leaf a class: 4 + 4), then the two classes' leaves.
  const u = planning();
  u.ctx.trtri({ a: deviceBatch(u.ctx, 1000, 64) });
  assert.equal(u.dev.launches, 1 + 4 + 2 + 8 + 2);
  // Above one syrk leaf (512): off-diagonal steps, each the step's rows and GEMM class launches.
  const w = planning();
  w.ctx.syrk({ a: deviceBatch(w.ctx, 100, 512), c: deviceBatch(w.ctx, 100, 512), info: w.ctx.alloc('int32', 100) });
  assert.ok(w.dev.sources.some((k) => k.entry.startsWith('syrk_vdevice_offdiag_rows')));
  // An empty batch launches nothing.
  const e = planning();
  e.ctx.syrk({ a: deviceBatch(e.ctx, 0, 600), c: deviceBatch(e.ctx, 0, 600), info: e.ctx.alloc('int32', 1) });
  e.ctx.trtri({ a: deviceBatch(e.ctx, 0, 600) });
  assert.equal(e.dev.launches, 0);
  const dev = new LaunchCounter(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  named(() => backend.captureScope(() => ctx.trtri({ a: deviceBatch(ctx, 4, 8) })), 'UNSUPPORTED', 'a');
  named(() => backend.captureScope(() => ctx.syrk({ a: deviceBatch(ctx, 4, 8), c: deviceBatch(ctx, 4, 8), info: ctx.alloc('int32', 4) })), 'UNSUPPORTED', 'a');
  // force pins the one route of a device-sized call; another name is an error naming force.
  backend.force = { syrk: 'vdevice', trtri: 'vdevice' };
  ctx.trtri({ a: deviceBatch(ctx, 4, 8) });
  assert.deepEqual(ctx.lastRoute, { op: 'trtri', route: 'vdevice', gpu: true });
  ctx.syrk({ a: deviceBatch(ctx, 4, 8), c: deviceBatch(ctx, 4, 8), info: ctx.alloc('int32', 4) });
  assert.deepEqual(ctx.lastRoute, { op: 'syrk', route: 'vdevice', gpu: true });
  backend.force = { syrk: 'vbatched', trtri: 'trtri' };
  named(() => ctx.trtri({ a: deviceBatch(ctx, 4, 8) }), 'ENUM', 'force');
  named(() => ctx.syrk({ a: deviceBatch(ctx, 4, 8), c: deviceBatch(ctx, 4, 8), info: ctx.alloc('int32', 4) }), 'ENUM', 'force');
  backend.force = {};
});

test('the class kernels of the device-sized syrk and trtri are the host-sized path\'s own (members up to 512)', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    const sizes = [1, 9, 17, 25, 40, 60, 100, 200, 500];
    const host = planning();
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const members = (data: DeviceStorage): { data: DeviceStorage; rows: number; offset: number }[] => {
      let at = 0;
      return sizes.map((n) => { const m = { data, rows: n, offset: at }; at += n * n; return m; });
    };
    const a = members(host.ctx.alloc(dtype, elements)), c = members(host.ctx.alloc(dtype, elements));
    for (const [uplo, trans] of [['lower', 'N'], ['upper', 'T']] as const) {
      host.ctx.syrk({ uplo, trans, alpha: 0.5, beta: 2, a: variable(a), c: variable(c) });
      assert.equal(host.ctx.lastRoute?.route, 'vbatched');
    }
    for (const [uplo, diag] of [['lower', 'nonunit'], ['upper', 'unit']] as const) {
      host.ctx.trtri({ uplo, diag, a: variable(a) });
      assert.equal(host.ctx.lastRoute?.route, 'vbatched');
    }
    const dev = planning();
    const batch = (): DeviceVariableBatch => deviceBatch(dev.ctx, sizes.length, 512, dtype);
    for (const [uplo, trans] of [['lower', 'N'], ['upper', 'T']] as const)
      dev.ctx.syrk({ uplo, trans, alpha: 0.5, beta: 2, a: batch(), c: batch(), info: dev.ctx.alloc('int32', sizes.length) });
    for (const [uplo, diag] of [['lower', 'nonunit'], ['upper', 'unit']] as const) dev.ctx.trtri({ uplo, diag, a: batch() });
    const deviceKernels = new Set(dev.dev.sources.map((s) => s.entry));
    for (const k of host.dev.sources.map((s) => s.entry)) {
      if (k.startsWith('trtri_vscan')) continue;   // the device form scans in its classification
      // gemm's class kernels (syrk's off-diagonal blocks, trsm's updates) in their device-count form (_dc).
      assert.ok(deviceKernels.has(k) || (k.startsWith('gemm_v') && deviceKernels.has(`${k}_dc`)), `${dtype}: the host form's ${k} is not the device form's`);
    }
    const own = [...deviceKernels].filter((k) => k.includes('vdevice')).sort();
    const letter = dtype === 'float64' ? 'd' : 's';
    assert.deepEqual(own, [
      'syrk_vdevice_classify_N', 'syrk_vdevice_classify_T', 'syrk_vdevice_offdiag_rows_N', 'syrk_vdevice_offdiag_rows_T',
      'trsm_vdevice_update_rows_LN', 'trsm_vdevice_update_rows_RN', `trtri_vdevice_classify_${letter}`, 'trtri_vdevice_solve_rows_l', 'trtri_vdevice_solve_rows_u',
    ], dtype);
  }
});

test('the device launchers\' designs: syrk\'s bounds and each class\'s recursion as the host plan\'s; trtri\'s classes as the host plan\'s and the scan threshold', () => {
  const a = fakeBatch(4, { maxRows: 30, cols: fake('int32', 4), maxCols: 700 });
  const c = fakeBatch(4, { maxRows: 40 });
  assert.deepEqual(syrkDeviceBounds({ trans: 'N', alpha: 1, a, c }), { n: 30, k: 700 });
  assert.deepEqual(syrkDeviceBounds({ trans: 'T', alpha: 1, a, c }), { n: 40, k: 30 });
  assert.deepEqual(syrkDeviceBounds({ trans: 'N', alpha: 0, a, c }), { n: 30, k: 0 });
  const tuning = tuningFor(H100.arch, 'syrk');
  for (const uplo of ['lower', 'upper'] as const) {
    for (const leafMax of [16, 32, 64]) {
      const { classes, regions } = syrkDeviceClasses(600, leafMax, tuning.splitAlign, uplo);
      assert.equal(regions, VBATCH_CLASSES.length + 1);
      assert.deepEqual(classes.map((x) => x.bound), [640, ...[...VBATCH_CLASSES].reverse()]);
      // Every class up to 512: the host plan's steps for a member of that class.
      const host = planVbatchedSyrk({ dtype: 'float64', uplo, trans: 'N', beta: 0, members: { n: VBATCH_CLASSES, k: VBATCH_CLASSES }, sharedLimit: 99 * 1024 }, tuning, { leafMax });
      for (const l of host.launches) {
        const mine = classes.find((x) => x.bound === l.bound)!;
        assert.deepEqual([...mine.leaves, ...mine.offdiag], l.steps, `${uplo} ${leafMax} ${l.bound}`);
      }
      const large = classes[0]!;
      assert.deepEqual([...large.leaves, ...large.offdiag], syrkSteps(640, leafMax, tuning.splitAlign, uplo));
    }
  }
  const tt = tuningFor(H100.arch, 'trtri');
  for (const leafMax of [4, 8, 16, 32]) {
    const p = { dtype: 'float64' as const, uplo: 'lower' as const, diag: 'nonunit' as const };
    const { classes, scanAbove } = trtriDeviceClasses(p, 512, leafMax);
    // A member of order n is in a class above one leaf exactly where n > scanAbove.
    for (let n = 0; n <= 512; n++) {
      const bound = VBATCH_CLASSES.find((x) => n <= x)!;
      const mine = classes.find((x) => x.bound === bound)!;
      assert.equal(mine.depths.length > 0, n > scanAbove, `leafMax ${leafMax}, n ${n}`);
    }
    const host = planVbatchedTrtri({ ...p, n: VBATCH_CLASSES, sharedLimit: 99 * 1024 }, tt, { leafMax });
    for (const h of host.classes) {
      const mine = classes.find((x) => x.bound === h.bound)!;
      assert.deepEqual({ leaf: mine.leaf, leaves: mine.leaves, depths: mine.depths }, { leaf: h.leaf, leaves: h.leaves, depths: h.depths }, `leafMax ${leafMax} class ${h.bound}`);
    }
  }
  assert.equal(trtriDeviceClasses({ dtype: 'float32', uplo: 'upper', diag: 'unit' }, 20, 32).scanAbove, 32);
  assert.equal(trtriDeviceClasses({ dtype: 'float32', uplo: 'upper', diag: 'unit' }, 20, 4).scanAbove, -1);
});

test('test/gpu/vdevice-syrk-trtri.test.ts\'s calls pass validation and take their routes on a planning device', () => {
  const dev = new LaunchCounter(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  // Each case's calls assert their routes ('vbatched' forced for the host form, 'vdevice' for the device form).
  recordCalls(ctx, backend);
  assert.deepEqual(ctx.lastRoute, { op: 'trtri', route: 'vdevice', gpu: true });
  assert.deepEqual(backend.force, {});
  // The file's kernels (236 on sm_90 since trmm's register leaves: the host form's trtri recursion
  // multiplies by them; 242 since float64 trmm of orders 25-32 takes the pipelined kernel and the
  // gemm plan's updates the tiles of C's smaller side), compiled at once before its first case.
  assert.ok(dev.sources.length <= 246, `${dev.sources.length} kernels`);
});

test('the table kernels of syrk and trtri on device sizes compile for sm_90 without spills', { skip: NVCC_SKIP }, async () => {
  const sources = [
    ...(['N', 'T'] as const).flatMap((trans) => [generateSyrkClassify({ trans }), generateSyrkOffdiagRows({ trans })]),
    generateTrtriClassify({ dtype: 'float64' }), generateTrtriClassify({ dtype: 'float32' }),
    generateTrtriSolveRows({ uplo: 'lower' }), generateTrtriSolveRows({ uplo: 'upper' }),
  ];
  const failures = compileFailures(await compileForSm90(sources), (r) => (r.spillStores > 0 || r.registers > 40 ? `${r.registers} registers, ${r.spillStores} bytes spilled` : undefined));
  assert.deepEqual(failures, []);
});

/**
 * The device form's per-call work, counted on a planning device (no GPU): its tables come from the
 * device workspace, so a call after the first allocates nothing and waits for nothing; gemm's call
 * is one memset (the counters), one classification launch and one launch a class, each class
 * kernel in its device-count form (the class's counter as its last argument, a grid the GPU holds
 * at once rather than a block a row of the region). potrf, getrf, trsm, potrs, posv, getrs, gesv, syrk and trtri share the
 * tables and allocate nothing after their first call either.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Context } from '../../src/api/context.js';
import { variableDevice, type DeviceVariableBatch } from '../../src/core/device-batch.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { deviceRegions, firstLaunchedRegion, inDeviceFrame, takeDeviceTables } from '../../src/cuda/kernels/common/vdevice.js';
import { DEVICE_CLASS_WAVES, DEVICE_LOOP_MAX_TILES, deviceClassSlots } from '../../src/cuda/kernels/gemm/launch-vdevice.js';
import { classTiles } from '../../src/cuda/kernels/gemm/index.js';
import { gemmClassParams, vbatchedGemmLaunch, vbatchedGemmSource } from '../../src/cuda/kernels/gemm/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { blocksPerSM } from '../../src/cuda/model/occupancy.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, DeviceDType, Kernel, KernelSource, LaunchArg, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { compileFailures, compileForSm90, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';

interface Launch { readonly entry: string; readonly config: LaunchConfig; readonly args: readonly LaunchArg[] }

/** A planning device that counts allocations, waits and fills, and records launches. */
class Counting extends PlanningDevice {
  allocs = 0;
  waits = 0;
  fills: number[] = [];
  /** Each fill's first address, beside `fills`. */
  filledAt: bigint[] = [];
  launches: Launch[] = [];
  override alloc(dtype: DeviceDType, length: number): DeviceArray {
    this.allocs++;
    return super.alloc(dtype, length);
  }
  override synchronize(): void {
    this.waits++;
  }
  override fill(dst?: DeviceArray): void {
    this.fills.push(dst?.byteLength ?? 0);
    this.filledAt.push(dst?.ptr ?? 0n);
  }
  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return { ...k, launch: (config: LaunchConfig, args: readonly LaunchArg[]) => { this.launches.push({ entry: src.entry, config, args }); } };
  }
  reset(): void {
    this.allocs = 0;
    this.waits = 0;
    this.fills = [];
    this.filledAt = [];
    this.launches = [];
  }
}

function rig(): { ctx: Context; dev: Counting; batch: (count: number, maxRows: number) => DeviceVariableBatch } {
  const dev = new Counting(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  // The batches' arrays are made before the counted calls.
  const batch = (count: number, maxRows: number): DeviceVariableBatch =>
    variableDevice({ count, rows: ctx.alloc('int32', count), ld: ctx.alloc('int32', count), pointers: ctx.upload(new BigInt64Array(count)), maxRows, dtype: 'float64' });
  return { ctx, dev, batch };
}

const blocks = (c: LaunchConfig): number => c.grid[0] * c.grid[1] * c.grid[2];

test("gemm's device form: after the first call no allocation and no wait; a memset of the counters, the classification, one device-count launch a class", () => {
  const { ctx, dev, batch } = rig();
  const count = 200_000;
  const a = batch(count, 64), b = batch(count, 64), c = batch(count, 64), info = ctx.alloc('int32', count);
  ctx.gemm({ a, b, c, beta: 1, info });
  dev.reset();
  ctx.gemm({ a, b, c, beta: 1, info });
  assert.equal(dev.allocs, 0, 'no allocation');
  assert.equal(dev.waits, 0, 'no wait');
  const { launches, regions } = deviceRegions(64);
  assert.deepEqual(dev.fills, [4 * regions], 'one memset: the counters');
  assert.equal(dev.launches.length, 1 + launches.length);
  assert.match(dev.launches[0]!.entry, /classify/);
  const classify = dev.launches[0]!.args;
  const countersAt = classify[classify.length - 2]!.value as bigint;
  const tuning = tuningFor('sm_90', 'gemm');
  launches.forEach(({ region, bound }, l) => {
    const { entry, config, args } = dev.launches[1 + l]!;
    assert.match(entry, /_dc$/, `class ${bound}: the device-count form`);
    assert.equal(args.length, 6);
    assert.equal(args[2]!.value, count, `class ${bound}: the region's rows`);
    assert.equal(args[5]!.value, countersAt + BigInt(4 * region), `class ${bound}: its counter`);
    // The grid the GPU holds at once (registers unknown on a planning device: 1 a thread), not a block a row.
    const p = gemmClassParams({ dtype: 'float64', transA: 'N', transB: 'N', beta: 1 }, bound, tuning);
    const plain = vbatchedGemmLaunch(p, count);
    const perSM = blocksPerSM(H100, { threads: config.block[0], registersPerThread: 1, sharedBytes: config.sharedBytes ?? 0 });
    assert.ok(blocks(config) <= perSM * H100.smCount * DEVICE_CLASS_WAVES + blocks(vbatchedGemmLaunch(p, 1)), `class ${bound}: ${blocks(config)} blocks`);
    assert.ok(blocks(config) < blocks(plain) / 4, `class ${bound}: ${blocks(config)} blocks against ${blocks(plain)} a row each`);
  });
});

test('potrf, getrf, trsm, potrs, posv, getrs, gesv, syrk and trtri on device sizes: after the first call no allocation and no wait', () => {
  const { ctx, dev, batch } = rig();
  const count = 5000;
  const calls: [string, () => () => void][] = [
    ['potrf', () => { const a = batch(count, 100), info = ctx.alloc('int32', count); return () => ctx.potrf({ a, info }); }],
    ['getrf', () => { const a = batch(count, 100), ipiv = ctx.alloc('int32', count * 100), info = ctx.alloc('int32', count); return () => ctx.getrf({ a, ipiv, info }); }],
    ['trsm', () => { const a = batch(count, 100), b = batch(count, 100), info = ctx.alloc('int32', count); return () => ctx.trsm({ a, b, info }); }],
    ['potrs', () => { const a = batch(count, 70), b = batch(count, 70), info = ctx.alloc('int32', count); return () => ctx.potrs({ a, b, info }); }],
    ['posv', () => { const a = batch(count, 70), b = batch(count, 70), info = ctx.alloc('int32', count); return () => ctx.posv({ a, b, info }); }],
    ['getrs', () => { const a = batch(count, 70), b = batch(count, 70), ipiv = ctx.alloc('int32', count * 70), info = ctx.alloc('int32', count); return () => ctx.getrs({ trans: 'T', a, b, ipiv, info }); }],
    ['gesv', () => { const a = batch(count, 70), b = batch(count, 70), ipiv = ctx.alloc('int32', count * 70), info = ctx.alloc('int32', count); return () => ctx.gesv({ a, b, ipiv, info }); }],
    ['syrk', () => { const a = batch(count, 600), c = batch(count, 600), info = ctx.alloc('int32', count); return () => ctx.syrk({ a, c, beta: 1, info }); }],
    ['trtri', () => { const a = batch(count, 600), info = ctx.alloc('int32', count); return () => ctx.trtri({ a, info }); }],
  ];
  for (const [name, make] of calls) {
    const call = make();
    call();
    dev.reset();
    call();
    assert.equal(ctx.lastRoute?.route, 'vdevice', name);
    assert.equal(dev.allocs, 0, `${name}: no allocation`);
    assert.equal(dev.waits, 0, `${name}: no wait`);
    assert.ok(dev.launches.length > 1, name);
  }
});

test('the device-count grids: every block resident at once over DEVICE_CLASS_WAVES waves, at most a slot a row, at least one; classes of more than DEVICE_LOOP_MAX_TILES tiles a slot a row', () => {
  const tuning = tuningFor('sm_90', 'gemm');
  const kernel = { registers: 128, staticSharedBytes: 0 };
  const dev = new PlanningDevice(H100);
  for (const bound of [8, 16, 24, 32, 48, 64, 128, 512]) {
    const p = { ...gemmClassParams({ dtype: 'float64', transA: 'N', transB: 'N', beta: 0 }, bound, tuning), deviceCount: true };
    const one = vbatchedGemmLaunch(p, 1);
    const perSM = blocksPerSM(H100, { threads: one.block[0], registersPerThread: 128, sharedBytes: one.sharedBytes ?? 0 });
    const slots = deviceClassSlots(dev, p, kernel, 1_000_000);
    if (p.variant !== 'vstaged' && p.variant !== 'vsmall' && classTiles(p) > DEVICE_LOOP_MAX_TILES) {
      assert.equal(slots, 1_000_000, `class ${bound}: ${classTiles(p)} tiles, a slot a row`);
      continue;
    }
    const grid = blocks(vbatchedGemmLaunch(p, slots));
    const held = Math.max(1, perSM) * H100.smCount * DEVICE_CLASS_WAVES;
    assert.ok(grid <= held + blocks(one) && grid >= held - blocks(one), `class ${bound}: ${grid} blocks, ${held} held`);
    assert.equal(deviceClassSlots(dev, p, kernel, 3), 3, `class ${bound}: a slot a row where there are few rows`);
    assert.equal(deviceClassSlots(dev, p, kernel, 1_000_000, 1) <= slots, true);
  }
});

test('the device-count form of every class design: the plain text\'s tile and product, the count from `live`, a member loop; the plain form unchanged by the option', () => {
  const tuning = tuningFor('sm_90', 'gemm');
  const team = { ...tuning, vbatchedSmall: { float64: { 16: { design: 'team' as const, team: 64, tbc: 4 } } } };
  for (const [bound, t, dtype] of [[8, tuning, 'float64'], [16, team, 'float64'], [48, tuning, 'float64'], [64, tuning, 'float32']] as const) {
    const p = gemmClassParams({ dtype, transA: 'N', transB: 'T', beta: 0 }, bound, t);
    const plain = vbatchedGemmSource(p), counted = vbatchedGemmSource({ ...p, deviceCount: true });
    assert.deepEqual(vbatchedGemmSource({ ...p, deviceCount: false }), plain, `${p.variant}: deviceCount false is the plain form`);
    assert.equal(counted.entry, `${plain.entry}_dc`);
    assert.ok(!plain.source.includes('live'), `${p.variant}: the plain form reads no counter`);
    assert.match(counted.source, /const int\* __restrict__ live\)/);
    assert.match(counted.source, /const int members = min\(\*live, count\);/);
    assert.match(counted.source, /for \(int \w+ = [^;]+; \w+ < members; \w+ \+= /, `${p.variant}: the member loop`);
    assert.ok(!/\breturn;/.test(counted.source.slice(counted.source.indexOf('for (int'))), `${p.variant}: no return inside the loop`);
    assert.equal(vbatchedGemmSource({ ...p, deviceCount: true }).source, counted.source, 'pure');
  }
});

test('the device-count class kernels of workload a\'s largest classes compile for sm_90 without spills', { skip: NVCC_SKIP }, async () => {
  // Default: the float64 tensor-core classes 48 and 64 (the table's tiles) and a staged one; every class under
  // MYRIAD_FULL_COMPILE=1 (ptxas, CUDA 13, 2026-11-29: the float64 class 128 NN kernel, 64x64x16 w4x2, holds 128
  // registers and spills 8 bytes in this form, 120 and none in the plain one; the others none).
  const tuning = tuningFor('sm_90', 'gemm');
  const sources = [];
  for (const dtype of ['float64', 'float32'] as const) for (const [transA, transB] of [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']] as const) for (const bound of [8, 16, 24, 32, 48, 64]) {
    sources.push(vbatchedGemmSource({ ...gemmClassParams({ dtype, transA, transB, beta: 1 }, bound, tuning), deviceCount: true }));
  }
  const picks = new Set(['gemm_vmma_dNN_c48_32x32x16_w2x2_s3_k8_dc', 'gemm_vmma_dTT_c64_64x32x16_w2x2_s2_k8_dc', 'gemm_vstaged_dNN_c24_m2_t3x2_dc']);
  const results = await compileForSm90(compileSet(sources, (e) => picks.has(e)), 2);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined)), []);
});

test("zeroed tables clear the rows of the regions launched only: posv's and gesv's solves leave the fused classes' regions alone", () => {
  const dev = new Counting(H100);
  const count = 1000, pointers = 3, ints = 5;
  const { launches: all, regions } = deviceRegions(64);
  const launches = all.filter((l) => l.bound > 32);
  const first = firstLaunchedRegion(launches, regions);
  assert.equal(first, Math.min(...launches.map((l) => l.region)));
  assert.equal(firstLaunchedRegion([], regions), regions, 'no launch: no rows');
  inDeviceFrame(dev, (frame) => {
    dev.reset();
    const t = takeDeviceTables(dev, frame, regions, count, pointers, ints, 'zeroed', first);
    const rows = (regions - first) * count;
    assert.deepEqual(dev.fills, [rows * pointers * 8, rows * ints * 4, regions * 4], 'the launched regions\' rows, then the counters');
    assert.deepEqual(dev.filledAt, [t.at(first).pointers, t.at(first).ints, t.counters]);
    dev.reset();
    t.zero(first + 1);
    assert.deepEqual(dev.fills, [count * pointers * 8, count * ints * 4, regions * 4], 'zero(upTo): the regions [first, upTo)');
    dev.reset();
    const whole = takeDeviceTables(dev, frame, regions, count, pointers, ints, 'zeroed');
    assert.deepEqual(dev.fills, [regions * count * pointers * 8, regions * count * ints * 4, regions * 4], 'first 0: every region');
    assert.deepEqual(dev.filledAt, [whole.at(0).pointers, whole.at(0).ints, whole.counters]);
  });
});

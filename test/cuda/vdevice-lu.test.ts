/**
 * getrs and gesv on variableDevice batches (solve/launch-vdevice-lu.ts) without a GPU: the calls'
 * host-side checks (each error naming its argument); the call path on a planning device (route
 * 'vdevice', the launches in order with their arguments: the check, gesv's getrf classes as getrf's
 * device form launches them, trsm's classification skipping the members whose code is not 0, the
 * row interchanges before the solves of op N and after those of op T, info copied last for gesv;
 * no allocation and no wait after the first call); the class kernels the host path's own; the
 * check kernels compiled as C++ for the host (test/helpers/vdevice-lu-host-harness.cpp, needs g++)
 * on members of 0-600 with invalid ones (codes, the interchanges' table, gesv's getrf regions); and,
 * where nvcc is on PATH, the check kernels compiled for sm_90 without spills; and the calls of
 * test/gpu/vdevice-lu.test.ts on a planning device (their routes, the kernels they compile).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Context, newCpuContext } from '../../src/api/context.js';
import { strided, variable } from '../../src/core/batch.js';
import { variableDevice, type DeviceVariableBatch } from '../../src/core/device-batch.js';
import type { DType } from '../../src/core/dtype.js';
import { MyriadError } from '../../src/core/errors.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { VBATCH_CLASSES, VBATCH_MAX, sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { LARGE_REGION, deviceRegions } from '../../src/cuda/kernels/common/vdevice.js';
import { getrfDeviceVariableCuda } from '../../src/cuda/kernels/getrf/index.js';
import { generateLuSolveCheck, permuteVbatchedCap, permuteVbatchedSharedBytes } from '../../src/cuda/kernels/solve/index.js';
import { trsmVbatchedLeafSource } from '../../src/cuda/kernels/trsm/generate-vbatched.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, DeviceDType, Kernel, KernelSource, LaunchArg, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { LU, recordLuDeviceCalls } from '../helpers/vbatched-device-cases.js';
import { compileFailures, compileForSm90, NVCC_SKIP } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';

const named = (f: () => unknown, code: string, argument: string): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument,
    `expected ${code} naming ${argument}`);

/** Device memory as the core sees it (no backend behind it). */
const fake = (dtype: DeviceStorage['dtype'], length: number, device = 0): DeviceStorage => ({ kind: 'device', dtype, length, device });

function fakeBatch(count = 4, extra: Partial<Parameters<typeof variableDevice>[0]> = {}): DeviceVariableBatch {
  return variableDevice({ count, rows: fake('int32', count), ld: fake('int32', count), pointers: fake('int64', count), maxRows: 64, dtype: 'float64', ...extra });
}

test('getrs and gesv on variableDevice batches: the call\'s host-side checks name the argument', () => {
  const cpu = newCpuContext();
  // Pivot stride min(maxRows, maxCols) = 64: ipiv holds count * 64.
  const ipiv = fake('int32', 4 * 64);
  const getrs = (args: Record<string, unknown>): unknown => cpu.getrs({ a: fakeBatch(), b: fakeBatch(), ipiv, ...args } as never);
  named(() => getrs({ ipiv: undefined }), 'INVALID_ARGUMENT', 'ipiv');
  named(() => getrs({ ipiv: new Int32Array(4 * 64) }), 'INVALID_ARGUMENT', 'ipiv');
  named(() => getrs({ ipiv: fake('int32', 4 * 64 - 1) }), 'BOUNDS', 'ipiv');
  named(() => getrs({ ipiv: fake('float64', 4 * 64) }), 'DTYPE', 'ipiv');
  named(() => getrs({ trans: 'X' }), 'ENUM', 'trans');
  named(() => getrs({ uplo: 'lower' }), 'INVALID_ARGUMENT', 'uplo');
  named(() => getrs({ info: ipiv }), 'LAYOUT', 'info');
  for (const op of ['getrs', 'gesv'] as const) {
    const call = (args: Record<string, unknown>): unknown => cpu[op]({ a: fakeBatch(), b: fakeBatch(), ...(op === 'getrs' ? { ipiv } : {}), ...args } as never);
    named(() => call({ info: fake('int32', 3) }), 'BOUNDS', 'info');
    named(() => call({ info: new Int32Array(4) }), 'INVALID_ARGUMENT', 'info');
    named(() => call({ info: fake('int64', 4) }), 'DTYPE', 'info');
    named(() => call({ check: true }), 'UNSUPPORTED', 'check');
    named(() => call({ b: fakeBatch(3) }), 'SHAPE', 'b.count');
    named(() => call({ b: fakeBatch(4, { dtype: 'float32' }) }), 'DTYPE', 'b.dtype');
    named(() => call({ b: strided(new Float64Array(16), { rows: 2, count: 4 }) }), 'UNSUPPORTED', 'b');
    named(() => call({ a: strided(new Float64Array(16), { rows: 2, count: 4 }) }), 'UNSUPPORTED', 'a');
    named(() => call({ b: { ...fakeBatch(), ld: fake('int32', 3) } }), 'BOUNDS', 'b.ld');
    named(() => call({ a: { ...fakeBatch(), cols: undefined, maxCols: 32 } }), 'INVALID_ARGUMENT', 'a.maxCols');
    named(() => call({ a: { ...fakeBatch(), maxRows: -1 } }), 'INVALID_ARGUMENT', 'a.maxRows');
    const shared = fakeBatch();
    named(() => call({ a: shared, info: shared.rows }), 'LAYOUT', 'info');
    // Valid on the host: the CPU context refuses the batches themselves, naming a.
    named(() => call({}), 'UNSUPPORTED', 'a');
  }
  // gesv writes ipiv: it shares memory with no input; getrs only reads it.
  const sharedA = fakeBatch(4, { maxRows: 1 });
  named(() => cpu.gesv({ a: sharedA, b: fakeBatch(4, { maxRows: 1 }), ipiv: sharedA.rows }), 'LAYOUT', 'ipiv');
  named(() => cpu.gesv({ a: fakeBatch(), b: fakeBatch(), trans: 'T' } as never), 'INVALID_ARGUMENT', 'trans');
  named(() => cpu.gesv({ a: fakeBatch(), b: fakeBatch(), ipiv: fake('int32', 4 * 64 - 1) }), 'BOUNDS', 'ipiv');
  named(() => cpu.gesv({ a: fakeBatch(2 ** 28, { rows: fake('int32', 2 ** 28), ld: fake('int32', 2 ** 28), pointers: fake('int64', 2 ** 28) }), b: fakeBatch(2 ** 28, { rows: fake('int32', 2 ** 28), ld: fake('int32', 2 ** 28), pointers: fake('int64', 2 ** 28) }) }), 'BOUNDS', 'a.count');
});

interface Launch { readonly entry: string; readonly config: LaunchConfig; readonly args: readonly LaunchArg[] }

/** A planning device that records launches and copies, and counts allocations and waits. */
class Recorder extends PlanningDevice {
  launches: Launch[] = [];
  copies: { src: bigint; srcOffset: number; dst: bigint; elements: number }[] = [];
  allocs = 0;
  waits = 0;
  override alloc(dtype: DeviceDType, length: number): DeviceArray {
    this.allocs++;
    return super.alloc(dtype, length);
  }
  override synchronize(): void {
    this.waits++;
  }
  // PlanningDevice declares copy() without parameters; the device calls it with GpuDevice.copy's.
  override copy(...args: unknown[]): void {
    const [src, srcOffset, dst, , elements] = args as [DeviceArray, number, DeviceArray, number, number];
    this.copies.push({ src: src.ptr, srcOffset, dst: dst.ptr, elements });
  }
  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return { ...k, launch: (config: LaunchConfig, args: readonly LaunchArg[]) => { this.launches.push({ entry: src.entry, config, args }); } };
  }
  reset(): void {
    this.launches = [];
    this.copies = [];
    this.allocs = 0;
    this.waits = 0;
  }
}

function planning(): { ctx: Context; dev: Recorder; batch: (count: number, maxRows: number, dtype?: DType) => DeviceVariableBatch } {
  const dev = new Recorder(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  const batch = (count: number, maxRows: number, dtype: DType = 'float64'): DeviceVariableBatch =>
    variableDevice({ count, rows: ctx.alloc('int32', count), ld: ctx.alloc('int32', count), pointers: ctx.upload(new BigInt64Array(count)), maxRows, dtype });
  return { ctx, dev, batch };
}

const value = (a: LaunchArg | undefined): unknown => (a === undefined || a.type === 'bytes' ? undefined : a.value);
const ptrOf = (s: DeviceStorage): bigint => (s as DeviceArray).ptr;
const leafEntry = (uplo: 'lower' | 'upper', transA: 'N' | 'T', diag: 'unit' | 'nonunit'): string =>
  trsmVbatchedLeafSource({ dtype: 'float64', side: 'left', uplo, transA, diag }).entry;

test('getrs on a planning device: route vdevice; the check, trsm\'s classification skipping on info, P B before L and U (op N), after U^T and L^T (op T)', () => {
  const { ctx, dev, batch } = planning();
  const count = 1000, max = 20;
  const a = batch(count, max), ipiv = ctx.alloc('int32', count * max), info = ctx.alloc('int32', count);
  for (const trans of ['N', 'T'] as const) {
    dev.reset();
    const r = ctx.getrs({ trans, a, b: batch(count, max), ipiv, info });
    assert.deepEqual(ctx.lastRoute, { op: 'getrs', route: 'vdevice', gpu: true });
    assert.equal(r.info, info);
    // Members up to 20: classes 8, 16, 24, one leaf each (leafMax 32).
    const leaves = (uplo: 'lower' | 'upper', diag: 'unit' | 'nonunit'): string[] => Array(3).fill(leafEntry(uplo, trans, diag));
    const swap = trans === 'N' ? 'laswp_vbatched_d_fwd' : 'laswp_vbatched_d_inv';
    assert.deepEqual(dev.launches.map((l) => l.entry), trans === 'N'
      ? ['getrs_vdevice_check', 'trsm_vdevice_classify_L', swap, ...leaves('lower', 'unit'), ...leaves('upper', 'nonunit')]
      : ['getrs_vdevice_check', 'trsm_vdevice_classify_L', ...leaves('upper', 'nonunit'), ...leaves('lower', 'unit'), swap]);
    const check = dev.launches[0]!.args, classify = dev.launches[1]!.args;
    assert.equal(value(check[check.length - 1]), ptrOf(info), 'the check writes info');
    assert.equal(value(classify[classify.length - 2]), ptrOf(info), 'the classification skips on info');
    assert.equal(value(classify[classify.length - 1]), -1, 'no member taken elsewhere');
    assert.equal(value(classify[classify.length - 3]), 0n, 'the classification writes no code');
    const p = dev.launches.find((l) => l.entry === swap)!;
    // The table the check wrote (its pointers and ints), member i's pivots at ipiv[i * 20], no skip, orders up to 20.
    assert.deepEqual(p.args.map(value), [value(check[check.length - 3]), 1, value(check[check.length - 2]), ptrOf(ipiv), max, 0n, count, max, permuteVbatchedCap(max)]);
    assert.deepEqual(p.config, { grid: [count, 8, 1], block: [256, 1, 1], sharedBytes: permuteVbatchedSharedBytes(max, 8) });
    assert.equal(dev.copies.length, 0, 'nothing copied: the check writes info');
  }
  // Larger members: the recursion's GEMM updates between the leaves; op T still interchanges last.
  dev.reset();
  ctx.getrs({ trans: 'T', a: batch(50, 600), b: batch(50, 600), ipiv: ctx.alloc('int32', 50 * 600), info: ctx.alloc('int32', 50) });
  assert.ok(dev.launches.length > 40, `${dev.launches.length} launches`);
  assert.equal(dev.launches[dev.launches.length - 1]!.entry, 'laswp_vbatched_d_inv');
  assert.equal(dev.launches.filter((l) => l.entry.startsWith('laswp')).length, 1);
  // An empty batch launches nothing; an order whose interchanges need more shared memory than a block has is refused before any launch.
  dev.reset();
  ctx.getrs({ a: batch(0, 600), b: batch(0, 600), ipiv: ctx.alloc('int32', 1) });
  named(() => ctx.getrs({ a: batch(4, 20_000), b: batch(4, 20_000), ipiv: ctx.alloc('int32', 4 * 20_000) }), 'UNSUPPORTED', 'b.maxRows');
  assert.equal(dev.launches.length, 0);
});

test('gesv on a planning device: route vdevice; the check filing the fused classes to 32 and getrf\'s above, getrf\'s class launches as its device form\'s, the solves and P B skipping on the codes, info copied last', () => {
  for (const max of [20, 600]) {
    const { ctx, dev, batch } = planning();
    const count = 300;
    const a = batch(count, max), b = batch(count, max), ipiv = ctx.alloc('int32', count * max), info = ctx.alloc('int32', count);
    // The first call grows the workspace; the second takes the same places, allocating nothing and waiting for nothing.
    ctx.gesv({ a, b, ipiv, info });
    dev.reset();
    ctx.gesv({ a, b, ipiv, info });
    assert.deepEqual(ctx.lastRoute, { op: 'gesv', route: 'vdevice', gpu: true });
    assert.equal(dev.allocs, 0, 'a second call allocates nothing');
    assert.equal(dev.waits, 0, 'a second call waits for nothing');
    const gesv = dev.launches, copies = dev.copies;
    // Up to 20 (classes 8, 16, 24): the check, the three fused classes, the classification (it files no member), the interchange.
    if (max === 20) assert.equal(gesv.length, 6);
    dev.reset();
    // getrf's device form on the same A (its tables and scratch at the same workspace places): its classes above 32.
    getrfDeviceVariableCuda(dev, { a, ipiv: ipiv as DeviceArray, pivotStride: max, info: info as DeviceArray });
    const getrf = dev.launches.slice(1).filter((l) => !l.entry.startsWith('getrf_vsmall'));
    assert.equal(gesv[0]!.entry, 'gesv_vdevice_check');
    const fused = gesv.slice(1, max === 20 ? 4 : 5);
    assert.deepEqual(fused.map((l) => l.entry.replace(/_c\d+_.*/, '')), Array(fused.length).fill('gesv_vsmall_d'), 'the fused classes first');
    assert.deepEqual(gesv.slice(1 + fused.length, 1 + fused.length + getrf.length), getrf, `up to ${max}: getrf's class launches, their arguments too`);
    const rest = gesv.slice(1 + fused.length + getrf.length);
    assert.equal(rest[0]!.entry, 'trsm_vdevice_classify_L');
    assert.equal(rest[1]!.entry, 'laswp_vbatched_d_fwd');
    assert.equal(rest.filter((l) => l.entry.startsWith('laswp')).length, 1);
    assert.ok(rest.slice(2).every((l) => !l.entry.includes('vdevice_check')));
    const check = gesv[0]!.args;
    const codes = value(check[check.length - 1]) as bigint;
    // The codes are the scratch from entry 1; getrf's class kernels write info to the scratch (entry 0 the zero rows' sink).
    const work = codes - 4n;
    for (const l of [...fused, ...getrf]) if (!l.entry.includes('vupdate')) assert.ok(l.args.some((x) => value(x) === work), `${l.entry}: info to the scratch`);
    assert.equal(value(rest[0]!.args[rest[0]!.args.length - 2]), codes, 'the classification skips on the codes');
    assert.equal(value(rest[0]!.args[rest[0]!.args.length - 1]), 32, 'and the members of the fused classes');
    assert.equal(value(rest[1]!.args[5]), codes, 'the interchanges skip on the codes');
    assert.equal(value(rest[1]!.args[3]), ptrOf(ipiv));
    // info: the scratch's entries 1..count, once every launch is enqueued.
    assert.deepEqual(copies, [{ src: work, srcOffset: 1, dst: ptrOf(info), elements: count }]);
  }
  const { ctx, dev, batch } = planning();
  ctx.gesv({ a: batch(0, 20), b: batch(0, 20) });
  assert.equal(dev.launches.length, 0, 'an empty batch launches nothing');
  named(() => ctx.gesv({ a: batch(4, 400_000), b: batch(4, 400_000) }), 'UNSUPPORTED', 'a.maxRows');
  assert.equal(dev.launches.length, 0);
});

test('getrs and gesv on device sizes: the class kernels are the host path\'s own (members up to 512)', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    const sizes = [1, 9, 17, 25, 40, 60, 100, 200, 500];
    const host = planning();
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const members = (data: DeviceStorage): { data: DeviceStorage; rows: number; offset: number }[] => {
      let at = 0;
      return sizes.map((n) => { const m = { data, rows: n, offset: at }; at += n * n; return m; });
    };
    const a = members(host.ctx.alloc(dtype, elements)), b = members(host.ctx.alloc(dtype, elements));
    const ipiv = host.ctx.alloc('int32', sizes.length * 512);
    for (const trans of ['N', 'T'] as const) host.ctx.getrs({ trans, a: variable(a), b: variable(b), ipiv });
    assert.equal(host.ctx.lastRoute?.route, 'vbatched');
    host.ctx.gesv({ a: variable(a), b: variable(b), ipiv });
    assert.equal(host.ctx.lastRoute?.route, 'vbatched');
    const dev = planning();
    const batch = (): DeviceVariableBatch => dev.batch(sizes.length, 512, dtype);
    const dIpiv = dev.ctx.alloc('int32', sizes.length * 512);
    for (const trans of ['N', 'T'] as const) dev.ctx.getrs({ trans, a: batch(), b: batch(), ipiv: dIpiv });
    dev.ctx.gesv({ a: batch(), b: batch(), ipiv: dIpiv });
    const deviceKernels = new Set(dev.dev.sources.map((s) => s.entry));
    for (const k of host.dev.sources.map((s) => s.entry)) {
      // The host form keeps a failed member's B aside (the device form never touches it) and zeroes getrs's info (the device form's check writes it).
      if (k.startsWith('copy_vbatched') || k.startsWith('info_zero')) continue;
      // gesv's fused classes: the device form passes over the maxima's widest B (the further passes' loop: 'r4m').
      const passes = k.startsWith('gesv_vsmall') && deviceKernels.has(k.replace(/_r4_/, '_r4m_'));
      assert.ok(passes || deviceKernels.has(k) || (k.startsWith('gemm_v') && deviceKernels.has(`${k}_dc`)), `${dtype}: the host form's ${k} is not the device form's`);
    }
    const own = [...deviceKernels].filter((k) => k.includes('vdevice')).sort();
    assert.deepEqual(own, ['gesv_vdevice_check', 'getrs_vdevice_check', 'trsm_vdevice_classify_L', 'trsm_vdevice_update_rows_LN', 'trsm_vdevice_update_rows_LT'], dtype);
  }
});

test('prepared calls and *Async forms take getrs and gesv on variableDevice batches; a prepared one takes a new ipiv and info', async () => {
  const { ctx, dev, batch } = planning();
  const count = 50, max = 30;
  const a = batch(count, max), b = batch(count, max);
  const g = ctx.prepare.gesv({ a, b });
  const first = g() as { info: DeviceStorage; ipiv: DeviceStorage };
  assert.deepEqual(ctx.lastRoute, { op: 'gesv', route: 'vdevice', gpu: true });
  assert.equal(first.ipiv.length >= count * max, true);
  const ipiv = ctx.alloc('int32', count * max), info = ctx.alloc('int32', count);
  dev.reset();
  const again = g({ ipiv, info }) as { info: DeviceStorage; ipiv: DeviceStorage };
  assert.equal(again.ipiv, ipiv);
  assert.ok(dev.launches.some((l) => l.args.some((x) => value(x) === ptrOf(ipiv) - BigInt(max * 4))), 'getrf\'s class kernels write the new ipiv');
  named(() => g({ ipiv, info: ipiv }), 'LAYOUT', 'info');
  named(() => g({ ipiv: a.rows }), 'BOUNDS', 'ipiv');
  const s = ctx.prepare.getrs({ trans: 'T', a, b, ipiv, info });
  s();
  assert.deepEqual(ctx.lastRoute, { op: 'getrs', route: 'vdevice', gpu: true });
  await ctx.getrsAsync({ a, b, ipiv, info });
  assert.deepEqual(ctx.lastRoute, { op: 'getrs', route: 'vdevice', gpu: true });
  await ctx.gesvAsync({ a, b, ipiv, info });
  assert.deepEqual(ctx.lastRoute, { op: 'gesv', route: 'vdevice', gpu: true });
});

// ---------------------------------------------------------------------------------------------
// The check kernels on the host.

const GXX_SKIP = spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH';
const HARNESS = resolve('test/helpers/vdevice-lu-host-harness.cpp');
const BYTES = 8;

interface Stored { rows: number; cols: number; ld: number; offset: number }
interface Operand { maxRows: number; maxCols: number; members: Stored[]; base: bigint }

const operandText = (o: Operand): string =>
  `1 ${o.maxRows} ${o.maxCols}\n${o.members.map((m) => `${m.rows} ${m.cols} ${m.ld} ${o.base + BigInt(m.offset * BYTES)}`).join('\n')}\n`;
const regionOf = (size: number): number => (size > VBATCH_MAX ? LARGE_REGION : VBATCH_CLASSES.indexOf(sizeClass(size)!));
const sorted = (rows: readonly string[]): string[] => [...rows].sort();

for (const op of ['getrs', 'gesv'] as const) {
  test(`${op}: the check kernel on the host: codes, the row interchanges' table${op === 'gesv' ? ', getrf\'s regions' : ''}`, { skip: GXX_SKIP }, () => {
    const rng = new Rng(op === 'getrs' ? 31 : 32);
    const count = 300;
    const next = { a: 0, b: 0 };
    const stored = (key: 'a' | 'b', rows: number, cols: number): Stored => {
      const ld = Math.max(1, rows + rng.int(0, 3));
      const m = { rows, cols, ld, offset: next[key] };
      next[key] += ld * Math.max(cols, 1) + rng.int(0, 5);
      return m;
    };
    const order = (): number => {
      const pick = rng.next();
      if (pick < 0.08) return 0;
      if (pick < 0.5) return rng.int(1, 32);
      if (pick < 0.8) return rng.int(33, 128);
      if (pick < 0.95) return rng.int(129, 512);
      return rng.int(513, 600);
    };
    const a: Operand = { maxRows: 600, maxCols: 600, members: [], base: 1n << 40n };
    const b: Operand = { maxRows: 600, maxCols: 80, members: [], base: 2n << 40n };
    for (let i = 0; i < count; i++) {
      const n = order();
      a.members.push(stored('a', n, n));
      b.members.push(stored('b', n, i % 11 === 0 ? 0 : rng.int(1, 80)));
    }
    // Invalid members: A beyond its maxima, A not square, B's rows not n, nrhs beyond b.maxCols or negative, ldA and ldB too small.
    a.members[3]!.rows = 601; a.members[3]!.cols = 601; a.members[3]!.ld = 601;
    a.members[5]!.cols += 1;
    b.members[7]!.rows += 1; b.members[7]!.ld += 1;
    b.members[9]!.cols = 81;
    b.members[11]!.cols = -1;
    a.members[21]!.ld = 0;
    b.members[22]!.ld = 0;
    b.members[23]!.ld = Math.max(0, b.members[23]!.rows - 1);
    const codes = op === 'getrs' ? { n: -2, nrhs: -3, ldA: -5, ldB: -8 } : { n: -1, nrhs: -2, ldA: -4, ldB: -7 };
    const within = (x: number, max: number): boolean => x >= 0 && x <= max;
    const codeOf = (i: number): number => {
      const A = a.members[i]!, B = b.members[i]!, n = A.rows;
      if (!(within(n, a.maxRows) && within(A.cols, a.maxCols) && A.cols === n && within(B.rows, b.maxRows) && B.rows === n)) return codes.n;
      if (!within(B.cols, b.maxCols)) return codes.nrhs;
      if (A.ld < Math.max(1, n)) return codes.ldA;
      if (B.ld < Math.max(1, n)) return codes.ldB;
      return 0;
    };
    const want = Array.from({ length: count }, (_, i) => codeOf(i));
    assert.deepEqual([3, 5, 7, 9, 11, 21, 22].map((i) => want[i]), [codes.n, codes.n, codes.n, codes.nrhs, codes.nrhs, codes.ldA, codes.ldB]);
    assert.ok(want[23] === codes.ldB || b.members[23]!.rows === 0, 'ldB below n');
    const addr = (o: Operand, i: number): bigint => o.base + BigInt(o.members[i]!.offset * BYTES);

    const { regions } = deviceRegions(600);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vdevice-lu-'));
    try {
      const src = generateLuSolveCheck({ op });
      writeFileSync(join(dir, 'kernel.cu'), src.source);
      const exe = join(dir, `h-${src.entry}`);
      execFileSync('g++', ['-std=c++20', '-O1', `-DENTRY=${src.entry}`, ...(op === 'gesv' ? ['-DGESV'] : []), `-I${dir}`, HARNESS, '-o', exe]);
      const r = spawnSync(exe, { input: `${count} ${regions}\n${operandText(a)}${operandText(b)}`, maxBuffer: 1 << 28 });
      assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.stderr.toString()}`);
      const lines = r.stdout.toString().trim().split('\n').map((l) => l.trim());
      assert.deepEqual(lines.slice(0, count).map(Number), want, 'codes');
      // The interchanges' table: every row written, the valid members' (B; n, nrhs, ldB, i), zeros but the index elsewhere.
      const swaps = lines.slice(count, 2 * count);
      swaps.forEach((row, i) => {
        const B = b.members[i]!;
        assert.equal(row, want[i] === 0 ? `${addr(b, i)} ${B.rows} ${B.cols} ${B.ld} ${i}` : `0 0 0 0 ${i}`, `member ${i}: its interchanges row`);
      });
      if (op === 'getrs') { assert.equal(lines.length, 2 * count); return; }
      // gesv: every valid member in the getrf region of its order (its rows: A; n, n, ldA, i + 1), zeros past the counters.
      const counters = lines.slice(2 * count, 2 * count + regions).map(Number);
      const rows = lines.slice(2 * count + regions);
      assert.equal(rows.length, regions * count);
      const expect = new Map<number, string[]>();
      for (let i = 0; i < count; i++) {
        if (want[i] !== 0) continue;
        const n = a.members[i]!.rows, g = regionOf(n);
        expect.set(g, [...(expect.get(g) ?? []), `${addr(a, i)} ${n} ${n} ${a.members[i]!.ld} ${i + 1}`]);
      }
      assert.ok(expect.size >= 9, 'members in every class and the large one');
      for (let g = 0; g < regions; g++) {
        const region = rows.slice(g * count, (g + 1) * count), mine = expect.get(g) ?? [];
        assert.equal(counters[g], mine.length, `region ${g}: members`);
        assert.deepEqual(sorted(region.slice(0, mine.length)), sorted(mine), `region ${g}: rows`);
        for (const z of region.slice(mine.length)) assert.equal(z, '0 0 0 0 0', `region ${g}: a row past its members is not zero`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the check kernels of getrs and gesv on device sizes compile for sm_90 without spills', { skip: NVCC_SKIP }, async () => {
  const sources = [generateLuSolveCheck({ op: 'getrs' }), generateLuSolveCheck({ op: 'gesv' })];
  const failures = compileFailures(await compileForSm90(sources), (r) => (r.spillStores > 0 || r.registers > 40 ? `${r.registers} registers, ${r.spillStores} bytes spilled` : undefined));
  assert.deepEqual(failures, []);
});

test('test/gpu/vdevice-lu.test.ts\'s calls pass validation and take their routes on a planning device', () => {
  const { ctx, dev } = planning();
  const routes: string[] = [];
  recordLuDeviceCalls(ctx, () => routes.push(ctx.lastRoute!.route));
  assert.deepEqual(routes, Array.from({ length: LU.length }, () => ['vbatched', 'vdevice']).flat());
  // The file's kernels (119 on sm_90), compiled ahead on a GPU: both forms' classes (getrf's, trsm's leaves of four variants and the
  // updates' GEMM classes, gemm's twice: the host form's and the device-count kernels), the checks and interchanges.
  assert.ok(dev.sources.length <= 125, `${dev.sources.length} kernels`);
});

/**
 * Variable-size getrs and gesv by size class (solve/launch-vbatched-lu.ts) without a GPU: the
 * routes; the order of the launches (the row interchanges before the solves of op N and after
 * those of op T, gesv's copies around them, trsm's class launches between) and their arguments on
 * a recording planning device; the tables the permutation reads (members up to 512 first, then the
 * larger, each part in batch order) and its launch shapes; the error for a member too large for a
 * block's shared memory; the bench's gesv workloads in a bounded number of launches, far fewer
 * than per shape; and (where nvcc is on PATH) the permutation kernels compiled for sm_90 with no
 * spills. test/cuda/vbatched-lu-host-emulation.test.ts runs the permutation kernel itself on the host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { variable, type VariableBatch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { memberFields } from '../../src/cuda/kernels/common/members.js';
import { sizeClass, VBATCH_MEMBERS_PER_SIZE_MAX, VBATCH_POSV_MEMBERS_PER_SIZE_MAX } from '../../src/cuda/kernels/common/vbatch.js';
import { keptMembers, permuteLaunches, permuteVbatchedSharedBytes, permuteVbatchedSource } from '../../src/cuda/kernels/solve/index.js';
import { choose, runRouted } from '../../src/cuda/router.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray, Kernel, KernelArg, KernelSource, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { LaunchCounter, logUniformSizes, VBATCHED_OPERANDS, VBATCHED_WORKLOADS, vbatchedRequest } from '../../src/bench/vbatched.js';
import { H100 } from '../helpers/devices.js';
import { scalarArgs } from '../helpers/fake-gpus.js';
import { compileForSm90, compileFailures, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';

const SHARED = H100.sharedPerBlockOptin - 1024;

/** A planning device that keeps every launch (entry, shape, arguments) and every int table uploaded, in order. */
class Recorder extends PlanningDevice {
  readonly launches: { entry: string; config: LaunchConfig; args: readonly KernelArg[] }[] = [];
  readonly ints: Int32Array[] = [];
  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return { ...k, launch: (config, args) => { this.launches.push({ entry: src.entry, config, args: scalarArgs(args) }); } };
  }
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    if (host instanceof Int32Array) this.ints.push(host.slice());
    return super.upload(host, dst);
  }
}

/** Square members of orders `n` (A, ld n + 1) and B n x nrhs (ld n + 2), each operand packed in its own array. */
function members(dev: PlanningDevice, dtype: DType, shapes: readonly (readonly [number, number])[]): { a: VariableBatch<DeviceArray>; b: VariableBatch<DeviceArray>; pivotStride: number } {
  const aLen = shapes.reduce((s, [n]) => s + (n + 1) * n + 1, 0), bLen = shapes.reduce((s, [n, r]) => s + (n + 2) * r + 1, 0);
  const da = dev.alloc(dtype, aLen), db = dev.alloc(dtype, bLen);
  let at = 0, bt = 0;
  const a = variable(shapes.map(([n]) => { const m = { data: da, rows: n, cols: n, ld: n + 1, offset: at }; at += (n + 1) * n + 1; return m; }));
  const b = variable(shapes.map(([n, r]) => { const m = { data: db, rows: n, cols: r, ld: n + 2, offset: bt }; bt += (n + 2) * r + 1; return m; }));
  return { a, b, pivotStride: shapes.reduce((s, [n]) => Math.max(s, n), 0) };
}

test('routes: getrs and gesv on variable batches of several shapes take vbatched; one shape and strided batches the per-size path; force pins either', () => {
  const dev = new LaunchCounter(H100);
  const info = dev.alloc('int32', 4), ipiv = dev.alloc('int32', 64);
  const two = members(dev, 'float64', [[4, 2], [6, 2]]);
  const same = members(dev, 'float64', [[4, 3], [4, 3]]);
  const rhs = members(dev, 'float64', [[4, 1], [4, 3]]);
  for (const op of ['getrs', 'gesv'] as const) {
    const req = (m: typeof two): Record<string, unknown> => ({ trans: 'N', a: m.a, b: m.b, ipiv, pivotStride: m.pivotStride, info });
    assert.equal(choose(op, req(two), dev).name, 'vbatched', op);
    // Different nrhs alone makes several shapes.
    assert.equal(choose(op, req(rhs), dev).name, 'vbatched', op);
    assert.equal(choose(op, req(same), dev).name, op, op);
    assert.equal(choose(op, req(two), dev, op).name, op, `${op}: force per size`);
    assert.equal(choose(op, req(same), dev, 'vbatched').name, 'vbatched', `${op}: force vbatched`);
  }
  // Many members of few sizes: the per-size path pays (classPathPaysOf).
  const many = members(dev, 'float64', Array.from({ length: 800 }, (_, i) => [4 + (i % 2), 2] as const));
  assert.equal(choose('gesv', { a: many.a, b: many.b, ipiv, pivotStride: 5, info }, dev).name, 'gesv');
});

test('routes: posv keeps the class path to VBATCH_POSV_MEMBERS_PER_SIZE_MAX members a size (its fused classes), the other solves to VBATCH_MEMBERS_PER_SIZE_MAX', () => {
  assert.ok(VBATCH_POSV_MEMBERS_PER_SIZE_MAX > VBATCH_MEMBERS_PER_SIZE_MAX);
  const dev = new LaunchCounter(H100);
  const info = dev.alloc('int32', 1);
  // 16 orders, each with `each` members: between the thresholds posv takes classes and gesv and potrs sizes; above both, every op sizes.
  for (const [each, posvRoute] of [[VBATCH_MEMBERS_PER_SIZE_MAX + 1, 'vbatched'], [VBATCH_POSV_MEMBERS_PER_SIZE_MAX, 'vbatched'], [VBATCH_POSV_MEMBERS_PER_SIZE_MAX + 1, 'posv']] as const) {
    const m = members(dev, 'float64', Array.from({ length: 16 * each }, (_, i) => [1 + (i % 16), 2] as const));
    const ipiv = dev.alloc('int32', 16);
    assert.equal(choose('posv', { uplo: 'lower', a: m.a, b: m.b, info }, dev).name, posvRoute, `posv, ${each} a size`);
    assert.equal(choose('potrs', { uplo: 'lower', a: m.a, b: m.b }, dev).name, 'potrs', `potrs, ${each} a size`);
    assert.equal(choose('gesv', { a: m.a, b: m.b, ipiv, pivotStride: 16, info }, dev).name, 'gesv', `gesv, ${each} a size`);
  }
});

/** The recorded launches' entries, with the permutation's and the copies' marked. */
const isPermute = (e: string): boolean => e.startsWith('laswp_vbatched_');
const isCopy = (e: string): boolean => e.startsWith('copy_vbatched_');
const isTrsm = (e: string): boolean => e.startsWith('trsm_') || e.startsWith('gemm_');

test('getrs: the interchanges before the solves (op N) or after them (op T), one launch for members up to 512 and one beyond, every member\'s pivots', () => {
  for (const trans of ['N', 'T'] as const) {
    const dev = new Recorder(H100);
    const info = dev.alloc('int32', 8), ipiv = dev.alloc('int32', 8 * 600);
    // n, nrhs: an empty B (0 columns) and an order 0 are left out of the permutation's tables.
    const m = members(dev, 'float64', [[5, 3], [600, 2], [40, 0], [70, 9], [0, 4], [8, 1], [513, 1], [33, 70]]);
    runRouted('getrs', dev, { trans, a: m.a, b: m.b, ipiv, pivotStride: m.pivotStride, info }, 'vbatched');
    const entries = dev.launches.map((l) => l.entry);
    assert.equal(entries[0], 'info_zero', 'info zeroed first');
    const perm = entries.flatMap((e, i) => (isPermute(e) ? [i] : []));
    const solves = entries.flatMap((e, i) => (isTrsm(e) ? [i] : []));
    assert.equal(perm.length, 2, `${trans}: two permutation launches (up to 512, beyond)`);
    assert.ok(solves.length > 0);
    if (trans === 'N') assert.ok(perm.every((i) => i < solves[0]!), `N: ${entries.join(' ')}`);
    else assert.ok(perm.every((i) => i > solves[solves.length - 1]!), `T: ${entries.join(' ')}`);
    assert.ok(entries.filter(isPermute).every((e) => e.endsWith(trans === 'N' ? '_fwd' : '_inv')));
    // The permutation's table: rows, cols, ldB, batch index; orders up to 512 first, then the larger, each in batch order.
    const table = dev.ints[0]!;
    assert.deepEqual([...table], [5, 3, 7, 0, 70, 9, 72, 3, 8, 1, 10, 5, 33, 70, 35, 7, 600, 2, 602, 1, 513, 1, 515, 6]);
    const [small, large] = perm.map((i) => dev.launches[i]!);
    const num = (l: typeof small, k: number): number => Number(l!.args[k]!.value);
    // Arguments: tables, pointer stride 1, ipiv, pivot stride, no info (getrs reads every member), count, nMax, cap.
    assert.equal(num(small, 1), 1);
    assert.equal(BigInt(small!.args[3]!.value), ipiv.ptr);
    assert.equal(num(small, 4), 600);
    assert.equal(BigInt(small!.args[5]!.value), 0n);
    assert.deepEqual([num(small, 6), num(small, 7), num(small, 8)], [4, 70, 256]);
    assert.deepEqual([num(large, 6), num(large, 7), num(large, 8)], [2, 600, 600]);
    // The large launch's tables start at the fifth member's rows (4 of 8 bytes a pointer, 4 ints of 4 bytes).
    assert.equal(BigInt(large!.args[0]!.value) - BigInt(small!.args[0]!.value), 4n * 8n);
    assert.equal(BigInt(large!.args[2]!.value) - BigInt(small!.args[2]!.value), 4n * 16n);
    assert.deepEqual(small!.config.grid, [4, 8, 1], 'a block per member, 8 column chunks (the widest B has 70 columns)');
    assert.deepEqual(large!.config.grid, [2, 2, 1]);
    assert.equal(small!.config.sharedBytes, permuteVbatchedSharedBytes(70, 8));
    assert.equal(large!.config.sharedBytes, 600 * 8 + 2 * 600 * 4);
  }
});

test('gesv: the fused classes to 32, getrf\'s class launches, B copied aside, the interchanges skipping failed members (the copy\'s tables), the solves, the failed members\' B copied back', () => {
  const dev = new Recorder(H100);
  const info = dev.alloc('int32', 5), ipiv = dev.alloc('int32', 5 * 130);
  const m = members(dev, 'float32', [[5, 3], [130, 2], [0, 2], [64, 64], [17, 1]]);
  runRouted('gesv', dev, { a: m.a, b: m.b, ipiv, pivotStride: m.pivotStride, info });
  const entries = dev.launches.map((l) => l.entry);
  const first = (f: (e: string) => boolean): number => entries.findIndex(f);
  const last = (f: (e: string) => boolean): number => entries.length - 1 - [...entries].reverse().findIndex(f);
  const copies = entries.flatMap((e, i) => (isCopy(e) ? [i] : []));
  assert.equal(copies.length, 2);
  // Orders 5 and 17 (and 0) on the fused classes 8 and 24, first; 130 and 64 on getrf's classes.
  assert.deepEqual(entries.slice(0, 2), ['gesv_vsmall_s_c24_r4_w2', 'gesv_vsmall_s_c8_r4_w4']);
  assert.ok(first((e) => e.startsWith('getrf_')) === 2 && last((e) => e.startsWith('getrf_')) < copies[0]!, entries.join(' '));
  const perm = entries.flatMap((e, i) => (isPermute(e) ? [i] : []));
  assert.equal(perm.length, 1, 'no member beyond 512: one launch');
  assert.equal(entries[perm[0]!], 'laswp_vbatched_s_fwd');
  assert.ok(copies[0]! < perm[0]! && perm[0]! < first(isTrsm) && last(isTrsm) < copies[1]!, entries.join(' '));
  const p = dev.launches[perm[0]!]!, copy = dev.launches[copies[0]!]!;
  // The permutation reads the copy's tables (B first of two pointers a member) and skips the members whose info is set.
  assert.equal(p.args[0]!.value, copy.args[0]!.value);
  assert.equal(p.args[2]!.value, copy.args[1]!.value);
  assert.equal(Number(p.args[1]!.value), 2);
  assert.equal(BigInt(p.args[5]!.value), info.ptr);
  assert.equal(Number(p.args[6]!.value), 2, 'the fused members and the member of order 0 are left out');
});

test('the permutation\'s members and launches: empty members left out, a member too large for shared memory an error naming b.rows', () => {
  const dev = new PlanningDevice(H100);
  const m = members(dev, 'float64', [[3, 2], [0, 5], [4, 0], [520, 1], [512, 3]]);
  const fb = memberFields(m.b);
  const kept = keptMembers(fb);
  assert.deepEqual([[...kept.order], kept.small, kept.elements], [[0, 4, 3], 2, 6 + 512 * 3 + 520]);
  const launches = permuteLaunches(fb, kept, 'float64', SHARED);
  assert.deepEqual(launches.map((l) => [l.first, l.end, l.nMax, l.config.grid[1]]), [[0, 2, 512, 3], [2, 3, 520, 1]]);
  // 16 bytes an order in float64 (a column element and two ints): 512 fits in 8,300 bytes, 520 does not.
  assert.throws(() => permuteLaunches(fb, kept, 'float64', 8300), (e: Error & { argument?: string }) => e.argument === 'b.rows' && /order 520/.test(e.message));
});

/**
 * Launches of the bench's gesv workloads: getrf's class launches, two copies, one permutation, and
 * the two solves' class launches (as posv's); far fewer than per shape. Workload a's sizes drawn
 * 20,000 times here instead of 200,000.
 */
test('gesv: the bench\'s workloads in a bounded number of launches, far fewer than per shape', () => {
  for (const w of ['a', 'b'] as const) {
    const { max } = VBATCHED_WORKLOADS[w];
    const sizes = logUniformSizes(20_000, max, w === 'a' ? 1 : 2);
    const request = (dev: LaunchCounter): Record<string, unknown> => {
      const elements = sizes.reduce((s, n) => s + n * n, 0);
      const data = Array.from({ length: VBATCHED_OPERANDS.gesv }, () => dev.alloc('float64', elements));
      return vbatchedRequest('gesv', sizes, data, dev.alloc('int32', sizes.length), dev.alloc('int32', sizes.length * max));
    };
    const dev = new LaunchCounter(H100);
    const r = request(dev);
    assert.equal(choose('gesv', r, dev).name, 'vbatched');
    runRouted('gesv', dev, r);
    const getrf = new LaunchCounter(H100);
    runRouted('getrf', getrf, request(getrf), 'vbatched');
    const classes = [...new Set(sizes.map((n) => sizeClass(n)!))];
    // Per class and solve: the leaves and updates of its recursion (leaves of 32), each update's GEMM at most 9 class launches.
    const perClass = (bound: number): number => { const leaves = Math.ceil(bound / 32); return leaves + (leaves - 1) * 9; };
    const most = getrf.launches + 3 + 2 * classes.reduce((s, c) => s + perClass(c), 0);
    assert.ok(dev.launches <= most, `workload ${w}: ${dev.launches} launches (at most ${most})`);
    if (w === 'a') {
      const loop = new LaunchCounter(H100);
      runRouted('gesv', loop, request(loop), 'gesv');
      assert.ok(loop.launches >= new Set(sizes).size, `per-size path: ${loop.launches} launches`);
      assert.ok(dev.launches * 2 < loop.launches, `${dev.launches} against ${loop.launches} per shape`);
    }
  }
});

test('the permutation kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const sources = (['float64', 'float32'] as DType[]).flatMap((dtype) => [false, true].map((inverse) => permuteVbatchedSource({ dtype, inverse })));
  const picks = new Set(['laswp_vbatched_d_fwd', 'laswp_vbatched_s_inv']);
  const results = await compileForSm90(compileSet(sources, (e) => picks.has(e)), 2);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : r.registers > 40 ? `${r.registers} registers` : undefined)), []);
});

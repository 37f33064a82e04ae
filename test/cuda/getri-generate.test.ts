/**
 * The getri family without a GPU: its two generators pure (every parameter changes the source and
 * the name), the plan (launch shapes by n and count, runs of matrices within the workspace bound,
 * the shared-memory fit), `getriCovers` on host batches, the router's entry, the launcher's
 * sequence on a recording fake device (prepare, trtri's and trsm's launches, finish; no finish for
 * n = 0; list and variable batches grouped by order; the workspace taken from the
 * device's and nothing else left allocated), and, where nvcc is installed, the kernels compile for
 * sm_90 without spills. The kernels' arithmetic: test/cuda/getri-host-emulation.test.ts (opt-in);
 * the whole composition: test/gpu/getri.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, variable, type VariableBatch } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { Storage } from '../../src/core/storage.js';
import {
  GETRI_MATRICES_MAX, GETRI_THREADS, GETRI_WORKSPACE_BYTES, getriChunks, getriCovers, getriCuda, getriFinishSharedBytes, getriFinishSource, getriFits,
  getriPrepareSource, planGetriShape, type GetriStepParams,
} from '../../src/cuda/kernels/getri/index.js';
import { choose, routeNames } from '../../src/cuda/router.js';
import { FakeDevice, recordingDevice, type RecordedLaunch } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';

const PARAMS: GetriStepParams[] = (['float64', 'float32'] as const).flatMap((dtype) => (['strided', 'pointer'] as const).map((kind) => ({ dtype, kind })));

test('the getri generators are pure and every parameter changes the kernel', () => {
  for (const make of [getriPrepareSource, getriFinishSource]) {
    const sources = PARAMS.map(make);
    for (const p of PARAMS) assert.equal(make(p).source, make({ ...p }).source);
    assert.equal(new Set(sources.map((s) => s.entry)).size, PARAMS.length);
    assert.equal(new Set(sources.map((s) => s.source)).size, PARAMS.length);
    for (const s of sources) assert.match(s.source, new RegExp(`__global__ void __launch_bounds__\\(${GETRI_THREADS}\\) ${s.entry}\\(`));
  }
  const prepare = getriPrepareSource({ dtype: 'float64', kind: 'strided' }).source;
  assert.match(prepare, /const real\* __restrict__ A/, 'prepare only reads A');
  assert.match(prepare, /i > c \? a\[i \+ \(long long\)c \* ldA\] : \(i == c \? real\(1\) : real\(0\)\)/);
  assert.match(prepare, /== real\(0\)\) atomicMin/);
  const finish = getriFinishSource({ dtype: 'float32', kind: 'pointer' }).source;
  assert.match(finish, /info\[id\] == 0/, 'a singular matrix is not written');
  assert.match(finish, /for \(int j = n - 2; j >= 0; --j\)/, 'the interchanges last first, ipiv[n - 1] unread');
  assert.match(finish, /a\[i \+ \(long long\)c \* ldA\] = w\[i \+ \(long long\)src\[c\] \* ldW\]/);
});

test('the launch shape: threads by n^2, small matrices several a block, columns split where the batch leaves SMs idle', () => {
  assert.deepEqual(planGetriShape(4, 1000, 132), { threads: 32, matrices: GETRI_MATRICES_MAX, columns: 4, columnBlocks: 1 });
  assert.deepEqual(planGetriShape(9, 1000, 132), { threads: 96, matrices: 2, columns: 9, columnBlocks: 1 });
  assert.deepEqual(planGetriShape(16, 1000, 132), { threads: 256, matrices: 1, columns: 16, columnBlocks: 1 });
  assert.deepEqual(planGetriShape(4, 3, 132), { threads: 32, matrices: 3, columns: 4, columnBlocks: 1 }, 'no more matrices a block than the group has');
  assert.deepEqual(planGetriShape(0, 5, 132), { threads: 32, matrices: 5, columns: 1, columnBlocks: 1 }, 'n = 0: one block writes info');
  assert.deepEqual(planGetriShape(100, 2, 132), { threads: 256, matrices: 1, columns: 15, columnBlocks: 7 }, 'at least 16 columns a block, near');
  assert.deepEqual(planGetriShape(4096, 1, 132), { threads: 256, matrices: 1, columns: 16, columnBlocks: 256 });
  assert.deepEqual(planGetriShape(4096, 600, 132), { threads: 256, matrices: 1, columns: 4096, columnBlocks: 1 }, 'enough blocks: no split');
  for (const n of [0, 1, 2, 5, 11, 12, 31, 33, 100, 1000, 5000]) for (const count of [1, 2, 7, 100, 10000]) {
    const s = planGetriShape(n, count, 132);
    assert.ok(s.threads * s.matrices <= GETRI_THREADS && s.threads % 32 === 0 && s.matrices >= 1, `n=${n} count=${count}`);
    assert.ok(s.columns * s.columnBlocks >= n && (s.columnBlocks - 1) * s.columns < Math.max(1, n), `n=${n} count=${count}: the blocks cover the columns once`);
    assert.ok(s.columnBlocks <= 65535);
  }
});

test('runs of matrices within the workspace bound; a larger matrix alone', () => {
  const MiB = 1 << 20;
  assert.deepEqual(getriChunks(0, 5, 8), []);
  assert.deepEqual(getriChunks(10, 1024, 8), [[0, 10]], '10 x 8 MiB');
  assert.deepEqual(getriChunks(70, 1024, 8), [[0, 32], [32, 64], [64, 70]], `32 x 8 MiB in ${GETRI_WORKSPACE_BYTES / MiB} MiB`);
  assert.deepEqual(getriChunks(3, 8192, 8), [[0, 1], [1, 2], [2, 3]], '512 MiB each: one a run');
  assert.deepEqual(getriChunks(4, 0, 8), [[0, 4]]);
  const sizes = [10, 20, 0, 30, 5];
  assert.deepEqual(getriChunks(5, (i) => sizes[i]!, 1, 900), [[0, 3], [3, 4], [4, 5]], '100 + 400 + 0 | 900 | 25');
  assert.deepEqual(getriChunks(2, (i) => [40, 1][i]!, 1, 900), [[0, 1], [1, 2]], '1600 > 900 alone');
});

test('covers: the finish kernel\'s column map fits the shared memory (8 n bytes)', () => {
  const dev = new FakeDevice(0, []);
  const limit = dev.info.sharedPerBlockOptin - 1024;
  const most = Math.floor(limit / 8);
  assert.equal(getriFinishSharedBytes(most, 1), 8 * most);
  assert.ok(getriFits(most, limit) && !getriFits(most + 1, limit));
  const host = (n: number) => ({ a: strided(new Float64Array(1), { rows: n, cols: n, count: 2 }) });
  assert.ok(getriCovers(host(40), dev));
  assert.ok(getriCovers(host(0), dev));
  assert.ok(getriCovers(host(most), dev));
  assert.ok(!getriCovers(host(most + 1), dev));
  // (descriptors only: covers reads the orders, never the data)
  const v = (ns: number[]): { a: VariableBatch<Storage> } => ({
    a: { kind: 'variable', order: 'col', matrices: ns.map((n) => ({ data: new Float64Array(1), offset: 0, rows: n, cols: n, ld: Math.max(1, n) })) },
  });
  assert.ok(getriCovers(v([3, 0, 500]), dev));
  assert.ok(!getriCovers(v([3, most + 1]), dev), 'one matrix too large sends the batch to the CPU');
});

test('the router: getri on the GPU where getriCovers takes it, then the CPU reference', () => {
  assert.deepEqual(routeNames('getri'), ['getri', 'cpu']);
  const dev = new FakeDevice(0, []);
  const r = (n: number) => ({ a: strided(new Float64Array(1), { rows: n, cols: n, count: 1 }), ipiv: new Int32Array(1), pivotStride: n, info: new Int32Array(1) });
  assert.equal(choose('getri', r(64), dev).name, 'getri');
  assert.equal(choose('getri', r(1 << 20), dev).name, 'cpu');
});

const family = (l: RecordedLaunch): string =>
  l.entry.startsWith('getri_') ? l.entry : /trtri|info_zero/.test(l.entry) ? 'trtri' : /trsm|trmm|gemm/.test(l.entry) ? 'trsm' : l.entry;
/** The launches with runs of one borrowed family's collapsed: getri's own, 'trtri' (its info zeroing included) and 'trsm' (its GEMMs included). */
function sequence(launches: readonly RecordedLaunch[]): string[] {
  return launches.map(family).filter((e, i, all) => i === 0 || e !== all[i - 1] || e.startsWith('getri_'));
}
const tail = (l: RecordedLaunch, k: number): number[] => l.args.slice(-k).map((x) => Number(x.value));

test('the launcher: prepare, trtri (lower, unit) on W, trsm (left, upper) with A, finish; the workspace only', () => {
  const { dev, launches } = recordingDevice();
  for (const [n, count] of [[5, 7], [100, 3]] as const) {
    launches.length = 0;
    const a = strided(dev.alloc('float64', n * n * count + 3), { rows: n, cols: n, count, ld: n, stride: n * n, offset: 3 });
    const ipiv = dev.alloc('int32', n * count);
    const info = dev.alloc('int32', count);
    const before = dev.live.size;
    getriCuda(dev, { a, ipiv, pivotStride: n, info });
    assert.deepEqual(sequence(launches), ['getri_prepare_d_st', 'trtri', 'trsm', 'getri_finish_d_st'], `n=${n}`);
    const shape = planGetriShape(n, count, dev.info.smCount);
    const [prepare, finish] = [launches[0]!, launches.at(-1)!];
    for (const l of [prepare, finish]) {
      assert.deepEqual(l.config.grid, [Math.ceil(count / shape.matrices), shape.columnBlocks, 1]);
      assert.deepEqual(l.config.block, [shape.threads, shape.matrices, 1]);
      assert.deepEqual(tail(l, 2), [n, shape.columns]);
      assert.equal(Number(l.args[1]!.value), 3, 'A\'s offset');
    }
    assert.equal(finish.config.sharedBytes, getriFinishSharedBytes(n, shape.matrices));
    assert.equal(tail(finish, 3)[0], count);
    assert.ok(dev.live.size - before <= 1, 'at most the device workspace\'s buffer is new');
  }
  // trtri on W (lower, unit: no scan, so no host wait), trsm left upper non-unit: their kernel names say so.
  launches.length = 0;
  getriCuda(dev, { a: strided(dev.alloc('float32', 16 * 2), { rows: 4, cols: 4, count: 2 }), ipiv: dev.alloc('int32', 8), pivotStride: 4, info: dev.alloc('int32', 2) });
  const names = launches.map((l) => l.entry);
  assert.ok(names.some((e) => /^trtri_leaf_s_lu_st_/.test(e)), names.join(' '));
  assert.ok(!names.some((e) => /trtri_scan/.test(e)));
});

test('the launcher: n = 0 writes info only; count = 0 nothing; list batches one group; variable batches a group per order', () => {
  const { dev, launches } = recordingDevice();
  getriCuda(dev, { a: strided(dev.alloc('float64', 1), { rows: 0, cols: 0, count: 3 }), ipiv: dev.alloc('int32', 1), pivotStride: 0, info: dev.alloc('int32', 3) });
  assert.deepEqual(launches.map((l) => l.entry).filter((e) => e.startsWith('getri_')), ['getri_prepare_d_st']);
  launches.length = 0;
  getriCuda(dev, { a: strided(dev.alloc('float64', 1), { rows: 4, cols: 4, count: 0 }), ipiv: dev.alloc('int32', 1), pivotStride: 4, info: dev.alloc('int32', 1) });
  assert.equal(launches.length, 0, 'count = 0: nothing');

  const mats = (n: number, k: number) => Array.from({ length: k }, () => dev.alloc('float64', n * n));
  getriCuda(dev, { a: list(mats(6, 4), { rows: 6 }), ipiv: dev.alloc('int32', 24), pivotStride: 6, info: dev.alloc('int32', 4) });
  assert.deepEqual(launches.filter((l) => l.entry.startsWith('getri_')).map((l) => [l.entry, ...tail(l, 3)]),
    [['getri_prepare_d_pa', 4, 6, 6], ['getri_finish_d_pa', 4, 6, 6]]);

  launches.length = 0;
  const ns = [3, 5, 0, 3];
  getriCuda(dev, {
    a: variable(ns.map((n) => ({ data: dev.alloc('float64', Math.max(1, n * n)), rows: n, cols: n, ld: Math.max(1, n) }))),
    ipiv: dev.alloc('int32', 20), pivotStride: 5, info: dev.alloc('int32', 4),
  });
  const prepares = launches.filter((l) => l.entry.startsWith('getri_prepare'));
  const finishes = launches.filter((l) => l.entry.startsWith('getri_finish'));
  assert.deepEqual(prepares.map((l) => tail(l, 3)), [[2, 3, 3], [1, 5, 5], [1, 0, 1]], 'count, n, columns per group (n = 0 too: its info)');
  assert.deepEqual(finishes.map((l) => tail(l, 3)), [[2, 3, 3], [1, 5, 5]], 'no finish for n = 0');
});

test('the launcher: runs of matrices (a forced workspace bound) move A, info and ipiv; a forced shape; a bad shape named', () => {
  const { dev, launches } = recordingDevice();
  const [n, count] = [4, 5];
  const r = {
    a: strided(dev.alloc('float64', 20 * count), { rows: n, cols: n, count, ld: n, stride: 20 }),
    ipiv: dev.alloc('int32', n * count), pivotStride: n, info: dev.alloc('int32', count),
  };
  getriCuda(dev, r, { force: { workspaceBytes: 2 * n * n * 8 } });
  const own = launches.filter((l) => l.entry.startsWith('getri_'));
  assert.deepEqual(own.map((l) => l.entry), ['getri_prepare_d_st', 'getri_finish_d_st', 'getri_prepare_d_st', 'getri_finish_d_st', 'getri_prepare_d_st', 'getri_finish_d_st']);
  const v = (l: RecordedLaunch, i: number): number => Number(l.args[i]!.value);
  const prepares = own.filter((_, i) => i % 2 === 0), finishes = own.filter((_, i) => i % 2 === 1);
  assert.deepEqual(prepares.map((l) => [v(l, 1), v(l, 8), tail(l, 3)[0]]), [[0, 0, 2], [40, 8, 2], [80, 16, 1]], 'A\'s offset, info\'s address, count');
  assert.deepEqual(finishes.map((l) => [v(l, 1), v(l, 8), v(l, 10)]), [[0, 0, 0], [40, 32, 8], [80, 64, 16]], 'A\'s offset, ipiv\'s and info\'s addresses');
  assert.equal(launches.filter((l) => /^trtri_leaf/.test(l.entry)).length, 3, 'trtri once a run');

  launches.length = 0;
  const shape = { threads: 64, matrices: 3, columns: 3, columnBlocks: 0 };
  getriCuda(dev, r, { force: { shape } });
  for (const l of launches.filter((x) => x.entry.startsWith('getri_'))) {
    assert.deepEqual([l.config.grid, l.config.block, tail(l, 1)[0]], [[2, 2, 1], [64, 3, 1], 3]);
  }
  assert.throws(() => getriCuda(dev, r, { force: { shape: { ...shape, threads: 48 } } }), /getri's launch shape/);
  assert.throws(() => getriCuda(dev, r, { force: { shape: { ...shape, threads: 128 } } }), (e: unknown) => e instanceof MyriadError && e.argument === 'shape');
});

test('getri kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const all = [...PARAMS.map(getriPrepareSource), ...PARAMS.map(getriFinishSource)];
  const sources = compileSet(all, (e) => e === 'getri_prepare_d_pa' || e === 'getri_finish_s_st' || e === 'getri_finish_d_pa');
  const results = await compileForSm90(sources);
  const failures = compileFailures(results, (r) =>
    !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : r.registers > 40 ? `${r.registers} registers` : undefined);
  assert.deepEqual(failures, []);
  if (FULL_COMPILE) assert.equal(results.length, all.length);
});

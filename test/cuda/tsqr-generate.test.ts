/**
 * The tsqr family without a GPU: the generators are pure and every parameter changes the source
 * and the name, bad parameters are refused, the planner's choices (register tile by n, Gram rows
 * within 48 KiB of shared memory, blocks by SMs and count, the fallback limit by dtype and the
 * forced routes), the array-level routing rule, the launcher's passes on a recording fake device
 * (stage 3 only where a matrix took the shifted route; validation naming the argument), and,
 * where nvcc is installed, the kernels compile for sm_90 without spills. The numerics:
 * test/cuda/tsqr-host-emulation.test.ts (opt-in) and test/gpu/tsqr.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import {
  cholSharedBytes, generateChol, generateReduce, generateRows, groupThreads, planTsqr, routesToTsqr, rowsSharedBytes, tsqrBytes, tsqrCuda,
  type TsqrRowsParams,
} from '../../src/cuda/kernels/tsqr/index.js';
import { defaultTsqrTuning } from '../../src/cuda/model/tuning/tsqr-default.js';
import type { DeviceArray, HostArray, KernelSource } from '../../src/cuda/runtime/types.js';
import { FakeDevice, recordingDevice, type RecordedLaunch } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';

const G: TsqrRowsParams = { dtype: 'float64', mode: 'gram', n: 32, threads: 128, tile: 4 };
const S: TsqrRowsParams = { dtype: 'float64', mode: 'store', n: 32, threads: 256, tile: 1 };

test('generators are pure, and every parameter changes the source and the name', () => {
  assert.deepEqual(generateRows(G), generateRows({ ...G }));
  assert.deepEqual(generateChol({ dtype: 'float32', n: 7 }), generateChol({ dtype: 'float32', n: 7 }));
  const variants: TsqrRowsParams[] = [G, S, { ...G, dtype: 'float32' }, { ...G, n: 31 }, { ...G, threads: 256 }, { ...G, tile: 2, threads: 256 },
    { ...S, dtype: 'float32' }, { ...S, n: 5 }, { ...S, threads: 64 }];
  const sources = variants.map(generateRows);
  assert.equal(new Set(sources.map((s) => s.entry)).size, variants.length);
  assert.equal(new Set(sources.map((s) => s.source)).size, variants.length);
  for (const s of sources) assert.ok(s.source.includes(`${s.entry}(`), 'the entry is the kernel defined');
  const chol = [generateChol({ dtype: 'float64', n: 32 }), generateChol({ dtype: 'float32', n: 32 }), generateChol({ dtype: 'float64', n: 3 })];
  assert.equal(new Set(chol.map((s) => s.entry)).size, 3);
  const reduce = [generateReduce({ dtype: 'float64', slices: 16 }), generateReduce({ dtype: 'float32', slices: 16 }), generateReduce({ dtype: 'float64', slices: 4 })];
  assert.equal(new Set(reduce.map((s) => s.entry)).size, 3);
  assert.equal(new Set(reduce.map((s) => s.source)).size, 3);
});

test('no float atomics: the sums are in a fixed order', () => {
  for (const s of [generateRows(G), generateRows(S), generateChol({ dtype: 'float64', n: 32 }), generateReduce({ dtype: 'float64', slices: 16 })])
    assert.ok(!/atomic/i.test(s.source), `${s.entry} uses no atomics`);
});

test('bad parameters are refused', () => {
  const bad: TsqrRowsParams[] = [{ ...G, n: 0 }, { ...G, n: 33 }, { ...G, threads: 100 }, { ...G, threads: 512 }, { ...G, tile: 3 },
    { ...G, threads: 32 }, { ...S, tile: 2 }];
  for (const p of bad) assert.throws(() => generateRows(p), /tsqr rows/, JSON.stringify(p));
  assert.throws(() => generateChol({ dtype: 'float64', n: 33 }), /tsqr chol/);
  assert.throws(() => generateReduce({ dtype: 'float64', slices: 3 }), /tsqr reduce/);
});

test('plans: the register tile follows n, the Gram tile fits 48 KiB, blocks follow SMs and count', () => {
  for (const dtype of ['float64', 'float32'] as const) for (let n = 1; n <= 32; n++) {
    const p = planTsqr({ dtype, m: 1e6, n, count: 1, smCount: 132 }, defaultTsqrTuning);
    assert.equal(p.gram.tile, n > 16 ? 4 : n > 4 ? 2 : 1);
    assert.ok(rowsSharedBytes(p.gram) <= 48 * 1024, `${dtype} n=${n}: ${rowsSharedBytes(p.gram)} bytes`);
    assert.ok(rowsSharedBytes(p.store) <= 48 * 1024);
    assert.ok(cholSharedBytes(p.chol) <= 48 * 1024);
    assert.ok(p.gram.threads >= groupThreads(p.gram));
    assert.doesNotThrow(() => generateRows(p.gram));
    assert.equal(p.gramBlocks, 132 * defaultTsqrTuning.blocksPerSm);
  }
  assert.equal(planTsqr({ dtype: 'float64', m: 1e6, n: 32, count: 1, smCount: 132 }, defaultTsqrTuning).gram.threads, 128);
  assert.equal(planTsqr({ dtype: 'float32', m: 1e6, n: 32, count: 1, smCount: 132 }, defaultTsqrTuning).gram.threads, 256);
  const few = planTsqr({ dtype: 'float64', m: 300, n: 8, count: 4, smCount: 132 }, defaultTsqrTuning);
  assert.equal(few.gramBlocks, 2, 'no more blocks than tiles');
  assert.equal(planTsqr({ dtype: 'float64', m: 1e7, n: 8, count: 4, smCount: 132 }, defaultTsqrTuning).gramBlocks, 132);
  // The fallback limit: fallbackRatio / sqrt(u); forced routes.
  assert.ok(Math.abs(planTsqr({ dtype: 'float64', m: 1e6, n: 8, count: 1, smCount: 1 }, defaultTsqrTuning).conditionLimit - 2 ** 26.5 / 16) < 1);
  assert.ok(Math.abs(planTsqr({ dtype: 'float32', m: 1e6, n: 8, count: 1, smCount: 1 }, defaultTsqrTuning).conditionLimit - 256) < 1e-9);
  assert.equal(planTsqr({ dtype: 'float64', m: 1e6, n: 8, count: 1, smCount: 1 }, defaultTsqrTuning, { route: 'shifted' }).conditionLimit, 0);
  assert.equal(planTsqr({ dtype: 'float64', m: 1e6, n: 8, count: 1, smCount: 1 }, defaultTsqrTuning, { route: 'cholqr2' }).conditionLimit, Infinity);
  assert.equal(tsqrBytes('float64', 1e6, 32), 4 * 8 * 32e6);
  assert.equal(tsqrBytes('float32', 1e6, 32, true), 5 * 4 * 32e6);
});

test('routing: n <= 32, m >= minRows and m >= minAspect n, a few matrices', () => {
  const t = defaultTsqrTuning;
  assert.ok(routesToTsqr(1e6, 32, 1, t));
  assert.ok(routesToTsqr(t.minRows, 4, 1, t));
  assert.ok(!routesToTsqr(t.minRows - 1, 4, 1, t));
  assert.ok(!routesToTsqr(1e6, 33, 1, t));
  const aspect = { ...t, minRows: 1 };
  assert.ok(routesToTsqr(t.minAspect * 8, 8, 1, aspect));
  assert.ok(!routesToTsqr(t.minAspect * 8 - 1, 8, 1, aspect), 'm >= minAspect n');
  assert.ok(!routesToTsqr(1e6, 8, t.maxCount + 1, t));
  assert.ok(!routesToTsqr(1e6, 0, 1, t));
});

type Launch = RecordedLaunch;

/** A recording device whose int downloads (the routes) come back filled with `routesFilled`. */
function routesDevice(routesFilled: number): { dev: FakeDevice; launches: Launch[] } {
  const { dev, launches } = recordingDevice();
  const download = dev.download.bind(dev);
  dev.download = ((src: DeviceArray, dst?: HostArray): HostArray => {
    const h = download(src, dst);
    if (h instanceof Int32Array) h.fill(routesFilled);
    return h;
  }) as FakeDevice['download'];
  return { dev, launches };
}

test('the launcher: three passes and a store for CholeskyQR2, a fourth where a matrix took the shifted route', () => {
  for (const routes of [0, 1]) {
    const { dev, launches } = routesDevice(routes);
    const m = 10000, n = 12, count = 2;
    const a = strided(dev.alloc('float64', (m + 1) * n * count), { rows: m, cols: n, ld: m + 1, count });
    const r = strided(dev.alloc('float64', n * n * count), { rows: n, cols: n, count });
    const info = dev.alloc('int32', count);
    const report = tsqrCuda(dev, { a, r, info });
    assert.deepEqual(Array.from(report.routes), [routes, routes]);
    const kinds = launches.map((l) => l.entry.split('_')[1]);
    const stage = ['gram', 'reduce', 'chol'];
    assert.deepEqual(kinds, [...stage, ...stage, ...(routes ? stage : []), 'store']);
    const gram = launches[0]!;
    assert.equal(gram.entry, 'tsqr_gram_d_n12_t256_b2');
    assert.deepEqual(gram.config.grid, [defaultTsqrTuning.blocksPerSm * dev.info.smCount / count, count, 1]);
    assert.equal(Number(gram.args[3]!.value), m + 1, 'ldA');
    assert.equal(Number(gram.args[4]!.value), m, 'm');
    assert.deepEqual(launches.filter((l) => l.entry.startsWith('tsqr_gram')).map((l) => Number(l.args.at(-2)!.value)), routes ? [1, 2, 3] : [1, 2], 'stages');
    assert.deepEqual(launches.filter((l) => l.entry.startsWith('tsqr_chol')).map((l) => l.config.grid[0]), routes ? [2, 2, 2] : [2, 2]);
  }
});

test('the launcher names the bad argument', () => {
  const { dev } = routesDevice(0);
  const ok = { a: strided(dev.alloc('float64', 100 * 4), { rows: 100, cols: 4 }), r: strided(dev.alloc('float64', 16), { rows: 4, cols: 4 }), info: dev.alloc('int32', 1) };
  const bad: [Partial<typeof ok>, string][] = [
    [{ a: strided(dev.alloc('float64', 3 * 4), { rows: 3, cols: 4 }) }, 'a.rows'],
    [{ a: strided(dev.alloc('float64', 100 * 33), { rows: 100, cols: 33 }) }, 'a.cols'],
    [{ r: strided(dev.alloc('float64', 9), { rows: 3, cols: 3 }) }, 'r'],
    [{ r: strided(dev.alloc('float64', 32), { rows: 4, cols: 4, count: 2 }) }, 'r.count'],
    [{ r: strided(dev.alloc('float32', 16), { rows: 4, cols: 4 }) }, 'r.data'],
    [{ info: dev.alloc('float64', 1) }, 'info'],
    [{ info: dev.alloc('int32', 0) }, 'info'],
  ];
  for (const [over, argument] of bad)
    assert.throws(() => tsqrCuda(dev, { ...ok, ...over }), (e: unknown) => e instanceof MyriadError && e.argument === argument, argument);
});

test('tsqr kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const all: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) for (const n of [1, 4, 5, 8, 16, 17, 32]) {
    const p = planTsqr({ dtype, m: 1e6, n, count: 1, smCount: 132 }, defaultTsqrTuning);
    all.push(generateRows(p.gram), generateRows(p.store), generateChol(p.chol));
  }
  all.push(generateReduce({ dtype: 'float64', slices: 16 }), generateReduce({ dtype: 'float32', slices: 16 }));
  const sources = compileSet(all, (e) => ['tsqr_gram_d_n32_t128_b4', 'tsqr_store_d_n32_t128', 'tsqr_chol_d_n32', 'tsqr_reduce_s_y16'].includes(e));
  const results = await compileForSm90(sources);
  const failures = compileFailures(results, (r) =>
    !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : r.registers > 255 ? `${r.registers} registers` : undefined);
  assert.deepEqual(failures, []);
  if (FULL_COMPILE) assert.equal(results.length, new Set(all.map((s) => s.entry)).size);
});

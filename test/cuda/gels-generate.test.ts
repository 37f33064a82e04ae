/**
 * The gels family without a GPU: its two generators and the common transpose pure (every parameter
 * changes the source and the name), the plan of a shape, `gelsCovers` asking the qr and ormqr
 * families with the derived requests (A or A^T, B := op(Q) B) and sending empty systems and
 * uncovered sizes to the CPU, the launcher's sequence of launches on a recording fake device (tall:
 * geqrf, check, ormqr 'T', trsm, finish; wide: transpose, geqrf, transpose back, check, trsm 'T',
 * finish, ormqr 'N'), its grouping of list and variable batches, its workspace freed, and, where
 * nvcc is installed, the kernels compile for sm_90 without spills. The numerics: test/gpu/gels.test.ts
 * and (opt-in) test/cuda/gels-host-emulation.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, variable, type StridedBatch } from '../../src/core/batch.js';
import type { Storage } from '../../src/core/storage.js';
import { transposeSource, type TransposeParams } from '../../src/cuda/kernels/common/transpose.js';
import {
  gelsCheckSource, gelsCovers, gelsCuda, gelsFinishSource, planGels, type GelsCheckParams, type GelsFinishParams,
} from '../../src/cuda/kernels/gels/index.js';
import { ormqrCovers } from '../../src/cuda/kernels/ormqr/index.js';
import { qrCovers } from '../../src/cuda/kernels/qr/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { FakeDevice, recordingDevice, type RecordedLaunch } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';

const DTYPES = ['float64', 'float32'] as const;
const KINDS = ['strided', 'pointer'] as const;
const CHECKS: GelsCheckParams[] = DTYPES.flatMap((dtype) => [true, false].flatMap((tall) =>
  KINDS.flatMap((factor) => KINDS.map((b) => ({ dtype, tall, factor, b })))));
const FINISHES: GelsFinishParams[] = DTYPES.flatMap((dtype) => [true, false].flatMap((tall) => KINDS.map((b) => ({ dtype, tall, b }))));
const TRANSPOSES: TransposeParams[] = DTYPES.flatMap((dtype) => KINDS.flatMap((src) => KINDS.map((dst) => ({ dtype, src, dst }))));

function distinct(sources: readonly KernelSource[], what: string): void {
  assert.equal(new Set(sources.map((s) => s.entry)).size, sources.length, `${what}: entry names are distinct`);
  assert.equal(new Set(sources.map((s) => s.source)).size, sources.length, `${what}: sources are distinct`);
  for (const s of sources) assert.match(s.source, new RegExp(`__global__ void __launch_bounds__\\(\\d+\\) ${s.entry}\\(`));
}

test('the gels generators and the transpose are pure and every parameter changes the kernel', () => {
  for (const p of CHECKS) assert.equal(gelsCheckSource(p).source, gelsCheckSource({ ...p }).source);
  distinct(CHECKS.map(gelsCheckSource), 'check');
  distinct(FINISHES.map(gelsFinishSource), 'finish');
  distinct(TRANSPOSES.map(transposeSource), 'transpose');
  // Tall keeps B's top rows aside and leaves R alone; wide sets R := I in the workspace.
  const tall = gelsCheckSource({ dtype: 'float64', tall: true, factor: 'strided', b: 'strided' }).source;
  const wide = gelsCheckSource({ dtype: 'float64', tall: false, factor: 'strided', b: 'strided' }).source;
  assert.match(tall, /const real\* r =/);
  assert.match(tall, /w\[i \+ \(long long\)j \* ldW\] = b\[/);
  assert.doesNotMatch(tall, /real\(1\)/);
  assert.match(wide, /i == j \? real\(1\) : real\(0\)/);
  assert.match(gelsFinishSource({ dtype: 'float32', tall: false, b: 'pointer' }).source, /state == GELS_SOLVE && i >= edge/);
  assert.match(gelsFinishSource({ dtype: 'float32', tall: true, b: 'pointer' }).source, /if \(state == GELS_SOLVE\) continue;/);
});

test('the plan: the QR of A (m >= n) or of A^T (m < n), and the workspace per matrix', () => {
  assert.deepEqual(planGels({ m: 9, n: 4, nrhs: 3 }), {
    tall: true, k: 4, factorRows: 9, factorCols: 4, rowsB: 9, ormqrTrans: 'T', trsmTrans: 'N', tauElements: 4, guardElements: 12, workElements: 0,
  });
  assert.deepEqual(planGels({ m: 4, n: 9, nrhs: 3 }), {
    tall: false, k: 4, factorRows: 9, factorCols: 4, rowsB: 9, ormqrTrans: 'N', trsmTrans: 'T', tauElements: 4, guardElements: 0, workElements: 36,
  });
  assert.equal(planGels({ m: 5, n: 5, nrhs: 1 }).tall, true, 'square: least squares (LAPACK: m >= n)');
});

const desc = <S>(data: S, rows: number, cols: number): StridedBatch<S> => ({ kind: 'strided', data, rows, cols, count: 1, ld: rows, stride: rows * cols, offset: 0, order: 'col' });

test('covers: the qr and ormqr families asked with the derived requests; empty systems and larger sizes on the CPU', () => {
  const dev = new FakeDevice(0, []);
  const host = (dtype: 'float64' | 'float32', m: number, n: number, nrhs: number, count = 2) => {
    const make = (len: number): Storage => (dtype === 'float64' ? new Float64Array(Math.max(1, len)) : new Float32Array(Math.max(1, len)));
    const rows = Math.max(m, n);
    return { a: strided(make(m * n * count), { rows: m, cols: n, count }), b: strided(make(rows * nrhs * count), { rows, cols: nrhs, count }) };
  };
  for (const dtype of DTYPES) {
    for (const [m, n, nrhs] of [[8, 8, 1], [9, 4, 3], [4, 9, 3], [64, 64, 16], [100, 50, 1], [128, 128, 1], [200, 100, 1], [256, 128, 1], [256, 256, 1], [40, 300, 2], [300, 40, 2]] as const) {
      const r = host(dtype, m, n, nrhs);
      const p = planGels({ m, n, nrhs });
      const a = dtype === 'float64' ? new Float64Array(1) : new Float32Array(1);
      const want = qrCovers(desc(a, p.factorRows, p.factorCols), dev) && ormqrCovers({ side: 'left', tau: desc(a, p.k, 1), c: desc(a, p.rowsB, nrhs) });
      assert.equal(gelsCovers(r, dev), want, `${dtype} ${m}x${n} nrhs ${nrhs}`);
    }
    assert.ok(gelsCovers(host(dtype, 8, 8, 1), dev));
    assert.ok(gelsCovers(host(dtype, 3, 17, 2), dev));
    assert.ok(gelsCovers(host(dtype, 400, 300, 1), dev), 'a tile beyond the shared memory: the blocked QR drivers');
    assert.ok(!gelsCovers(host(dtype, 8000, 10, 1), dev), 'not even an 8000 x 8 panel fits the shared memory');
    assert.ok(!gelsCovers(host(dtype, 0, 5, 1), dev), 'm = 0: B := 0 on the CPU');
    assert.ok(!gelsCovers(host(dtype, 5, 0, 1), dev));
    assert.ok(!gelsCovers(host(dtype, 5, 5, 0), dev), 'no right-hand side');
    assert.ok(gelsCovers(host(dtype, 5, 5, 1, 0), dev), 'no matrices: nothing to do');
  }
  const v = (shapes: [number, number][]) => ({
    a: variable(shapes.map(([m, n]) => ({ data: new Float64Array(m * n), rows: m, cols: n }))),
    b: variable(shapes.map(([m, n]) => ({ data: new Float64Array(Math.max(m, n)), rows: Math.max(m, n), cols: 1 }))),
  });
  assert.ok(gelsCovers(v([[3, 5], [5, 3], [8, 8]]), dev));
  assert.ok(!gelsCovers(v([[3, 5], [8000, 10]]), dev), 'one uncovered matrix sends the batch to the CPU');
});

type Launch = RecordedLaunch;

/** The gels-owned launches in order (the borrowed families' as 'geqrf', 'ormqr_<tag>' and 'trsm'). */
function sequence(launches: readonly Launch[]): string[] {
  return launches.map((l) => (/geqrf/.test(l.entry) ? 'geqrf' : /^ormqr/.test(l.entry) ? l.entry : /trsm/.test(l.entry) ? 'trsm' : l.entry))
    .filter((e, i, all) => i === 0 || e !== all[i - 1] || !['geqrf', 'trsm'].includes(e));
}

const ints = (l: Launch, n: number): number[] => l.args.slice(-n).map((x) => Number(x.value));

test('the launcher: tall and wide sequences, the check and finish arguments, the workspace reused', () => {
  const { dev, launches } = recordingDevice();
  const count = 5;
  const tall = () => ({
    a: strided(dev.alloc('float64', 10 * 6 * count), { rows: 10, cols: 6, count }),
    b: strided(dev.alloc('float64', 10 * 2 * count), { rows: 10, cols: 2, count }),
    info: dev.alloc('int32', count),
  });
  const before = dev.live.size;
  gelsCuda(dev, tall());
  assert.deepEqual(sequence(launches), ['geqrf', 'gels_check_d_tall_st_st', 'ormqr_d_LT_st', 'trsm', 'gels_finish_d_tall_st']);
  const check = launches.find((l) => l.entry.startsWith('gels_check'))!;
  assert.deepEqual(ints(check, 2), [6, 2], 'k = n, nrhs');
  assert.equal(Number(check.args.at(-4)!.value), count, 'count');
  assert.equal(check.config.grid[0] * check.config.block[0] >= count, true);
  const finish = launches.find((l) => l.entry.startsWith('gels_finish'))!;
  assert.deepEqual(ints(finish, 4), [count, 10, 2, 6], 'count, rows of B, nrhs, n');
  assert.equal(dev.live.size - before, 4, 'the request\'s arrays and the device workspace\'s one buffer stay allocated, nothing else');

  launches.length = 0;
  const wideA = strided(dev.alloc('float32', 4 * 9 * count), { rows: 4, cols: 9, count });
  const wideB = strided(dev.alloc('float32', 9 * 3 * count), { rows: 9, cols: 3, count });
  const beforeWide = dev.live.size;
  gelsCuda(dev, { a: wideA, b: wideB, info: dev.alloc('int32', count) });
  assert.equal(dev.live.size - beforeWide, 1, 'a second call reuses the device workspace: only its info array is new');
  assert.deepEqual(sequence(launches), ['transpose_s_st_st', 'geqrf', 'transpose_s_st_st', 'gels_check_s_wide_st_st', 'trsm', 'gels_finish_s_wide_st', 'ormqr_s_LN_st']);
  const [t1, t2] = launches.filter((l) => l.entry.startsWith('transpose'));
  assert.deepEqual(ints(t1!, 3), [count, 4, 9], 'A (4 x 9) into the workspace');
  assert.deepEqual(ints(t2!, 3), [count, 9, 4], 'the factors of A^T (9 x 4) back into A');
  assert.deepEqual(ints(launches.find((l) => l.entry.startsWith('gels_finish'))!, 4), [count, 9, 3, 4], 'rows m = 4 .. 9 zeroed');
});

test('the launcher: list batches in one group, variable batches in one group per shape, info through an index map', () => {
  const { dev, launches } = recordingDevice();
  const mats = (rows: number, cols: number, n: number) => Array.from({ length: n }, () => dev.alloc('float64', rows * cols));
  gelsCuda(dev, {
    a: list(mats(7, 3, 4), { rows: 7, cols: 3 }), b: list(mats(7, 1, 4), { rows: 7, cols: 1 }), info: dev.alloc('int32', 4),
  });
  assert.deepEqual(sequence(launches), ['geqrf', 'gels_check_d_tall_pa_pa', 'ormqr_d_LT_pa', 'trsm', 'gels_finish_d_tall_pa']);
  const check = launches.find((l) => l.entry.startsWith('gels_check'))!;
  assert.equal(check.args.at(-5)!.value, 0n, 'the whole batch in order: no index map');
  launches.length = 0;
  const shapes: [number, number][] = [[5, 3], [3, 5], [5, 3]];
  gelsCuda(dev, {
    a: variable(shapes.map(([m, n]) => ({ data: dev.alloc('float64', m * n), rows: m, cols: n }))),
    b: variable(shapes.map(([m, n]) => ({ data: dev.alloc('float64', Math.max(m, n)), rows: Math.max(m, n), cols: 1 }))),
    info: dev.alloc('int32', 3),
  });
  const checks = launches.filter((l) => l.entry.startsWith('gels_check'));
  assert.deepEqual(checks.map((l) => l.entry), ['gels_check_d_tall_pa_pa', 'gels_check_d_wide_st_pa']);
  assert.deepEqual(checks.map((l) => Number(l.args.at(-4)!.value)), [2, 1], 'two tall systems, one wide');
});

test('gels kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const all = [...CHECKS.map(gelsCheckSource), ...FINISHES.map(gelsFinishSource), ...TRANSPOSES.map(transposeSource)];
  const sources = compileSet(all, (e) => e === 'gels_check_d_tall_pa_pa' || e === 'gels_finish_s_wide_st' || e === 'transpose_d_st_pa');
  const results = await compileForSm90(sources);
  const failures = compileFailures(results, (r) =>
    !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : r.registers > 64 ? `${r.registers} registers` : undefined);
  assert.deepEqual(failures, []);
  if (FULL_COMPILE) assert.equal(results.length, all.length);
});

/**
 * The syrk tile design without a GPU: the generator pure (every parameter changes the source or
 * the name), bad shapes refused with the argument named, the plan's choice (the table's tilesUpTo,
 * the force either way), the table's bands, the launch shapes (matrices per block within the
 * thread, z and shared limits; tiles of the triangle; one panel where C is one tile); where nvcc
 * is installed, the table's kernels compile for sm_90 without spills and within the registers
 * their blocks per SM need.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided } from '../../src/core/batch.js';
import {
  planSyrk, syrkCuda, syrkTilesLaunch, syrkTilesShapeError, syrkTilesShapeFor, syrkTilesSource, syrkTilesTake, SYRK_TILES_MAX_THREADS,
  type SyrkTilesParams, type SyrkTilesShape,
} from '../../src/cuda/kernels/syrk/index.js';
import { tuningFor, type SyrkTuning } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { argNumber, recordingDevice } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';

const tuning = tuningFor('sm_90', 'syrk');
const LIMIT = 227 * 1024 - 1024;
const base: SyrkTilesParams = { dtype: 'float64', uplo: 'lower', trans: 'N', kind: 'strided', tile: 32, reg: 4, chunk: 16, minBlocks: 2 };
const problem = (n: number, dtype: 'float64' | 'float32' = 'float64') =>
  ({ uplo: 'lower' as const, trans: 'N' as const, dtype, n, k: n, count: 1000, kind: 'strided' as const, sharedLimit: LIMIT });

test('the syrk tile generator is pure and every parameter changes the kernel', () => {
  assert.equal(syrkTilesSource(base).source, syrkTilesSource({ ...base }).source);
  const variants: KernelSource[] = [
    syrkTilesSource(base), syrkTilesSource({ ...base, dtype: 'float32' }), syrkTilesSource({ ...base, uplo: 'upper' }),
    syrkTilesSource({ ...base, trans: 'T' }), syrkTilesSource({ ...base, kind: 'pointer' }), syrkTilesSource({ ...base, tile: 16, reg: 2 }),
    syrkTilesSource({ ...base, reg: 2 }), syrkTilesSource({ ...base, chunk: 32 }), syrkTilesSource({ ...base, minBlocks: 0 }),
  ];
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  for (const v of variants) assert.match(v.source, new RegExp(`__global__ void __launch_bounds__\\([^)]*\\) ${v.entry}\\(`));
  assert.match(syrkTilesSource(base).source, /__launch_bounds__\(256, 2\)/);
  assert.match(syrkTilesSource({ ...base, minBlocks: 0 }).source, /__launch_bounds__\(256\)/);
});

test('syrk tile shapes that cannot divide their panels evenly are refused, naming the argument', () => {
  const bad: SyrkTilesShape[] = [
    { tile: 24, reg: 2, chunk: 16, minBlocks: 0 }, { tile: 128, reg: 8, chunk: 16, minBlocks: 0 }, { tile: 32, reg: 1, chunk: 16, minBlocks: 0 },
    { tile: 32, reg: 16, chunk: 16, minBlocks: 0 }, { tile: 32, reg: 4, chunk: 128, minBlocks: 0 }, { tile: 32, reg: 4, chunk: 12, minBlocks: 0 },
    { tile: 16, reg: 2, chunk: 128, minBlocks: 0 }, { tile: 32, reg: 4, chunk: 16, minBlocks: -1 },
  ];
  for (const s of bad) {
    assert.notEqual(syrkTilesShapeError(s), undefined, JSON.stringify(s));
    assert.throws(() => syrkTilesSource({ ...base, ...s }), /syrk tiles/);
    assert.throws(() => planSyrk(problem(40), tuning, { force: { tiles: s } }), (e: Error & { argument?: string }) => /syrk tiles/.test(e.message) && e.argument === 'force.tiles');
  }
  for (const dtype of ['float64', 'float32'] as const) for (const b of tuning.tiles[dtype]) if (b.off !== true) assert.equal(syrkTilesShapeError(b), undefined, JSON.stringify(b));
});

test('syrk plan: the tile design where the table\'s tilesUpTo holds n or where forced, else the leaf or the triangle GEMM', () => {
  const on: SyrkTuning = { ...tuning, tilesUpTo: { float64: 128, float32: 64 } };
  assert.deepEqual(planSyrk(problem(128), on).steps, [{ kind: 'tiles' }]);
  assert.deepEqual(planSyrk(problem(1), on).steps, [{ kind: 'tiles' }]);
  assert.deepEqual(planSyrk(problem(129), on).steps, [{ kind: 'triangle' }]);
  assert.deepEqual(planSyrk(problem(96, 'float32'), on).steps, [{ kind: 'triangle' }]);
  assert.deepEqual(planSyrk(problem(64, 'float32'), on).steps, [{ kind: 'tiles' }]);
  // Forced off, or another design forced: not the tiles.
  assert.deepEqual(planSyrk(problem(64), on, { force: { tiles: false } }).steps, [{ kind: 'triangle' }]);
  assert.deepEqual(planSyrk(problem(64), on, { force: { triangle: true } }).steps, [{ kind: 'triangle' }]);
  assert.ok(planSyrk(problem(64), on, { force: { leafMax: 16 } }).steps.every((s) => s.kind === 'leaf' || s.kind === 'offdiag'));
  // Forced on at any n, with the table's band or a shape of its own.
  const off: SyrkTuning = { ...tuning, tilesUpTo: { float64: 0, float32: 0 } };
  assert.ok(planSyrk(problem(16), off).steps.every((s) => s.kind === 'leaf'));
  const forced = planSyrk(problem(300), off, { force: { tiles: true } });
  assert.deepEqual(forced.steps, [{ kind: 'tiles' }]);
  assert.deepEqual(forced.tiles?.params, { dtype: 'float64', uplo: 'lower', trans: 'N', kind: 'strided', ...syrkTilesShapeFor(300, off.tiles.float64) });
  const own = planSyrk(problem(40), off, { force: { tiles: { tile: 16, reg: 1, chunk: 16, minBlocks: 0 } } });
  assert.equal(own.tiles?.params.tile, 16);
  assert.equal(own.tiles?.tiles, 6, 'n = 40 in tiles of 16: 3 x 4 / 2 tiles of the triangle');
});

test('syrk tile bands: the first band holding n, the last beyond them', () => {
  const bands = [{ upTo: 16, tile: 16, reg: 2, chunk: 16, minBlocks: 0 }, { upTo: 64, tile: 32, reg: 4, chunk: 16, minBlocks: 2 }];
  assert.equal(syrkTilesShapeFor(1, bands).tile, 16);
  assert.equal(syrkTilesShapeFor(16, bands).tile, 16);
  assert.equal(syrkTilesShapeFor(17, bands).tile, 32);
  assert.deepEqual(syrkTilesShapeFor(1000, bands), { tile: 32, reg: 4, chunk: 16, minBlocks: 2 });
  assert.throws(() => syrkTilesShapeFor(5, []), /no tile shape/);
});

test('syrk tile bands that are off: their n leave the tiles for the leaf or the triangle GEMM; a forced tile design takes the next shape', () => {
  const bands = [
    { upTo: 32, tile: 32, reg: 4, chunk: 32, minBlocks: 0 }, { upTo: 48, off: true as const },
    { upTo: 64, tile: 32, reg: 4, chunk: 16, minBlocks: 2 }, { upTo: 80, off: true as const },
  ];
  const banded: SyrkTuning = { ...tuning, tilesUpTo: { float64: 100, float32: 100 }, tiles: { float64: bands, float32: bands } };
  for (const [n, tiles] of [[1, true], [32, true], [33, false], [48, false], [49, true], [64, true], [65, false], [80, false], [81, true], [100, true], [101, false]] as const) {
    assert.equal(syrkTilesTake(n, 100, bands), tiles, `n = ${n}`);
    const steps = planSyrk(problem(n), banded).steps;
    if (tiles) assert.deepEqual(steps, [{ kind: 'tiles' }], `n = ${n}`);
    else assert.ok(steps.every((s) => s.kind !== 'tiles'), `n = ${n}: ${JSON.stringify(steps)}`);
  }
  // Beyond the last band (81-100 here) the last shape; forced into an off band, the next shape.
  assert.equal(syrkTilesShapeFor(90, bands).chunk, 16);
  assert.equal(syrkTilesShapeFor(40, bands).chunk, 16);
  assert.equal(planSyrk(problem(40), banded, { force: { tiles: true } }).tiles?.params.chunk, 16);
  assert.deepEqual(syrkTilesShapeFor(40, [{ upTo: 64, off: true }, { upTo: 128, tile: 16, reg: 2, chunk: 16, minBlocks: 0 }]).tile, 16);
  assert.throws(() => syrkTilesShapeFor(40, [{ upTo: 64, off: true }]), /no tile shape/);
});

test('syrk float32 takes the tile design to 96 but at 45-48 (the table), float64 to 32', () => {
  const takes = (dtype: 'float64' | 'float32', n: number): boolean => planSyrk(problem(n, dtype), tuning).steps.some((s) => s.kind === 'tiles');
  for (const n of [1, 16, 17, 32, 33, 44, 49, 64, 65, 80, 81, 96]) assert.ok(takes('float32', n), `float32 ${n}`);
  for (const n of [45, 48, 97, 128]) assert.ok(!takes('float32', n), `float32 ${n}`);
  for (const n of [32]) assert.ok(takes('float64', n));
  for (const n of [33, 48, 64, 96]) assert.ok(!takes('float64', n), `float64 ${n}`);
});

test('syrk tile launches: matrices per block within the limits, the triangle\'s tiles, one panel where C is one tile', () => {
  const one = syrkTilesLaunch({ ...base, tile: 16, reg: 2, chunk: 16 }, 16, 1000, tuning, LIMIT);
  assert.deepEqual({ side: one.side, matrices: one.matrices, tiles: one.tiles, blocks: one.blocks }, { side: 8, matrices: 4, tiles: 1, blocks: 250 });
  assert.equal(one.sharedBytes, 4 * 16 * 17 * 8, 'one panel a matrix');
  const many = syrkTilesLaunch(base, 100, 7, tuning, LIMIT);
  assert.deepEqual({ matrices: many.matrices, tiles: many.tiles, blocks: many.blocks }, { matrices: 4, tiles: 10, blocks: 20 });
  assert.equal(many.sharedBytes, 4 * 2 * 16 * 33 * 8, 'two panels a matrix');
  assert.ok(many.side ** 2 * many.matrices <= SYRK_TILES_MAX_THREADS);
  assert.equal(syrkTilesLaunch(base, 100, 3, tuning, LIMIT).matrices, 3, 'no more matrices a block than the batch');
  assert.equal(syrkTilesLaunch(base, 100, 1000, tuning, 2 * 16 * 33 * 8).matrices, 1, 'the shared limit');
  assert.throws(() => syrkTilesLaunch(base, 100, 10, tuning, 1000), /does not fit/);
  const n1 = syrkTilesLaunch({ ...base, tile: 16, reg: 1 }, 1, 5, tuning, LIMIT);
  assert.deepEqual({ matrices: n1.matrices, blocks: n1.blocks }, { matrices: 1, blocks: 5 }, '256 threads a matrix: one a block');
});

test('the syrk launcher runs the tile design as one launch: its grid, block, shared bytes and arguments; list batches as pointer arrays', () => {
  const { dev, launches } = recordingDevice();
  const n = 100, k = 37, count = 9;
  const a = strided(dev.alloc('float64', n * k * count), { rows: k, cols: n, count });
  const c = strided(dev.alloc('float64', n * n * count), { rows: n, cols: n, count });
  syrkCuda(dev, { uplo: 'upper', trans: 'T', alpha: -2.5, beta: 0.5, a, c }, { force: { tiles: true } });
  assert.equal(launches.length, 1);
  const [l] = launches;
  const want = syrkTilesLaunch({ dtype: 'float64', uplo: 'upper', trans: 'T', kind: 'strided', ...syrkTilesShapeFor(n, tuning.tiles.float64) }, n, count, tuning, LIMIT);
  assert.match(l!.entry, /^syrk_tiles_d_UT_32x4_k16_b2_st$/);
  assert.deepEqual(l!.config.grid, [want.blocks, 1, 1]);
  assert.deepEqual(l!.config.block, [want.side, want.side, want.matrices]);
  assert.equal(l!.config.sharedBytes, want.sharedBytes);
  assert.deepEqual(l!.args.slice(-5).map(argNumber), [count, n, k, -2.5, 0.5], 'count, n, k, alpha, beta');
  // alpha = 0: k = 0, A never read.
  launches.length = 0;
  syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: 0, beta: 0.5, a: strided(dev.alloc('float32', n * k * count), { rows: n, cols: k, count }), c: strided(dev.alloc('float32', n * n * count), { rows: n, cols: n, count }) }, { force: { tiles: true } });
  assert.equal(argNumber(launches[0]!.args.at(-3)), 0);
  // A list batch: the pointer form, one launch.
  launches.length = 0;
  const buf = dev.alloc('float64', 4 * 16 * 16);
  const entries = [0, 1, 2, 3].map((i) => ({ data: buf, offset: i * 256 }));
  syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: 1, beta: 0, a: list(entries, { rows: 16, cols: 16, ld: 16 }), c: list([...entries].reverse(), { rows: 16, ld: 16 }) }, { force: { tiles: true } });
  assert.deepEqual(launches.map((x) => x.entry), ['syrk_tiles_d_LN_16x2_k16_pa']);
});

test('syrk tile kernels of the table compile for sm_90 without spills, within the registers of their blocks per SM', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const sources: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'T'] as const)
    for (const kind of ['strided', 'pointer'] as const) for (const b of tuning.tiles[dtype]) if (b.off !== true) sources.push(syrkTilesSource({ dtype, uplo, trans, kind, tile: b.tile, reg: b.reg, chunk: b.chunk, minBlocks: b.minBlocks }));
  const picked = compileSet(sources, (e) => /_st$/.test(e) && (/_d_LT_/.test(e) || /_s_UN_/.test(e)));
  const failures = compileFailures(await compileForSm90(picked), (r) => {
    if (!Number.isFinite(r.spillStores)) return 'no ptxas report';
    if (r.spillStores !== 0) return `${r.spillStores} bytes spill stores`;
    // 256 threads a block: two blocks an SM need at most 128 registers.
    return r.registers > 128 ? `${r.registers} registers: fewer than two blocks an SM` : undefined;
  });
  assert.deepEqual(failures, [], failures.join('\n'));
});

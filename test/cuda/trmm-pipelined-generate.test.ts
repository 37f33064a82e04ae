/**
 * trmm's pipelined kernel without a GPU: the generator pure (every parameter changes the kernel),
 * its orders (8 ... 32 by 8, 48, 64, 96, 128) and thread tiles, bad parameters refused, the copies
 * by cp.async with a host fallback, the plan taking it where forced (side left; side right keeps
 * another leaf; leaves of 64 unless told), the default unchanged, and where nvcc is installed, the
 * orders 32 and 64 of both dtypes (MYRIAD_FULL_COMPILE=1: 16 and 128 too) compiled for sm_90 without
 * spills; the launcher's persistent grid on a recording device. Host emulation:
 * trmm-pipelined-host-emulation.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  PIPELINED_LEAF_MAX, PIPELINED_MAX, PIPELINED_STAGES, PIPELINED_THREADS, PIPELINED_VECTORS, defaultTrmmLeaf, pipelinedOrder, pipelinedSharedBytes, pipelinedTile, planTrsm,
  trmmCuda, trmmLeafFor, trmmPipelinedSource, trmmProductLeafSource, type TrmmPipelinedParams, type TrsmProblem,
} from '../../src/cuda/kernels/trsm/index.js';
import { strided } from '../../src/core/batch.js';
import { blocksPerSM } from '../../src/cuda/model/occupancy.js';
import { defaultTrsmTuning } from '../../src/cuda/model/tuning/trsm-default.js';
import { recordingDevice } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';
import { TRSM_VARIANTS } from '../helpers/trsm-data.js';

const base: TrmmPipelinedParams = { dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kind: 'strided', order: 32, stages: 2 };
const LEFT = TRSM_VARIANTS.filter((v) => v.side === 'left');

test('trmm pipelined kernel: pure, every parameter changes the kernel, compiled orders, bad parameters refused', () => {
  assert.deepEqual([1, 7, 8, 9, 17, 24, 31, 32, 33, 48, 49, 64, 65, 96, 97, 128].map(pipelinedOrder), [8, 8, 8, 16, 24, 24, 32, 32, 48, 48, 64, 64, 96, 96, 128, 128]);
  for (const t of [0, 129, 2.5, NaN]) assert.throws(() => pipelinedOrder(t), /order must be an integer in 1\.\.128/);
  assert.deepEqual(trmmPipelinedSource(base), trmmPipelinedSource({ ...base }));
  const seen = new Set<string>();
  for (const dtype of ['float64', 'float32'] as const) for (const kind of ['strided', 'pointer'] as const) for (const v of LEFT) for (const order of [8, 24, 64]) for (const stages of [2, 3]) {
    const src = trmmPipelinedSource({ ...v, dtype, kind, order, stages });
    assert.ok(!seen.has(src.source) && !seen.has(src.entry), src.entry);
    seen.add(src.source).add(src.entry);
  }
  assert.notEqual(trmmPipelinedSource(base).entry, trmmProductLeafSource(base).entry);
  for (const order of [0, 7, 33, 40, 80, 256]) assert.throws(() => trmmPipelinedSource({ ...base, order }), /order must be 8, 16, 24, 32, 48, 64, 96 or 128/);
  for (const stages of [1, 4, 2.5]) assert.throws(() => trmmPipelinedSource({ ...base, stages }), /stages must be 2\.\.3/);
  assert.throws(() => trmmPipelinedSource({ ...base, side: 'right' }), /side left only/);
});

test('trmm pipelined kernel: copies by cp.async (a plain copy on the host), the next task issued before the wait, products only over q <= p', () => {
  const src = trmmPipelinedSource(base).source;
  assert.match(src, /cp\.async\.ca\.shared\.global \[%0\], \[%1\], 8;/);
  assert.match(trmmPipelinedSource({ ...base, dtype: 'float32' }).source, /cp\.async\.ca\.shared\.global \[%0\], \[%1\], 4;/);
  assert.match(src, /#else\n {2}\*dst = \*src;/);
  // The iteration issues the task STAGES - 1 ahead, then waits for its own: the order is the pipeline.
  const issue = src.indexOf('issue(task + (long long)(STAGES - 1) * gridDim.x');
  const wait = src.indexOf('waitAsync<STAGES - 1>();');
  const multiply = src.indexOf('for (int q = 0; q < t; ++q)');
  assert.ok(issue > 0 && issue < wait && wait < multiply, 'issue, wait, multiply in that order');
  assert.match(src, /if \(q < RL \* \(r \+ 1\) && q <= p\)/);
  // Only the referenced triangle is copied; the unit diagonal never.
  assert.match(src, /\(q < p \|\| \(!UNIT && q == p\)\)\) \{\n\s+const int i = at\(p, t\), k = at\(q, t\);\n\s+copyAsync/);
});

test('trmm pipelined tiles and shared bytes: whole tiles over 128 threads and 32 vectors; two stages fit the SM', () => {
  for (const order of [8, 16, 24, 32, 48, 64, 96, 128]) {
    const tile = pipelinedTile(order);
    assert.equal(tile.rl * tile.rp, order);
    assert.equal(tile.rl * tile.vg, PIPELINED_THREADS);
    assert.equal(tile.vg * tile.rn, PIPELINED_VECTORS);
    assert.equal(tile.rn % 2, 0, 'X is read in pairs');
    for (const dtype of ['float64', 'float32'] as const) {
      const bytes = pipelinedSharedBytes({ dtype, order, stages: 2 });
      const elements = Math.ceil((order * (order + 1)) / 4) * 2 + order * (PIPELINED_VECTORS + 2);
      assert.equal(bytes, 2 * elements * (dtype === 'float64' ? 8 : 4));
      assert.ok(bytes <= 226 * 1024, `${dtype} ${order}: ${bytes}`);
      assert.equal(bytes % 16, 0);
    }
  }
});

const problem = (over: Partial<TrsmProblem> = {}): TrsmProblem => ({
  op: 'trmm', dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', m: 128, n: 128, count: 100, kind: 'strided', sharedLimit: 226 * 1024, ...over,
});

test('trmm plans: the pipelined kernel where forced on side left (leaves of 64 unless told), another leaf on side right, by default where defaultTrmmLeaf names it (float64 side left, 25-32), never for trsm', () => {
  for (const v of TRSM_VARIANTS) for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of [[1, 1], [32, 32], [47, 5], [5, 47], [128, 128], [513, 3]] as const) {
    const plan = planTrsm(problem({ ...v, dtype, m, n }), defaultTrsmTuning, { force: { trmmLeaf: 'pipelined' } });
    const t = v.side === 'left' ? m : n;
    if (v.side === 'left') {
      assert.deepEqual(plan.pipelined, { stages: PIPELINED_STAGES });
      assert.ok(plan.shapes.size === 0 && plan.registerShapes === undefined && plan.productLeaf === undefined);
      assert.ok(plan.steps.every((s) => s.kind !== 'leaf' || s.span.size <= PIPELINED_LEAF_MAX));
    } else {
      assert.equal(plan.pipelined, undefined);
      assert.deepEqual(plan, planTrsm(problem({ ...v, dtype, m, n }), defaultTrsmTuning), 'side right: the default plan');
      const left = defaultTrmmLeaf(dtype, t, 'left');
      assert.deepEqual(trmmLeafFor(dtype, t, 'right', { trmmLeaf: 'pipelined' }), left.leaf === 'pipelined' ? { leaf: 'register' } : left);
    }
    const byDefault = v.side === 'left' && dtype === 'float64' && t > 24 && t <= 32;
    assert.equal(defaultTrmmLeaf(dtype, t, v.side).leaf === 'pipelined', byDefault, `${dtype} ${v.side} ${t}`);
    assert.deepEqual(planTrsm(problem({ ...v, dtype, m, n }), defaultTrsmTuning).pipelined, byDefault ? { stages: PIPELINED_STAGES } : undefined);
    assert.equal(planTrsm(problem({ ...v, dtype, m, n, op: 'trsm' }), defaultTrsmTuning, { force: { trmmLeaf: 'pipelined' } }).pipelined, undefined);
  }
  const leaves = (m: number, leafMax?: number): number[] => planTrsm(problem({ m }), defaultTrsmTuning, { force: { trmmLeaf: 'pipelined', leafMax } })
    .steps.flatMap((s) => (s.kind === 'leaf' ? [s.span.size] : []));
  assert.deepEqual(leaves(64), [64]);
  assert.deepEqual(leaves(128), [64, 64]);
  assert.deepEqual(leaves(128, 128), [128]);
  assert.deepEqual(planTrsm(problem(), defaultTrsmTuning, { force: { trmmLeaf: 'pipelined', pipelinedStages: 3 } }).pipelined, { stages: 3 });
  for (const pipelinedStages of [1, 4, 2.5]) {
    assert.throws(() => planTrsm(problem(), defaultTrsmTuning, { force: { trmmLeaf: 'pipelined', pipelinedStages } }), (e: Error & { argument?: string }) => e.argument === 'pipelinedStages' && /pipelined stages must be an integer in 2\.\.3/.test(e.message));
  }
  assert.ok(leaves(300, 1000).every((s) => s <= PIPELINED_MAX));
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

// Orders 32 and 64 by default; MYRIAD_FULL_COMPILE=1 adds 16 and 128.
test('trmm pipelined kernels compile for sm_90 without spills (orders 16, 32, 64, 128, both dtypes)', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const sources = [
    trmmPipelinedSource({ ...base, order: 16 }),
    trmmPipelinedSource(base),
    trmmPipelinedSource({ ...base, order: 64, uplo: 'upper', transA: 'T', diag: 'unit', kind: 'pointer' }),
    trmmPipelinedSource({ ...base, order: 128 }),
    trmmPipelinedSource({ ...base, dtype: 'float32', order: 16, transA: 'T' }),
    trmmPipelinedSource({ ...base, dtype: 'float32', order: 32, stages: 3, kind: 'pointer' }),
    trmmPipelinedSource({ ...base, dtype: 'float32', order: 64, uplo: 'upper' }),
  ];
  const failures = compileFailures(await compileForSm90(compileSet(sources, (entry) => /_o(32|64)_/.test(entry))), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('trmm launcher with the pipelined kernel forced: a persistent grid (no more blocks than tasks or than the SMs hold), 128 threads, the stages\' shared bytes; the recursion\'s leaves of 64 beside GEMM updates', () => {
  const { dev, launches } = recordingDevice();
  const call = (dtype: 'float64' | 'float32', t: number, n: number, count: number): void => {
    launches.length = 0;
    trmmCuda(dev, {
      side: 'left', uplo: 'upper', transA: 'T', diag: 'unit', alpha: -2.5,
      a: strided(dev.alloc(dtype, t * t * count), { rows: t, cols: t, count }), b: strided(dev.alloc(dtype, t * n * count), { rows: t, cols: n, count }),
    }, { force: { trmmLeaf: 'pipelined' } });
  };
  for (const [dtype, t, n, count] of [['float64', 32, 32, 5000], ['float32', 7, 70, 3], ['float64', 64, 1, 100_000]] as const) {
    call(dtype, t, n, count);
    assert.equal(launches.length, 1);
    const l = launches[0]!;
    const order = pipelinedOrder(t);
    assert.equal(l.entry, `trmm_pipe_${dtype === 'float64' ? 'd' : 's'}_LUTU_st_o${order}_s${PIPELINED_STAGES}`);
    const sharedBytes = pipelinedSharedBytes({ dtype, order, stages: PIPELINED_STAGES });
    const tasks = count * Math.ceil(n / PIPELINED_VECTORS);
    const resident = dev.info.smCount * blocksPerSM(dev.info, { threads: PIPELINED_THREADS, registersPerThread: 0, sharedBytes });
    assert.deepEqual(l.config.grid, [Math.min(tasks, resident), 1, 1]);
    assert.deepEqual(l.config.block, [PIPELINED_THREADS, 1, 1]);
    assert.equal(l.config.sharedBytes, sharedBytes);
    assert.deepEqual(l.args.slice(-4).map((a) => Number(a.value)), [count, t, n, -2.5]);
  }
  call('float64', 128, 128, 10);
  assert.deepEqual(launches.map((l) => (l.entry.startsWith('trmm_pipe') ? l.entry : 'update')), [`trmm_pipe_d_LUTU_st_o64_s${PIPELINED_STAGES}`, 'update', `trmm_pipe_d_LUTU_st_o64_s${PIPELINED_STAGES}`]);
});

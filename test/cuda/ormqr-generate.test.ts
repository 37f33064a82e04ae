/**
 * The ormqr family without a GPU: the generator pure (every parameter changes the source and the
 * name), the planner's shapes (within the block and shared-memory limits, narrower where the slot
 * is large, forced shapes checked), `covers` (what goes to the CPU), the launcher's grouping and
 * arguments on a recording fake device, the CUDA backend's fallback to the CPU for uncovered sizes
 * (on fake device memory), and, where nvcc is installed, the kernels compile for sm_90 without
 * spills. The numerics of the kernels: test/cuda/ormqr-host-emulation.test.ts (opt-in) and
 * test/gpu/ormqr.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided, variable } from '../../src/core/batch.js';
import type { Storage, IntStorage } from '../../src/core/storage.js';
import type { Backend } from '../../src/core/ops.js';
import { Context, referenceContext } from '../../src/api/context.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import {
  ORMQR_COVER_SHARED, ORMQR_MAX_THREADS, ormqrBlockSource, ormqrCovers, ormqrCuda, ormqrFits, ormqrSlotElements, packedElements, planOrmqr,
  type OrmqrParams,
} from '../../src/cuda/kernels/ormqr/index.js';
import { FakeDevice, recordingDevice, rig } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';
import { reflectorBatch, reflectors } from '../helpers/ormqr-data.js';
import { Rng } from '../helpers/random.js';

const LIMIT = 227 * 1024 - 1024;

const ALL: OrmqrParams[] = (['float64', 'float32'] as const).flatMap((dtype) => (['left', 'right'] as const).flatMap((side) =>
  (['N', 'T'] as const).flatMap((trans) => (['strided', 'pointer'] as const).map((kind) => ({ dtype, side, trans, kind })))));

test('the ormqr generator is pure and every parameter changes the kernel', () => {
  const base: OrmqrParams = { dtype: 'float64', side: 'left', trans: 'N', kind: 'strided' };
  assert.equal(ormqrBlockSource(base).source, ormqrBlockSource({ ...base }).source);
  const variants = [base, { ...base, dtype: 'float32' }, { ...base, side: 'right' }, { ...base, trans: 'T' }, { ...base, kind: 'pointer' }] as OrmqrParams[];
  const sources = variants.map(ormqrBlockSource);
  assert.equal(new Set(sources.map((s) => s.entry)).size, sources.length, 'entry names are distinct');
  assert.equal(new Set(sources.map((s) => s.source)).size, sources.length, 'sources are distinct');
  assert.equal(new Set(ALL.map((p) => ormqrBlockSource(p).entry)).size, ALL.length);
  for (const s of sources) assert.match(s.source, new RegExp(`__global__ void __launch_bounds__\\(${ORMQR_MAX_THREADS}\\) ${s.entry}\\(`));
  // The reflectors' order is dorm2r's: forward for Q^T C and C Q.
  assert.match(ormqrBlockSource({ ...base, trans: 'T' }).source, /FORWARD = true/);
  assert.match(ormqrBlockSource({ ...base, side: 'right' }).source, /FORWARD = true/);
  assert.match(ormqrBlockSource(base).source, /FORWARD = false/);
  assert.match(ormqrBlockSource({ ...base, side: 'right', trans: 'T' }).source, /FORWARD = false/);
});

test('packed reflectors: column j holds v_j(j+1 : r), one after the other', () => {
  for (const [r, k] of [[1, 1], [5, 5], [9, 4], [4, 4], [100, 37]] as const) {
    let total = 0;
    for (let j = 0; j < k; j++) total += r - 1 - j;
    assert.equal(packedElements(r, k), total, `${r} x ${k}`);
  }
  assert.equal(packedElements(7, 0), 0);
  assert.equal(ormqrSlotElements(9, 4, 17), packedElements(9, 4) + 4 + 9 * 17);
});

test('ormqr plans stay within the block and the shared memory; threads follow the vectors of C', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [r, k, nvec] of [[1, 1, 1], [2, 1, 3], [5, 5, 5], [16, 16, 16], [32, 32, 200], [64, 64, 64], [100, 100, 100], [100, 37, 1], [128, 128, 128]] as const) {
      const { params, shape } = planOrmqr({ dtype, side: 'left', trans: 'N', kind: 'strided', r, k, nvec, sharedLimit: LIMIT });
      assert.deepEqual(params, { dtype, side: 'left', trans: 'N', kind: 'strided' });
      assert.ok(Number.isInteger(Math.log2(shape.threads)) && shape.threads <= 128, `threads ${shape.threads}`);
      assert.ok(shape.threads * shape.matrices <= ORMQR_MAX_THREADS && shape.matrices >= 1);
      assert.ok(shape.matrices * shape.bytesPerMatrix <= LIMIT);
      assert.equal(shape.ldt, shape.threads + 1);
      assert.equal(shape.bytesPerMatrix, ormqrSlotElements(r, k, shape.ldt) * (dtype === 'float64' ? 8 : 4));
      if (nvec <= 128 && r <= 64) assert.ok(shape.threads >= nvec && shape.threads < 2 * nvec, `${r} ${k} ${nvec}: ${shape.threads} threads`);
    }
  }
  // Small slots: several matrices per block; a large one: fewer threads rather than none.
  assert.equal(planOrmqr({ dtype: 'float64', side: 'right', trans: 'T', kind: 'pointer', r: 4, k: 4, nvec: 4, sharedLimit: LIMIT }).shape.matrices, 64);
  const narrow = planOrmqr({ dtype: 'float64', side: 'left', trans: 'N', kind: 'strided', r: 128, k: 128, nvec: 128, sharedLimit: 96 * 1024 }).shape;
  assert.ok(narrow.threads < 128 && narrow.threads >= 8 && narrow.bytesPerMatrix <= 96 * 1024, JSON.stringify(narrow));
  assert.throws(() => planOrmqr({ dtype: 'float64', side: 'left', trans: 'N', kind: 'strided', r: 200, k: 200, nvec: 8, sharedLimit: 96 * 1024 }), /do not fit/);
  const forced = planOrmqr({ dtype: 'float32', side: 'left', trans: 'N', kind: 'strided', r: 9, k: 4, nvec: 30, sharedLimit: LIMIT }, { force: { threads: 4, matrices: 3 } });
  assert.deepEqual([forced.shape.threads, forced.shape.matrices, forced.shape.ldt], [4, 3, 5]);
  const pr = { dtype: 'float32', side: 'left', trans: 'N', kind: 'strided', r: 9, k: 4, nvec: 30, sharedLimit: LIMIT } as const;
  assert.throws(() => planOrmqr(pr, { force: { threads: 6 } }), /power of two/);
  assert.throws(() => planOrmqr(pr, { force: { threads: 128, matrices: 4 } }), /exceed/);
});

test('covers: every size (the shared kernel where a 63 KiB slot holds the reflectors, the blocked driver elsewhere)', () => {
  assert.equal(ORMQR_COVER_SHARED, 63 * 1024);
  assert.ok(ormqrFits('float64', 100, 100, 100));
  assert.ok(ormqrFits('float64', 128, 64, 128));
  assert.ok(!ormqrFits('float64', 128, 128, 128));
  assert.ok(ormqrFits('float32', 150, 150, 150));
  assert.ok(!ormqrFits('float32', 250, 250, 250));
  const dev = new FakeDevice(0, []);
  const c = (rows: number, cols: number) => strided(dev.alloc('float64', rows * cols), { rows, cols, count: 1 });
  const tau = (k: number) => strided(dev.alloc('float64', k), { rows: k, cols: 1, count: 1 });
  assert.ok(ormqrCovers({ side: 'left', tau: tau(100), c: c(100, 3) }));
  assert.ok(ormqrCovers({ side: 'left', tau: tau(130), c: c(130, 3) }));
  assert.ok(ormqrCovers({ side: 'right', tau: tau(512), c: c(3, 512) }));
  const v = (sizes: number[]) => variable(sizes.map((n) => ({ data: dev.alloc('float64', n * n), rows: n, cols: n })));
  const vt = (sizes: number[]) => variable(sizes.map((n) => ({ data: dev.alloc('float64', n), rows: n, cols: 1 })));
  assert.ok(ormqrCovers({ side: 'left', tau: vt([3, 130]), c: v([3, 130]) }));
  // Host batches (the backend asks before staging).
  assert.ok(ormqrCovers({ side: 'left', tau: strided(new Float64Array(130), { rows: 130, cols: 1 }), c: strided(new Float64Array(390), { rows: 130, cols: 3 }) }));
});

test('the launcher: one launch for a strided batch, one per shape for a variable one, none where k = 0', () => {
  const { dev, launches } = recordingDevice();
  const count = 70;
  const a = strided(dev.alloc('float32', 9 * 4 * count), { rows: 9, cols: 4, count });
  const tau = strided(dev.alloc('float32', 4 * count), { rows: 4, cols: 1, count });
  const c = strided(dev.alloc('float32', 6 * 9 * count), { rows: 6, cols: 9, count });
  ormqrCuda(dev, { side: 'right', trans: 'N', a, tau, c });
  assert.equal(launches.length, 1);
  const l = launches[0]!;
  assert.equal(l.entry, 'ormqr_s_RN_st');
  const ints = l.args.slice(-5).map((x) => Number(x.value));
  assert.deepEqual(ints, [count, 9, 4, 6, 9], 'count, r = C cols, k, nvec = C rows, ldt');
  assert.equal(l.args.length, 12 + 5);
  const [threads, matrices] = [l.config.block[0], l.config.block[1]];
  assert.equal(threads, 8);
  assert.equal(threads * matrices, 256);
  assert.equal(l.config.grid[0], Math.ceil(count / matrices));
  assert.equal(l.config.sharedBytes, matrices * ormqrSlotElements(9, 4, 9) * 4);
  launches.length = 0;
  const sizes = [[5, 5], [3, 3], [5, 5], [4, 0]] as const;
  ormqrCuda(dev, {
    side: 'left', trans: 'T',
    a: variable(sizes.map(([r, k]) => ({ data: dev.alloc('float64', r * Math.max(k, 1)), rows: r, cols: Math.max(k, 1) }))),
    tau: variable(sizes.map(([, k]) => ({ data: dev.alloc('float64', Math.max(k, 1)), rows: k, cols: 1 }))),
    c: variable(sizes.map(([r]) => ({ data: dev.alloc('float64', r * 2), rows: r, cols: 2 }))),
  });
  assert.deepEqual(launches.map((x) => [x.entry, Number(x.args.at(-5)!.value), Number(x.args.at(-4)!.value)]), [['ormqr_d_LT_pa', 2, 5], ['ormqr_d_LT_pa', 1, 3]]);
});

test('a CUDA context runs ormqr on the kernel, on device memory (large sizes: the blocked driver)', () => {
  const { dev, launches } = recordingDevice();
  dev.synchronize = () => {};
  const backend = new CudaBackend(dev, 'fake');
  const ctx = new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend);
  const rng = new Rng(3);
  for (const [r, launched] of [[8, 1], [160, 15]] as const) {
    launches.length = 0;
    const { a, tau } = reflectors(rng, 'float64', r, r);
    const c0 = Float64Array.from({ length: r * 2 }, () => rng.uniform());
    const want = c0.slice();
    referenceContext.ormqr({ a: strided(a, { rows: r }), tau: strided(tau, { rows: r, cols: 1 }), c: strided(want, { rows: r, cols: 2 }) });
    const dc = ctx.upload(c0);
    ctx.ormqr({ a: strided(ctx.upload(a), { rows: r, count: 1 }), tau: strided(ctx.upload(tau), { rows: r, cols: 1, count: 1 }), c: strided(dc, { rows: r, cols: 2, count: 1 }) });
    // r = 160: five blocks of 32 reflectors, each a WY kernel and two GEMMs.
    assert.equal(launches.filter((l) => !l.entry.startsWith('gemm')).length, r === 8 ? 1 : 5, `r = ${r}`);
    assert.equal(launches.length, launched, `r = ${r}`);
  }
});

test('several GPUs (fakes running the reference): host batches split by matrix, A, tau and C in step', () => {
  const { ctx, counts } = rig(2);
  const rng = new Rng(21);
  const [r, k, count] = [6, 4, 5];
  const { a: A, tau: T } = reflectorBatch(rng, r, k, count);
  const C0 = Float64Array.from({ length: 3 * r * count }, () => rng.uniform());
  const want = C0.slice();
  const args = (c: Float64Array) => ({
    side: 'right', trans: 'N', a: strided(A, { rows: r, cols: k, count }), tau: strided(T, { rows: k, cols: 1, count }), c: strided(c, { rows: 3, cols: r, count }),
  } as const);
  referenceContext.ormqr(args(want));
  const got = C0.slice();
  ctx.ormqr(args(got));
  assert.deepEqual(got, want);
  assert.deepEqual(counts.map((c) => c.reduce((s, x) => s + x, 0)), [3, 2]);
});

test('ormqr kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const sources = compileSet(ALL.map(ormqrBlockSource), (e) => e === 'ormqr_d_LN_st' || e === 'ormqr_s_RT_pa');
  const results = await compileForSm90(sources);
  const failures = compileFailures(results, (r) =>
    !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : r.registers > 64 ? `${r.registers} registers` : undefined);
  assert.deepEqual(failures, []);
  if (FULL_COMPILE) assert.equal(results.length, ALL.length);
});


/**
 * The tridiag family's generator and plan without a GPU: purity, every parameter changes the source,
 * shapes within the thread and shared-memory limits, the crossover from the Jacobi designs (through
 * jacobi's syevCuda on a recording device), the split design's plans and launches, and (where nvcc
 * is installed) the kernels compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { syevCuda } from '../../src/cuda/kernels/jacobi/index.js';
import { runRouted } from '../../src/cuda/router.js';
import type { SyevRequest } from '../../src/core/ops.js';
import {
  STEIN_NB, TRIDIAG_MAX, clusterPanel, planSteinKernels, tridiagSteins, TRIDIAG_MAXIT, applySharedBytes, planSyevSplit, planSyevStein, planSyevTridiag, splitSlice, steinParts, syevTridiagCuda, syevTridiagSource,
  tridiagApplySource, tridiagPanelSource, tridiagSteinSource,
  tridiagLayout, tridiagServes, tridiagSplits, tridiagThreads, type SyevTridiagParams, type TridiagApplyParams, type TridiagForce,
} from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor, type TridiagTuning } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/types.js';
import { recordingDevice } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

const H100_SHARED = 227 * 1024 - 1024;
const TUNING = tuningFor('sm_90', 'tridiag');

const plan = (n: number, dtype: DType = 'float64', vectors = true, force: TridiagForce = {}, sharedLimit = H100_SHARED, tuning: TridiagTuning = TUNING): SyevTridiagParams =>
  planSyevTridiag({ dtype, n, uplo: 'lower', vectors, kind: 'strided', sharedLimit }, tuning, { force });

test('the generator is pure and every parameter changes the source and the entry', () => {
  const p = plan(64);
  assert.equal(syevTridiagSource(p).source, syevTridiagSource({ ...p }).source);
  const variants: SyevTridiagParams[] = [p, { ...p, dtype: 'float32' }, { ...p, n: 63 }, { ...p, uplo: 'upper' }, { ...p, vectors: false },
    { ...p, kind: 'pointer' }, { ...p, threads: 128 }, { ...p, shared: false }, { ...p, maxit: 5 }];
  const srcs = variants.map(syevTridiagSource);
  assert.equal(new Set(srcs.map((s) => s.source)).size, variants.length);
  assert.equal(new Set(srcs.map((s) => s.entry)).size, variants.length);
  // 'values' never writes A; 'upper' reads (i, j) with i <= j from the stored triangle.
  assert.doesNotMatch(syevTridiagSource({ ...p, vectors: false }).source, /g\[i \+ \(long long\)j \* ldA\] = /);
  assert.match(syevTridiagSource(p).source, /g\[i \+ \(long long\)j \* ldA\] = /);
  assert.match(syevTridiagSource({ ...p, uplo: 'upper' }).source, /\(i <= j\) \? \(real\)g\[i/);
  assert.match(syevTridiagSource(p).source, /\(i >= j\) \? \(real\)g\[i/);
  // float32 data: float pointers, double arithmetic.
  assert.match(syevTridiagSource({ ...p, dtype: 'float32' }).source, /float\* __restrict__ A,/);
  assert.match(syevTridiagSource({ ...p, dtype: 'float32' }).source, /typedef double real;/);
});

test('plans: a thread per row (whole warps, to maxThreads), shared memory where the matrix fits, else the workspace', () => {
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [1, 2, 31, 33, 40, 47, 64, 100, 128, 160, 165, 200, 256, 512])
      for (const vectors of [true, false]) {
        const p = plan(n, dtype, vectors);
        const l = tridiagLayout(p);
        assert.equal(p.threads, Math.max(32, Math.min(512, 32 * Math.ceil(n / 32))), `n=${n}`);
        assert.ok(l.sharedBytes <= H100_SHARED, `${dtype} n=${n}`);
        const fits = tridiagLayout({ n, vectors, shared: true }).sharedBytes <= H100_SHARED && n <= TUNING.sharedMax;
        assert.equal(p.shared, fits, `${dtype} n=${n} ${vectors}`);
        assert.equal(l.work, p.shared ? 0 : n * n);
        assert.equal(l.cap, vectors ? 2 * n : 0);
        assert.equal(p.maxit, TRIDIAG_MAXIT);
      }
  // f64 on an H100: to n = 96 in shared memory by the table (it would fit to 160: 200 KiB; the
  // workspace measured faster at 128), above in the workspace; sharedMax above the fit changes nothing.
  assert.deepEqual([64, 96, 97, 128, 160, 256, 512].map((n) => plan(n).shared), [true, true, false, false, false, false, false]);
  assert.deepEqual([128, 160, 165, 256].map((n) => plan(n, 'float64', true, {}, H100_SHARED, { ...TUNING, sharedMax: 512 }).shared), [true, true, false, false]);
  assert.equal(plan(64, 'float64', true, {}, 48 * 1024).shared, true);
  assert.equal(plan(100, 'float64', true, {}, 48 * 1024).shared, false);
  assert.equal(plan(64, 'float64', true, { global: true }).shared, false);
  assert.equal(plan(64, 'float64', true, { threads: 32 }).threads, 32);
  assert.equal(plan(100, 'float64', true, {}, H100_SHARED, { ...TUNING, sharedMax: 64 }).shared, false);
  assert.equal(plan(512, 'float64', true, {}, H100_SHARED, { ...TUNING, maxThreads: 256 }).threads, 256);
  assert.equal(tridiagThreads(33, 512), 64);
  assert.throws(() => plan(TRIDIAG_MAX + 1), /n <= 512/);
  assert.throws(() => plan(0), /1 <= n/);
  assert.throws(() => plan(64, 'float64', true, { threads: 100 }), /threads/);
  assert.throws(() => plan(64, 'float64', true, { threads: 2048 }), /threads/);
});

test('the crossover: the router sends syev with n >= syevFrom to the tridiagonal kernel, the Jacobi designs below (or as forced)', () => {
  assert.deepEqual([32, 33, 64, 512, 513].map((n) => tridiagServes(n, 'float64', TUNING)), [false, true, true, true, false]);
  assert.equal(tridiagServes(40, 'float32', { ...TUNING, syevFrom: { float64: 33, float32: 64 } }), false);
  const { dev, launches } = recordingDevice();
  type Launch = (dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>) => void;
  const routed: Launch = (d, r) => { runRouted('syev', d, r as unknown as Record<string, unknown>); };
  const run = (n: number, launch: Launch = routed): string => {
    const a = dev.alloc('float64', n * n * 3), w = dev.alloc('float64', n * 3), info = dev.alloc('int32', 3);
    launches.length = 0;
    launch(dev, { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, count: 3 }), w: strided(w, { rows: n, cols: 1, count: 3 }), info });
    return launches.map((l) => l.entry).join(',');
  };
  const from = TUNING.syevFrom.float64;
  const ql = (d: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>): void => syevTridiagCuda(d, r, { force: { stein: false } });
  // With vectors from steinFrom: the inverse-iteration design (reduce, values, vectors, clusters, ormqr, store).
  assert.equal(TUNING.steinFrom, from);
  assert.match(run(from), /^syev_tridiag_d_st_n33_lv_t64_g_m30_stein_reduce,syev_stein_values_n33_t64,syev_stein_vectors_n33_t64_i5,syev_stein_clusters_n33_t64_i5,ormqr_d_LN_st,syev_tridiag_d_st_n33_lv_t64_g_m30_stein_store$/);
  assert.match(run(from - 1), /^syev_(rows|warp|block)_/);   // a Jacobi design (rows at 32)
  // The QL designs where forced: one kernel (in shared memory at 33), the split design from splitFrom.
  assert.match(run(from, ql), /^syev_tridiag_d_st_n\d+_lv_t64_s_m30$/);
  assert.match(run(512, ql), /^syev_tridiag_d_st_n512_lv_t512_g_m30_rec393216,syev_tridiag_apply_n512_c393216_r16_k128_u8,syev_tridiag_d_st_n512_lv_t512_g_m30_fin393216$/);
  assert.match(run(TUNING.splitFrom - 1, ql), /^syev_tridiag_d_st_n\d+_lv_t\d+_g_m30$/);
  assert.match(run(100, (d, r) => { runRouted('syev', d, r as unknown as Record<string, unknown>, 'jacobi'); }), /^syev_block_/);
  assert.match(run(100, (d, r) => syevCuda(d, r, { force: { design: 'block' } })), /^syev_block_/);
  assert.match(run(8, (d, r) => { runRouted('syev', d, r as unknown as Record<string, unknown>, 'tridiag'); }), /^syev_tridiag_d_st_n8_/);
  assert.match(run(100, (d, r) => syevTridiagCuda(d, r, { force: { stein: false, global: true, threads: 64 } })), /^syev_tridiag_d_st_n100_lv_t64_g_m30$/);
  assert.throws(() => run(100, (d, r) => { runRouted('syev', d, r as unknown as Record<string, unknown>, 'nope'); }), /routes: cusolver, tridiag, ql-thread, jacobi, split, cusolver-syevd, cpu/);
  // One block per matrix, the plan's threads and shared bytes.
  run(100, ql);
  assert.deepEqual([launches[0]!.config.grid, launches[0]!.config.block], [[3, 1, 1], [128, 1, 1]]);
  assert.equal(launches[0]!.config.sharedBytes, tridiagLayout(plan(100)).sharedBytes);
  // The family's own launcher, a list batch: the pointer form.
  const mats = [dev.alloc('float32', 40 * 40), dev.alloc('float32', 40 * 40)];
  launches.length = 0;
  syevTridiagCuda(dev, { jobz: 'values', uplo: 'upper', a: list(mats, { rows: 40 }) as Batch<DeviceArray>,
    w: strided(dev.alloc('float32', 80), { rows: 40, cols: 1, count: 2 }), info: dev.alloc('int32', 2) });
  assert.deepEqual(launches.map((l) => l.entry).filter((e) => e.startsWith('syev')), ['syev_tridiag_s_pa_n40_un_t64_s_m30']);
});

const splitPlan = (n: number, dtype: DType = 'float64', force: TridiagForce = {}, sharedLimit = H100_SHARED, tuning: TridiagTuning = TUNING) =>
  planSyevSplit({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit }, tuning, { force });

test('the split design: where it serves, its buffer, its apply rows, its stages\' sources', () => {
  assert.equal(TUNING.splitFrom, 256);
  assert.deepEqual([64, 255, 256, 512].map((n) => tridiagSplits({ n, vectors: true }, TUNING)), [false, false, true, true]);
  assert.equal(tridiagSplits({ n: 512, vectors: false }, TUNING), false);
  assert.equal(tridiagSplits({ n: 512, vectors: true }, TUNING, { split: false }), false);
  assert.equal(tridiagSplits({ n: 40, vectors: true }, TUNING, { split: true }), true);
  for (const n of [33, 64, 100, 128, 200, 256, 384, 512]) for (const dtype of ['float64', 'float32'] as const) {
    const p = splitPlan(n, dtype);
    const one = plan(n, dtype, true, { global: true });
    assert.deepEqual({ ...p.record, split: undefined }, { ...one, split: undefined }, `n=${n}: the one-kernel shape, Z in the workspace`);
    assert.deepEqual([p.record.split, p.finish.split], [{ stage: 'record', cap: p.apply.cap }, { stage: 'finish', cap: p.apply.cap }]);
    assert.equal(p.apply.cap, Math.max(2 * n, Math.ceil(TUNING.capFactor * n * n)));
    assert.equal(p.slice, n * n + 2 * n + 8 + 2 * p.apply.cap + Math.ceil(p.apply.cap / 2));
    assert.equal(tridiagLayout(p.record).work, p.slice);
    assert.equal(tridiagLayout(p.record).cap, 0, 'record: no shared rotation buffers');
    assert.equal(tridiagLayout(p.finish).cap, 2 * n);
    assert.equal(p.apply.rows, 16);
    assert.ok(applySharedBytes(p.apply) <= H100_SHARED && tridiagLayout(p.finish).sharedBytes <= H100_SHARED);
    assert.equal(p.apply.tile % p.apply.rows, 0);
  }
  // 32 rows of 512 take 128 KiB (they fit); of 256, 64 KiB: a 48 KiB limit halves them to 16.
  assert.equal(splitPlan(512, 'float64', { applyRows: 32 }).apply.rows, 32);
  assert.equal(splitPlan(256, 'float64', { applyRows: 32 }, 48 * 1024).apply.rows, 16);
  assert.equal(splitPlan(512, 'float64', { cap: 1024 }).apply.cap, 1024);
  assert.equal(splitPlan(100, 'float64', { threads: 32 }).record.threads, 32);
  assert.equal(splitPlan(100, 'float64', {}, H100_SHARED, { ...TUNING, capFactor: 0.001 }).apply.cap, 200, 'at least 2n');
  assert.throws(() => splitPlan(100, 'float64', { cap: 199 }), /force\.cap|rotation buffer/);
  assert.throws(() => splitPlan(100, 'float64', { applyRows: 0 }), /apply rows/);
  assert.throws(() => planSyevSplit({ dtype: 'float64', n: 100, uplo: 'lower', vectors: false, kind: 'strided' }, TUNING), /vectors/);
  // Sources: pure; every field changes the text and the entry; the stages differ from the one-kernel design.
  const p = splitPlan(256);
  assert.equal(syevTridiagSource(p.record).source, syevTridiagSource({ ...p.record }).source);
  const stages = [plan(256, 'float64', true, { global: true }), p.record, p.finish, { ...p.record, split: { stage: 'record', cap: 999 } },
    { ...p.finish, split: { stage: 'finish', cap: 999 } }, { ...p.record, dtype: 'float32' }, { ...p.finish, uplo: 'upper' }] as SyevTridiagParams[];
  assert.equal(new Set(stages.map((x) => syevTridiagSource(x).source)).size, stages.length);
  assert.equal(new Set(stages.map((x) => syevTridiagSource(x).entry)).size, stages.length);
  assert.throws(() => syevTridiagSource({ ...p.record, shared: true }), /workspace/);
  assert.throws(() => syevTridiagSource({ ...p.record, vectors: false }), /vectors/);
  const a = p.apply;
  const applies: TridiagApplyParams[] = [a, { ...a, n: 255 }, { ...a, cap: a.cap + 1 }, { ...a, rows: 32 }, { ...a, tile: 256 }, { ...a, unroll: 1 }];
  assert.equal(a.unroll, 8);
  assert.equal(splitPlan(256, 'float64', { applyUnroll: 3 }).apply.unroll, 3);
  assert.throws(() => splitPlan(256, 'float64', { applyUnroll: 0 }), /unroll/);
  assert.equal(new Set(applies.map((x) => tridiagApplySource(x).source)).size, applies.length);
  assert.equal(new Set(applies.map((x) => tridiagApplySource(x).entry)).size, applies.length);
  assert.throws(() => tridiagApplySource({ ...a, tile: 100 }), /multiple/);
  // The record stage writes no A and no w; the finish stage reads no A; both name the slice's parts.
  const rec = syevTridiagSource(p.record).source, fin = syevTridiagSource(p.finish).source;
  assert.doesNotMatch(rec, /g\[i \+ \(long long\)j \* ldA\] = /);
  assert.doesNotMatch(rec, /w\[j\] = /);
  assert.match(rec, /qlRun\(q, d, e, grc, grs, gri, cnt\)/);
  assert.match(rec, /cnt > RCAP - N/);
  assert.doesNotMatch(fin, /\(real\)g\[/);
  assert.match(fin, /g\[i \+ \(long long\)j \* ldA\] = /);
  const l = splitSlice(256, a.cap);
  for (const src of [rec, fin, tridiagApplySource(a).source]) assert.match(src, new RegExp(`int\\*\\)\\(Z0? \\+ ${l.hdr}\\)`));
});

test('the split design\'s launches: record, apply over (row blocks, matrices), finish; no host read', () => {
  const { dev, launches } = recordingDevice();
  let reads = 0;
  const download = dev.download.bind(dev);
  dev.download = ((src, dst) => { reads++; return download(src, dst); }) as typeof dev.download;
  for (const [n, count, dtype] of [[512, 3, 'float64'], [300, 5, 'float32'], [TUNING.splitFrom, 2, 'float64']] as const) {
    const a = dev.alloc(dtype, n * n * count), w = dev.alloc(dtype, n * count), info = dev.alloc('int32', count);
    launches.length = 0;
    syevTridiagCuda(dev, { jobz: 'vectors', uplo: 'upper', a: strided(a, { rows: n, count }), w: strided(w, { rows: n, cols: 1, count }), info }, { force: { stein: false } });
    const p = planSyevSplit({ dtype, n, uplo: 'upper', vectors: true, kind: 'strided', sharedLimit: H100_SHARED }, TUNING);
    assert.deepEqual(launches.map((x) => x.entry), [syevTridiagSource(p.record).entry, tridiagApplySource(p.apply).entry, syevTridiagSource(p.finish).entry]);
    const [r, ap, f] = launches as [typeof launches[0], typeof launches[0], typeof launches[0]];
    assert.deepEqual([r.config.grid, r.config.block, r.config.sharedBytes], [[count, 1, 1], [p.record.threads, 1, 1], tridiagLayout(p.record).sharedBytes]);
    assert.deepEqual([ap.config.grid, ap.config.block, ap.config.sharedBytes], [[Math.ceil(n / 16), count, 1], [16, 1, 1], applySharedBytes(p.apply)]);
    assert.deepEqual([f.config.grid, f.config.block, f.config.sharedBytes], [[count, 1, 1], [p.finish.threads, 1, 1], tridiagLayout(p.finish).sharedBytes]);
    // The three share the chunk's slices and its first matrix.
    const slices = (x: typeof r, at: number): unknown => x.args[at];
    assert.deepEqual([slices(ap, 0), slices(ap, 1)], [slices(r, 8), slices(r, 9)]);
    assert.deepEqual([slices(f, 8), slices(f, 9)], [slices(r, 8), slices(r, 9)]);
    assert.deepEqual(ap.args[2], { type: 'i32', value: count });
  }
  assert.equal(reads, 0, 'no read back to the host');
  // Forced off: the one-kernel design at 512; values never split.
  const a = dev.alloc('float64', 512 * 512), w = dev.alloc('float64', 512), info = dev.alloc('int32', 1);
  const one = (jobz: 'vectors' | 'values', force: TridiagForce): string[] => {
    launches.length = 0;
    syevTridiagCuda(dev, { jobz, uplo: 'lower', a: strided(a, { rows: 512, count: 1 }), w: strided(w, { rows: 512, cols: 1, count: 1 }), info }, { force: { stein: false, ...force } });
    return launches.map((x) => x.entry);
  };
  assert.deepEqual(one('vectors', { split: false }), ['syev_tridiag_d_st_n512_lv_t512_g_m30']);
  assert.deepEqual(one('values', { split: true }), ['syev_tridiag_d_st_n512_ln_t512_g_m30']);
  assert.equal(one('vectors', { split: true, cap: 1024, applyRows: 8 }).join(','),
    'syev_tridiag_d_st_n512_lv_t512_g_m30_rec1024,syev_tridiag_apply_n512_c1024_r8_k128_u8,syev_tridiag_d_st_n512_lv_t512_g_m30_fin1024');
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('tridiagonal syev kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const sources = FULL_COMPILE
    ? [33, 40, 47, 64, 100, 128, 160, 256, 512].flatMap((n) => [
      syevTridiagSource(plan(n)), syevTridiagSource(plan(n, 'float32', false)), syevTridiagSource({ ...plan(n, 'float32'), kind: 'pointer', uplo: 'upper' }),
      syevTridiagSource(plan(n, 'float64', false, { global: true })), syevTridiagSource(plan(n, 'float64', true, { global: true, threads: 64 }))])
    : [syevTridiagSource(plan(64)), syevTridiagSource({ ...plan(512, 'float32'), kind: 'pointer', uplo: 'upper' }), syevTridiagSource(plan(128, 'float32', false))];
  // The split design's three kernels.
  const splits = FULL_COMPILE ? [33, 100, 128, 200, 256, 384, 512].flatMap((n) => [splitPlan(n), { ...splitPlan(n, 'float32', { applyRows: 32 }) }]) : [splitPlan(512)];
  for (const p of splits) sources.push(syevTridiagSource(p.record), tridiagApplySource(p.apply), syevTridiagSource({ ...p.finish, kind: 'pointer', uplo: 'upper' }));
  // The inverse-iteration design's kernels (both reductions).
  const steins = (FULL_COMPILE ? [33, 64, 100, 128, 200, 256, 384, 512] : [64, 512]).flatMap((n) => [false, true].map((steinPanel) =>
    planSyevStein({ dtype: n % 2 === 0 ? 'float64' : 'float32', n, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: H100_SHARED }, TUNING, { force: { steinPanel } })));
  for (const p of steins) {
    sources.push(syevTridiagSource(p.reduce), tridiagSteinSource(p.values), tridiagSteinSource(p.vectors!), syevTridiagSource({ ...p.store, kind: 'pointer' }));
    if (p.panel !== undefined) sources.push(tridiagPanelSource(p.panel));
  }
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('the inverse-iteration design\'s launches: reduce (or load and panels with their GEMMs), values and vectors over ceil(n / 64) blocks a matrix, clusters over one block a matrix, ormqr, store; no host read', () => {
  const { dev, launches } = recordingDevice();
  let reads = 0;
  const download = dev.download.bind(dev);
  dev.download = ((src, dst) => { reads++; return download(src, dst); }) as typeof dev.download;
  for (const [n, count, dtype] of [[33, 4, 'float64'], [100, 3, 'float32'], [TUNING.steinPanelFrom, 2, 'float64'], [512, 2, 'float32']] as const) {
    const a = dev.alloc(dtype, n * n * count), w = dev.alloc(dtype, n * count), info = dev.alloc('int32', count);
    launches.length = 0;
    syevTridiagCuda(dev, { jobz: 'vectors', uplo: 'upper', a: strided(a, { rows: n, count }), w: strided(w, { rows: n, cols: 1, count }), info });
    const p = planSyevStein({ dtype, n, uplo: 'upper', vectors: true, kind: 'strided', sharedLimit: H100_SHARED }, TUNING);
    const entries = launches.map((x) => x.entry);
    const blocked = n >= TUNING.steinPanelFrom;
    assert.equal(p.panel !== undefined, blocked, `n = ${n}`);
    assert.equal(entries[0], syevTridiagSource(p.reduce).entry);
    assert.match(entries[0]!, blocked ? /_stein_load$/ : /_stein_reduce$/);
    // Blocked: per panel of 32 columns the panel kernel and two GEMMs.
    const panels = blocked ? Math.ceil((n - 1) / STEIN_NB) : 0;
    const rest = entries.slice(1 + 3 * panels);
    for (let k = 0; k < panels; k++) {
      assert.equal(entries[1 + 3 * k], tridiagPanelSource(p.panel!).entry);
      assert.match(entries[2 + 3 * k]!, /^gemm_/);
      assert.match(entries[3 + 3 * k]!, /^gemm_/);
      assert.deepEqual(launches[1 + 3 * k]!.args[3], { type: 'i32', value: STEIN_NB * k }, 'the panel\'s first column');
    }
    assert.ok(p.clusters !== undefined, 'a clusters kernel with the vectors');
    assert.deepEqual(rest.slice(0, 3), [tridiagSteinSource(p.values).entry, tridiagSteinSource(p.vectors!).entry, tridiagSteinSource(p.clusters).entry]);
    assert.match(rest[2]!, /^syev_stein_clusters_n\d+_t\d+_i\d+$/);
    assert.match(rest[3]!, /^(ormqr_|wy_factor_)/, 'ormqr: its shared-memory kernel or its blocked WY steps');
    assert.equal(rest.at(-1), syevTridiagSource(p.store).entry);
    const parts = steinParts(p.values);
    assert.equal(parts, Math.ceil(n / 64));
    assert.equal(steinParts(p.clusters), 1);
    assert.equal(p.clusters.threads, n > 256 ? 512 : Math.min(256, 32 * Math.ceil(n / 32)));
    const stein = launches.filter((l) => l.entry.startsWith('syev_stein_'));
    assert.deepEqual(stein.map((x) => x.entry.split('_')[2]), ['values', 'vectors', 'clusters']);
    for (const x of stein.slice(0, 2))
      assert.deepEqual([x.config.grid, x.config.block], [[count * parts, 1, 1], [p.values.threads, 1, 1]]);
    assert.deepEqual([stein[2]!.config.grid, stein[2]!.config.block], [[count, 1, 1], [p.clusters.threads, 1, 1]]);
    // The three take the same slices, first and count.
    for (const x of stein) assert.deepEqual(x.args, stein[0]!.args);
  }
  assert.equal(reads, 0, 'no read back to the host');
  // The sources: distinct per stage, size and iteration limit; the values kernel has no inverse iteration.
  const p = planSyevStein({ dtype: 'float64', n: 200, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: H100_SHARED }, TUNING);
  const kernels = [p.values, p.vectors!, { ...p.vectors!, maxits: 3 }, { ...p.vectors!, n: 201 }, p.clusters!].map((x) => tridiagSteinSource(x));
  assert.equal(new Set(kernels.map((k) => k.entry)).size, kernels.length);
  assert.doesNotMatch(kernels[0]!.source, /solveShifted/);
  assert.match(kernels[1]!.source, /solveShifted/);
  // Values only: from steinPanelFrom (forced: anywhere), the panels and the values kernel, no vectors kernel and no ormqr.
  const values = planSyevStein({ dtype: 'float64', n: 64, uplo: 'lower', vectors: false, kind: 'strided' }, TUNING);
  assert.equal(values.vectors, undefined);
  assert.equal(values.clusters, undefined);
  assert.equal(values.store.vectors, false);
  assert.deepEqual([TUNING.steinPanelFrom - 1, TUNING.steinPanelFrom].map((n) => tridiagSteins({ n, vectors: false }, TUNING)), [false, true]);
  const a = dev.alloc('float64', 300 * 300 * 2), w = dev.alloc('float64', 600), info = dev.alloc('int32', 2);
  launches.length = 0;
  syevTridiagCuda(dev, { jobz: 'values', uplo: 'lower', a: strided(a, { rows: 300, count: 2 }), w: strided(w, { rows: 300, cols: 1, count: 2 }), info });
  const names = launches.map((x) => x.entry);
  assert.match(names[0]!, /^syev_tridiag_d_st_n300_ln_t320_g_m30_stein_load$/);
  assert.equal(names.filter((x) => x.startsWith('syev_latrd')).length, Math.ceil(299 / STEIN_NB));
  assert.deepEqual(names.filter((x) => x.startsWith('syev_stein')), ['syev_stein_values_n300_t64']);
  assert.ok(!names.some((x) => /ormqr|wy_factor/.test(x)));
  assert.match(names.at(-1)!, /_ln_t320_g_m30_stein_store$/);
  assert.throws(() => planSyevStein({ dtype: 'float64', n: 64, uplo: 'lower', vectors: true, kind: 'strided' }, TUNING, { force: { steinMaxits: 0 } }), /steinMaxits|iterations/);
  // The serial cluster size forced: both the vectors and the clusters kernels take it (their entries say so), in 1 ... 64.
  const serial = planSyevStein({ dtype: 'float64', n: 64, uplo: 'lower', vectors: true, kind: 'strided' }, TUNING, { force: { steinSerialCluster: 4 } });
  assert.deepEqual([serial.vectors!, serial.clusters!].map((x) => tridiagSteinSource(x)).map((k) => [k.entry, /constexpr int SERIAL_CLUSTER = 4;/.test(k.source)]),
    [['syev_stein_vectors_n64_t64_i5_s4', true], ['syev_stein_clusters_n64_t64_i5_s4', true]]);
  assert.equal(tridiagSteinSource(serial.values).entry, 'syev_stein_values_n64_t64');
  for (const bad of [0, 65, 2.5]) assert.throws(() => planSyevStein({ dtype: 'float64', n: 64, uplo: 'lower', vectors: true, kind: 'strided' }, TUNING, { force: { steinSerialCluster: bad } }), /steinSerialCluster/);
  // The clusters kernel's block forced: its entry says so; a multiple of 32 within 32 ... 512.
  const wide = planSyevStein({ dtype: 'float64', n: 512, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: H100_SHARED }, TUNING, { force: { steinClusterThreads: 512 } });
  assert.equal(tridiagSteinSource(wide.clusters!).entry, 'syev_stein_clusters_n512_t512_i5');
  // By default 512 above 256 (fewer below: whole warps to 256), 256 on the upper half of a Golub-Kahan tridiagonal.
  const clusterThreads = (n: number, upperHalf = false): number => planSteinKernels(n, true, 5, { upperHalf }).clusters!.threads;
  assert.deepEqual([33, 200, 256, 257, 512].map((n) => clusterThreads(n)), [64, 224, 256, 512, 512]);
  assert.deepEqual([200, 512, 1024].map((n) => clusterThreads(n, true)), [224, 256, 256]);
  assert.equal(planSyevStein({ dtype: 'float64', n: 512, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: H100_SHARED }, TUNING, { force: { steinClusterThreads: 256 } }).clusters!.threads, 256);
  for (const bad of [16, 100, 1024]) assert.throws(() => planSyevStein({ dtype: 'float64', n: 64, uplo: 'lower', vectors: true, kind: 'strided' }, TUNING, { force: { steinClusterThreads: bad } }), /steinClusterThreads/);
  // The clusters kernel's panel of vectors in shared memory: 8 at most, fewer where n is large, 1 at least (orders to 2 TRIDIAG_MAX).
  assert.deepEqual([33, 256, 512, 1024].map(clusterPanel), [8, 8, 7, 1]);
  assert.throws(() => syevTridiagSource({ ...p.store, shared: true }), /workspace/);
});

/**
 * The tridiag family's generator and plan without a GPU: purity, every parameter changes the source,
 * shapes within the thread and shared-memory limits, the crossover from the Jacobi designs (through
 * jacobi's syevCuda on a recording device), and (where nvcc is installed) the kernels compile for
 * sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { syevCuda, type JacobiOptions } from '../../src/cuda/kernels/jacobi/index.js';
import {
  TRIDIAG_MAX, TRIDIAG_MAXIT, planSyevTridiag, syevTridiagCuda, syevTridiagSource, tridiagLayout, tridiagServes, tridiagThreads,
  type SyevTridiagParams, type TridiagForce,
} from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor, type TridiagTuning } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
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

test('the crossover: syev sends n >= syevFrom to the tridiagonal kernel, the Jacobi designs below (or as routed)', () => {
  assert.deepEqual([32, 33, 64, 512, 513].map((n) => tridiagServes(n, 'float64', TUNING)), [false, true, true, true, false]);
  assert.equal(tridiagServes(40, 'float32', { ...TUNING, syevFrom: { float64: 33, float32: 64 } }), false);
  const { dev, launches } = recordingDevice();
  const run = (n: number, opts: JacobiOptions = {}): string => {
    const a = dev.alloc('float64', n * n * 3), w = dev.alloc('float64', n * 3), info = dev.alloc('int32', 3);
    launches.length = 0;
    syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, count: 3 }), w: strided(w, { rows: n, cols: 1, count: 3 }), info }, opts);
    return launches.map((l) => l.entry).join(',');
  };
  const from = TUNING.syevFrom.float64;
  assert.match(run(from), /^syev_tridiag_d_st_n\d+_lv_t64_s_m30$/);
  assert.match(run(from - 1), /^syev_(warp|block)_/);
  assert.match(run(512), /^syev_tridiag_d_st_n512_lv_t512_g_m30$/);
  assert.match(run(100, { route: 'jacobi' }), /^syev_block_/);
  assert.match(run(100, { force: { design: 'block' } }), /^syev_block_/);
  assert.match(run(8, { route: 'tridiag' }), /^syev_tridiag_d_st_n8_/);
  assert.match(run(100, { tridiag: { global: true, threads: 64 } }), /^syev_tridiag_d_st_n100_lv_t64_g_m30$/);
  // One block per matrix, the plan's threads and shared bytes.
  run(100);
  assert.deepEqual([launches[0]!.config.grid, launches[0]!.config.block], [[3, 1, 1], [128, 1, 1]]);
  assert.equal(launches[0]!.config.sharedBytes, tridiagLayout(plan(100)).sharedBytes);
  // The family's own launcher, a list batch: the pointer form.
  const mats = [dev.alloc('float32', 40 * 40), dev.alloc('float32', 40 * 40)];
  launches.length = 0;
  syevTridiagCuda(dev, { jobz: 'values', uplo: 'upper', a: list(mats, { rows: 40 }) as Batch<DeviceArray>,
    w: strided(dev.alloc('float32', 80), { rows: 40, cols: 1, count: 2 }), info: dev.alloc('int32', 2) });
  assert.deepEqual(launches.map((l) => l.entry).filter((e) => e.startsWith('syev')), ['syev_tridiag_s_pa_n40_un_t64_s_m30']);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('tridiagonal syev kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const sources = FULL_COMPILE
    ? [33, 40, 47, 64, 100, 128, 160, 256, 512].flatMap((n) => [
      syevTridiagSource(plan(n)), syevTridiagSource(plan(n, 'float32', false)), syevTridiagSource({ ...plan(n, 'float32'), kind: 'pointer', uplo: 'upper' }),
      syevTridiagSource(plan(n, 'float64', false, { global: true })), syevTridiagSource(plan(n, 'float64', true, { global: true, threads: 64 }))])
    : [syevTridiagSource(plan(64)), syevTridiagSource({ ...plan(512, 'float32'), kind: 'pointer', uplo: 'upper' }), syevTridiagSource(plan(128, 'float32', false))];
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

/**
 * The complex heev's tridiagonal design (kernels/zheev/) without a GPU: the generators are pure and
 * every parameter changes the source and the entry; the kernels read only the `uplo` triangle and
 * the diagonal's real parts, and write A only with vectors; the plan (threads, the tridiag family's
 * values, vectors and clusters kernels, the slices) and its errors; the launcher's launches on a recording
 * device (reduce, values, vectors, clusters, store; the workspace's real slices then complex slices; list
 * batches by pointer tables; no host read); the tridiag family's plan unchanged by the shared face;
 * and (where nvcc is installed) the kernels compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import {
  complexHeevTridiagCuda, complexSlice, planZheevTridiag, storeParts, zheevReduceSource, zheevStoreSource, zheevTridiagServes,
  type ZheevReduceParams, type ZheevStoreParams,
} from '../../src/cuda/kernels/zheev/index.js';
import { planSteinKernels, planSyevStein, steinParts, steinSlice, tridiagSteinSource } from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { recordingDevice } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { assertClustersAfterVectors } from '../helpers/stein-clusters.js';

const plan = (n: number, dtype: DType = 'float64', vectors = true) => planZheevTridiag({ dtype, n, uplo: 'lower', vectors, kind: 'strided' });
const num = (x: { value: unknown } | undefined): number => Number(x!.value);

describe('the generators', () => {
  it('are pure; every parameter changes the source and the entry', () => {
    const r = plan(64).reduce;
    assert.equal(zheevReduceSource(r).source, zheevReduceSource({ ...r }).source);
    const reduces: ZheevReduceParams[] = [r, { ...r, dtype: 'float32' }, { ...r, n: 65 }, { ...r, uplo: 'upper' }, { ...r, kind: 'pointer' }, { ...r, threads: 32 }];
    const rs = reduces.map(zheevReduceSource);
    assert.equal(new Set(rs.map((s) => s.source)).size, reduces.length);
    assert.equal(new Set(rs.map((s) => s.entry)).size, reduces.length);
    const s = plan(64).store;
    assert.equal(zheevStoreSource(s).source, zheevStoreSource({ ...s }).source);
    const stores: ZheevStoreParams[] = [s, { ...s, dtype: 'float32' }, { ...s, n: 65 }, { ...s, vectors: false }, { ...s, kind: 'pointer' }, { ...s, threads: 32 }];
    const ss = stores.map(zheevStoreSource);
    assert.equal(new Set(ss.map((x) => x.source)).size, stores.length);
    assert.equal(new Set(ss.map((x) => x.entry)).size, stores.length);
    assert.match(rs[0]!.entry, /^zheev_tridiag_reduce_z_st_n64_l_t64$/);
    assert.match(ss[1]!.entry, /^zheev_tridiag_store_c_st_n64_v_t64$/);
  });

  it("the reduction reads only the uplo triangle and the diagonal's real part, mirrored conjugated; computes in float64 for complex64 data", () => {
    const lower = zheevReduceSource(plan(40).reduce).source;
    assert.match(lower, /if \(i == j\) \{ xr = \(real\)g\[i \+ \(long long\)i \* ldA\]\.x; xi = real\(0\); \}/);
    assert.match(lower, /else if \(i > j\) \{ const io2 t = g\[i \+ \(long long\)j \* ldA\]; xr = \(real\)t\.x; xi = \(real\)t\.y; \}/);
    assert.match(lower, /else \{ const io2 t = g\[j \+ \(long long\)i \* ldA\]; xr = \(real\)t\.x; xi = -\(real\)t\.y; \}/);
    assert.match(zheevReduceSource({ ...plan(40).reduce, uplo: 'upper' }).source, /else if \(i < j\) \{/);
    assert.doesNotMatch(lower, /g\[[^\]]*\] =/, 'A only read');
    const single = zheevReduceSource(plan(40, 'float32').reduce).source;
    assert.match(single, /typedef double real;/);
    assert.match(single, /struct __align__\(8\) io2 \{ float x, y; \};/);
  });

  it('the store writes A only with vectors, NaN for a failed matrix, info n + 2 / n + 1 / 0', () => {
    const vectors = zheevStoreSource(plan(40).store).source;
    const values = zheevStoreSource(plan(40, 'float64', false).store).source;
    assert.match(vectors, /g\[r \+ \(long long\)j \* ldA\] = x;/);
    assert.doesNotMatch(values, /io2\* g/);
    for (const s of [vectors, values]) {
      assert.match(s, /info\[index \? index\[mat\] : mat\] = failed \? N \+ 2 : \(noconv \? N \+ 1 : 0\);/);
      assert.match(s, /w\[j\] = failed \? \(io\)nanReal\(\) : \(io\)ldexp\(lam\[perm\[j\]\], sc\);/);
    }
  });
});

describe('the plan', () => {
  it('serves 33 ... 512 (the router), plans 1 ... 512, a thread per row in whole warps up to 512', () => {
    assert.deepEqual([32, 33, 512, 513].map(zheevTridiagServes), [false, true, true, false]);
    for (const [n, threads, parts] of [[1, 32, 1], [33, 64, 1], [100, 128, 1], [129, 160, 2], [512, 512, 4]] as const) {
      const p = plan(n);
      assert.equal(p.reduce.threads, threads);
      assert.equal(p.store.threads, Math.min(threads, 128), 'the store: a thread per column, at most 128 a block');
      assert.equal(storeParts(p.store), parts);
      assert.equal(storeParts({ ...p.store, vectors: false }), 1);
      assert.deepEqual(p.stein, planSteinKernels(n, true));
      assert.equal(p.slice, steinSlice(n).slice);
      assert.equal(p.cslice, 2 * n * n + 2 * n);
      assert.deepEqual(complexSlice(n), { tau: 2 * n * n, slice: 2 * n * n + 2 * n });
    }
    assert.equal(plan(64, 'float64', false).stein.vectors, undefined, 'values only: no vectors kernel');
    assert.equal(plan(64, 'float64', false).stein.clusters, undefined, 'values only: no clusters kernel');
    assert.equal(planZheevTridiag({ dtype: 'float32', n: 64, uplo: 'upper', vectors: true, kind: 'pointer' }, { force: { threads: 32, steinMaxits: 2 } }).stein.vectors!.maxits, 2);
    for (const [n, force, re] of [[0, {}, /1 <= n <= 512, got 0/], [513, {}, /got 513/], [64, { threads: 48 }, /threads 48/], [64, { steinMaxits: 0 }, /inverse iterations 0/]] as const)
      assert.throws(() => planZheevTridiag({ dtype: 'float64', n, uplo: 'lower', vectors: true, kind: 'strided' }, { force }), re);
  });

  it("the tridiag family's inverse-iteration plan takes the same values, vectors and clusters kernels", () => {
    const tuning = tuningFor('sm_90', 'tridiag');
    for (const n of [33, 100, 512]) {
      const p = planSyevStein({ dtype: 'float64', n, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: 227 * 1024 - 1024 }, tuning);
      assert.deepEqual({ values: p.values, vectors: p.vectors, clusters: p.clusters }, planSteinKernels(n, true));
      assert.deepEqual(p.values, { stage: 'values', n, threads: Math.min(64, 32 * Math.ceil(n / 32)), maxits: 5 });
      assert.deepEqual(p.clusters, { stage: 'clusters', n, threads: n > 256 ? 512 : Math.min(256, 32 * Math.ceil(n / 32)), maxits: 5 });
    }
  });
});

test('the launcher: reduce, values, vectors, clusters, store per chunk over real then complex slices; lists by pointer tables; no host read', () => {
  const { dev, launches } = recordingDevice();
  let reads = 0;
  const download = dev.download.bind(dev);
  dev.download = ((src, dst) => { reads++; return download(src, dst); }) as typeof dev.download;
  for (const [n, count, dtype, jobz] of [[33, 4, 'float64', 'vectors'], [100, 3, 'float32', 'values'], [512, 2, 'float32', 'vectors']] as const) {
    const dt = dtype === 'float64' ? 'complex128' : 'complex64';
    const ld = n + 1, stride = ld * n + 3;
    const a = dev.alloc(dtype, 2 * (stride * count + 5)), w = dev.alloc(dtype, (n + 2) * count), info = dev.alloc('int32', count);
    launches.length = 0;
    complexHeevTridiagCuda(dev, { jobz, uplo: 'upper', a: strided(a, { rows: n, ld, stride, offset: 5, count, dtype: dt }), w: strided(w, { rows: n, cols: 1, stride: n + 2, count }), info });
    const p = planZheevTridiag({ dtype, n, uplo: 'upper', vectors: jobz === 'vectors', kind: 'strided' });
    const entries = launches.map((x) => x.entry);
    assert.deepEqual(entries, [zheevReduceSource(p.reduce).entry, tridiagSteinSource(p.stein.values).entry,
      ...(p.stein.vectors === undefined ? [] : [tridiagSteinSource(p.stein.vectors).entry, tridiagSteinSource(p.stein.clusters!).entry]), zheevStoreSource(p.store).entry], `n = ${n}`);
    assert.equal(p.stein.clusters === undefined, jobz === 'values', 'a clusters kernel exactly with the vectors');
    const [reduce, ...rest] = launches;
    const store = rest.at(-1)!;
    assert.deepEqual([reduce!.config.grid, reduce!.config.block], [[count, 1, 1], [p.reduce.threads, 1, 1]]);
    assert.deepEqual([store.config.grid, store.config.block], [[count, storeParts(p.store), 1], [p.store.threads, 1, 1]]);
    assert.equal(store.config.grid[1], jobz === 'vectors' ? Math.ceil(n / 128) : 1);
    assert.deepEqual([1, 2, 3].map((i) => num(reduce!.args[i])), [5, stride, ld], 'A in pairs');
    assert.deepEqual([5, 6, 7].map((i) => num(store.args[i])), [0, n + 2, n], 'W in reals');
    const slices = BigInt(num(reduce!.args[4])), complexSlices = BigInt(num(reduce!.args[5]));
    assert.equal(complexSlices - slices, BigInt(8 * count * p.slice), 'the complex slices after the chunk\'s real slices');
    assert.deepEqual([BigInt(num(store.args[8])), BigInt(num(store.args[9]))], [slices, complexSlices]);
    const stein = rest.slice(0, -1);
    assert.equal(stein.length, jobz === 'vectors' ? 3 : 1);
    for (const x of stein.slice(0, 2)) {
      assert.deepEqual([x.config.grid, x.config.block], [[count * steinParts(p.stein.values), 1, 1], [p.stein.values.threads, 1, 1]]);
      assert.deepEqual(x.args.map(num), [Number(slices), 0, count]);
    }
    if (jobz === 'vectors') {
      // The clusters kernel: one block a matrix, its own threads, the same slices.
      const clusters = stein[2]!;
      assert.equal(steinParts(p.stein.clusters!), 1);
      assert.deepEqual([clusters.config.grid, clusters.config.block], [[count, 1, 1], [p.stein.clusters!.threads, 1, 1]]);
      assert.deepEqual(clusters.args.map(num), [Number(slices), 0, count]);
    }
  }
  // Chunks (forced: two matrices each): each chunk's launches from its first matrix, its complex slices after its own real slices.
  {
    const n = 40, count = 5, p = planZheevTridiag({ dtype: 'float64', n, uplo: 'lower', vectors: true, kind: 'strided' });
    const a = dev.alloc('float64', 2 * n * n * count), w = dev.alloc('float64', n * count), info = dev.alloc('int32', count);
    launches.length = 0;
    complexHeevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, count, dtype: 'complex128' }), w: strided(w, { rows: n, cols: 1, count }), info },
      { force: { chunkBytes: 2 * 8 * (p.slice + p.cslice) } });
    assert.equal(launches.length, 15, 'three chunks of five launches');
    const reduces = launches.filter((x) => x.entry.startsWith('zheev_tridiag_reduce_'));
    assert.deepEqual(reduces.map((x) => [x.config.grid[0], num(x.args[6])]), [[2, 0], [2, 2], [1, 4]]);
    for (const r of reduces) assert.equal(num(r.args[5]) - num(r.args[4]), 8 * r.config.grid[0] * p.slice);
    assert.deepEqual(launches.filter((x) => x.entry.startsWith('syev_stein_')).map((x) => num(x.args[1])), [0, 0, 0, 2, 2, 2, 4, 4, 4]);
    // Each chunk's clusters launch right after its vectors launch, on the same slices.
    assertClustersAfterVectors(launches, p.stein, [[0, 2], [2, 2], [4, 1]], count);
    assert.deepEqual(launches.filter((x) => x.entry.startsWith('zheev_tridiag_store_')).map((x) => num(x.args[10])), [0, 2, 4]);
  }
  // A list batch: the pointer-form kernels.
  const n = 40, xs = [0, 1, 2].map(() => dev.alloc('float64', 2 * n * n)), ws = [0, 1, 2].map(() => dev.alloc('float64', n)), info = dev.alloc('int32', 3);
  launches.length = 0;
  complexHeevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: list(xs, { rows: n, dtype: 'complex128' }), w: list(ws, { rows: n, cols: 1 }), info });
  assert.match(launches[0]!.entry, /^zheev_tridiag_reduce_z_pa_n40_l_/);
  assert.match(launches.at(-1)!.entry, /^zheev_tridiag_store_z_pa_n40_v_/);
  // Errors before native code; an empty batch launches nothing.
  assert.throws(() => complexHeevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(xs[0]!, { rows: 513, count: 1, dtype: 'complex128' }), w: strided(ws[0]!, { rows: 513, cols: 1, count: 1 }), info }), /n <= 512/);
  launches.length = 0;
  complexHeevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(xs[0]!, { rows: n, count: 0, dtype: 'complex128' }), w: strided(ws[0]!, { rows: n, cols: 1, count: 0 }), info });
  assert.equal(launches.length, 0);
  assert.equal(reads, 0, 'no read back to the host');
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('the complex heev kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const sources = [plan(33), plan(512, 'float32'), { ...plan(100), reduce: { ...plan(100).reduce, kind: 'pointer' as const, uplo: 'upper' as const } }]
    .flatMap((p) => [zheevReduceSource(p.reduce), zheevStoreSource(p.store)]);
  sources.push(zheevStoreSource({ ...plan(512).store, vectors: false, kind: 'pointer' }));
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

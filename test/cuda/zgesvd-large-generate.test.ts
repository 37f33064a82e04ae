/**
 * The complex gesvd's bidiagonalization design (kernels/zbidiag/) without a GPU: the generators are
 * pure and every parameter changes the source and the entry; the reduction reads A (m >= n) or A^H
 * (m < n) and computes in float64 for complex64 data; the store writes U and VT only where asked,
 * VT conjugated; the plan (threads, the tridiag family's upper-half kernels, the bidiag family's
 * vectors kernel, the slices) and its errors; the launcher's launches on a recording device (reduce,
 * values, vectors, clusters, the bidiag vectors kernel, widen, unmqr on views of the complex slices for the
 * sides the job needs, store; chunks; list batches by pointer tables; no host read); the router's
 * route; and (where nvcc is installed) the kernels compile for sm_90 without spills at k = 33, 100, 512.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { bidiagSlice, bidiagVectorsSource } from '../../src/cuda/kernels/bidiag/index.js';
import { planSteinKernels, steinParts, steinSlice, tridiagSteinSource } from '../../src/cuda/kernels/tridiag/index.js';
import {
  complexGesvdBidiagCuda, planZgesvdBidiag, zbidiagReduceSource, zbidiagServes, zbidiagSlice, zbidiagStoreSource, zbidiagWidenSource, zgesvdBidiagCovers,
  type ZbidiagReduceParams, type ZbidiagStoreParams, type ZbidiagWidenParams,
} from '../../src/cuda/kernels/zbidiag/index.js';
import { recordingDevice } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { assertClustersAfterVectors } from '../helpers/stein-clusters.js';

const plan = (m: number, n: number, dtype: DType = 'float64', wantU = true, wantVt = true) => planZgesvdBidiag({ dtype, m, n, wantU, wantVt, kind: 'strided' });
const num = (x: { value: unknown } | undefined): number => Number(x!.value);

describe('the generators', () => {
  it('are pure; every parameter changes the source and the entry', () => {
    const r = plan(64, 40).reduce;
    assert.equal(zbidiagReduceSource(r).source, zbidiagReduceSource({ ...r }).source);
    const reduces: ZbidiagReduceParams[] = [r, { ...r, dtype: 'float32' }, { ...r, m: 65 }, { ...r, n: 41 }, { ...r, kind: 'pointer' }, { ...r, threads: 32 }];
    const rs = reduces.map(zbidiagReduceSource);
    assert.equal(new Set(rs.map((x) => x.source)).size, reduces.length);
    assert.equal(new Set(rs.map((x) => x.entry)).size, reduces.length);
    const w = plan(64, 40).widen!;
    const widens: ZbidiagWidenParams[] = [w, { ...w, k: 41 }, { ...w, rows: 65 }, { ...w, left: false }, { ...w, right: false }, { ...w, threads: 128 }];
    const ws = widens.map(zbidiagWidenSource);
    assert.equal(new Set(ws.map((x) => x.source)).size, widens.length);
    assert.equal(new Set(ws.map((x) => x.entry)).size, widens.length);
    const s = plan(64, 40).store;
    assert.equal(zbidiagStoreSource(s).source, zbidiagStoreSource({ ...s }).source);
    const stores: ZbidiagStoreParams[] = [s, { ...s, dtype: 'float32' }, { ...s, m: 65 }, { ...s, n: 41 }, { ...s, kind: 'pointer' }, { ...s, wantU: false }, { ...s, wantVt: false }, { ...s, threads: 128 }];
    const ss = stores.map(zbidiagStoreSource);
    assert.equal(new Set(ss.map((x) => x.source)).size, stores.length);
    assert.equal(new Set(ss.map((x) => x.entry)).size, stores.length);
    assert.equal(rs[0]!.entry, 'zgesvd_bidiag_reduce_z_st_64x40_t64');
    assert.equal(ss[1]!.entry, 'zgesvd_bidiag_store_c_st_64x40_uv_t256');
    assert.equal(ws[0]!.entry, 'zgesvd_bidiag_widen_64x40_uv_t256');
  });

  it('the reduction reads A or A^H, computes in float64 for complex64 data, and never writes A', () => {
    const tall = zbidiagReduceSource(plan(50, 40).reduce).source;
    assert.match(tall, /const io2 t = g\[i \+ \(long long\)j \* ldA\];\n\s*const real xr = \(real\)t\.x, xi = \(real\)t\.y;/);
    const wide = zbidiagReduceSource(plan(40, 50).reduce).source;
    assert.match(wide, /const io2 t = g\[j \+ \(long long\)i \* ldA\];\n\s*const real xr = \(real\)t\.x, xi = -\(real\)t\.y;/);
    for (const src of [tall, wide]) assert.doesNotMatch(src, /g\[[^\]]*\] =/, 'A only read');
    const single = zbidiagReduceSource(plan(50, 40, 'float32').reduce).source;
    assert.match(single, /typedef double real;/);
    assert.match(single, /struct __align__\(8\) io2 \{ float x, y; \};/);
  });

  it('the store: info K + 2 / K + 1 / 0, S scaled back, U and VT only where asked, VT the conjugate transpose', () => {
    const both = zbidiagStoreSource(plan(50, 40).store).source;
    assert.match(both, /info\[index \? index\[mat\] : mat\] = failed \? K \+ 2 : \(hdr\[9\] != 0 \? K \+ 1 : 0\);/);
    assert.match(both, /so\[r\] = failed \? \(io\)nanReal\(\) : \(io\)ldexp\(sig\[r\], sc\);/);
    assert.match(both, /loadPair\(UB, i \+ \(long long\)r \* M\)/, 'tall: U = Q_B U_B');
    assert.match(both, /loadPair\(VB, j \+ \(long long\)r \* K\)/, 'tall: VT = (P_B V_B)^H');
    assert.match(both, /toIo\(makeReal2\(z\.x, -z\.y\), failed\)/);
    const wide = zbidiagStoreSource(plan(40, 50).store).source;
    assert.match(wide, /loadPair\(VB, i \+ \(long long\)r \* K\)/, 'wide: U = P_B V_B');
    assert.match(wide, /loadPair\(UB, j \+ \(long long\)r \* M\)/, 'wide: VT = (Q_B U_B)^H');
    const values = zbidiagStoreSource(plan(50, 40, 'float64', false, false).store).source;
    assert.doesNotMatch(values, /io2\* uo|io2\* vo/);
  });
});

describe('the plan', () => {
  it('the router sends 33 <= min(m, n) <= 150 with max(m, n) <= 200 (checked on a GPU); plans from 1; a thread per row of G in whole warps, 64 ... 512', () => {
    assert.deepEqual([[32, 40], [33, 33], [40, 33], [200, 150], [150, 200], [151, 151], [33, 201], [33, 4096], [512, 4096]].map(([m, n]) => zbidiagServes(m!, n!)),
      [false, true, true, true, true, false, false, false, false]);
    for (const [m, n, threads, vthreads] of [[1, 1, 64, 64], [40, 33, 64, 64], [33, 40, 64, 64], [100, 100, 128, 128], [4096, 512, 512, 512], [300, 200, 320, 224]] as const) {
      const p = plan(m, n);
      const k = Math.min(m, n), rows = Math.max(m, n);
      assert.equal(p.reduce.threads, threads, `${m}x${n}`);
      assert.deepEqual(p.vectors, { k, rows, threads: vthreads, left: true, right: true });
      assert.deepEqual(p.widen, { k, rows, left: true, right: true, threads: 256 });
      assert.deepEqual(p.stein, planSteinKernels(2 * k, true, 5, { upperHalf: true }));
      assert.deepEqual([p.slice, p.bslice, p.cslice], [steinSlice(2 * k).slice, bidiagSlice(rows, k).slice, zbidiagSlice(rows, k).slice]);
    }
    const c = zbidiagSlice(40, 33);
    for (const x of Object.values(c)) assert.equal(x % 2, 0, 'every complex part at an even element');
    // The sides: tall U from the left reflectors; wide U from the right ones.
    assert.deepEqual([plan(50, 40, 'float64', true, false).vectors.left, plan(50, 40, 'float64', true, false).vectors.right], [true, false]);
    assert.deepEqual([plan(40, 50, 'float64', true, false).vectors.left, plan(40, 50, 'float64', true, false).vectors.right], [false, true]);
    const none = plan(50, 40, 'float64', false, false);
    assert.equal(none.widen, undefined);
    assert.equal(none.stein.vectors, undefined);
    assert.equal(planZgesvdBidiag({ dtype: 'float32', m: 64, n: 40, wantU: true, wantVt: true, kind: 'pointer' }, { force: { threads: 32, steinMaxits: 2 } }).stein.vectors!.maxits, 2);
    for (const [m, n, force, re] of [[0, 5, {}, /got 0 x 5/], [513, 600, {}, /got 513 x 600/], [40, 4097, {}, /max\(m, n\) <= 4096/], [64, 40, { threads: 48 }, /threads 48/]] as const)
      assert.throws(() => planZgesvdBidiag({ dtype: 'float64', m, n, wantU: true, wantVt: true, kind: 'strided' }, { force }), re);
  });
});

test('the launcher: reduce, the Golub-Kahan kernels (values, vectors, clusters), widen, unmqr on the complex slices for the sides asked, store; chunks; lists; no host read', () => {
  const { dev, launches } = recordingDevice();
  let reads = 0;
  const download = dev.download.bind(dev);
  dev.download = ((src, dst) => { reads++; return download(src, dst); }) as typeof dev.download;
  const jobs = [[true, true], [true, false], [false, true], [false, false]] as const;
  for (const [m, n, count, dtype] of [[40, 33, 3, 'float64'], [33, 47, 2, 'float32'], [64, 64, 2, 'float64']] as const) for (const [wantU, wantVt] of jobs) {
    const dt = dtype === 'float64' ? 'complex128' : 'complex64';
    const k = Math.min(m, n), rows = Math.max(m, n), ld = m + 1, stride = ld * n + 3;
    const a = dev.alloc(dtype, 2 * (stride * count + 5)), s = dev.alloc(dtype, (k + 2) * count), info = dev.alloc('int32', count);
    const u = dev.alloc(dtype, 2 * m * k * count), vt = dev.alloc(dtype, 2 * k * n * count);
    launches.length = 0;
    complexGesvdBidiagCuda(dev, {
      a: strided(a, { rows: m, cols: n, ld, stride, offset: 5, count, dtype: dt }), s: strided(s, { rows: k, cols: 1, stride: k + 2, count }),
      ...(wantU ? { u: strided(u, { rows: m, cols: k, count, dtype: dt }) } : {}), ...(wantVt ? { vt: strided(vt, { rows: k, cols: n, count, dtype: dt }) } : {}), info,
    });
    const p = plan(m, n, dtype, wantU, wantVt);
    const what = `${m}x${n} ${wantU}/${wantVt}`;
    const { left, right } = p.vectors;
    const entries = launches.map((x) => x.entry);
    const before = [zbidiagReduceSource(p.reduce).entry, tridiagSteinSource(p.stein.values).entry,
      ...(p.stein.vectors === undefined ? [] : [tridiagSteinSource(p.stein.vectors).entry, tridiagSteinSource(p.stein.clusters!).entry]), bidiagVectorsSource(p.vectors).entry,
      ...(p.widen === undefined ? [] : [zbidiagWidenSource(p.widen).entry])];
    assert.deepEqual(entries.slice(0, before.length), before, what);
    assert.equal(entries.at(-1), zbidiagStoreSource(p.store).entry, what);
    // Between them the zqr family's unmqr (complex128 whatever the data: the workspace is float64): its shared kernel
    // below 64 reflectors, its WY blocks on the complex GEMM from 64.
    const middle = entries.slice(before.length, -1);
    assert.equal(middle.length === 0, !left && !right, what);
    for (const e of middle) assert.match(e, k < 64 ? /^zormqr_z_LN_st$/ : /^(zwy_factor_z_|gemm_\w+_z|zormqr_z_LN_st$)/, what);
    const reduce = launches[0]!, store = launches.at(-1)!;
    assert.deepEqual([reduce.config.grid, reduce.config.block], [[count, 1, 1], [p.reduce.threads, 1, 1]]);
    assert.deepEqual([1, 2, 3].map((i) => num(reduce.args[i])), [5, stride, ld], 'A in pairs');
    assert.deepEqual([1, 2, 3].map((i) => num(store.args[i])), [0, k + 2, k], 'S in reals');
    const slices = num(reduce.args[4]), bslices = num(reduce.args[5]), cslices = num(reduce.args[6]);
    assert.equal(slices - cslices, 8 * count * p.cslice, 'the tridiag slices after the chunk\'s complex slices');
    assert.equal(bslices - slices, 8 * count * p.slice, 'the bidiag slices after the tridiag slices');
    assert.deepEqual([12, 13, 14, 15].map((i) => num(store.args[i])), [slices, bslices, cslices, 0]);
    for (const x of launches.filter((l) => l.entry.startsWith('syev_stein_'))) assert.deepEqual(x.args.map(num), [slices, 0, count]);
    // values and vectors over ceil(2k / threads) blocks a matrix; clusters (exactly with the vectors) right after the vectors, one block a matrix.
    assert.equal(p.stein.clusters === undefined, p.stein.vectors === undefined, what);
    const stein = launches.slice(1, 1 + (p.stein.vectors === undefined ? 1 : 3));
    for (const x of stein.slice(0, 2))
      assert.deepEqual([x.config.grid, x.config.block], [[count * steinParts(p.stein.values), 1, 1], [p.stein.values.threads, 1, 1]], what);
    if (p.stein.clusters !== undefined) {
      assert.equal(steinParts(p.stein.clusters), 1);
      assert.equal(p.stein.clusters.threads, Math.min(256, 32 * Math.ceil(2 * k / 32)));
      assert.deepEqual([stein[2]!.config.grid, stein[2]!.config.block], [[count, 1, 1], [p.stein.clusters.threads, 1, 1]], what);
    }
    const bvec = launches.find((l) => l.entry.startsWith('gesvd_bidiag_vectors_'))!;
    assert.deepEqual(bvec.args.map(num), [slices, bslices, 0, count]);
    // unmqr's views: pairs of the complex slices (A, tau, C offsets from each matrix's slice, stride cslice / 2).
    const c = zbidiagSlice(rows, k);
    const orm = launches.filter((l) => l.entry.startsWith('zormqr_'));
    const view = (l: typeof orm[number]): number[] => [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => num(l.args[i]));
    const expect = (aOff: number, ld: number, tauOff: number, cOff: number): number[] =>
      [cslices, aOff, p.cslice / 2, ld, cslices, tauOff, p.cslice / 2, k, cslices, cOff, p.cslice / 2, ld];
    const views = [...(left ? [expect(c.w / 2, rows, c.tauq / 2, c.ub / 2)] : []), ...(right ? [expect(c.pm / 2 + 1, k, c.taup / 2, c.vb / 2 + 1)] : [])];
    if (k < 64) assert.deepEqual(orm.map(view), views, `${what}: unmqr's views`);
  }
  // Chunks (forced: two matrices each): each chunk's launches from its first matrix.
  {
    const [m, n, count] = [45, 36, 5];
    const p = plan(m, n);
    const a = dev.alloc('float64', 2 * m * n * count), s = dev.alloc('float64', n * count), info = dev.alloc('int32', count);
    launches.length = 0;
    complexGesvdBidiagCuda(dev, { a: strided(a, { rows: m, cols: n, count, dtype: 'complex128' }), s: strided(s, { rows: n, cols: 1, count }), info },
      { force: { chunkBytes: 2 * 8 * (p.slice + p.bslice + p.cslice) } });
    const reduces = launches.filter((x) => x.entry.startsWith('zgesvd_bidiag_reduce_'));
    assert.deepEqual(reduces.map((x) => [x.config.grid[0], num(x.args[7])]), [[2, 0], [2, 2], [1, 4]]);
    assert.deepEqual(launches.filter((x) => x.entry.startsWith('zgesvd_bidiag_store_')).map((x) => num(x.args[15])), [0, 2, 4]);
    // With vectors: each chunk's clusters launch right after its vectors launch, over the chunk's matrices.
    const u = dev.alloc('float64', 2 * m * n * count), vt = dev.alloc('float64', 2 * n * n * count);
    launches.length = 0;
    complexGesvdBidiagCuda(dev, { a: strided(a, { rows: m, cols: n, count, dtype: 'complex128' }), s: strided(s, { rows: n, cols: 1, count }),
      u: strided(u, { rows: m, cols: n, count, dtype: 'complex128' }), vt: strided(vt, { rows: n, cols: n, count, dtype: 'complex128' }), info },
    { force: { chunkBytes: 2 * 8 * (p.slice + p.bslice + p.cslice) } });
    assertClustersAfterVectors(launches, p.stein, [[0, 2], [2, 2], [4, 1]], count);
  }
  // A list batch: the pointer-form kernels.
  const [m, n] = [40, 36];
  const xs = [0, 1, 2].map(() => dev.alloc('float64', 2 * m * n)), ss = [0, 1, 2].map(() => dev.alloc('float64', n)), info = dev.alloc('int32', 3);
  launches.length = 0;
  complexGesvdBidiagCuda(dev, { a: list(xs, { rows: m, cols: n, dtype: 'complex128' }), s: list(ss, { rows: n, cols: 1 }), info });
  assert.match(launches[0]!.entry, /^zgesvd_bidiag_reduce_z_pa_40x36_/);
  assert.match(launches.at(-1)!.entry, /^zgesvd_bidiag_store_z_pa_40x36_nn_/);
  // The router's question; errors before native code; an empty batch launches nothing.
  const one = (rows: number, cols: number) => ({ a: strided(xs[0]!, { rows, cols, count: 1, dtype: 'complex128' as const }), s: strided(ss[0]!, { rows: Math.min(rows, cols), cols: 1, count: 1 }), info });
  assert.deepEqual([one(40, 36), one(32, 32), one(40, 20)].map((r) => zgesvdBidiagCovers(r)), [true, false, false]);
  assert.throws(() => complexGesvdBidiagCuda(dev, one(600, 513)), /min\(m, n\) <= 512/);
  launches.length = 0;
  complexGesvdBidiagCuda(dev, { a: strided(xs[0]!, { rows: m, cols: n, count: 0, dtype: 'complex128' }), s: strided(ss[0]!, { rows: n, cols: 1, count: 0 }), info });
  assert.equal(launches.length, 0);
  assert.equal(reads, 0, 'no read back to the host');
  assert.equal(steinParts(plan(40, 33).stein.values) >= 1, true);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('the complex gesvd kernels compile for sm_90 without spills at k = 33, 100, 512', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const plans = [plan(40, 33), plan(100, 100, 'float32'), plan(512, 4096), { ...plan(512, 512), reduce: { ...plan(512, 512).reduce, kind: 'pointer' as const } }];
  const sources = plans.flatMap((p) => [zbidiagReduceSource(p.reduce), zbidiagWidenSource(p.widen!), zbidiagStoreSource(p.store)]);
  const results = await compileForSm90(sources);
  for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spill stores`);
  const failures = compileFailures(results, noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

/**
 * The bidiagonalization gesvd (kernels/bidiag/) without a GPU: the generators are pure and every
 * parameter changes the source and the entry; the tridiag family's upper-half stein kernels differ from
 * syev's only by that form (syev's text unchanged); the plan (threads, the Golub-Kahan order, which
 * sides of vectors, the slices), its range and its errors; the router's choice; the launcher's launches on a
 * recording device (reduce, values, vectors, clusters, the vectors kernel, ormqr, store; the chunk's tridiag
 * slices then bidiag slices; no host read); and (where nvcc is installed) the kernels compile for
 * sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import {
  bidiagPanelSource, bidiagReduceSource, bidiagReduction, bidiagServes, bidiagSlice, bidiagStoreSource, bidiagVectorsSource, gesvdBidiagCuda, planGesvdBidiag,
  type BidiagForce, type BidiagPanelParams, type BidiagReduceParams, type BidiagStoreParams, type BidiagVectorsParams,
} from '../../src/cuda/kernels/bidiag/index.js';
import { planSteinKernels, steinParts, steinSlice, tridiagSteinSource } from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { ROUTES } from '../../src/cuda/router.js';
import { recordingDevice } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { assertClustersAfterVectors } from '../helpers/stein-clusters.js';

const tuning = tuningFor('sm_90', 'bidiag');
const plan = (m: number, n: number, dtype: DType = 'float64', wantU = true, wantVt = true, force?: BidiagForce) =>
  planGesvdBidiag({ dtype, m, n, wantU, wantVt, kind: 'strided' }, tuning, { force });
const num = (x: { value: unknown } | undefined): number => Number(x!.value);

describe('the generators', () => {
  it('are pure; every parameter changes the source and the entry', () => {
    const r = plan(70, 64).reduce;
    assert.equal(bidiagReduceSource(r).source, bidiagReduceSource({ ...r }).source);
    const reduces: BidiagReduceParams[] = [r, { ...r, dtype: 'float32' }, { ...r, m: 71 }, { ...r, n: 63 }, { ...r, m: 64, n: 70 }, { ...r, kind: 'pointer' }, { ...r, threads: 64 }];
    const v = plan(70, 64).vectors;
    const vectors: BidiagVectorsParams[] = [v, { ...v, k: 63 }, { ...v, rows: 71 }, { ...v, threads: 128 }, { ...v, left: false }, { ...v, right: false }];
    const s = plan(70, 64).store;
    const stores: BidiagStoreParams[] = [s, { ...s, dtype: 'float32' }, { ...s, m: 71 }, { ...s, m: 64, n: 70 }, { ...s, kind: 'pointer' }, { ...s, wantU: false }, { ...s, wantVt: false }, { ...s, threads: 128 }];
    const distinct = <P>(gen: (p: P) => { source: string; entry: string }, ps: readonly P[]): void => {
      const out = ps.map(gen);
      assert.equal(new Set(out.map((x) => x.source)).size, ps.length);
      assert.equal(new Set(out.map((x) => x.entry)).size, ps.length);
    };
    distinct(bidiagReduceSource, reduces);
    distinct(bidiagVectorsSource, vectors);
    distinct(bidiagStoreSource, stores);
    assert.equal(bidiagReduceSource(r).entry, 'gesvd_bidiag_reduce_d_st_70x64_t96');
  });

  it("the blocked reduction's kernels: the panel, the load and tail stages; pure, every parameter in the source and the entry", () => {
    const b = plan(100, 64, 'float64', true, true, { reduction: 'panels', nb: 8 }).blocked!;
    assert.equal(bidiagPanelSource(b.panel).source, bidiagPanelSource({ ...b.panel }).source);
    const panels: BidiagPanelParams[] = [b.panel, { ...b.panel, rows: 101 }, { ...b.panel, k: 63 }, { ...b.panel, threads: 64 }, { ...b.panel, nb: 16 }];
    const out = panels.map(bidiagPanelSource);
    assert.equal(new Set(out.map((x) => x.source)).size, panels.length);
    assert.equal(new Set(out.map((x) => x.entry)).size, panels.length);
    assert.equal(out[0]!.entry, 'gesvd_bidiag_labrd_100x64_t128_b8');
    const r = plan(100, 64).reduce;
    const stages: BidiagReduceParams[] = [r, { ...r, stage: 'load' }, { ...r, stage: 'tail', from: 56 }, { ...r, stage: 'tail', from: 48 }];
    const st = stages.map(bidiagReduceSource);
    assert.deepEqual(st.map((x) => x.entry), ['gesvd_bidiag_reduce_d_st_100x64_t128', 'gesvd_bidiag_reduce_d_st_100x64_t128_load', 'gesvd_bidiag_reduce_d_st_100x64_t128_from56', 'gesvd_bidiag_reduce_d_st_100x64_t128_from48']);
    assert.equal(new Set(st.map((x) => x.source)).size, stages.length);
    // The load stage loads, checks and scales only; the tail stage reads A not at all and starts at its column.
    assert.match(st[1]!.source, /hdr\[2\] = failed \? 1 : 0; hdr\[3\] = sc;/);
    assert.doesNotMatch(st[1]!.source, /for \(int i = 0; i < K; \+\+i\)/);
    assert.doesNotMatch(st[2]!.source, /\(real\)g\[/);
    assert.match(st[2]!.source, /for \(int i = 56; i < K; \+\+i\)/);
    assert.match(st[2]!.source, /dd\[i\] = se\[2 \* i\]; ee\[i\] = se\[2 \* i \+ 1\];/);
    assert.match(st[0]!.source, /for \(int i = 0; i < K; \+\+i\)/);
    assert.throws(() => bidiagReduceSource({ ...r, stage: 'tail', from: 64 }), /first column 64/);
    assert.throws(() => bidiagPanelSource({ ...b.panel, nb: 64 }), /1 \.\.\. 63/);
    // d and e of the panels' columns where the tail stage reads them; X and Y in UB and VB.
    const ps = out[0]!.source;
    assert.match(ps, /se\[2 \* i\] = dq; tauq\[i\] = tq;/);
    assert.match(ps, /W\[at\(i, i \+ 1\)\] = real\(1\); se\[2 \* i \+ 1\] = de; taup\[i\] = tp;/);
    assert.match(ps, /real\* X = UB;[\s\S]*real\* Yp = VB;/);
  });

  it('reads A (or A^T for m < n) in float64, writes only S, U and VT, NaN for a failed matrix, info k + 2 / k + 1 / 0', () => {
    assert.match(bidiagReduceSource(plan(70, 64).reduce).source, /const real x = \(real\)g\[i \+ \(long long\)j \* ldA\];/);
    assert.match(bidiagReduceSource(plan(64, 70, 'float32').reduce).source, /const real x = \(real\)g\[j \+ \(long long\)i \* ldA\];/);
    assert.match(bidiagReduceSource(plan(64, 70, 'float32').reduce).source, /typedef double real;[\s\S]*typedef float io;/);
    assert.doesNotMatch(bidiagReduceSource(plan(70, 64).reduce).source, /g\[[^\]]*\] =/, 'A only read');
    const st = bidiagStoreSource(plan(70, 64).store).source;
    assert.match(st, /info\[index \? index\[mat\] : mat\] = failed \? K \+ 2 : \(hdr\[9\] != 0 \? K \+ 1 : 0\);/);
    assert.match(st, /uo\[i \+ \(long long\)r \* ldU\] = failed \? \(io\)nanReal\(\) : \(io\)UB\[/);
    assert.match(st, /vo\[r \+ \(long long\)j \* ldV\] = failed \? \(io\)nanReal\(\) : \(io\)VB\[j/);
    const wide = bidiagStoreSource(plan(64, 70).store).source;
    assert.match(wide, /\(io\)VB\[i \+ \(long long\)r \* K\]/, 'm < n: U from P_B V_B');
    assert.match(wide, /\(io\)UB\[j \+ \(long long\)r \* M\]/, 'm < n: VT from Q_B U_B');
    assert.doesNotMatch(bidiagStoreSource(plan(70, 64, 'float64', false, false).store).source, /io\* uo|io\* vo/);
  });

  it("the tridiag family's upper-half kernels: only that form differs; syev's text is unchanged", () => {
    const half = planSteinKernels(128, true, 5, { upperHalf: true }), whole = planSteinKernels(128, true);
    for (const stage of ['values', 'vectors'] as const) {
      const h = tridiagSteinSource(half[stage]!), w = tridiagSteinSource(whole[stage]!);
      assert.equal(h.entry, `${w.entry}_h`);
      assert.doesNotMatch(w.source, /lowest/);
      assert.match(h.source, /const int lowest = a \+ \(b - a \+ 2\) \/ 2;/);
    }
    assert.match(tridiagSteinSource(half.values).source, /lamg\[k\] = -1\.7976931348623157e308; return;/);
    // A cluster never starts below the block's first computed row (in both kernels that find clusters).
    assert.match(tridiagSteinSource(half.vectors!).source, /while \(c0 > lowest && lam\[c0\] - lam\[c0 - 1\] <= ortol\) --c0;/);
    assert.match(tridiagSteinSource(half.clusters!).source, /for \(int c0 = a \+ \(bs \+ 1\) \/ 2, members = 1;/);
    assert.throws(() => planSteinKernels(513, true), /n <= 512/);
    assert.equal(planSteinKernels(1024, true, 5, { upperHalf: true }).values.n, 1024);
    assert.throws(() => planSteinKernels(1025, true, 5, { upperHalf: true }), /n <= 1024/);
  });
});

describe('the plan', () => {
  it('serves min(m, n) = 96 ... 512 with max(m, n) <= 4096 (the table); the router takes it there, jacobi elsewhere', () => {
    assert.deepEqual([[32, 32], [33, 33], [95, 95], [96, 96], [100, 95], [512, 512], [513, 513], [4096, 100], [4097, 100], [100, 4096]].map(([m, n]) => bidiagServes(m!, n!, 'float64', tuning)),
      [false, false, false, true, false, true, false, true, false, true]);
    assert.deepEqual(ROUTES.gesvd.map((c) => c.name), ['bidiag', 'jacobi', 'split', 'cusolver-gesvd', 'cpu']);
  });

  it('threads, the Golub-Kahan order 2k (upper half), the sides of vectors, the slices', () => {
    for (const [m, n, threads] of [[33, 33, 64], [100, 40, 128], [40, 100, 128], [512, 512, 512], [2000, 100, 512]] as const) {
      const p = plan(m, n);
      const k = Math.min(m, n), rows = Math.max(m, n);
      assert.equal(p.reduce.threads, threads);
      assert.deepEqual(p.stein, planSteinKernels(2 * k, true, 5, { upperHalf: true }));
      assert.equal(p.vectors.threads, Math.max(64, Math.min(512, 32 * Math.ceil(k / 32))));
      assert.deepEqual([p.vectors.k, p.vectors.rows], [k, rows]);
      assert.equal(p.slice, steinSlice(2 * k).slice);
      assert.equal(p.bslice, bidiagSlice(rows, k).slice);
      assert.equal(p.bslice, 2 * rows * k + 2 * k * k + 3 * k);
    }
    // Which of U_B (left, G's) and V_B (right) each job needs: G = A^T for m < n swaps them.
    assert.deepEqual([plan(50, 40, 'float64', true, false).vectors, plan(40, 50, 'float64', true, false).vectors].map((v) => [v.left, v.right]), [[true, false], [false, true]]);
    const values = plan(50, 40, 'float64', false, false);
    assert.equal(values.stein.vectors, undefined, 'values only: no vectors kernel');
    assert.deepEqual([values.vectors.left, values.vectors.right], [false, false]);
    assert.throws(() => plan(513, 513), /min\(m, n\) <= 512/);
    assert.throws(() => plan(5000, 40), /max\(m, n\) <= 4096/);
    assert.throws(() => planGesvdBidiag({ dtype: 'float64', m: 40, n: 40, wantU: true, wantVt: true, kind: 'strided' }, tuning, { force: { threads: 48 } }), /multiple of 32/);
  });

  it("the reduction: panels of the table's 32 columns from k = 256 (the table), forceable either way; the tail 1 ... nb columns", () => {
    assert.deepEqual([tuning.panelsFrom, tuning.panelColumns], [256, 32]);
    assert.deepEqual([96, 192, 255, 256, 512].map((k) => bidiagReduction(k, tuning)), ['unblocked', 'unblocked', 'unblocked', 'panels', 'panels']);
    assert.equal(plan(255, 255).blocked, undefined);
    assert.equal(plan(255, 255).reduce.stage, undefined);
    for (const [m, n, from] of [[256, 256, 224], [512, 512, 480], [300, 260, 256], [260, 300, 256], [257, 257, 256]] as const) {
      const p = plan(m, n);
      const k = Math.min(m, n);
      assert.equal(p.reduce.stage, 'load', `${m} x ${n}`);
      assert.deepEqual(p.blocked!.panel, { rows: Math.max(m, n), k, threads: p.reduce.threads, nb: 32 });
      assert.deepEqual(p.blocked!.tail, { ...p.reduce, stage: 'tail', from });
      assert.ok(k - from >= 1 && k - from <= 32);
    }
    assert.equal(plan(512, 512, 'float64', true, true, { reduction: 'unblocked' }).blocked, undefined);
    assert.equal(plan(40, 33, 'float64', true, true, { reduction: 'panels', nb: 8 }).blocked!.tail.from, 32);
    assert.equal(plan(40, 40, 'float64', true, true, { reduction: 'panels', nb: 8 }).blocked!.tail.from, 32);
    assert.equal(plan(40, 33, 'float64', true, true, { reduction: 'panels', nb: 33 }).blocked, undefined, 'k <= nb: no panel');
    assert.equal(plan(40, 33, 'float64', true, true, { reduction: 'panels', nb: 33 }).reduce.stage, undefined);
    assert.throws(() => plan(40, 33, 'float64', true, true, { reduction: 'panels', nb: 0 }), (e: Error & { argument?: string }) => /1 \.\.\. 64/.test(e.message));
    assert.throws(() => plan(40, 33, 'float64', true, true, { reduction: 'blocked' as 'panels' }), /'unblocked' or 'panels'/);
  });
});

test('the launcher: reduce, values, vectors, clusters, the vectors kernel, ormqr, store per chunk; tridiag then bidiag slices; no host read', () => {
  const { dev, launches } = recordingDevice();
  let reads = 0;
  const download = dev.download.bind(dev);
  dev.download = ((src, dst) => { reads++; return download(src, dst); }) as typeof dev.download;
  for (const [m, n, count, dtype, wantU, wantVt] of [[40, 33, 3, 'float64', true, true], [33, 70, 2, 'float32', true, false], [64, 64, 2, 'float64', false, false]] as const) {
    const k = Math.min(m, n);
    const ld = m + 1, stride = ld * n + 3;
    const a = dev.alloc(dtype, stride * count + 5), s = dev.alloc(dtype, k * count), u = dev.alloc(dtype, m * k * count), vt = dev.alloc(dtype, k * n * count), info = dev.alloc('int32', count);
    launches.length = 0;
    gesvdBidiagCuda(dev, {
      a: strided(a, { rows: m, cols: n, ld, stride, offset: 5, count }), s: strided(s, { rows: k, cols: 1, count }),
      u: wantU ? strided(u, { rows: m, cols: k, count }) : undefined, vt: wantVt ? strided(vt, { rows: k, cols: n, count }) : undefined, info,
    });
    const p = planGesvdBidiag({ dtype, m, n, wantU, wantVt, kind: 'strided' }, tuning);
    const entries = launches.map((x) => x.entry);
    const head = [bidiagReduceSource(p.reduce).entry, tridiagSteinSource(p.stein.values).entry,
      ...(p.stein.vectors === undefined ? [] : [tridiagSteinSource(p.stein.vectors).entry, tridiagSteinSource(p.stein.clusters!).entry]), bidiagVectorsSource(p.vectors).entry];
    assert.deepEqual(entries.slice(0, head.length), head, `${m} x ${n}`);
    assert.equal(entries.at(-1), bidiagStoreSource(p.store).entry);
    const ormqr = entries.slice(head.length, -1);
    assert.equal(ormqr.length > 0, wantU || wantVt, `${m} x ${n}: ormqr launches only with vectors`);
    const reduce = launches[0]!, store = launches.at(-1)!;
    assert.deepEqual([reduce.config.grid, reduce.config.block], [[count, 1, 1], [p.reduce.threads, 1, 1]]);
    assert.deepEqual([1, 2, 3].map((i) => num(reduce.args[i])), [5, stride, ld]);
    const slices = num(reduce.args[4]), bslices = num(reduce.args[5]);
    assert.equal(bslices - slices, 8 * count * p.slice, "the bidiag slices after the chunk's tridiag slices");
    assert.deepEqual([num(store.args[12]), num(store.args[13])], [slices, bslices]);
    assert.equal(p.stein.clusters === undefined, p.stein.vectors === undefined, 'a clusters kernel exactly with the vectors kernel');
    for (const x of launches.slice(1, 1 + (p.stein.vectors === undefined ? 1 : 2))) {
      assert.deepEqual([x.config.grid, x.config.block], [[count * steinParts(p.stein.values), 1, 1], [p.stein.values.threads, 1, 1]]);
      assert.deepEqual(x.args.map(num), [slices, 0, count]);
    }
    if (p.stein.clusters !== undefined) {
      // The clusters kernel right after the vectors kernel: one block a matrix, its own threads, the same slices.
      const clusters = launches[3]!;
      assert.equal(steinParts(p.stein.clusters), 1);
      assert.equal(p.stein.clusters.threads, Math.min(256, 32 * Math.ceil(2 * k / 32)));
      assert.deepEqual([clusters.config.grid, clusters.config.block], [[count, 1, 1], [p.stein.clusters.threads, 1, 1]]);
      assert.deepEqual(clusters.args.map(num), [slices, 0, count]);
    }
  }
  // Chunks (forced: two matrices each): each chunk's launches from its first matrix.
  {
    const m = 40, n = 36, count = 5, k = 36;
    const p = plan(m, n);
    const a = dev.alloc('float64', m * n * count), s = dev.alloc('float64', k * count), info = dev.alloc('int32', count);
    launches.length = 0;
    gesvdBidiagCuda(dev, { a: strided(a, { rows: m, cols: n, count }), s: strided(s, { rows: k, cols: 1, count }), info }, { force: { chunkBytes: 2 * 8 * (p.slice + p.bslice) } });
    const reduces = launches.filter((x) => x.entry.startsWith('gesvd_bidiag_reduce_'));
    assert.deepEqual(reduces.map((x) => [x.config.grid[0], num(x.args[6])]), [[2, 0], [2, 2], [1, 4]]);
    // With vectors: each chunk's clusters launch right after its vectors launch, over the chunk's matrices.
    const u = dev.alloc('float64', m * k * count), vt = dev.alloc('float64', k * n * count);
    launches.length = 0;
    gesvdBidiagCuda(dev, { a: strided(a, { rows: m, cols: n, count }), s: strided(s, { rows: k, cols: 1, count }), u: strided(u, { rows: m, cols: k, count }), vt: strided(vt, { rows: k, cols: n, count }), info },
      { force: { chunkBytes: 2 * 8 * (p.slice + p.bslice) } });
    assertClustersAfterVectors(launches, p.stein, [[0, 2], [2, 2], [4, 1]], count);
  }
  // The blocked reduction (forced, panels of 8): load, each panel then its two GEMMs, the tail stage, then the rest as before.
  {
    const m = 40, n = 33, count = 3, k = 33;
    const force = { reduction: 'panels', nb: 8 } as const;
    const p = plan(m, n, 'float64', true, true, force);
    const a = dev.alloc('float64', m * n * count), s = dev.alloc('float64', k * count), u = dev.alloc('float64', m * k * count), vt = dev.alloc('float64', k * n * count), info = dev.alloc('int32', count);
    launches.length = 0;
    gesvdBidiagCuda(dev, { a: strided(a, { rows: m, cols: n, count }), s: strided(s, { rows: k, cols: 1, count }), u: strided(u, { rows: m, cols: k, count }), vt: strided(vt, { rows: k, cols: n, count }), info }, { force });
    const entries = launches.map((x) => x.entry);
    const panel = bidiagPanelSource(p.blocked!.panel).entry, tail = bidiagReduceSource(p.blocked!.tail).entry;
    assert.equal(entries[0], bidiagReduceSource(p.reduce).entry);
    const panels = launches.flatMap((x, i) => (x.entry === panel ? [i] : []));
    assert.deepEqual(panels.map((i) => num(launches[i]!.args.at(-1))), [0, 8, 16, 24], 'the panels at 0, nb, ...');
    const tailAt = entries.indexOf(tail);
    assert.equal(entries[tailAt + 1], tridiagSteinSource(p.stein.values).entry, 'the tail stage, then the values kernel');
    const between = [...panels.slice(1), tailAt].map((end, j) => entries.slice(panels[j]! + 1, end));
    for (const g of between) assert.ok(g.length >= 2 && g.every((e) => e.includes('gemm')), `GEMMs after each panel: ${g.join(', ')}`);
    const [slices, bslices] = [num(launches[0]!.args[4]), num(launches[0]!.args[5])];
    assert.deepEqual(launches[panels[0]!]!.args.map(num), [slices, bslices, 0, count, 0]);
    assert.deepEqual([launches[panels[0]!]!.config.grid, launches[panels[0]!]!.config.block], [[count, 1, 1], [p.blocked!.panel.threads, 1, 1]]);
    assert.deepEqual(launches[tailAt]!.args.map(num), launches[0]!.args.map(num), 'the tail stage takes the reduce arguments');
  }
  assert.equal(reads, 0, 'no read back to the host');
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('the bidiagonalization gesvd kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const blocked = [plan(96, 96, 'float64', true, true, { reduction: 'panels' }), plan(256, 256), plan(512, 512, 'float32'), plan(512, 2000)]
    .flatMap((p) => [bidiagPanelSource(p.blocked!.panel), bidiagReduceSource(p.blocked!.tail)]);
  const sources = [plan(33, 33), plan(512, 512, 'float32'), plan(100, 300), plan(512, 512, 'float32', true, true, { reduction: 'unblocked' })]
    .flatMap((p) => [bidiagReduceSource(p.reduce), bidiagVectorsSource(p.vectors), bidiagStoreSource(p.store), tridiagSteinSource(p.stein.values), tridiagSteinSource(p.stein.vectors!)])
    .concat(blocked);
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

/**
 * Complex heev on the GPU without one (kernels/zjacobi/): the plan (lanes per matrix, matrices per
 * block within 256 threads and the static shared memory, forced shapes checked), the generator
 * (pure, every parameter changes the source, distinct entry names), the router's complex list
 * ('jacobi' for strided and list batches of n <= 32, the CPU reference beyond, force as for the
 * other complex routes), what the launcher passes the kernel (A counted
 * in pairs, W in reals) for device and host data, and an nvcc compile for sm_90 of representative
 * kernels (n = 32, both dtypes, with vectors; every kernel under MYRIAD_FULL_COMPILE=1) with no
 * spills. The numerics: test/cuda/zheev-host-emulation.test.ts (opt-in) and test/gpu/zheev.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { warpLanes } from '../../src/cuda/kernels/common/warp-shape.js';
import { heevRowsSource, heevWarpSharedBytes, heevWarpSource, planHeev, selectHeev, ZHEEV_MAX, type HeevWarpParams } from '../../src/cuda/kernels/zjacobi/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { compileForSm90, compileSet, FULL_COMPILE, NVCC_SKIP } from '../helpers/nvcc.js';

const plan = (over: Partial<HeevWarpParams> = {}): HeevWarpParams => ({ ...planHeev({ dtype: 'float64', n: 8, uplo: 'lower', vectors: true, kind: 'strided' }), ...over });
const num = argNumber;
const fails = (f: () => unknown, code: string, argument: string, message?: RegExp): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument && (message === undefined || message.test(e.message)));

describe('complex heev: the plan and the generator', () => {
  it('lanes: the power of two >= n rounded up to even (2 ... 32); matrices per block within 256 threads and 48 KiB', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32].map(warpLanes), [2, 2, 4, 4, 8, 8, 16, 16, 32, 32, 32]);
    for (const dtype of ['float64', 'float32'] as const) for (const vectors of [true, false]) for (let n = 1; n <= ZHEEV_MAX; n++) {
      const p = planHeev({ dtype, n, uplo: 'upper', vectors, kind: 'pointer' });
      assert.ok(p.threads * p.perBlock <= 256 && p.perBlock % (32 / p.threads) === 0, `${dtype} n = ${n}: ${p.threads} x ${p.perBlock}`);
      assert.ok(heevWarpSharedBytes(p) <= 48 * 1024, `${dtype} n = ${n}: ${heevWarpSharedBytes(p)} bytes`);
      const more = { ...p, perBlock: p.perBlock + 32 / p.threads };
      assert.ok(more.threads * more.perBlock > 256 || heevWarpSharedBytes(more) > 48 * 1024, `${dtype} n = ${n}: the most that fit`);
    }
    // complex128 n = 32 with vectors: A and V, 2 x 32 x 33 pairs of 16 bytes, one matrix a block.
    assert.equal(planHeev({ dtype: 'float64', n: 32, uplo: 'lower', vectors: true, kind: 'strided' }).perBlock, 1);
    assert.equal(planHeev({ dtype: 'float32', n: 32, uplo: 'lower', vectors: true, kind: 'strided' }).perBlock, 2);
  });

  it('forced shapes are checked; orders outside 1 ... 32 are refused', () => {
    assert.equal(planHeev({ dtype: 'float64', n: 5, uplo: 'lower', vectors: false, kind: 'strided' }, { force: { perBlock: 8 } }).perBlock, 8);
    fails(() => planHeev({ dtype: 'float64', n: 5, uplo: 'lower', vectors: false, kind: 'strided' }, { force: { perBlock: 3 } }), 'UNSUPPORTED', 'force.perBlock', /multiple of 4/);
    fails(() => planHeev({ dtype: 'float64', n: 32, uplo: 'lower', vectors: true, kind: 'strided' }, { force: { perBlock: 2 } }), 'UNSUPPORTED', 'force.perBlock', /shared bytes/);
    fails(() => planHeev({ dtype: 'float64', n: 33, uplo: 'lower', vectors: true, kind: 'strided' }), 'UNSUPPORTED', 'a', /1 <= n <= 32, got 33/);
    fails(() => planHeev({ dtype: 'float32', n: 0, uplo: 'lower', vectors: true, kind: 'strided' }), 'UNSUPPORTED', 'a', /got 0/);
  });

  it('pure: the same parameters give the same source; every parameter changes it and the entry', () => {
    assert.deepEqual(heevWarpSource(plan()), heevWarpSource(plan()));
    const base = heevWarpSource(plan());
    assert.equal(base.entry, 'heev_warp_z_st_n8_lv_t8x16_s30');
    assert.equal(heevWarpSource(plan({ dtype: 'float32', uplo: 'upper', vectors: false, kind: 'pointer' })).entry, 'heev_warp_c_pa_n8_un_t8x16_s30');
    const entries = new Set([base.entry]);
    for (const over of [{ dtype: 'float32' }, { n: 7 }, { uplo: 'upper' }, { vectors: false }, { kind: 'pointer' }, { threads: 16 }, { perBlock: 8 }, { maxSweeps: 5 }] as Partial<HeevWarpParams>[]) {
      const s = heevWarpSource(plan(over));
      assert.notEqual(s.source, base.source, JSON.stringify(over));
      entries.add(s.entry);
    }
    assert.equal(entries.size, 9, 'distinct entry names');
  });

  it("reads only the uplo triangle and the diagonal's real part; writes A only with vectors", () => {
    const lower = heevWarpSource(plan()).source;
    assert.match(lower, /if \(i == j\) x\.x = g\[i \+ \(long long\)j \* ldA\]\.x;/);
    assert.match(lower, /else if \(i > j\) x = g\[i \+ \(long long\)j \* ldA\];/);
    assert.match(heevWarpSource(plan({ uplo: 'upper' })).source, /else if \(i < j\) x = g/);
    assert.match(lower, /z\[i \+ \(long long\)j \* ldA\] =/);
    const values = heevWarpSource(plan({ vectors: false })).source;
    assert.doesNotMatch(values, /z\[i/);
    assert.doesNotMatch(values, /sV/);
  });
});

describe('complex heev: the router and the launcher', () => {
  it("lists cuSOLVER's batched eigensolver (inside the card's rules), the own kernels ('jacobi' to 32, 'tridiag' to 512, as the real heev's routes), then the CPU reference", () => {
    assert.deepEqual(COMPLEX_ROUTES.heev.map((c) => c.name), ['cusolver', 'jacobi', 'tridiag', 'cpu']);
  });

  it('device data, n = 1 ... 32: the GPU route, one launch, A in pairs and W in reals', () => {
    const { ctx, dev } = recordingContext();
    try {
      for (const n of [1, 5, 16, 32]) for (const dtype of ['complex128', 'complex64'] as const) for (const jobz of ['vectors', 'values'] as const) {
        const part = dtype === 'complex128' ? 'float64' : 'float32';
        const count = 3, ld = n + 2, stride = ld * n + 1;
        const a = strided(ctx.alloc(part, 2 * (4 + stride * count)), { rows: n, ld, stride, offset: 4, count, dtype });
        const w = strided(ctx.alloc(part, 1 + (n + 1) * count), { rows: n, cols: 1, stride: n + 1, offset: 1, count });
        dev.launches.length = 0;
        ctx.heev({ jobz, uplo: 'upper', a, w });
        assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'jacobi', gpu: true });
        assert.equal(dev.launches.length, 1);
        const { src, args, config } = dev.launches[0]!;
        // The table's design (the warp design below 9, the rows design from 9).
        const chosen = selectHeev({ dtype: part, n, uplo: 'upper', vectors: jobz === 'vectors', kind: 'strided' });
        assert.equal(chosen.design, n >= 9 ? 'rows' : 'warp');
        if (chosen.design === 'warp') {
          const p = chosen.params;
          assert.equal(src.entry, heevWarpSource(p).entry);
          assert.deepEqual([config.grid[0], config.block[0]], [Math.ceil(count / p.perBlock), p.threads * p.perBlock]);
        } else {
          assert.equal(src.entry, heevRowsSource(chosen.params).entry);
          assert.equal(config.block[0], 32 * chosen.params.warps);
        }
        assert.deepEqual([1, 2, 3].map((i) => num(args[i])), [4, stride, ld], 'A: offset, stride, ld in pairs');
        assert.deepEqual([5, 6, 7].map((i) => num(args[i])), [1, n + 1, n], 'W: offset, stride, ld in reals');
        assert.equal(num(args[10]), count);
      }
    } finally {
      ctx.dispose();
    }
  });

  it('host data is staged and reaches the kernel in pairs again; a list batch as pointer tables, W counted in reals', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [6, 4];
      const A = new Float32Array(2 * ((n + 1) * n * count + 3)).fill(1);
      const W = new Float32Array(n * count);
      ctx.heev({ a: strided(A, { rows: n, ld: n + 1, offset: 3, count, dtype: 'complex64' }), w: strided(W, { rows: n, cols: 1, count }) });
      assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'jacobi', gpu: true });
      const { src, args } = dev.launches.at(-1)!;
      assert.match(src.entry, /^heev_warp_c_st_n6_lv_/);
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, (n + 1) * n, n + 1], 'staged from its first pair: offset 0, ld and stride in pairs');
      const xs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * n * n));
      const ws = [0, 1, 2].map(() => ctx.alloc('float64', n));
      ctx.heev({ jobz: 'values', a: list(xs, { rows: n, dtype: 'complex128' }), w: list(ws, { rows: n, cols: 1 }) });
      assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'jacobi', gpu: true });
      assert.match(dev.launches.at(-1)!.src.entry, /^heev_warp_z_pa_n6_ln_/);
    } finally {
      ctx.dispose();
    }
  });

  it("n = 33 ... 512 runs 'tridiag' (zheev/), beyond it the CPU reference; force pins a route, and an unknown one or an order the kernel lacks is an error", () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const cx = (n: number, count = 2) => strided(ctx.alloc('float64', 2 * n * n * count), { rows: n, count, dtype: 'complex128' });
      const wv = (n: number, count = 2) => strided(ctx.alloc('float64', n * count), { rows: n, cols: 1, count });
      for (const n of [33, 512]) {
        dev.launches.length = 0;
        ctx.heev({ a: cx(n), w: wv(n) });
        assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'tridiag', gpu: true });
        assert.deepEqual(dev.launches.map((l) => l.src.entry.replace(/_n\d+.*$/, '')),
          ['zheev_tridiag_reduce_z_st', 'syev_stein_values', 'syev_stein_vectors', 'syev_stein_clusters', 'zheev_tridiag_store_z_st'], `n = ${n}: reduce, values, vectors, clusters, store`);
      }
      dev.launches.length = 0;
      ctx.heev({ a: cx(513, 1), w: wv(513, 1) });
      assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'cpu', gpu: false });
      assert.equal(dev.launches.length, 0, 'nothing launched');
      backend.force = { heev: 'cpu' };
      ctx.heev({ a: cx(40), w: wv(40) });
      assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'cpu', gpu: false });
      assert.equal(dev.launches.length, 0, 'nothing launched');
      backend.force = { heev: 'jacobi' };
      fails(() => ctx.heev({ a: cx(33), w: wv(33) }), 'UNSUPPORTED', 'a.rows', /n <= 32, got 33/);
      backend.force = { heev: 'tridiag' };
      fails(() => ctx.heev({ a: cx(513, 1), w: wv(513, 1) }), 'UNSUPPORTED', 'a.rows', /n <= 512 \(the router from 33\), got 513/);
      ctx.heev({ a: cx(4), w: wv(4) });
      assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'tridiag', gpu: true });
      assert.match(dev.launches.at(-1)!.src.entry, /^heev_warp_z_st_n4_/, "the route 'tridiag' runs the Jacobi warp design to 32");
      backend.force = { heev: 'ql' };
      fails(() => ctx.heev({ a: cx(4), w: wv(4) }), 'ENUM', 'force', /heev on complex data has no route 'ql' \(routes: cusolver, jacobi, tridiag, cpu\)/);
    } finally {
      ctx.dispose();
    }
  });

  it('n = 0 writes info 0 without a Jacobi kernel', () => {
    const { ctx, dev } = recordingContext();
    try {
      ctx.heev({ a: strided(ctx.alloc('float64', 2), { rows: 0, count: 3, dtype: 'complex128' }), w: strided(ctx.alloc('float64', 1), { rows: 0, cols: 1, count: 3 }) });
      assert.deepEqual(dev.launches.map((l) => l.src.entry), ['info_zero']);
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex heev: nvcc for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, () => {
  it('compiles without spills (registers reported)', async () => {
    const sources: KernelSource[] = [];
    for (const dtype of ['float64', 'float32'] as const) for (const vectors of [true, false]) for (let n = 1; n <= ZHEEV_MAX; n++) {
      for (const kind of ['strided', 'pointer'] as const) sources.push(heevWarpSource(planHeev({ dtype, n, uplo: n % 2 === 0 ? 'lower' : 'upper', vectors, kind })));
    }
    const picked = compileSet(sources, (e) => /^heev_warp_[zc]_pa_n32_lv_/.test(e));
    assert.equal(picked.length, FULL_COMPILE ? sources.length : 2);
    const results = await compileForSm90(picked);
    for (const r of results) {
      assert.ok(!('error' in r), `${r.src.entry}: ${'error' in r ? r.error : ''}`);
      if ('error' in r) continue;
      assert.equal(r.report.spillStores, 0, `${r.src.entry} spills: ${r.report.log}`);
      assert.ok(r.report.registers <= 255, `${r.src.entry}: ${r.report.registers} registers`);
    }
  });
});

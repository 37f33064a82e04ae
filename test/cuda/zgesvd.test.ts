/**
 * Complex gesvd on the GPU without one (kernels/zjacobi/): the plan (lanes from min(m, n),
 * matrices per block within 256 threads and the static shared memory, orders refused past 32), the
 * generator (pure, every parameter changes the source, distinct entry names), the router's complex
 * list ('jacobi' for strided and list batches with max(m, n) <= 32, the CPU reference beyond, force
 * as for the other complex routes), what the launcher passes the kernel (A, U, VT counted in pairs,
 * S in reals, a null operand for a vector not asked for) for device and host data, and an nvcc
 * compile for sm_90 of representative kernels (32 x 32 both dtypes; every kernel listed under
 * MYRIAD_FULL_COMPILE=1) with no spills. The numerics: test/cuda/zgesvd-host-emulation.test.ts
 * (opt-in) and test/gpu/zgesvd.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { gesvdWarpSharedBytes, gesvdWarpSource, planGesvd, ZGESVD_MAX, type GesvdWarpParams } from '../../src/cuda/kernels/zjacobi/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { compileForSm90, compileSet, FULL_COMPILE, NVCC_SKIP } from '../helpers/nvcc.js';

const plan = (over: Partial<GesvdWarpParams> = {}): GesvdWarpParams => ({ ...planGesvd({ dtype: 'float64', m: 9, n: 6, wantU: true, wantVt: true, kind: 'strided' }), ...over });
const num = argNumber;
const fails = (f: () => unknown, code: string, argument: string, message?: RegExp): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument && (message === undefined || message.test(e.message)));

describe('complex gesvd: the plan and the generator', () => {
  it('lanes from min(m, n); matrices per block within 256 threads and 48 KiB; orders past 32 refused', () => {
    assert.equal(planGesvd({ dtype: 'float64', m: 32, n: 3, wantU: true, wantVt: true, kind: 'strided' }).threads, 4);
    assert.equal(planGesvd({ dtype: 'float64', m: 3, n: 32, wantU: true, wantVt: true, kind: 'strided' }).threads, 4);
    assert.equal(planGesvd({ dtype: 'float64', m: 32, n: 32, wantU: true, wantVt: true, kind: 'strided' }).perBlock, 1);
    for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of [[1, 1], [32, 1], [1, 32], [17, 9], [9, 17], [32, 31], [32, 32]] as const) {
      const p = planGesvd({ dtype, m, n, wantU: false, wantVt: true, kind: 'pointer' });
      assert.ok(p.threads * p.perBlock <= 256 && gesvdWarpSharedBytes(p) <= 48 * 1024, `${dtype} ${m}x${n}`);
      const more = { ...p, perBlock: p.perBlock + 32 / p.threads };
      assert.ok(more.threads * more.perBlock > 256 || gesvdWarpSharedBytes(more) > 48 * 1024, `${dtype} ${m}x${n}: the most that fit`);
    }
    fails(() => planGesvd({ dtype: 'float64', m: 33, n: 2, wantU: true, wantVt: true, kind: 'strided' }), 'UNSUPPORTED', 'a', /got 33x2/);
    fails(() => planGesvd({ dtype: 'float64', m: 4, n: 0, wantU: true, wantVt: true, kind: 'strided' }), 'UNSUPPORTED', 'a', /got 4x0/);
    assert.equal(ZGESVD_MAX, 32);
  });

  it('pure: the same parameters give the same source; every parameter changes it and the entry', () => {
    assert.deepEqual(gesvdWarpSource(plan()), gesvdWarpSource(plan()));
    const base = gesvdWarpSource(plan());
    assert.match(base.entry, /^gesvd_warp_z_st_9x6_uv_t8x\d+_s30$/);
    const entries = new Set([base.entry]);
    for (const over of [{ dtype: 'float32' }, { m: 10 }, { n: 5 }, { m: 6, n: 9 }, { wantU: false }, { wantVt: false }, { kind: 'pointer' }, { threads: 16 }, { perBlock: 4 }, { maxSweeps: 5 }] as Partial<GesvdWarpParams>[]) {
      const s = gesvdWarpSource(plan(over));
      assert.notEqual(s.source, base.source, JSON.stringify(over));
      entries.add(s.entry);
    }
    assert.equal(entries.size, 11, 'distinct entry names');
    // Tall: G = A, U from G, VT = V^H (conjugated); wide: G = A^H.
    assert.match(base.source, /x = ga\[i \+ \(long long\)j \* ldA\];/);
    assert.match(base.source, /makeReal2\(x\.x, -x\.y\)/);
    assert.match(gesvdWarpSource(plan({ m: 6, n: 9 })).source, /x = ga\[j \+ \(long long\)i \* ldA\]; x\.y = -x\.y;/);
    assert.doesNotMatch(gesvdWarpSource(plan({ wantU: false })).source, /Columns of G for zero singular values/);
  });
});

describe('complex gesvd: the router and the launcher', () => {
  it("lists the own kernels ('jacobi' and 'bidiag', as the real gesvd's routes), then the CPU reference", () => {
    assert.deepEqual(COMPLEX_ROUTES.gesvd.map((c) => c.name), ['jacobi', 'bidiag', 'cpu']);
  });

  it('the router chooses the kernel to max(m, n) = 32 on strided batches, the bidiagonalization design from min(m, n) = 33', () => {
    const { ctx, dev } = recordingContext();
    try {
      const a = strided(ctx.alloc('float64', 2 * 16 * 2), { rows: 4, cols: 4, count: 2, dtype: 'complex128' });
      const s = strided(ctx.alloc('float64', 8), { rows: 4, cols: 1, count: 2 });
      dev.launches.length = 0;
      ctx.gesvd({ a, s, jobu: 'none', jobvt: 'none' });
      assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'jacobi', gpu: true });
      assert.equal(dev.launches.length, 1);
      const big = strided(ctx.alloc('float64', 2 * 33 * 33), { rows: 33, cols: 33, count: 1, dtype: 'complex128' });
      const sb = strided(ctx.alloc('float64', 33), { rows: 33, cols: 1, count: 1 });
      ctx.gesvd({ a: big, s: sb, jobu: 'none', jobvt: 'none' });
      assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'bidiag', gpu: true });
    } finally {
      ctx.dispose();
    }
  });

  it('device data: one launch, A / U / VT in pairs, S in reals, a null operand for a vector not asked for', () => {
    const { ctx, dev, backend } = recordingContext();
    backend.force = { gesvd: 'jacobi' };
    try {
      for (const [m, n] of [[1, 1], [7, 3], [3, 7], [32, 32]] as const) for (const dtype of ['complex128', 'complex64'] as const) {
        const part = dtype === 'complex128' ? 'float64' : 'float32';
        const k = Math.min(m, n), count = 3;
        const cx = (rows: number, cols: number, pad: number) =>
          strided(ctx.alloc(part, 2 * (2 + ((rows + pad) * cols + 1) * count)), { rows, cols, ld: rows + pad, stride: (rows + pad) * cols + 1, offset: 2, count, dtype });
        const s = strided(ctx.alloc(part, 1 + (k + 2) * count), { rows: k, cols: 1, stride: k + 2, offset: 1, count });
        dev.launches.length = 0;
        ctx.gesvd({ a: cx(m, n, 1), s, u: cx(m, k, 2), jobvt: 'none' });
        assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'jacobi', gpu: true });
        const { src, args } = dev.launches.at(-1)!;
        assert.match(src.entry, new RegExp(`^gesvd_warp_${dtype === 'complex128' ? 'z' : 'c'}_st_${m}x${n}_un_`));
        assert.deepEqual([1, 2, 3].map((i) => num(args[i])), [2, (m + 1) * n + 1, m + 1], 'A in pairs');
        assert.deepEqual([5, 6, 7].map((i) => num(args[i])), [1, k + 2, k], 'S in reals');
        assert.deepEqual([9, 10, 11].map((i) => num(args[i])), [2, (m + 2) * k + 1, m + 2], 'U in pairs');
        assert.deepEqual([12, 13, 14, 15].map((i) => num(args[i])), [0, 0, 0, 1], 'no VT');
        assert.equal(num(args[18]), count);
      }
    } finally {
      ctx.dispose();
    }
  });

  it('host data is staged and reaches the kernel in pairs; list batches as pointer tables', () => {
    const { ctx, dev, backend } = recordingContext();
    backend.force = { gesvd: 'jacobi' };
    try {
      const [m, n, count] = [5, 4, 3];
      const A = new Float32Array(2 * (m * n * count + 3)).fill(1);
      ctx.gesvd({
        a: strided(A, { rows: m, cols: n, offset: 3, count, dtype: 'complex64' }), s: strided(new Float32Array(n * count), { rows: n, cols: 1, count }),
        u: strided(new Float32Array(2 * m * n * count), { rows: m, cols: n, count, dtype: 'complex64' }),
        vt: strided(new Float32Array(2 * n * n * count), { rows: n, cols: n, count, dtype: 'complex64' }),
      });
      assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'jacobi', gpu: true });
      const staged = dev.launches.at(-1)!;
      assert.match(staged.src.entry, /^gesvd_warp_c_st_5x4_uv_/);
      assert.deepEqual([num(staged.args[1]), num(staged.args[2]), num(staged.args[3])], [0, m * n, m], 'staged from its first pair: offset 0, ld and stride in pairs');
      const xs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * m * n));
      ctx.gesvd({
        a: list(xs, { rows: m, cols: n, dtype: 'complex128' }), s: list([0, 1, 2].map(() => ctx.alloc('float64', n)), { rows: n, cols: 1 }),
        jobu: 'none', vt: list([0, 1, 2].map(() => ctx.alloc('float64', 2 * n * n)), { rows: n, cols: n, dtype: 'complex128' }),
      });
      assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'jacobi', gpu: true });
      assert.match(dev.launches.at(-1)!.src.entry, /^gesvd_warp_z_pa_5x4_nv_/);
    } finally {
      ctx.dispose();
    }
  });

  it('max(m, n) > 32 with min(m, n) < 33 runs on the CPU reference; force pins a route, and an unknown one or a shape the kernel lacks is an error', () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const cx = (m: number, n: number) => strided(ctx.alloc('float64', 2 * m * n * 2), { rows: m, cols: n, count: 2, dtype: 'complex128' });
      const sv = (k: number) => strided(ctx.alloc('float64', k * 2), { rows: k, cols: 1, count: 2 });
      dev.launches.length = 0;
      ctx.gesvd({ a: cx(33, 4), s: sv(4), jobu: 'none', jobvt: 'none' });
      assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'cpu', gpu: false });
      backend.force = { gesvd: 'cpu' };
      ctx.gesvd({ a: cx(4, 4), s: sv(4), jobu: 'none', jobvt: 'none' });
      assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'cpu', gpu: false });
      backend.force = { gesvd: 'jacobi' };
      fails(() => ctx.gesvd({ a: cx(4, 33), s: sv(4), jobu: 'none', jobvt: 'none' }), 'UNSUPPORTED', 'a.rows', /max\(m, n\) <= 32, got 4x33/);
      backend.force = { gesvd: 'block' };
      fails(() => ctx.gesvd({ a: cx(4, 4), s: sv(4), jobu: 'none', jobvt: 'none' }), 'ENUM', 'force', /gesvd on complex data has no route 'block' \(routes: jacobi, bidiag, cpu\)/);
      assert.equal(dev.launches.length, 0, 'nothing launched');
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex gesvd: nvcc for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, () => {
  it('compiles without spills (registers reported)', async () => {
    const sources: KernelSource[] = [];
    for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of [[1, 1], [32, 1], [1, 32], [8, 8], [32, 7], [7, 32], [31, 17], [32, 32]] as const)
      for (const [wantU, wantVt] of [[true, true], [true, false], [false, true], [false, false]] as const)
        for (const kind of ['strided', 'pointer'] as const) sources.push(gesvdWarpSource(planGesvd({ dtype, m, n, wantU, wantVt, kind })));
    const picked = compileSet(sources, (e) => /^gesvd_warp_[zc]_pa_32x32_uv_/.test(e));
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

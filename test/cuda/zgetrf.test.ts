/**
 * Complex LU on the GPU without one (complex-lu/): the plan and the generated kernels' names, the
 * router's complex lists and `covers` (n <= 32, strided and list batches; larger orders on the CPU
 * reference; `force` as for gemm), what the launchers pass a kernel (pairs counted as the
 * batch counts them, list batches as pointer tables, nrhs) for device and host data, the empty
 * cases, and, where nvcc is installed, representative kernels compiled for sm_90 without spills.
 * Their numerics: zgetrf-host-emulation.test.ts (opt-in) and test/gpu/zgetrf.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import {
  complexGesvSource, complexGetrfCovers, complexGetrfSource, complexGetrsSource, complexSolveCovers, planComplexGesv, planComplexGetrf, planComplexGetrs,
} from '../../src/cuda/kernels/complex-lu/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

describe('complex LU: the plan and the kernels', () => {
  it('names z / c kernels by size, form and right-hand sides per pass (at most 4, more passes beyond)', () => {
    assert.equal(complexGetrfSource(planComplexGetrf('float64', 8, 8, 'strided')).entry, 'getrf_z_8x8_st_w4');
    assert.equal(complexGetrfSource(planComplexGetrf('float32', 32, 7, 'pointer')).entry, 'getrf_c_32x7_pa_w4');
    assert.equal(complexGesvSource(planComplexGesv('float64', 32, 9, 'strided', 'pointer')).entry, 'gesv_z_n32_r4m_stpa_w2');
    assert.equal(complexGesvSource(planComplexGesv('float32', 5, 2, 'pointer', 'strided')).entry, 'gesv_c_n5_r2_past_w4');
    for (const trans of ['N', 'T', 'C'] as const) assert.equal(complexGetrsSource(planComplexGetrs('float64', 12, 1, trans, 'strided', 'strided')).entry, `trs_z_lu_${trans}_n12_r1_stst_w4`);
  });

  it('the kernels take real2 pairs: aligned to their size, the pivot search on |re| + |im|, conjugated factors only for C', () => {
    const z = complexGetrfSource(planComplexGetrf('float64', 4, 4, 'strided')).source;
    assert.match(z, /struct __align__\(16\) real2/);
    assert.match(z, /abs1Real2\(x\)/);
    assert.match(complexGetrfSource(planComplexGetrf('float32', 4, 4, 'strided')).source, /struct __align__\(8\) real2/);
    assert.match(complexGetrsSource(planComplexGetrs('float64', 4, 1, 'C', 'strided', 'strided')).source, /conjReal2\(a\[j \+ \(long long\)r \* ldA\]\)/);
    assert.doesNotMatch(complexGetrsSource(planComplexGetrs('float64', 4, 1, 'T', 'strided', 'strided')).source, /conjReal2\(a/);
  });

  it('covers: strided and list batches of order at most 32 (getrf: rows and cols); variable batches and larger orders are not taken', () => {
    const d = new Float64Array(2 * 40 * 40 * 2);
    const sq = (n: number, cols = n) => strided(d, { rows: n, cols, count: 2, dtype: 'complex128' });
    assert.ok(complexGetrfCovers(sq(32)) && complexGetrfCovers(sq(32, 5)) && complexGetrfCovers(sq(1)));
    assert.ok(!complexGetrfCovers(sq(33)) && !complexGetrfCovers(sq(5, 33)));
    assert.ok(complexGetrfCovers(list([d, d], { rows: 7, dtype: 'complex128' })));
    assert.ok(!complexGetrfCovers(variable([{ data: d, rows: 3, cols: 3 }])), 'a variable batch (no complex ones exist) is not taken');
    const b = strided(d, { rows: 32, cols: 40, count: 2, dtype: 'complex128' });
    assert.ok(complexSolveCovers(sq(32), b), 'any nrhs');
    assert.ok(!complexSolveCovers(sq(33), strided(d, { rows: 33, cols: 1, count: 2, dtype: 'complex128' })));
  });
});

describe('complex LU: the router', () => {
  it('getrf, getrs and gesv list their kernels, then the CPU reference', () => {
    assert.deepEqual(COMPLEX_ROUTES.getrf.map((c) => c.name), ['getrf', 'cpu']);
    assert.deepEqual(COMPLEX_ROUTES.getrs.map((c) => c.name), ['getrs', 'cpu']);
    assert.deepEqual(COMPLEX_ROUTES.gesv.map((c) => c.name), ['gesv', 'cpu']);
  });
});

const num = argNumber;

describe('complex LU on a CUDA context: the GPU routes', () => {
  it('device data: getrf, getrs and gesv take one launch each, ld / stride / offset in pairs', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [5, 7];
      const a = ctx.alloc('float64', 2 * ((n + 2) * n + 1) * count + 6);
      const b = ctx.alloc('float64', 2 * n * 3 * count);
      const A = strided(a, { rows: n, ld: n + 2, stride: (n + 2) * n + 1, offset: 3, count, dtype: 'complex128' });
      const B = strided(b, { rows: n, cols: 3, count, dtype: 'complex128' });
      const f = ctx.getrf({ a: A });
      assert.deepEqual(ctx.lastRoute, { op: 'getrf', route: 'getrf', gpu: true });
      let { src, config, args } = dev.launches.at(-1)!;
      assert.equal(src.entry, 'getrf_z_5x5_st_w4');
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [3, (n + 2) * n + 1, n + 2], 'A: offset, stride, ld in pairs');
      assert.deepEqual([num(args[5]), num(args[8])], [n, count], 'pivot stride, count');
      // 8 lanes a matrix, 4 matrices a warp, 4 warps a block: 7 matrices in one block.
      assert.deepEqual([config.grid[0], config.block[0]], [1, 128]);
      ctx.getrs({ trans: 'C', a: A, ipiv: f.ipiv, b: B });
      assert.deepEqual(ctx.lastRoute, { op: 'getrs', route: 'getrs', gpu: true });
      ({ src, args } = dev.launches.at(-1)!);
      assert.equal(src.entry, 'trs_z_lu_C_n5_r3_stst_w4');
      assert.deepEqual([num(args[5]), num(args[6]), num(args[7]), num(args[12])], [0, n * 3, n, count]);
      assert.equal(num(args.at(-1)), 3, 'nrhs');
      ctx.gesv({ a: A, b: B });
      assert.deepEqual(ctx.lastRoute, { op: 'gesv', route: 'gesv', gpu: true });
      assert.equal(dev.launches.at(-1)!.src.entry, 'gesv_z_n5_r3_stst_w4');
      assert.equal(dev.launches.length, 3);
    } finally {
      ctx.dispose();
    }
  });

  it('list batches reach the kernels as pointer tables; complex64 names c kernels', () => {
    const { ctx, dev } = recordingContext();
    try {
      const xs = [0, 1, 2].map(() => ctx.alloc('float32', 2 * 9 + 4));
      const ys = [0, 1, 2].map(() => ctx.alloc('float32', 2 * 3 * 6));
      ctx.gesv({ a: list(xs.map((data) => ({ data, offset: 2 })), { rows: 3, dtype: 'complex64' }), b: list(ys, { rows: 3, cols: 6, dtype: 'complex64' }) });
      const { src, args } = dev.launches.at(-1)!;
      assert.equal(src.entry, 'gesv_c_n3_r4m_papa_w4');
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, 0, 3], 'offsets folded into the table');
      assert.equal(num(args.at(-1)), 6);
    } finally {
      ctx.dispose();
    }
  });

  it('host data is staged as real arrays and reaches the kernel counted in pairs again', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [4, 3];
      const A = new Float64Array(2 * ((n + 1) * n) * count + 2);
      ctx.getrf({ a: strided(A, { rows: n, ld: n + 1, offset: 1, count, dtype: 'complex128' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'getrf', route: 'getrf', gpu: true });
      const { src, args } = dev.launches.at(-1)!;
      assert.equal(src.entry, 'getrf_z_4x4_st_w4');
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, (n + 1) * n, n + 1], 'staged from its first pair');
    } finally {
      ctx.dispose();
    }
  });

  it('orders above 32 run on the CPU reference; force pins a route, a forced kernel refuses what it does not take', () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const big = () => strided(ctx.alloc('float64', 2 * 33 * 33), { rows: 33, dtype: 'complex128' });
      ctx.getrf({ a: big() });
      assert.deepEqual(ctx.lastRoute, { op: 'getrf', route: 'cpu', gpu: false });
      assert.equal(dev.launches.length, 0);
      backend.force = { gesv: 'cpu' };
      ctx.gesv({ a: strided(ctx.alloc('float64', 8), { rows: 2, dtype: 'complex128' }), b: strided(ctx.alloc('float64', 4), { rows: 2, cols: 1, dtype: 'complex128' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'gesv', route: 'cpu', gpu: false });
      backend.force = { getrf: 'getrf' };
      assert.throws(() => ctx.getrf({ a: big() }), (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED' && e.argument === 'a');
      backend.force = { getrf: 'vbatched' };
      assert.throws(() => ctx.getrf({ a: big() }), (e: unknown) => e instanceof MyriadError && e.code === 'ENUM' && e.argument === 'force' && /getrf, cpu/.test(e.message));
      assert.equal(dev.launches.length, 0, 'nothing launched');
    } finally {
      ctx.dispose();
    }
  });

  it('no right-hand sides: gesv factors (the getrf kernel); n = 0: info only', () => {
    const { ctx, dev } = recordingContext();
    try {
      ctx.gesv({ a: strided(ctx.alloc('float64', 2 * 9 * 2), { rows: 3, count: 2, dtype: 'complex128' }), b: strided(ctx.alloc('float64', 2), { rows: 3, cols: 0, count: 2, dtype: 'complex128' }) });
      assert.equal(dev.launches.at(-1)!.src.entry, 'getrf_z_3x3_st_w4');
      ctx.getrf({ a: strided(ctx.alloc('float64', 2), { rows: 0, cols: 0, count: 2, dtype: 'complex128' }) });
      assert.equal(dev.launches.at(-1)!.src.entry, 'info_zero');
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex LU kernels compile for sm_90', { skip: NVCC_SKIP }, () => {
  it('representative kernels: no errors, no spills (registers as ptxas reports them)', async () => {
    const sources = [
      complexGetrfSource(planComplexGetrf('float64', 32, 32, 'pointer')),
      complexGesvSource(planComplexGesv('float32', 8, 6, 'strided', 'pointer')),
      complexGetrsSource(planComplexGetrs('float64', 16, 4, 'C', 'strided', 'strided')),
    ];
    const results = await compileForSm90(sources);
    const failures = compileFailures(results, (r) => (r.spillStores > 0 || !(r.registers <= 255) ? `${r.registers} registers, ${r.spillStores} bytes spilled` : undefined));
    assert.deepEqual(failures, []);
    for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spilled`);
  });
});

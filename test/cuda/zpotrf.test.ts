/**
 * Complex Cholesky on the GPU without one (kernels/zpotrf/): the plan (warps as the real small
 * kernels, right-hand sides per pass), the generators (pure, every parameter changes the source,
 * the shared memory within the static limit), the router's complex lists ('potrf', 'potrs', 'posv'
 * for strided and list batches of any order: above 32 the recursion's launches, force
 * as for gemm), what the launchers pass a kernel (pairs counted as the batch counts them) for device
 * and host data, and an nvcc compile for sm_90 of representative kernels (every one under
 * MYRIAD_FULL_COMPILE=1) with no spills. The numerics: test/cuda/zpotrf-host-emulation.test.ts
 * (opt-in) and test/gpu/zpotrf.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import {
  keptStride, planZpotrf, planZsolve, zposvSmallSource, zpotrfSmallSource, zpotrsSmallSource, ZCHOLESKY_MAX_N, ZRHS_MAX,
  type ZpotrfSmallParams, type ZsolveSmallParams,
} from '../../src/cuda/kernels/zpotrf/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { compileForSm90, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';

const potrf = (over: Partial<ZpotrfSmallParams> = {}): ZpotrfSmallParams => ({ ...planZpotrf({ dtype: 'float64', n: 8, uplo: 'lower', kind: 'strided' }), ...over });
const solve = (over: Partial<ZsolveSmallParams> = {}): ZsolveSmallParams => ({
  ...planZsolve({ dtype: 'float64', n: 8, nrhs: 3, uplo: 'lower', kindA: 'strided', kindB: 'strided' }), ...over,
});

describe('complex Cholesky: the plan and the generators', () => {
  it('warps as the real small kernels (4 below n = 16, else 2); right-hand sides per pass min(nrhs, 4), at least 1', () => {
    assert.equal(potrf({ n: 15 }).warps, 4);
    assert.equal(planZpotrf({ dtype: 'float32', n: 16, uplo: 'upper', kind: 'pointer' }).warps, 2);
    assert.deepEqual([0, 1, 3, 4, 9].map((nrhs) => planZsolve({ dtype: 'float64', n: 5, nrhs, uplo: 'lower', kindA: 'strided', kindB: 'pointer' }).rhs), [1, 1, 3, 4, ZRHS_MAX]);
    assert.equal(ZCHOLESKY_MAX_N, 32);
  });

  it('pure: the same parameters give the same source; every parameter changes it', () => {
    assert.deepEqual(zpotrfSmallSource(potrf()), zpotrfSmallSource(potrf()));
    const base = zpotrfSmallSource(potrf()).source;
    for (const over of [{ dtype: 'float32' }, { n: 9 }, { uplo: 'upper' }, { kind: 'pointer' }, { warps: 2 }] as Partial<ZpotrfSmallParams>[]) {
      assert.notEqual(zpotrfSmallSource(potrf(over)).source, base, JSON.stringify(over));
    }
    for (const make of [zposvSmallSource, zpotrsSmallSource]) {
      const s = make(solve()).source;
      for (const over of [{ dtype: 'float32' }, { n: 9 }, { uplo: 'upper' }, { kindA: 'pointer' }, { kindB: 'pointer' }, { warps: 2 }, { rhs: 2 }] as Partial<ZsolveSmallParams>[]) {
        assert.notEqual(make(solve(over)).source, s, `${make.name} ${JSON.stringify(over)}`);
      }
    }
    assert.match(zpotrfSmallSource(potrf({ dtype: 'float32', uplo: 'upper' })).entry, /^zpotrf_c_u_n8_st_w4$/);
    assert.match(zposvSmallSource(solve({ kindB: 'pointer' })).entry, /^zposv_z_l_n8_r3_stpa_w4$/);
    assert.match(zpotrsSmallSource(solve({ n: 32, warps: 2, rhs: 4 })).entry, /^zpotrs_z_l_n32_r4_stst_w2$/);
  });

  it("the solves' kept columns fit the 48 KiB of static shared memory at every order, both dtypes", () => {
    for (const dtype of ['float64', 'float32'] as const) for (let n = 1; n <= ZCHOLESKY_MAX_N; n++) {
      const p = planZsolve({ dtype, n, nrhs: 1, uplo: 'lower', kindA: 'strided', kindB: 'strided' });
      const bytes = p.warps * Math.floor(32 / n) * n * keptStride(n) * (dtype === 'float64' ? 16 : 8);
      assert.ok(bytes <= 48 * 1024, `${dtype} n = ${n}: ${bytes} bytes`);
      assert.equal(keptStride(n) % 2, 1, 'odd: conflict-free column reads');
    }
  });
});

const num = argNumber;
const fails = (f: () => unknown, code: string, argument: string, message?: RegExp): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument && (message === undefined || message.test(e.message)));

describe('complex Cholesky: the router and the launchers', () => {
  it('lists the own kernels, then the CPU reference, named as the real routes (potrf and posv: cuSOLVER\'s z/cpotrfBatched first, by the card\'s table)', () => {
    assert.deepEqual(COMPLEX_ROUTES.potrf.map((c) => c.name), ['cusolver', 'potrf', 'cpu']);
    assert.deepEqual(COMPLEX_ROUTES.potrs.map((c) => c.name), ['potrs', 'cpu']);
    assert.deepEqual(COMPLEX_ROUTES.posv.map((c) => c.name), ['cusolver', 'posv', 'cpu']);
  });

  it("posv's 'cusolver' candidate: the potrf rule's covers (never on a device without the library), and forced: cuSOLVER's factor's kernels, then the own solves keeping B", () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const n = 40, count = 3;
      const a = strided(ctx.alloc('float64', 2 * n * n * count), { rows: n, count, dtype: 'complex128' });
      const b = strided(ctx.alloc('float64', 2 * n * 2 * count), { rows: n, cols: 2, count, dtype: 'complex128' });
      ctx.posv({ a, b, uplo: 'lower' });
      assert.deepEqual(ctx.lastRoute, { op: 'posv', route: 'posv', gpu: true }, 'the library does not load here: the own route');
      dev.launches.length = 0;
      backend.force = { posv: 'cusolver' };
      ctx.posv({ a, b, uplo: 'lower' });
      assert.deepEqual(ctx.lastRoute, { op: 'posv', route: 'cusolver', gpu: true });
      const entries = dev.launches.map((l) => l.src.entry);
      // The scan and info kernels around the (absent) vendor call, then B aside, the two solves, the failed ones' B back.
      assert.ok(entries[0]!.startsWith('vendor_') && entries.includes('vendor_potrf_info'), entries.join(', '));
      const info = entries.indexOf('vendor_potrf_info');
      assert.ok(entries.indexOf('copy_all_d_st') > info && entries.at(-1) === 'copy_failed_d_st', entries.join(', '));
      assert.ok(entries.slice(info).some((e) => e.startsWith('ztrsm')), 'the own solves');
      fails(() => ctx.posv({ a, b, uplo: 'upper' }), 'UNSUPPORTED', 'force', /uplo 'lower'/);
    } finally {
      backend.force = {};
      ctx.dispose();
    }
  });

  it('device data, n = 1 ... 32: the GPU routes, one launch each, ld / stride / offset in pairs, nrhs passed', () => {
    const { ctx, dev } = recordingContext();
    try {
      for (const n of [1, 7, 16, 32]) for (const dtype of ['complex128', 'complex64'] as const) {
        const part = dtype === 'complex128' ? 'float64' : 'float32';
        const count = 3, ld = n + 2, stride = ld * n + 1, nrhs = 5;
        const a = strided(ctx.alloc(part, 2 * (4 + stride * count)), { rows: n, ld, stride, offset: 4, count, dtype });
        const b = strided(ctx.alloc(part, 2 * (n + 1) * nrhs * count), { rows: n, cols: nrhs, ld: n + 1, count, dtype });
        const tag = `${dtype === 'complex128' ? 'z' : 'c'}_u_n${n}`;
        dev.launches.length = 0;
        ctx.potrf({ uplo: 'upper', a });
        assert.deepEqual(ctx.lastRoute, { op: 'potrf', route: 'potrf', gpu: true });
        ctx.potrs({ uplo: 'upper', a, b });
        assert.deepEqual(ctx.lastRoute, { op: 'potrs', route: 'potrs', gpu: true });
        ctx.posv({ uplo: 'upper', a, b });
        assert.deepEqual(ctx.lastRoute, { op: 'posv', route: 'posv', gpu: true });
        assert.deepEqual(dev.launches.map((l) => l.src.entry.replace(/_(st|pa|r\d).*$/, '')), [`zpotrf_${tag}`, `zpotrs_${tag}`, `zposv_${tag}`]);
        for (const { args } of dev.launches) assert.deepEqual([1, 2, 3].map((i) => num(args[i])), [4, stride, ld], 'A: offset, stride, ld in pairs');
        const posvArgs = dev.launches[2]!.args;
        assert.deepEqual([num(posvArgs[5]), num(posvArgs[6]), num(posvArgs[7]), num(posvArgs[10]), num(posvArgs[11])], [0, (n + 1) * nrhs, n + 1, count, nrhs]);
      }
    } finally {
      ctx.dispose();
    }
  });

  it('host data is staged as real arrays and reaches the kernel counted in pairs again; list batches as a pointer table', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [6, 4];
      const A = new Float32Array(2 * ((n + 1) * n * count + 3)).fill(1);
      ctx.potrf({ a: strided(A, { rows: n, ld: n + 1, offset: 3, count, dtype: 'complex64' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'potrf', route: 'potrf', gpu: true });
      const { src, args } = dev.launches.at(-1)!;
      assert.match(src.entry, /^zpotrf_c_l_n6_st_w4$/);
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, (n + 1) * n, n + 1], 'staged from its first pair: offset 0, ld and stride in pairs');
      const xs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * n * n));
      const bs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * n));
      ctx.posv({ a: list(xs, { rows: n, dtype: 'complex128' }), b: list(bs, { rows: n, cols: 1, dtype: 'complex128' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'posv', route: 'posv', gpu: true });
      assert.match(dev.launches.at(-1)!.src.entry, /^zposv_z_l_n6_r1_papa_w4$/);
    } finally {
      ctx.dispose();
    }
  });

  it('n > 32 runs on the GPU (the recursion); force pins a route, and an unknown one is an error', () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const cx = (n: number, count = 2) => strided(ctx.alloc('float64', 2 * n * n * count), { rows: n, count, dtype: 'complex128' });
      const rhs = (n: number) => strided(ctx.alloc('float64', 2 * n * 3 * 2), { rows: n, cols: 3, count: 2, dtype: 'complex128' });
      dev.launches.length = 0;
      ctx.potrf({ a: cx(33) });
      assert.deepEqual(ctx.lastRoute, { op: 'potrf', route: 'potrf', gpu: true });
      const entries = dev.launches.map((l) => l.src.entry);
      assert.deepEqual(entries.filter((e) => e.startsWith('zpotrf_')).length, 2, 'two leaves (32 and 1)');
      assert.equal(entries.filter((e) => e === 'potrf_info_combine').length, 2, 'each leaf\'s info combined');
      assert.ok(entries.some((e) => e.startsWith('ztrsm_z_rlcn_n32')), 'the panel by ztrsm, right, conjugate transpose');
      assert.ok(entries.some((e) => e.startsWith('zherk_z_ln_n1')), 'the trailing update by zherk');
      dev.launches.length = 0;
      ctx.potrs({ uplo: 'upper', a: cx(40), b: rhs(40) });
      assert.deepEqual(ctx.lastRoute, { op: 'potrs', route: 'potrs', gpu: true });
      assert.deepEqual(dev.launches.filter((l) => l.src.entry.startsWith('ztrsm_')).map((l) => l.src.entry.slice(0, 12)),
        ['ztrsm_z_lucn', 'ztrsm_z_lucn', 'ztrsm_z_lunn', 'ztrsm_z_lunn'], 'U^H, then U, each in two leaves');
      dev.launches.length = 0;
      ctx.posv({ a: cx(40), b: rhs(40) });
      assert.deepEqual(ctx.lastRoute, { op: 'posv', route: 'posv', gpu: true });
      assert.deepEqual(dev.launches.filter((l) => l.src.entry.startsWith('copy_')).map((l) => l.src.entry), ['copy_all_d_st', 'copy_failed_d_st'],
        'B kept aside and copied back where info > 0, as the real parts');
      backend.force = { potrf: 'cpu', posv: 'cpu' };
      ctx.potrf({ a: cx(40) });
      assert.deepEqual(ctx.lastRoute, { op: 'potrf', route: 'cpu', gpu: false });
      dev.launches.length = 0;
      backend.force = { posv: 'vbatched' };
      fails(() => ctx.posv({ a: cx(4), b: strided(ctx.alloc('float64', 16), { rows: 4, cols: 1, count: 2, dtype: 'complex128' }) }), 'ENUM', 'force', /posv on complex data has no route 'vbatched' \(routes: cusolver, posv, cpu\)/);
      assert.equal(dev.launches.length, 0, 'nothing launched');
    } finally {
      ctx.dispose();
    }
  });

  it('n = 0 writes info 0 without a Cholesky kernel', () => {
    const { ctx, dev } = recordingContext();
    try {
      ctx.potrf({ a: strided(ctx.alloc('float64', 2), { rows: 0, count: 3, dtype: 'complex128' }) });
      assert.deepEqual(dev.launches.map((l) => l.src.entry), ['info_zero']);
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex Cholesky: nvcc for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, () => {
  it('compiles without spills (registers reported)', async () => {
    const sources: KernelSource[] = [];
    for (const dtype of ['float64', 'float32'] as const) for (const uplo of ['lower', 'upper'] as const) for (let n = 1; n <= ZCHOLESKY_MAX_N; n++) {
      for (const kind of ['strided', 'pointer'] as const) {
        sources.push(zpotrfSmallSource(planZpotrf({ dtype, n, uplo, kind })));
        for (const nrhs of [1, 4]) {
          const p = planZsolve({ dtype, n, nrhs, uplo, kindA: kind, kindB: kind });
          sources.push(zposvSmallSource(p), zpotrsSmallSource(p));
        }
      }
    }
    const picked = compileSet(sources, (e) => /^zpo(trf|sv|trs)_z_u_n32_(r4_stst|st)_w2$/.test(e) || e === 'zposv_c_l_n17_r1_papa_w2');
    const results = await compileForSm90(picked);
    for (const r of results) {
      assert.ok(!('error' in r), `${r.src.entry}: ${'error' in r ? r.error : ''}`);
      if ('error' in r) continue;
      assert.equal(r.report.spillStores, 0, `${r.src.entry} spills: ${r.report.log}`);
      assert.ok(r.report.registers <= 255, `${r.src.entry}: ${r.report.registers} registers`);
    }
  });
});

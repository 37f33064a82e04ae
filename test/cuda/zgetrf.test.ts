/**
 * Complex LU on the GPU without one (complex-lu/): the plan and the generated kernels' names, the
 * router's complex lists and `covers` (strided and list batches of any order; variable batches on
 * the CPU reference; `force` as for gemm), what the launchers pass a kernel (pairs counted as the
 * batch counts them, list batches as pointer tables, nrhs) for device and host data, the blocked
 * steps' launches above 32, the empty cases, and, where nvcc is installed, representative kernels
 * compiled for sm_90 without spills. Their numerics: zgetrf-host-emulation.test.ts and
 * zlu-blocked-host-emulation.test.ts (opt-in), zlu-blocked.test.ts (the steps) and test/gpu/zgetrf.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import {
  WARP_STEP_FROM, WARP_STEP_WARPS, complexGesvLayout, complexGesvSource, complexGetrfCovers, complexGetrfLayout, complexGetrfSource, complexGetrsSource,
  complexSolveCovers, planComplexGesv, planComplexGetrf, planComplexGetrs,
} from '../../src/cuda/kernels/complex-lu/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

describe('complex LU: the plan and the kernels', () => {
  it('names z / c kernels by size, form and right-hand sides per pass (at most 4, more passes beyond)', () => {
    assert.equal(complexGetrfSource(planComplexGetrf('float64', 8, 8, 'strided')).entry, 'getrf_z_8x8_st_w4');
    assert.equal(complexGetrfSource(planComplexGetrf('float32', 16, 7, 'pointer')).entry, 'getrf_c_16x7_pa_w4');
    assert.equal(complexGetrfSource(planComplexGetrf('float32', 32, 7, 'pointer')).entry, 'getrf_c_32x7_pa_w2_warp');
    // complex128 at 32: the reciprocal out of line by default (RECIPROCAL_CALL_FROM); false keeps it inline.
    assert.equal(complexGesvSource(planComplexGesv('float64', 32, 9, 'strided', 'pointer')).entry, 'gesv_z_n32_r4m_stpa_w2_warprc');
    assert.equal(complexGesvSource(planComplexGesv('float64', 32, 9, 'strided', 'pointer', { reciprocalCall: false })).entry, 'gesv_z_n32_r4m_stpa_w2_warp');
    assert.equal(planComplexGetrf('float64', 31, 31, 'strided').reciprocalCall, undefined, 'inline below 32');
    assert.equal(planComplexGetrf('float32', 32, 32, 'strided').reciprocalCall, undefined, 'complex64 inline');
    assert.equal(complexGesvSource(planComplexGesv('float64', 32, 9, 'strided', 'pointer', { step: 'group' })).entry, 'gesv_z_n32_r4m_stpa_w2');
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

  it('the step: the group step to 16 rows, the warp step from WARP_STEP_FROM (17) rows; force picks either and the warps per block', () => {
    assert.equal(WARP_STEP_FROM, 17);
    for (const dtype of ['float64', 'float32'] as const) {
      for (let n = 1; n <= 32; n++) {
        const want = n >= WARP_STEP_FROM ? 'warp' : undefined;
        assert.equal(planComplexGetrf(dtype, n, n, 'strided').step, want, `getrf ${dtype} ${n}`);
        assert.equal(planComplexGesv(dtype, n, 1, 'strided', 'strided').step, want, `gesv ${dtype} ${n}`);
      }
      // The rows decide (the lanes hold rows): a wide 16 x 32 stays on the group step, a tall 32 x 7 takes the warp step.
      assert.equal(planComplexGetrf(dtype, 16, 32, 'strided').step, undefined);
      assert.equal(planComplexGetrf(dtype, 32, 7, 'strided').step, 'warp');
    }
    assert.equal(planComplexGetrf('float64', 32, 32, 'strided').warps, WARP_STEP_WARPS);
    assert.deepEqual(planComplexGetrf('float64', 32, 32, 'strided', { step: 'group' }), { dtype: 'float64', rows: 32, cols: 32, kind: 'strided', warps: 4 }, 'the group step as before: no step field');
    assert.deepEqual(planComplexGetrf('float32', 8, 8, 'pointer', { step: 'warp', warps: 1 }), { dtype: 'float32', rows: 8, cols: 8, kind: 'pointer', warps: 1, step: 'warp' });
    assert.equal(planComplexGesv('float64', 20, 3, 'strided', 'strided', { warps: 4 }).warps, 4);
    for (const warps of [0, 9, 1.5]) {
      assert.throws(() => planComplexGetrf('float64', 32, 32, 'strided', { warps }), (e: unknown) => e instanceof MyriadError && e.argument === 'force.warps');
    }
  });

  it('the warp step: a matrix a warp (one slot a warp), the pivot row in whole 16-byte vectors, the pivot by warp reductions', () => {
    const z = planComplexGetrf('float64', 25, 25, 'strided');
    assert.deepEqual(complexGetrfLayout(z), { dtype: 'float64', rows: 25, lanes: 32, warps: 2, pairs: 25 });
    assert.deepEqual(complexGetrfLayout(planComplexGetrf('float32', 25, 25, 'strided')).pairs, 26, 'complex64: two pairs a vector');
    assert.deepEqual(complexGesvLayout(planComplexGesv('float32', 17, 4, 'strided', 'strided')).pairs, 22);
    const zs = complexGetrfSource(z).source;
    assert.match(zs, /__reduce_max_sync\(0xffffffffu, khi\)/, 'complex128: the key in two words');
    assert.match(zs, /__reduce_min_sync/);
    assert.doesNotMatch(zs, /__shfl_xor_sync/, 'no butterfly');
    assert.match(zs, /const real2 rp = shflReal2\(rec, from\)/, 'the winner\'s reciprocal by a shuffle');
    const cs = complexGetrfSource(planComplexGetrf('float32', 24, 24, 'strided')).source;
    assert.match(cs, /__reduce_max_sync\(0xffffffffu, key\)/, 'complex64: the key in one word');
    assert.match(cs, /const float4 v = /, 'complex64: two pairs a shared load');
    // The reciprocal out of line where forced (and only there); its own name.
    const rc = complexGetrfSource(planComplexGetrf('float64', 25, 25, 'strided', { reciprocalCall: true }));
    assert.equal(rc.entry, 'getrf_z_25x25_st_w2_warprc');
    assert.match(rc.source, /__noinline__ real2 pivotReciprocal/);
    assert.match(zs, /__forceinline__ real2 pivotReciprocal/);
    assert.equal(complexGesvSource(planComplexGesv('float32', 20, 1, 'strided', 'strided', { reciprocalCall: true })).entry, 'gesv_c_n20_r1_stst_w2_warprc');
    assert.equal(planComplexGetrf('float64', 8, 8, 'strided', { reciprocalCall: true }).reciprocalCall, undefined, 'the group step has no such field');
    // gesv solving after the LU (forced): A's pairs alone a row, the bordered column's load and
    // first backward sweep gone, every pass by the forward and backward sweeps; its own name.
    const sa = planComplexGesv('float64', 32, 1, 'strided', 'strided', { solveAfter: true, reciprocalCall: false });
    assert.equal(sa.solveAfter, true);
    assert.equal(complexGesvLayout(sa).pairs, 32, 'no bordered column');
    assert.equal(complexGesvLayout(planComplexGesv('float64', 32, 1, 'strided', 'strided')).pairs, 33);
    const sas = complexGesvSource(sa);
    assert.equal(sas.entry, 'gesv_z_n32_r1_stst_w2_warp_sa');
    assert.match(sas.source, /constexpr int COLS = 32;/);
    assert.doesNotMatch(sas.source, /rA\[ROWS \+ c\]/, 'B never enters the rows');
    assert.match(sas.source, /for \(int q0 = 0; q0 < RB; q0 \+= RB\)/, 'one pass where nrhs <= RB');
    assert.match(complexGesvSource(planComplexGesv('float32', 20, 9, 'strided', 'pointer', { solveAfter: true })).source, /for \(int q0 = 0; q0 < nrhs; q0 \+= RB\)/, 'every pass where nrhs > RB');
    assert.equal(planComplexGesv('float64', 32, 1, 'strided', 'strided').solveAfter, undefined, 'the bordered form by default');
    assert.equal(planComplexGesv('float64', 8, 3, 'strided', 'strided', { solveAfter: true }).solveAfter, true, 'the group step takes it too');
    // The warp step's L2 prefetch (forced): its own name, the hints after the loads, nothing on the host.
    const pf = complexGetrfSource(planComplexGetrf('float64', 32, 32, 'strided', { prefetchWarps: 10, reciprocalCall: false }));
    assert.equal(pf.entry, 'getrf_z_32x32_st_w2_warppf10');
    assert.match(pf.source, /constexpr int PREFETCH_WARPS = 10;/);
    assert.match(pf.source, /prefetch\.global\.L2/);
    assert.match(pf.source, /%%nsmid/);
    assert.ok(pf.source.indexOf('prefetchColumn((A') > pf.source.indexOf('rA[j] = hasRow ? a['), 'after its own loads');
    assert.doesNotMatch(zs, /prefetch/, 'none unless asked');
    const pfs = complexGesvSource(planComplexGesv('float32', 24, 6, 'pointer', 'strided', { prefetchWarps: 16 }));
    assert.equal(pfs.entry, 'gesv_c_n24_r4m_past_w2_warppf16');
    assert.match(pfs.source, /prefetchColumn\(\(A\[next\] \+ offsetA\), ldA, ROWS, ROWS, lane\); prefetchColumn\(\(B \+ offsetB/);
    assert.equal(planComplexGetrf('float64', 8, 8, 'strided', { prefetchWarps: 10 }).prefetchWarps, undefined, 'the group step has no such field');
    for (const bad of [0, 65, 2.5]) {
      assert.throws(() => planComplexGetrf('float64', 24, 24, 'strided', { prefetchWarps: bad }), (e: unknown) => e instanceof MyriadError && e.message.includes('prefetch warps') && e.argument === 'force.prefetchWarps');
    }
    // The group step keeps its text: its layout, its butterfly.
    const g = planComplexGetrf('float64', 24, 24, 'strided', { step: 'group' });
    assert.deepEqual(complexGetrfLayout(g), { dtype: 'float64', rows: 24, lanes: 32, warps: 4, pairs: 24 });
    assert.match(complexGetrfSource(g).source, /__shfl_xor_sync/);
  });

  it('covers: strided and list batches of any order (getrf: any rows and cols); variable batches are not taken', () => {
    const d = new Float64Array(2 * 40 * 40 * 2);
    const sq = (n: number, cols = n) => strided(d, { rows: n, cols, count: 2, dtype: 'complex128' });
    assert.ok(complexGetrfCovers(sq(32)) && complexGetrfCovers(sq(32, 5)) && complexGetrfCovers(sq(1)));
    assert.ok(complexGetrfCovers(sq(33)) && complexGetrfCovers(sq(5, 33)) && complexGetrfCovers(sq(40)));
    assert.ok(complexGetrfCovers(list([d, d], { rows: 7, dtype: 'complex128' })));
    assert.ok(!complexGetrfCovers(variable([{ data: d, rows: 3, cols: 3 }])), 'a variable batch (no complex ones exist) is not taken');
    const b = strided(d, { rows: 32, cols: 40, count: 2, dtype: 'complex128' });
    assert.ok(complexSolveCovers(sq(32), b), 'any nrhs');
    assert.ok(complexSolveCovers(sq(33), strided(d, { rows: 33, cols: 1, count: 2, dtype: 'complex128' })));
    assert.ok(!complexSolveCovers(sq(33), variable([{ data: d, rows: 33, cols: 1 }])));
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

  it('from 17 rows the warp step: a matrix a warp, 2 warps a block; the same arguments as the group step', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [20, 5];
      const A = strided(ctx.alloc('float64', 2 * (n + 1) * n * count), { rows: n, ld: n + 1, count, dtype: 'complex128' });
      ctx.getrf({ a: A });
      let { src, config, args } = dev.launches.at(-1)!;
      assert.equal(src.entry, 'getrf_z_20x20_st_w2_warp');
      assert.deepEqual([config.grid[0], config.block[0]], [3, 64], '5 matrices, 2 a block');
      assert.deepEqual([num(args[3]), num(args[5]), num(args[8])], [n + 1, n, count], 'ld, pivot stride, count');
      ctx.gesv({ a: A, b: strided(ctx.alloc('float64', 2 * n * count), { rows: n, cols: 1, count, dtype: 'complex128' }) });
      ({ src, config } = dev.launches.at(-1)!);
      assert.equal(src.entry, 'gesv_z_n20_r1_stst_w2_warp');
      assert.deepEqual([config.grid[0], config.block[0]], [3, 64]);
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

  it('above 32: the blocked steps on the GPU (panel, swaps, trsm, gemm), pivots and info on the device; force pins a route', () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const [n, ld, count] = [33, 35, 2];
      const A = strided(ctx.alloc('float64', 2 * (4 + ld * n * count)), { rows: n, ld, stride: ld * n, offset: 4, count, dtype: 'complex128' });
      ctx.getrf({ a: A });
      assert.deepEqual(ctx.lastRoute, { op: 'getrf', route: 'getrf', gpu: true });
      const entries = dev.launches.map((l) => l.src.entry);
      // info zeroed; panel 0 (32 columns); its swaps right of it; U12 by the complex trsm; A22 by the complex gemm; panel 1 (1 column); its swaps left of it.
      assert.equal(entries[0], 'info_zero');
      assert.equal(entries[1], 'getrf_z_panel_nb32_t64_st');
      assert.equal(entries[2], 'getrf_laswp_z_st');
      assert.equal(entries.at(-2), 'getrf_z_panel_nb32_t64_st');
      assert.equal(entries.at(-1), 'getrf_laswp_z_st');
      const panels = dev.launches.filter((l) => l.src.entry.startsWith('getrf_z_panel'));
      // A(off, off) of every matrix: offset 4 + off (1 + ld); then m - off rows, the width, off.
      assert.deepEqual(panels.map((l) => [num(l.args[1]), num(l.args[2]), num(l.args[3]), ...l.args.slice(-3).map(num)]),
        [[4, ld * n, ld, 33, 32, 0], [4 + 32 * (1 + ld), ld * n, ld, 1, 1, 32]]);
      assert.deepEqual([panels[0]!.config.grid[0], panels[0]!.config.block[0]], [count, 64]);
      const swaps = dev.launches.filter((l) => l.src.entry.startsWith('getrf_laswp'));
      // From column 32 (1 column) with pivots 0 ... 31, then columns 0 ... 31 with pivot 32.
      assert.deepEqual(swaps.map((l) => [num(l.args[1]), ...l.args.slice(-3).map(num)]), [[4 + 32 * ld, 0, 32, 1], [4, 32, 33, 32]]);
      assert.ok(entries.some((e) => e.includes('gemm')), 'the trailing update by the gemm family');

      backend.force = { getrf: 'vbatched' };
      assert.throws(() => ctx.getrf({ a: A }), (e: unknown) => e instanceof MyriadError && e.code === 'ENUM' && e.argument === 'force' && /getrf, cpu/.test(e.message));
      backend.force = { gesv: 'cpu' };
      ctx.gesv({ a: strided(ctx.alloc('float64', 8), { rows: 2, dtype: 'complex128' }), b: strided(ctx.alloc('float64', 4), { rows: 2, cols: 1, dtype: 'complex128' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'gesv', route: 'cpu', gpu: false });
    } finally {
      ctx.dispose();
    }
  });

  it('above 32, list batches: the panel and the swaps take one pointer table, sub-blocks by the offset argument', () => {
    const { ctx, dev } = recordingContext();
    try {
      const n = 40;
      const xs = [0, 1, 2].map(() => ctx.alloc('float32', 2 * (3 + 41 * n)));
      ctx.getrf({ a: list(xs.map((data) => ({ data, offset: 3 })), { rows: n, ld: 41, dtype: 'complex64' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'getrf', route: 'getrf', gpu: true });
      const panels = dev.launches.filter((l) => l.src.entry.startsWith('getrf_c_panel'));
      assert.deepEqual(panels.map((l) => l.src.entry), ['getrf_c_panel_nb32_t64_pa', 'getrf_c_panel_nb32_t64_pa']);
      // The same table, the second panel's block 32 (1 + ld) pairs on; the table's addresses include each matrix's offset.
      assert.equal(panels[0]!.args[0]!.value, panels[1]!.args[0]!.value);
      assert.deepEqual(panels.map((l) => [num(l.args[1]), num(l.args[3]), ...l.args.slice(-3).map(num)]), [[0, 41, 40, 32, 0], [32 * 42, 41, 8, 8, 32]]);
    } finally {
      ctx.dispose();
    }
  });

  it('above 32, getrs and gesv: the row interchanges of B (forward for N, backward after the solves for T and C) and the complex trsm of order n; gesv keeps B aside', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [40, 2];
      const A = strided(ctx.alloc('float64', 2 * n * n * count), { rows: n, count, dtype: 'complex128' });
      const B = strided(ctx.alloc('float64', 2 * n * 3 * count), { rows: n, cols: 3, count, dtype: 'complex128' });
      const ipiv = ctx.alloc('int32', n * count);
      for (const trans of ['N', 'T', 'C'] as const) {
        const before = dev.launches.length;
        ctx.getrs({ trans, a: A, ipiv, b: B });
        assert.deepEqual(ctx.lastRoute, { op: 'getrs', route: 'getrs', gpu: true });
        const mine = dev.launches.slice(before).map((l) => l.src.entry).filter((e) => e.startsWith('getrf_laswp'));
        assert.deepEqual(mine, [trans === 'N' ? 'getrf_laswp_z_st' : 'getrf_laswp_z_st_r']);
        const entries = dev.launches.slice(before).map((l) => l.src.entry);
        assert.equal(trans === 'N' ? entries[1] : entries.at(-1), mine[0]);
      }
      const before = dev.launches.length;
      ctx.gesv({ a: A, b: B });
      assert.deepEqual(ctx.lastRoute, { op: 'gesv', route: 'gesv', gpu: true });
      const entries = dev.launches.slice(before).map((l) => l.src.entry);
      assert.ok(entries.includes('copy_all_d_st') && entries.at(-1) === 'copy_failed_d_st', 'B copied aside (as the real batch of its parts), the failed ones back last');
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
  it('representative kernels (both steps): no errors, no spills (registers as ptxas reports them)', async () => {
    const sources = [
      complexGetrfSource(planComplexGetrf('float64', 32, 32, 'pointer')),
      complexGetrfSource(planComplexGetrf('float32', 32, 32, 'strided')),
      complexGesvSource(planComplexGesv('float64', 32, 9, 'strided', 'strided')),
      complexGesvSource(planComplexGesv('float32', 8, 6, 'strided', 'pointer')),
      complexGetrsSource(planComplexGetrs('float64', 16, 4, 'C', 'strided', 'strided')),
    ];
    const results = await compileForSm90(sources);
    const failures = compileFailures(results, (r) => (r.spillStores > 0 || !(r.registers <= 255) ? `${r.registers} registers, ${r.spillStores} bytes spilled` : undefined));
    assert.deepEqual(failures, []);
    for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spilled`);
  });
});

/**
 * Complex trmm (kernels/ztrmm/) and zsyrk (kernels/zherk/ with `symmetric`) on the GPU without one:
 * the plan (warps as the real small kernels, vectors per pass), the generators (pure, every
 * parameter changes the source, distinct entries over every variant, what the kernels read, bad
 * parameters refused, zherk's parameter objects unchanged by the option), the recursions' steps run
 * on the CPU reference (leaves by the reference, updates by the complex reference GEMM) against the
 * reference on the whole matrices, the router's complex lists ('trmm', 'syrk': strided and list
 * batches of any order), what the launchers pass a kernel, the empty cases and zsyrk's early return,
 * and an nvcc compile for sm_90 of the order-32 kernels with no spills. The numerics of the kernels:
 * test/cuda/ztrmm-host-emulation.test.ts (opt-in) and test/gpu/ztrmm.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, variable, type StridedBatch } from '../../src/core/batch.js';
import { DTYPE_EPS } from '../../src/core/dtype.js';
import { MyriadError } from '../../src/core/errors.js';
import type { ComplexScalar } from '../../src/core/op-specs.js';
import { cpuGemmComplex } from '../../src/cpu/complex/zgemm.js';
import { cpuSyrkComplex } from '../../src/cpu/complex/zrankk.js';
import { cpuTrmmComplex } from '../../src/cpu/complex/ztrmm.js';
import { planZherk, zherkSmallSource, zsyrkSteps, type ZherkSmallParams } from '../../src/cuda/kernels/zherk/index.js';
import {
  planZtrmm, ZTRMM_MAX_N, ZTRMM_RHS_MAX, complexTrmmCuda, ztrmmSmallSource, ztrmmSteps, type ZtrmmSmallParams,
} from '../../src/cuda/kernels/ztrmm/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import type { GpuDevice, KernelSource } from '../../src/cuda/runtime/types.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { checkOneLaunchTriangular } from '../helpers/ztriangular-launch.js';
import { compileForSm90, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { ZTRSM_VARIANTS } from '../helpers/ztrsm-data.js';

const params = (over: Partial<ZtrmmSmallParams> = {}): ZtrmmSmallParams => ({
  ...planZtrmm({ dtype: 'float64', n: 8, vectors: 3, side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kindA: 'strided', kindB: 'strided' }), ...over,
});
const syrkParams = (over: Partial<ZherkSmallParams> = {}): ZherkSmallParams => ({
  ...planZherk({ dtype: 'float64', n: 8, uplo: 'lower', trans: 'N', kindA: 'strided', kindC: 'strided', symmetric: true }), ...over,
});
const num = argNumber;

describe('complex trmm: the plan and the generator', () => {
  it('warps as the real small kernels (4 below order 16, else 2); vectors per pass min(vectors, 4), at least 1', () => {
    assert.equal(params().warps, 4);
    assert.equal(planZtrmm({ ...params(), n: 16, vectors: 1 }).warps, 2);
    assert.deepEqual([0, 1, 3, 4, 33].map((vectors) => planZtrmm({ ...params(), vectors }).rhs), [1, 1, 3, 4, ZTRMM_RHS_MAX]);
    assert.equal(ZTRMM_MAX_N, 32);
  });

  it('pure: the same parameters give the same source; every parameter changes it; entries are distinct over every variant', () => {
    assert.deepEqual(ztrmmSmallSource(params()), ztrmmSmallSource(params()));
    const base = ztrmmSmallSource(params()).source;
    const overs: Partial<ZtrmmSmallParams>[] = [
      { dtype: 'float32' }, { n: 9 }, { side: 'right' }, { uplo: 'upper' }, { transA: 'T' }, { transA: 'C' }, { diag: 'unit' },
      { kindA: 'pointer' }, { kindB: 'pointer' }, { warps: 2 }, { rhs: 2 },
    ];
    for (const over of overs) assert.notEqual(ztrmmSmallSource(params(over)).source, base, JSON.stringify(over));
    const entries = new Set<string>();
    let total = 0;
    for (const dtype of ['float64', 'float32'] as const) for (const v of ZTRSM_VARIANTS) for (const n of [1, 8, 32]) for (const kindB of ['strided', 'pointer'] as const) {
      entries.add(ztrmmSmallSource(params({ ...v, dtype, n, kindB })).entry);
      total++;
    }
    assert.equal(entries.size, total);
    assert.equal(ztrmmSmallSource(params({ dtype: 'float32', side: 'right', uplo: 'upper', transA: 'C', diag: 'unit', kindA: 'pointer' })).entry, 'ztrmm_c_rucu_n8_r3_past_w4');
  });

  it('reads only its side of the triangle, the diagonal only for non-unit, conjugated only for C; scales after the product, not where alpha is 1', () => {
    const s = (over: Partial<ZtrmmSmallParams>) => ztrmmSmallSource(params(over)).source;
    assert.match(s({}), /\(valid && k < r\) \? a\[r \+ \(long long\)k \* ldA\]/);
    assert.match(s({ transA: 'C' }), /\(valid && k > r\) \? conjReal2\(a\[k \+ \(long long\)r \* ldA\]\)/);
    assert.match(s({ side: 'right', transA: 'T' }), /\(valid && k < r\) \? a\[r \+ \(long long\)k \* ldA\]/, 'right T of a lower A: T = A, lower, by rows');
    assert.match(s({}), /const real2 dr = valid \? a\[r \+ \(long long\)r \* ldA\]/);
    assert.match(s({}), /y\[c\] = mulReal2\(dr, x\[c\]\);/);
    assert.doesNotMatch(s({ diag: 'unit' }), /dr/);
    assert.match(s({ diag: 'unit' }), /y\[c\] = x\[c\];/);
    assert.doesNotMatch(s({ transA: 'T' }), /conjReal2\(a/);
    assert.match(s({ side: 'right' }), /b\[\(q0 \+ c\) \+ \(long long\)r \* ldB\] = scale \? mulReal2\(alpha, y\[c\]\) : y\[c\]/);
    assert.match(s({}), /const bool scale = !\(alphaRe == 1\.0 && alphaIm == 0\.0\)/);
  });

  it('refuses orders outside 1 .. 32, a pass without vectors, a block without warps', () => {
    assert.throws(() => ztrmmSmallSource(params({ n: 0 })), RangeError);
    assert.throws(() => ztrmmSmallSource(params({ n: 33 })), RangeError);
    assert.throws(() => ztrmmSmallSource(params({ rhs: 0 })), RangeError);
    assert.throws(() => ztrmmSmallSource(params({ warps: 0 })), RangeError);
  });

  it('the launcher refuses a variable batch, naming it (the router runs those by shape groups)', () => {
    const d = new Float64Array(2 * 40);
    const refused = (e: unknown): boolean => e instanceof MyriadError && e.code === 'UNSUPPORTED' && e.argument === 'a';
    assert.throws(() => complexTrmmCuda({} as GpuDevice, { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: [1, 0], a: variable([{ data: d, rows: 3 }]), b: variable([{ data: d, rows: 3, cols: 1 }]) } as never), refused);
  });
});

describe('zsyrk: zherk\'s kernel with symmetric', () => {
  it('zherk\'s parameter objects are as they were (no symmetric key); zsyrk\'s carry it', () => {
    const herk = planZherk({ dtype: 'float64', n: 8, uplo: 'lower', trans: 'C', kindA: 'strided', kindC: 'strided' });
    assert.ok(!('symmetric' in herk));
    assert.equal(syrkParams().symmetric, true);
    assert.deepEqual({ ...syrkParams(), symmetric: undefined }, { ...herk, trans: 'N', symmetric: undefined });
  });

  it('pure; no conjugation, complex alpha and beta, a complex diagonal; C not read where beta is 0; entries zsyrk_...', () => {
    assert.deepEqual(zherkSmallSource(syrkParams()), zherkSmallSource(syrkParams()));
    const s = (over: Partial<ZherkSmallParams>) => zherkSmallSource(syrkParams(over));
    assert.equal(s({}).entry, 'zsyrk_z_ln_n8_y8_p4_k32_stst');
    assert.equal(s({ dtype: 'float32', uplo: 'upper', trans: 'T', kindA: 'pointer' }).entry, 'zsyrk_c_ut_n8_y8_p4_k32_past');
    const src = s({ trans: 'T' }).source;
    assert.doesNotMatch(src, /conj/);
    assert.match(src, /sx\[z\]\[l\]\[i\] = \(valid && l0 \+ l < k\) \? a\[\(l0 \+ l\) \+ \(long long\)i \* ldA\]/);
    assert.match(src, /int k, double alphaRe, double alphaIm, double betaRe, double betaIm\)/);
    assert.match(src, /\*cij = readC \? axpbyReal2\(alpha, acc\[s\], beta, \*cij\) : mulReal2\(alpha, acc\[s\]\);/);
    assert.doesNotMatch(src, /diagonal/);
    for (const over of [{ dtype: 'float32' }, { n: 9 }, { uplo: 'upper' }, { trans: 'T' }, { kindA: 'pointer' }, { kindC: 'pointer' }, { rowsY: 4 }, { perBlock: 2 }, { chunk: 8 }] as const) {
      assert.notEqual(s(over).source, s({}).source, JSON.stringify(over));
    }
    const herk = zherkSmallSource({ ...syrkParams(), symmetric: undefined, trans: 'N' });
    assert.notEqual(herk.source, s({}).source);
    assert.match(herk.entry, /^zherk_/);
  });

  it('refuses a conjugating trans for zsyrk and a T for zherk', () => {
    assert.throws(() => zherkSmallSource(syrkParams({ trans: 'C' })), RangeError);
    assert.throws(() => zherkSmallSource({ ...syrkParams(), symmetric: undefined, trans: 'T' }), RangeError);
  });
});

/** Random pairs, rounded to nothing (complex128), in a strided batch of `count` rows x cols matrices with ld rows + 1. */
function randomBatch(rng: Rng, rows: number, cols: number, count: number): StridedBatch<Float64Array> {
  const ld = rows + 1;
  const data = new Float64Array(2 * ld * cols * count);
  for (let f = 0; f < data.length; f++) data[f] = rng.uniform();
  return strided(data, { rows, cols, ld, count, dtype: 'complex128' });
}
const copyOf = (b: StridedBatch<Float64Array>): StridedBatch<Float64Array> => ({ ...b, data: b.data.slice() });
function close(got: Float64Array, want: Float64Array, tol: number, what: string): void {
  let scale = 1;
  for (const w of want) if (Number.isFinite(w)) scale = Math.max(scale, Math.abs(w));
  for (let f = 0; f < got.length; f++) {
    if (Object.is(got[f], want[f])) continue;
    if (!(Math.abs(got[f]! - want[f]!) <= tol * scale)) assert.fail(`${what}: float ${f} is ${got[f]}, expected ${want[f]}`);
  }
}

describe('the recursions, run on the CPU reference', () => {
  it('ztrmmSteps: leaves and GEMM updates in place give the reference\'s trmm (every variant, orders 33 .. 100, alpha 0 without updates)', () => {
    const rng = new Rng(31);
    let i = 0;
    for (const v of ZTRSM_VARIANTS) for (const t of [33, 65, 100]) {
      const vectors = [1, 5][i % 2]!;
      const alpha: ComplexScalar = i % 5 === 4 ? [0, 0] : [0.5, -1.5];
      i++;
      const a = randomBatch(rng, t, t, 2);
      const b = randomBatch(rng, v.side === 'left' ? t : vectors, v.side === 'left' ? vectors : t, 2);
      const want = copyOf(b);
      cpuTrmmComplex({ ...v, alpha, a, b: want });
      const steps = ztrmmSteps({ ...v, alpha, a, b });
      const leaves = steps.filter((s) => s.kind === 'leaf');
      assert.ok(leaves.every((s) => s.request.a.rows <= ZTRMM_MAX_N), 'leaves within the kernel');
      if (alpha[0] === 0) assert.equal(steps.length, leaves.length, 'alpha = 0: leaves only');
      for (const s of steps) {
        if (s.kind === 'leaf') cpuTrmmComplex(s.request);
        else cpuGemmComplex(s.request);
      }
      close(b.data, want.data, 64 * t * DTYPE_EPS.float64, `${v.side}/${v.uplo}/${v.transA}/${v.diag} t = ${t}`);
    }
  });

  it('zsyrkSteps: diagonal leaves and off-diagonal GEMMs give the reference\'s zsyrk on the triangle, the other untouched', () => {
    const rng = new Rng(32);
    for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'T'] as const) for (const n of [33, 70, 100]) {
      const k = 7;
      const a = randomBatch(rng, trans === 'N' ? n : k, trans === 'N' ? k : n, 2);
      const c = randomBatch(rng, n, n, 2);
      const want = copyOf(c);
      const r = { uplo, trans, alpha: [1.25, -0.5] as ComplexScalar, beta: [0.5, 0.25] as ComplexScalar };
      cpuSyrkComplex({ ...r, a, c: want });
      const steps = zsyrkSteps({ ...r, a, c });
      assert.ok(steps.some((s) => s.kind === 'update'));
      for (const s of steps) {
        if (s.kind === 'leaf') cpuSyrkComplex(s.request);
        else cpuGemmComplex(s.request);
      }
      close(c.data, want.data, 64 * k * DTYPE_EPS.float64, `${uplo}/${trans} n = ${n}`);
    }
  });
});

describe('complex trmm and zsyrk: the router and the launchers', () => {
  it('list the own kernels, then the CPU reference, named as the real routes', () => {
    assert.deepEqual(COMPLEX_ROUTES.trmm.map((c) => c.name), ['trmm', 'cpu']);
    assert.deepEqual(COMPLEX_ROUTES.syrk.map((c) => c.name), ['syrk', 'cpu']);
  });

  it('trmm, device data, both sides and dtypes: the GPU route, one launch, ld / stride / offset in pairs, the vectors and alpha passed', () => {
    checkOneLaunchTriangular('trmm');
  });

  it('trmm above 32: leaves and GEMMs in the recursion\'s order, in place on B; alpha = 0: the leaves alone; list batches as pointer tables', () => {
    const { ctx, dev } = recordingContext();
    try {
      const cx = (rows: number, cols: number, count = 2) => strided(ctx.alloc('float64', 2 * rows * cols * count), { rows, cols, count, dtype: 'complex128' });
      dev.launches.length = 0;
      ctx.trmm({ a: cx(33, 33), b: cx(33, 2) });
      assert.deepEqual(ctx.lastRoute, { op: 'trmm', route: 'trmm', gpu: true });
      // Lower, left: B2 (the last row) first, its update from B1, then B1.
      assert.deepEqual(dev.launches.map((l) => l.src.entry.startsWith('ztrmm_') ? l.src.entry : 'gemm'), ['ztrmm_z_llnn_n1_r2_stst_w4', 'gemm', 'ztrmm_z_llnn_n32_r2_stst_w2']);
      dev.launches.length = 0;
      ctx.trmm({ side: 'right', uplo: 'upper', a: cx(100, 100), b: cx(2, 100) });
      assert.equal(dev.launches.filter((l) => l.src.entry.startsWith('ztrmm_')).length, 4, 'leaves 32, 32, 32, 4');
      assert.equal(dev.launches.length, 7, 'and three GEMMs');
      dev.launches.length = 0;
      ctx.trmm({ a: cx(64, 64), b: cx(64, 3), alpha: 0 });
      assert.deepEqual(dev.launches.map((l) => l.src.entry), ['ztrmm_z_llnn_n32_r3_stst_w2', 'ztrmm_z_llnn_n32_r3_stst_w2'], 'alpha = 0: the leaves alone write the zeros');
      const n = 6;
      const xs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * n * n + 4));
      const bs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * 3 * n));
      ctx.trmm({ side: 'right', a: list(xs.map((data) => ({ data, offset: 2 })), { rows: n, dtype: 'complex128' }), b: list(bs, { rows: 3, cols: n, dtype: 'complex128' }) });
      const { src, args } = dev.launches.at(-1)!;
      assert.equal(src.entry, 'ztrmm_z_rlnn_n6_r3_papa_w4');
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, 0, n], 'offsets folded into the table');
    } finally {
      ctx.dispose();
    }
  });

  it('zsyrk: one launch of its kernel for n <= 32 (alpha and beta as four doubles, k 0 where alpha is 0), the recursion above, the early return', () => {
    const { ctx, dev } = recordingContext();
    try {
      const cx = (rows: number, cols: number, count = 2) => strided(ctx.alloc('float64', 2 * rows * cols * count), { rows, cols, count, dtype: 'complex128' });
      dev.launches.length = 0;
      ctx.syrk({ uplo: 'upper', trans: 'T', alpha: [1, -2], a: cx(5, 9), beta: [0.5, 0.25], c: cx(9, 9) });
      assert.deepEqual(ctx.lastRoute, { op: 'syrk', route: 'syrk', gpu: true });
      assert.equal(dev.launches.length, 1);
      let { src, args } = dev.launches[0]!;
      assert.match(src.entry, /^zsyrk_z_ut_n9_/);
      assert.deepEqual(args.slice(10).map(num), [5, 1, -2, 0.5, 0.25], 'k, alpha, beta');
      dev.launches.length = 0;
      ctx.syrk({ alpha: [0, 0], a: cx(9, 5), beta: [2, 0], c: cx(9, 9) });
      ({ args } = dev.launches[0]!);
      assert.equal(num(args[10]), 0, 'alpha = 0: k = 0 (A not read)');
      dev.launches.length = 0;
      ctx.syrk({ alpha: [0, 0], a: cx(9, 5), beta: [1, 0], c: cx(9, 9) });
      ctx.syrk({ alpha: [1, 1], a: cx(9, 0), beta: [1, 0], c: cx(9, 9) });
      ctx.syrk({ a: cx(0, 5), c: cx(0, 0) });
      assert.equal(dev.launches.length, 0, "zsyrk's early return, n = 0: no launch");
      ctx.syrk({ uplo: 'lower', a: cx(70, 3), c: cx(70, 70) });
      assert.deepEqual(ctx.lastRoute, { op: 'syrk', route: 'syrk', gpu: true });
      assert.ok(dev.launches.some((l) => l.src.entry.startsWith('zsyrk_')) && dev.launches.some((l) => l.src.entry.includes('gemm')), 'leaves and GEMMs');
      ({ src } = dev.launches[0]!);
      assert.match(src.entry, /^zsyrk_z_ln_n32_/);
    } finally {
      ctx.dispose();
    }
  });

  it('trmm with nothing to do (no matrices, no vectors, order 0): no launch', () => {
    const { ctx, dev } = recordingContext();
    try {
      const cx = (rows: number, cols: number, count: number) => strided(ctx.alloc('float64', 2 * Math.max(1, rows * cols * count)), { rows, cols, count, dtype: 'complex128' });
      ctx.trmm({ a: cx(4, 4, 0), b: cx(4, 2, 0) });
      ctx.trmm({ a: cx(4, 4, 2), b: cx(4, 0, 2) });
      ctx.trmm({ side: 'right', a: cx(0, 0, 2), b: cx(3, 0, 2) });
      assert.equal(dev.launches.length, 0);
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex trmm and zsyrk: nvcc for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, () => {
  it('compiles without spills at order 32 (registers reported)', async () => {
    const sources: KernelSource[] = [];
    for (const dtype of ['float64', 'float32'] as const) for (const v of ZTRSM_VARIANTS) for (const kind of ['strided', 'pointer'] as const) {
      sources.push(ztrmmSmallSource(planZtrmm({ dtype, n: 32, vectors: 33, ...v, kindA: kind, kindB: kind })));
    }
    for (const dtype of ['float64', 'float32'] as const) for (const trans of ['N', 'T'] as const) {
      sources.push(zherkSmallSource(planZherk({ dtype, n: 32, uplo: 'upper', trans, kindA: 'strided', kindC: 'pointer', symmetric: true })));
    }
    const picked = compileSet(sources, (e) => e === 'ztrmm_z_llnn_n32_r4_stst_w2' || e === 'ztrmm_c_rucn_n32_r4_papa_w2' || e.startsWith('zsyrk_z_ut_n32'));
    const results = await compileForSm90(picked);
    for (const r of results) {
      assert.ok(!('error' in r), `${r.src.entry}: ${'error' in r ? r.error : ''}`);
      if ('error' in r) continue;
      assert.equal(r.report.spillStores, 0, `${r.src.entry} spills: ${r.report.log}`);
      assert.ok(r.report.registers <= 255, `${r.src.entry}: ${r.report.registers} registers`);
    }
  });
});

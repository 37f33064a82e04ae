/**
 * Complex herk on the GPU without one (kernels/zherk/): the plan (threads a block, matrices a block,
 * the staged chunk within its shared memory), the generator (pure, every parameter changes the
 * source, distinct entries, bad parameters refused), the router's complex list ('herk' for strided
 * and list batches of any order: above 32 the recursion's diagonal kernels and complex GEMM launches), what the launcher passes a
 * kernel (pairs counted as the batch counts them, k, alpha and beta as doubles; k = 0 where alpha is
 * 0), zherk's early return (no launch), and an nvcc compile for sm_90 at n = 32 with no spills. The
 * numerics: test/cuda/zherk-host-emulation.test.ts (opt-in) and test/gpu/zherk.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { columnsPerThread, complexHerkCuda, planZherk, ZHERK_MAX_N, zherkSmallSource, type ZherkSmallParams } from '../../src/cuda/kernels/zherk/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import type { GpuDevice, KernelSource } from '../../src/cuda/runtime/types.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { compileForSm90, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';

const params = (over: Partial<ZherkSmallParams> = {}): ZherkSmallParams => ({
  ...planZherk({ dtype: 'float64', n: 8, uplo: 'lower', trans: 'N', kindA: 'strided', kindC: 'strided' }), ...over,
});
const num = argNumber;
const fails = (f: () => unknown, code: string, argument: string, message?: RegExp): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument && (message === undefined || message.test(e.message)));

describe('complex herk: the plan and the generator', () => {
  it('about 256 threads a block, at most 4 columns a thread, the staged chunk within 1024 pairs', () => {
    for (let n = 1; n <= ZHERK_MAX_N; n++) {
      const p = planZherk({ dtype: 'float64', n, uplo: 'upper', trans: 'C', kindA: 'strided', kindC: 'pointer' });
      const threads = n * p.rowsY * p.perBlock;
      // blockDim.z (the matrices) is at most CUDA's 64: n = 1 and 2 fill fewer threads.
      assert.ok(p.perBlock <= 64 && threads <= 256 && (threads > 128 - n * p.rowsY || p.perBlock === 64), `n = ${n}: ${threads} threads, ${p.perBlock} matrices`);
      assert.ok(columnsPerThread(p) <= 4 && p.rowsY <= n, `n = ${n}`);
      assert.ok(p.perBlock * p.chunk * n <= 1024 && p.chunk >= 1 && p.chunk <= 32, `n = ${n}: chunk ${p.chunk}`);
    }
    assert.deepEqual([planZherk({ ...params(), n: 32 }).rowsY, planZherk({ ...params(), n: 32 }).perBlock, planZherk({ ...params(), n: 32 }).chunk], [8, 1, 32]);
  });

  it('pure: the same parameters give the same source; every parameter changes it; entries distinct; bad parameters refused', () => {
    assert.deepEqual(zherkSmallSource(params()), zherkSmallSource(params()));
    const base = zherkSmallSource(params()).source;
    const overs: Partial<ZherkSmallParams>[] = [{ dtype: 'float32' }, { n: 9 }, { uplo: 'upper' }, { trans: 'C' }, { kindA: 'pointer' }, { kindC: 'pointer' }, { rowsY: 4 }, { perBlock: 2 }, { chunk: 5 }];
    for (const over of overs) assert.notEqual(zherkSmallSource(params(over)).source, base, JSON.stringify(over));
    const entries = new Set<string>();
    let total = 0;
    for (const dtype of ['float64', 'float32'] as const) for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'C'] as const) for (let n = 1; n <= 32; n++) {
      entries.add(zherkSmallSource(planZherk({ dtype, n, uplo, trans, kindA: 'strided', kindC: 'pointer' })).entry);
      total++;
    }
    assert.equal(entries.size, total);
    assert.equal(zherkSmallSource(params()).entry, 'zherk_z_ln_n8_y8_p4_k32_stst');
    assert.match(zherkSmallSource(params({ trans: 'C' })).source, /conjX\(a\[\(l0 \+ l\) \+ \(long long\)i \* ldA\]\)/);
    assert.throws(() => zherkSmallSource(params({ n: 33 })), RangeError);
    assert.throws(() => zherkSmallSource(params({ chunk: 0 })), RangeError);
    assert.throws(() => zherkSmallSource(params({ rowsY: 9 })), RangeError);
    assert.throws(() => zherkSmallSource(params({ perBlock: 17 })), RangeError);
  });

  it('the launcher refuses a variable batch, naming it (the router runs those by shape groups)', () => {
    const d = new Float64Array(2 * 40);
    const refused = (e: unknown): boolean => e instanceof MyriadError && e.code === 'UNSUPPORTED' && e.argument === 'a';
    assert.throws(() => complexHerkCuda({} as GpuDevice, { uplo: 'lower', trans: 'N', alpha: 1, a: variable([{ data: d, rows: 3, cols: 2 }]), beta: 0, c: variable([{ data: d, rows: 3 }]) } as never), refused);
  });
});

describe('complex herk: the router and the launcher', () => {
  it('lists the own kernel, then the CPU reference', () => {
    assert.deepEqual(COMPLEX_ROUTES.herk.map((c) => c.name), ['herk', 'cpu']);
  });

  it('device data: the GPU route, one launch, ld / stride / offset in pairs, k, alpha and beta passed; alpha 0 passes k = 0', () => {
    const { ctx, dev } = recordingContext();
    try {
      for (const dtype of ['complex128', 'complex64'] as const) for (const trans of ['N', 'C'] as const) for (const n of [1, 7, 32]) {
        const part = dtype === 'complex128' ? 'float64' : 'float32';
        const count = 3, k = 5;
        const [ar, ac] = trans === 'N' ? [n, k] : [k, n];
        const lda = ar + 2, ldc = n + 1;
        const a = strided(ctx.alloc(part, 2 * (4 + lda * ac * count + 1)), { rows: ar, cols: ac, ld: lda, stride: lda * ac + 1, offset: 4, count, dtype });
        const c = strided(ctx.alloc(part, 2 * ldc * n * count), { rows: n, ld: ldc, count, dtype });
        dev.launches.length = 0;
        ctx.herk({ uplo: 'upper', trans, alpha: 2, beta: 0.5, a, c });
        assert.deepEqual(ctx.lastRoute, { op: 'herk', route: 'herk', gpu: true });
        ctx.herk({ uplo: 'upper', trans, alpha: 0, beta: 0.5, a, c });
        assert.equal(dev.launches.length, 2);
        const { src, args, config } = dev.launches[0]!;
        assert.match(src.entry, new RegExp(`^zherk_${dtype === 'complex128' ? 'z' : 'c'}_u${trans.toLowerCase()}_n${n}_`));
        assert.deepEqual([1, 2, 3].map((i) => num(args[i])), [4, lda * ac + 1, lda], 'A: offset, stride, ld in pairs');
        assert.deepEqual([5, 6, 7].map((i) => num(args[i])), [0, ldc * n, ldc], 'C: offset, stride, ld in pairs');
        assert.deepEqual([num(args[9]), num(args[10])], [count, k], 'count, k');
        assert.deepEqual([args[11], args[12]], [{ type: 'f64', value: 2 }, { type: 'f64', value: 0.5 }]);
        const p = planZherk({ dtype: part, n, uplo: 'upper', trans, kindA: 'strided', kindC: 'strided' });
        assert.deepEqual([...config.block], [n, p.rowsY, p.perBlock]);
        assert.equal(config.grid[0], Math.ceil(count / p.perBlock));
        assert.equal(num(dev.launches[1]!.args[10]), 0, 'alpha = 0: k = 0 (A not read)');
      }
    } finally {
      ctx.dispose();
    }
  });

  it('list batches as pointer tables; zherk\'s early return (alpha 0 or k = 0, with beta 1) launches nothing; n > 32 on the GPU (diagonal blocks and GEMM)', () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const n = 6;
      const xs = [0, 1, 2].map(() => ctx.alloc('float32', 2 * n * 4 + 4));
      const cs = [0, 1, 2].map(() => ctx.alloc('float32', 2 * n * n));
      ctx.herk({ trans: 'N', alpha: 1, beta: 0, a: list(xs.map((data) => ({ data, offset: 2 })), { rows: n, cols: 4, dtype: 'complex64' }), c: list(cs, { rows: n, dtype: 'complex64' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'herk', route: 'herk', gpu: true });
      const { src, args } = dev.launches.at(-1)!;
      assert.match(src.entry, /^zherk_c_ln_n6_.*_papa$/);
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, 0, n], 'offsets folded into the table');
      dev.launches.length = 0;
      const cx = (rows: number, cols: number) => strided(ctx.alloc('float64', 2 * rows * cols * 2), { rows, cols, count: 2, dtype: 'complex128' });
      ctx.herk({ alpha: 0, beta: 1, a: cx(4, 3), c: cx(4, 4) });
      ctx.herk({ alpha: 2, beta: 1, a: cx(4, 0), c: cx(4, 4) });
      assert.equal(dev.launches.length, 0, 'nothing to do');
      ctx.herk({ alpha: 0, beta: 1, a: cx(33, 3), c: cx(33, 33) });
      assert.equal(dev.launches.length, 0, 'nothing to do above 32 either');
      ctx.herk({ alpha: 1, beta: 1, a: cx(33, 3), c: cx(33, 33) });
      assert.deepEqual(ctx.lastRoute, { op: 'herk', route: 'herk', gpu: true });
      assert.deepEqual(dev.launches.filter((l) => l.src.entry.startsWith('zherk_')).map((l) => l.src.entry.split('_')[3]), ['n32', 'n1'], 'the diagonal blocks');
      assert.equal(dev.launches.length, 3, 'and one GEMM');
      dev.launches.length = 0;
      backend.force = { herk: 'cpu' };
      ctx.herk({ alpha: 1, beta: 1, a: cx(33, 3), c: cx(33, 33) });
      assert.deepEqual(ctx.lastRoute, { op: 'herk', route: 'cpu', gpu: false });
      backend.force = { herk: 'cublas' };
      fails(() => ctx.herk({ alpha: 1, beta: 1, a: cx(33, 3), c: cx(33, 33) }), 'ENUM', 'force', /herk on complex data has no route 'cublas' \(routes: herk, cpu\)/);
      assert.equal(dev.launches.length, 0, 'nothing launched');
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex herk: nvcc for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, () => {
  it('compiles without spills at n = 32 (registers reported)', async () => {
    const sources: KernelSource[] = [];
    for (const dtype of ['float64', 'float32'] as const) for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'C'] as const) for (let n = 1; n <= 32; n++) {
      for (const kind of ['strided', 'pointer'] as const) sources.push(zherkSmallSource(planZherk({ dtype, n, uplo, trans, kindA: kind, kindC: kind })));
    }
    const picked = compileSet(sources, (e) => e === 'zherk_z_ln_n32_y8_p1_k32_stst' || e === 'zherk_c_uc_n32_y8_p1_k32_papa');
    const results = await compileForSm90(picked);
    for (const r of results) {
      assert.ok(!('error' in r), `${r.src.entry}: ${'error' in r ? r.error : ''}`);
      if ('error' in r) continue;
      assert.equal(r.report.spillStores, 0, `${r.src.entry} spills: ${r.report.log}`);
      assert.ok(r.report.registers <= 255, `${r.src.entry}: ${r.report.registers} registers`);
    }
  });
});

/**
 * Complex gemm on the GPU without one: the planner's choices (very-small kernel to the complex
 * bound, tiled above, never the real-only tensor-core design), the generated kernels' names and
 * the real kernels' parameters untouched, the router's complex list, what the launcher passes a
 * kernel (pairs counted as the batch counts them, alpha and beta as parts) for device and host
 * data, and the argument checks a complex call meets before anything reaches a device.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { gemmSource, planGemm, smallGemmShape, smallGemmWork, type GemmProblem } from '../../src/cuda/kernels/gemm/index.js';
import { defaultGemmTuning } from '../../src/cuda/model/tuning/gemm-default.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

const problem = (over: Partial<GemmProblem>): GemmProblem => ({
  dtype: 'float64', transA: 'N', transB: 'N', m: 8, n: 8, k: 8, count: 10000, batchKind: 'strided', betaZero: true,
  complex: { conjA: false, conjB: false }, ...over,
});

describe('complex gemm: the plan', () => {
  it("the very-small kernel to the complex bound (sm_90's table 32, the default 16), the tiled one above; complex128 with op(A) = A on mma from 32 (sm_90: 33)", () => {
    const defaults = { tuning: defaultGemmTuning };
    for (const dtype of ['float64', 'float32'] as const) {
      for (const n of [1, 2, 8, 13, 16, 17, 24, 31, 32]) assert.equal(planGemm(H100, problem({ dtype, m: n, n, k: n })).variant, 'small', `${dtype} ${n}`);
      assert.equal(planGemm(H100, problem({ dtype, m: 32, n: 4, k: 32, transA: 'T' })).variant, 'small', `${dtype} 32 x 4 x 32 TN`);
      // The default table (another arch): to 16, then the tiled kernel, and complex128's mma from 32.
      for (const n of [1, 16]) assert.equal(planGemm(H100, problem({ dtype, m: n, n, k: n }), defaults).variant, 'small', `${dtype} ${n} default`);
      for (const n of [17, 31]) assert.equal(planGemm(H100, problem({ dtype, m: n, n, k: n }), defaults).variant, 'tiled', `${dtype} ${n} default`);
      assert.equal(planGemm(H100, problem({ dtype, m: 32, n: 32, k: 32 }), defaults).variant, 'tiled', `${dtype} 32 default`);
      for (const n of [33, 64, 200]) {
        assert.equal(planGemm(H100, problem({ dtype, m: n, n, k: n })).variant, dtype === 'float64' ? 'mma' : 'tiled', `${dtype} ${n}`);
        // op(B) = B^T or B^H too; op(A) = A^T or A^H: the tiled kernel.
        for (const over of [{ transB: 'T' }, { transB: 'T', complex: { conjA: false, conjB: true } }] as const) {
          assert.equal(planGemm(H100, problem({ dtype, m: n, n, k: n, ...over })).variant, dtype === 'float64' ? 'mma' : 'tiled', `${dtype} ${n} ${JSON.stringify(over)}`);
        }
        for (const over of [{ transA: 'T' }, { transA: 'T', complex: { conjA: true, conjB: false } }] as const) {
          assert.equal(planGemm(H100, problem({ dtype, m: n, n, k: n, ...over })).variant, 'tiled', `${dtype} ${n} ${JSON.stringify(over)}`);
        }
      }
      // One large dimension is enough (33 x 4 x 4 on the tensor cores).
      assert.equal(planGemm(H100, problem({ dtype, m: 33, n: 4, k: 4 })).variant, dtype === 'float64' ? 'mma' : 'tiled');
    }
    assert.throws(() => planGemm(H100, problem({ dtype: 'float32' }), { variant: 'mma' }), /complex128 with op\(A\) = A/);
    assert.throws(() => planGemm(H100, problem({ transA: 'T' }), { variant: 'mma' }), /complex128 with op\(A\) = A/);
    // Planned as the real product it computes (the band of 2m, C's rows as doubles), with at most 16
    // accumulator tiles a warp and no tile groups.
    for (const n of [33, 64, 100, 300, 4096]) {
      const p = planGemm(H100, problem({ m: n, n, k: n, count: n > 1000 ? 1 : 100 }));
      assert.ok(p.variant === 'mma');
      assert.ok((p.bm / p.wm / 8) * (p.bn / p.wn / 8) <= 16, `${n}: ${p.bm} x ${p.bn} over ${p.wm} x ${p.wn} warps`);
      assert.equal(p.tileGroup, undefined);
      assert.match(gemmSource(p).entry, /^gemm_mma_zNN_/);
    }
  });

  it('complex parameters name z / c kernels with the ops as given; real parameters carry no complex field', () => {
    const z = planGemm(H100, problem({ transA: 'T', transB: 'T', complex: { conjA: true, conjB: false } }));
    assert.deepEqual(z.complex, { conjA: true, conjB: false });
    assert.match(gemmSource(z).entry, /^gemm_small_zCT_8x8x8_/);
    const c = planGemm(H100, problem({ dtype: 'float32', m: 40, n: 40, k: 40, transB: 'T', complex: { conjA: false, conjB: true } }));
    assert.match(gemmSource(c).entry, /^gemm_tiled_cNC_64x64x8_/);
    assert.match(gemmSource(c).source, /struct __align__\(8\) real2/);
    const { complex: _, ...real } = problem({});
    for (const n of [8, 40]) assert.ok(!('complex' in planGemm(H100, { ...real, m: n, n, k: n })));
  });

  it("the card's complex winners for the very-small kernel: one work item a thread at 9-16, the sweep's shapes above; the real winners never take pairs", () => {
    const label = (p: ReturnType<typeof planGemm>): string => (p.variant === 'small' ? `tbc${p.tbc} rn${p.rn} t${p.threads}` : p.variant);
    const tuning = tuningFor('sm_90', 'gemm');
    const withoutComplexWinners = { ...tuning, complex: { ...tuning.complex, smallWinners: [] } };
    for (const dtype of ['float64', 'float32'] as const) {
      const at = (n: number, over: Partial<GemmProblem> = {}, opts = {}): ReturnType<typeof planGemm> =>
        planGemm(H100, problem({ dtype, m: n, n, k: n, count: 100_000, ...over }), opts);
      // The shapes the sweep measured: threads a matrix to 32 at 12, to 64 at 16.
      assert.equal(label(at(12)), 'tbc8 rn6 t192', `${dtype} 12`);
      assert.equal(label(at(16)), 'tbc4 rn4 t256', `${dtype} 16`);
      for (let n = 9; n <= 16; n++) {
        const p = at(n);
        assert.ok(p.variant === 'small');
        assert.equal(p.threads, smallGemmWork(p), `${dtype} ${n}: one work item a thread`);
        // Every op pair of the same size takes the same rule.
        assert.equal(label(at(n, { transA: 'T', complex: { conjA: true, conjB: false } })), label(p), `${dtype} ${n} CN`);
      }
      // Above 16, each measured size's best shape of the sweep's grid.
      const measured = dtype === 'float64'
        ? { 20: 'tbc2 rn4 t200', 24: 'tbc1 rn5 t120', 28: 'tbc1 rn7 t112', 32: 'tbc1 rn8 t128' }
        : { 20: 'tbc2 rn4 t128', 24: 'tbc4 rn8 t160', 28: 'tbc2 rn7 t224', 32: 'tbc1 rn4 t256' };
      for (const [n, shape] of Object.entries(measured)) assert.equal(label(at(Number(n))), shape, `${dtype} ${n}`);
      // Up to 8 the default rules, as without the winners; the real problem of the same size keeps the real winners.
      for (const n of [2, 8]) assert.equal(label(at(n)), label(at(n, {}, { tuning: withoutComplexWinners })), `${dtype} ${n}`);
      const { complex: _, ...real } = problem({ dtype, m: 16, n: 16, k: 16, count: 100_000 });
      assert.equal(label(planGemm(H100, real)), label(planGemm(H100, real, { tuning: withoutComplexWinners })), `${dtype} real 16`);
      // Without the complex winners, pairs take the default rules, not the real winners (float64 9-24: 128-thread blocks, one item).
      assert.equal(label(at(16, {}, { tuning: withoutComplexWinners })), dtype === 'float64' ? 'tbc5 rn4 t96' : 'tbc8 rn4 t128', `${dtype} 16 default rules`);
    }
  });

  it('a complex element is twice the bytes: the shared memory counts pairs and stays within the static limit', () => {
    for (const dtype of ['float64', 'float32'] as const) for (const n of [2, 5, 16]) {
      const p = planGemm(H100, problem({ dtype, m: n, n, k: n, betaZero: false }));
      assert.ok(p.variant === 'small');
      const { complex: _, ...real } = p;
      assert.equal(smallGemmShape(p).sharedBytes, 2 * smallGemmShape(real).sharedBytes);
      assert.ok(smallGemmShape(p).sharedBytes <= 48 * 1024);
    }
  });
});

describe("complex gemm, the very-small kernel at 9-32 on the card's rules: the kernels compile", () => {
  it("each rule's first and last order, both types, NN strided and CT with pointer operands in turn: sm_90 without spills", { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
    const sources: KernelSource[] = [];
    const ct = { transA: 'T', transB: 'T', batchKind: 'list', complex: { conjA: true, conjB: false } } as const;
    for (const dtype of ['float64', 'float32'] as const) [9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29, 32].forEach((n, i) => {
      const p = planGemm(H100, problem({ dtype, m: n, n, k: n, count: 100_000, betaZero: false, ...((i + (dtype === 'float64' ? 0 : 1)) % 2 === 0 ? {} : ct) }));
      assert.equal(p.variant, 'small', `${dtype} ${n}`);
      sources.push(gemmSource(p));
    });
    const failures = compileFailures(await compileForSm90(sources), (r) => (!Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spilled` : undefined));
    assert.deepEqual(failures, []);
  });
});

describe('complex gemm on the tensor cores: the kernels compile', () => {
  it('every band, op(B) B, B^T and B^H, strided and pointer operands, beta zero or not: sm_90 without spills', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
    const sources = [];
    const ops = [{ transB: 'N' }, { transB: 'T' }, { transB: 'T', complex: { conjA: false, conjB: true } }] as const;
    for (const n of [33, 64, 100, 512, 4096]) for (const batchKind of ['strided', 'list'] as const) for (const betaZero of [true, false]) for (const op of ops) {
      const p = planGemm(H100, problem({ m: n, n, k: n, count: n > 1000 ? 1 : 100, batchKind, betaZero, ...op }));
      assert.equal(p.variant, 'mma');
      sources.push(gemmSource(p));
    }
    const unique = [...new Map(sources.map((s) => [s.entry, s])).values()];
    const failures = compileFailures(await compileForSm90(unique), (r) => (!Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spilled` : undefined));
    assert.deepEqual(failures, []);
  });
});

describe('complex gemm: the router', () => {
  it("lists cuBLAS (inside the card's measured rules), the own kernels, then the CPU reference, named as the real routes", () => {
    assert.deepEqual(COMPLEX_ROUTES.gemm.map((c) => c.name), ['cublas', 'gemm', 'cpu']);
  });
});

const num = argNumber;

describe('complex gemm on a CUDA context: the GPU route', () => {
  it('device data: route gemm, one launch, ld / stride / offset in pairs, alpha and beta as parts', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [m, n, k, count] = [3, 4, 5, 6];
      const a = ctx.alloc('float64', 2 * (m + 1) * k * count + 8);
      const b = ctx.alloc('float64', 2 * k * n * count);
      const c = ctx.alloc('float64', 2 * m * n * count);
      ctx.gemm({
        transA: 'N', transB: 'C', alpha: [2, -1], beta: [0.5, 0.25],
        a: strided(a, { rows: m, cols: k, ld: m + 1, offset: 3, count, dtype: 'complex128' }),
        b: strided(b, { rows: n, cols: k, count, dtype: 'complex128' }),
        c: strided(c, { rows: m, cols: n, count, dtype: 'complex128' }),
      });
      assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'gemm', gpu: true });
      assert.equal(dev.launches.length, 1);
      const { src, args } = dev.launches[0]!;
      assert.match(src.entry, /^gemm_small_zNC_3x4x5_/);
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [3, (m + 1) * k, m + 1], 'A: offset, stride, ld in pairs');
      assert.deepEqual([num(args[12]), ...args.slice(13, 17).map(num)], [count, 2, -1, 0.5, 0.25]);
    } finally {
      ctx.dispose();
    }
  });

  it('complex128 without transposes from 32: the mma kernel on the real embedding, lengths in doubles (2m, 2k, 2 ld ...)', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [m, n, k, count] = [40, 36, 33, 3];
      const a = ctx.alloc('float64', 2 * ((m + 1) * k * count + 3));
      const b = ctx.alloc('float64', 2 * k * n * count);
      const c = ctx.alloc('float64', 2 * m * n * count);
      ctx.gemm({
        alpha: [2, -1], beta: [0.5, 0.25],
        a: strided(a, { rows: m, cols: k, ld: m + 1, offset: 3, count, dtype: 'complex128' }),
        b: strided(b, { rows: k, cols: n, count, dtype: 'complex128' }),
        c: strided(c, { rows: m, cols: n, count, dtype: 'complex128' }),
      });
      assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'gemm', gpu: true });
      assert.equal(dev.launches.length, 1);
      const { src, args } = dev.launches[0]!;
      assert.match(src.entry, /^gemm_mma_zNN_/);
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [6, 2 * (m + 1) * k, 2 * (m + 1)], 'A: offset, stride, ld in doubles');
      assert.deepEqual([num(args[5]), num(args[6]), num(args[7])], [0, 2 * k * n, 2 * k], 'B');
      assert.deepEqual([num(args[12]), ...args.slice(13, 17).map(num)], [count, 2, -1, 0.5, 0.25]);
      assert.deepEqual(args.slice(17).map(num), [2 * m, n, 2 * k], 'm, n, k of the embedding');
    } finally {
      ctx.dispose();
    }
  });

  it('host data is staged as real arrays and reaches the kernel counted in pairs again', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [40, 3];
      const A = new Float32Array(2 * n * n * count).fill(1);
      const C = new Float32Array(2 * (n + 2) * n * count + 4).fill(1);
      ctx.gemm({
        transA: 'C', alpha: [1, 0], beta: [0, 0],
        a: strided(A, { rows: n, count, dtype: 'complex64' }), b: strided(A.slice(), { rows: n, count, dtype: 'complex64' }),
        c: strided(C, { rows: n, ld: n + 2, offset: 2, count, dtype: 'complex64' }),
      });
      assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'gemm', gpu: true });
      const { src, args } = dev.launches.at(-1)!;
      assert.match(src.entry, /^gemm_tiled_cCN_64x64x8_t4x4_sss_b0$/);
      // C staged from its first pair: offset 0 on the device, ld and stride in pairs.
      assert.deepEqual([num(args[9]), num(args[10]), num(args[11])], [0, (n + 2) * n, n + 2]);
      assert.deepEqual(args.slice(17, 20).map(num), [n, n, n]);
    } finally {
      ctx.dispose();
    }
  });

  it("host data staged in chunks: each chunk's launch sees its matrices, offsets in pairs from the staged range", () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      backend.stagingTuning = { chunkBytes: 1, maxChunks: 4 };
      const [n, count, offset] = [3, 8, 5];
      const stride = n * n + 2;
      const A = new Float64Array(2 * (offset + count * stride)).fill(1);
      ctx.gemm({
        a: strided(A, { rows: n, stride, offset, count, dtype: 'complex128' }), b: strided(A.slice(), { rows: n, stride, offset, count, dtype: 'complex128' }),
        c: strided(new Float64Array(A.length), { rows: n, stride, offset, count, dtype: 'complex128' }), beta: [0.5, 0],
      });
      assert.equal(dev.launches.length, 4);
      dev.launches.forEach(({ args }, k) => {
        // A's staged range starts at its first pair (offset): chunk k's first matrix is 2k matrices on.
        assert.deepEqual([num(args[1]), num(args[2]), num(args[3]), num(args[12])], [2 * k * stride, stride, n, 2], `chunk ${k}`);
      });
    } finally {
      ctx.dispose();
    }
  });

  it('list batches reach the kernel as a pointer table; force cpu keeps the reference', () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const xs = [0, 1].map(() => ctx.alloc('float64', 8));
      ctx.gemm({ a: list(xs, { rows: 2, dtype: 'complex128' }), b: list(xs, { rows: 2, dtype: 'complex128' }), c: list([ctx.alloc('float64', 8), ctx.alloc('float64', 8)], { rows: 2, dtype: 'complex128' }) });
      assert.match(dev.launches.at(-1)!.src.entry, /_ppp_b0$/);
      backend.force = { gemm: 'cpu' };
      ctx.gemm({ a: list(xs, { rows: 2, dtype: 'complex128' }), b: list(xs, { rows: 2, dtype: 'complex128' }), c: list([ctx.alloc('float64', 8), ctx.alloc('float64', 8)], { rows: 2, dtype: 'complex128' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'cpu', gpu: false });
      backend.force = { gemm: 'tsm2' };
      assert.throws(() => ctx.gemm({ a: list(xs, { rows: 2, dtype: 'complex128' }), b: list(xs, { rows: 2, dtype: 'complex128' }), c: list([ctx.alloc('float64', 8), ctx.alloc('float64', 8)], { rows: 2, dtype: 'complex128' }) }),
        (e: unknown) => e instanceof MyriadError && e.code === 'ENUM' && e.argument === 'force' && /cublas, gemm, cpu/.test(e.message));
    } finally {
      ctx.dispose();
    }
  });

  it('argument checks name the argument: real data beside complex, a pair alpha on real data, storage of the wrong part type', () => {
    const { ctx, dev } = recordingContext();
    try {
      const d = (len: number) => ctx.alloc('float64', len);
      const cx = (rows: number) => strided(d(2 * rows * rows), { rows, dtype: 'complex128' });
      const fails = (f: () => void, code: string, argument: string): void => assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument);
      fails(() => ctx.gemm({ a: cx(2), b: cx(2), c: strided(d(4), { rows: 2 }) }), 'DTYPE', 'c');
      fails(() => ctx.gemm({ alpha: [1, 2], a: strided(d(4), { rows: 2 }), b: strided(d(4), { rows: 2 }), c: strided(d(4), { rows: 2 }) }), 'INVALID_ARGUMENT', 'alpha');
      fails(() => ctx.gemm({ beta: [1, 2, 3] as unknown as [number, number], a: cx(2), b: cx(2), c: cx(2) }), 'INVALID_ARGUMENT', 'beta');
      fails(() => strided(ctx.alloc('float32', 8), { rows: 2, dtype: 'complex128' }, 'a'), 'DTYPE', 'a.data');
      fails(() => ctx.gemm({ a: cx(2), b: strided(ctx.alloc('float32', 8), { rows: 2, dtype: 'complex64' }), c: cx(2) }), 'DTYPE', 'b');
      assert.equal(dev.launches.length, 0, 'nothing launched');
      // A number is (x, 0): accepted on complex batches.
      ctx.gemm({ alpha: 2, beta: 1, a: cx(2), b: cx(2), c: cx(2) });
      assert.deepEqual(dev.launches[0]!.args.slice(13, 17).map(num), [2, 0, 1, 0]);
    } finally {
      ctx.dispose();
    }
  });
});

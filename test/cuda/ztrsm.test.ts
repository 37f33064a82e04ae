/**
 * Complex trsm on the GPU without one (kernels/ztrsm/): the plan (warps as the real small kernels,
 * vectors per pass, the split of the passes over blockIdx.y; which design serves, the columns
 * design's lanes, passes and matrices a block, force), the generators (pure, every parameter
 * changes the source, distinct entries over every variant, bad parameters refused), the router's
 * complex list ('trsm' for strided and list batches of any order: above 32 the recursion's leaf
 * kernels and complex GEMM launches; force as for the other complex routes), what the launcher passes a kernel
 * (pairs counted as the batch counts them, the vectors, alpha as two doubles) for device and host
 * data, the columns design's grid and block, the empty cases, and an nvcc compile for sm_90 of the
 * order-32 kernels of both designs with no spills. The
 * numerics: test/cuda/ztrsm-host-emulation.test.ts (opt-in) and test/gpu/ztrsm.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { passGridY, triangleShape, triangleView } from '../../src/cuda/kernels/common/triangle-warp.js';
import {
  COLUMNS_MIN_VECTORS, columnsLayout, columnsMatricesMax, columnsSlot, complexTrsmCuda, planZtrsm, planZtrsmColumns, ZTRSM_COLUMNS_FROM, ZTRSM_MAX_N,
  ZTRSM_RHS_MAX, ztrsmColumnsSource, ztrsmLeafDesign, ztrsmSmallSource, type ZtrsmColumnsParams, type ZtrsmSmallParams,
} from '../../src/cuda/kernels/ztrsm/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import type { GpuDevice, KernelSource } from '../../src/cuda/runtime/types.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { checkOneLaunchTriangular } from '../helpers/ztriangular-launch.js';
import { compileForSm90, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';
import { ZTRSM_VARIANTS } from '../helpers/ztrsm-data.js';

const params = (over: Partial<ZtrsmSmallParams> = {}): ZtrsmSmallParams => ({
  ...planZtrsm({ dtype: 'float64', n: 8, vectors: 3, side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kindA: 'strided', kindB: 'strided' }), ...over,
});
const num = argNumber;
const fails = (f: () => unknown, code: string, argument: string, message?: RegExp): void =>
  assert.throws(f, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument && (message === undefined || message.test(e.message)));

describe('complex trsm: the plan and the generator', () => {
  it('warps as the real small kernels (4 below order 16, else 2); vectors per pass min(vectors, 4), at least 1', () => {
    assert.equal(params({}).warps, 4);
    assert.equal(planZtrsm({ ...params(), n: 16, vectors: 1 }).warps, 2);
    assert.deepEqual([0, 1, 3, 4, 33].map((vectors) => planZtrsm({ ...params(), vectors }).rhs), [1, 1, 3, 4, ZTRSM_RHS_MAX]);
    assert.equal(ZTRSM_MAX_N, 32);
  });

  it('the passes spread over blockIdx.y only where the matrices give fewer than 4 blocks an SM', () => {
    assert.equal(passGridY(1, 9, 132), 9, 'one block: every pass its own');
    assert.equal(passGridY(100, 9, 132), 6, 'ceil(528 / 100)');
    assert.equal(passGridY(1000, 9, 132), 1, 'a full device keeps one');
    assert.equal(passGridY(1, 100000, 132), 528);
    assert.equal(passGridY(1, 1, 132), 1);
  });

  it('the triangle T the vectors meet: op(A) for left, op(A)^T for right; read by rows exactly for left N and right T / C', () => {
    assert.deepEqual(triangleShape('left', 7, 3), { order: 7, vectors: 3 });
    assert.deepEqual(triangleShape('right', 7, 3), { order: 3, vectors: 7 });
    const view = (side: 'left' | 'right', uplo: 'lower' | 'upper', transA: 'N' | 'T' | 'C') => triangleView({ side, uplo, transA, diag: 'unit' });
    assert.deepEqual([view('left', 'lower', 'N').lowerT, view('left', 'lower', 'T').lowerT, view('right', 'lower', 'N').lowerT, view('right', 'lower', 'C').lowerT], [true, false, false, true]);
    assert.deepEqual([view('left', 'upper', 'N').rowwise, view('left', 'upper', 'C').rowwise, view('right', 'upper', 'N').rowwise, view('right', 'upper', 'T').rowwise], [true, false, false, true]);
    assert.equal(view('right', 'upper', 'C').conj, true);
    assert.equal(view('right', 'upper', 'T').conj, false);
  });

  it('pure: the same parameters give the same source; every parameter changes it; entries are distinct over every variant', () => {
    assert.deepEqual(ztrsmSmallSource(params()), ztrsmSmallSource(params()));
    const base = ztrsmSmallSource(params()).source;
    const overs: Partial<ZtrsmSmallParams>[] = [
      { dtype: 'float32' }, { n: 9 }, { side: 'right' }, { uplo: 'upper' }, { transA: 'T' }, { transA: 'C' }, { diag: 'unit' },
      { kindA: 'pointer' }, { kindB: 'pointer' }, { warps: 2 }, { rhs: 2 },
    ];
    for (const over of overs) assert.notEqual(ztrsmSmallSource(params(over)).source, base, JSON.stringify(over));
    const entries = new Set<string>();
    let total = 0;
    for (const dtype of ['float64', 'float32'] as const) for (const v of ZTRSM_VARIANTS) for (const n of [1, 8, 32]) for (const kindB of ['strided', 'pointer'] as const) {
      entries.add(ztrsmSmallSource(params({ ...v, dtype, n, kindB })).entry);
      total++;
    }
    assert.equal(entries.size, total);
    assert.equal(ztrsmSmallSource(params({ dtype: 'float32', side: 'right', uplo: 'upper', transA: 'C', diag: 'unit', kindA: 'pointer' })).entry, 'ztrsm_c_rucu_n8_r3_past_w4');
    assert.equal(ztrsmSmallSource(params({ n: 32, warps: 2, rhs: 4 })).entry, 'ztrsm_z_llnn_n32_r4_stst_w2');
  });

  it('reads only the solve\'s side of the triangle, the diagonal only for non-unit, conjugated only for C; divides as the reference (Smith)', () => {
    const s = (over: Partial<ZtrsmSmallParams>) => ztrsmSmallSource(params(over)).source;
    assert.match(s({}), /\(valid && k < r\) \? a\[r \+ \(long long\)k \* ldA\]/);
    assert.match(s({ transA: 'C' }), /\(valid && k > r\) \? conjReal2\(a\[k \+ \(long long\)r \* ldA\]\)/);
    assert.match(s({}), /divisorOf\(valid \? a\[r \+ \(long long\)r \* ldA\]/);
    assert.doesNotMatch(s({ diag: 'unit' }), /divisorOf|divBy/);
    assert.doesNotMatch(s({ transA: 'T' }), /conjReal2\(a/);
    assert.match(s({ side: 'right' }), /b\[\(q0 \+ c\) \+ \(long long\)r \* ldB\]/);
  });

  it('refuses orders outside 1 .. 32 and a pass without vectors', () => {
    assert.throws(() => ztrsmSmallSource(params({ n: 0 })), RangeError);
    assert.throws(() => ztrsmSmallSource(params({ n: 33 })), RangeError);
    assert.throws(() => ztrsmSmallSource(params({ rhs: 0 })), RangeError);
  });

  it('the launcher refuses a variable batch, naming it (the router runs those by shape groups)', () => {
    const d = new Float64Array(2 * 40);
    const refused = (e: unknown): boolean => e instanceof MyriadError && e.code === 'UNSUPPORTED' && e.argument === 'a';
    assert.throws(() => complexTrsmCuda({} as GpuDevice, { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: [1, 0], a: variable([{ data: d, rows: 3 }]), b: variable([{ data: d, rows: 3, cols: 1 }]) } as never), refused);
  });
});

const problem = { dtype: 'float64' as const, n: 32, vectors: 32, side: 'left' as const, uplo: 'lower' as const, transA: 'N' as const, diag: 'nonunit' as const, kindA: 'strided' as const, kindB: 'strided' as const };
const colParams = (over: Partial<ZtrsmColumnsParams> = {}): ZtrsmColumnsParams => ({ ...planZtrsmColumns(problem), ...over });

describe('complex trsm: the columns design (plan and generator)', () => {
  it('serves from ZTRSM_COLUMNS_FROM with at least COLUMNS_MIN_VECTORS vectors, else the warp design; force overrides', () => {
    for (const dtype of ['float64', 'float32'] as const) {
      const from = ZTRSM_COLUMNS_FROM[dtype]!;
      assert.equal(ztrsmLeafDesign({ dtype, n: from, vectors: COLUMNS_MIN_VECTORS }), 'columns');
      assert.equal(ztrsmLeafDesign({ dtype, n: from - 1, vectors: 32 }), 'warp');
      assert.equal(ztrsmLeafDesign({ dtype, n: 32, vectors: COLUMNS_MIN_VECTORS - 1 }), 'warp');
      assert.equal(ztrsmLeafDesign({ dtype, n: 2, vectors: 1 }, { design: 'columns' }), 'columns');
      assert.equal(ztrsmLeafDesign({ dtype, n: 32, vectors: 32 }, { design: 'warp' }), 'warp');
    }
  });

  it('lanes: the fewest passes of at most 32 lanes, the vectors spread evenly; matrices a block to a warp (two from order 32) within 48 KiB; B early', () => {
    assert.equal(planZtrsmColumns(problem).early, true, 'B\'s first pass loaded before the triangles');
    assert.equal(planZtrsmColumns(problem, { early: false }).early, false);
    const lanes = (vectors: number, rhs?: number) => planZtrsmColumns({ ...problem, vectors }, { rhs }).lanes;
    assert.deepEqual([1, 8, 32, 33, 64, 65, 100].map((v) => lanes(v)), [1, 8, 32, 17, 32, 22, 25]);
    assert.deepEqual([8, 33, 64, 65].map((v) => lanes(v, 2)), [4, 17, 32, 17]);
    assert.equal(planZtrsmColumns({ ...problem, n: 16, vectors: 16 }).matrices, 2, '32 / 16 lanes');
    assert.equal(planZtrsmColumns({ ...problem, n: 32, vectors: 32 }).matrices, 2, '64 / 32 lanes from order 32');
    assert.equal(planZtrsmColumns({ ...problem, n: 16, vectors: 16 }, { matrices: 3 }).matrices, 3, 'forced');
    // complex128 order 32: 529 pairs a slot (528 padded to 1 mod 8), 5 slots in 48 KiB; 8 lanes would want 8 matrices.
    assert.equal(columnsSlot('float64', 32), 529);
    assert.equal(columnsSlot('float32', 32), 529);
    assert.equal(columnsSlot('float32', 9), 49);
    assert.equal(columnsMatricesMax('float64', 32), 5);
    assert.equal(planZtrsmColumns({ ...problem, vectors: 8 }).matrices, 5);
    assert.deepEqual(columnsLayout({ dtype: 'float64', n: 32, matrices: 4, lanes: 17 }), { threads: 96, slot: 529, sharedBytes: 4 * 529 * 16 });
  });

  it('pure; every parameter changes the source; entries distinct over every variant', () => {
    assert.deepEqual(ztrsmColumnsSource(colParams()), ztrsmColumnsSource(colParams()));
    const base = ztrsmColumnsSource(colParams()).source;
    const overs: Partial<ZtrsmColumnsParams>[] = [
      { dtype: 'float32' }, { n: 9 }, { side: 'right' }, { uplo: 'upper' }, { transA: 'T' }, { transA: 'C' }, { diag: 'unit' },
      { kindA: 'pointer' }, { kindB: 'pointer' }, { matrices: 3 }, { lanes: 16 }, { rhs: 2 }, { early: false },
    ];
    for (const over of overs) assert.notEqual(ztrsmColumnsSource(colParams(over)).source, base, JSON.stringify(over));
    const entries = new Set<string>();
    let total = 0;
    for (const dtype of ['float64', 'float32'] as const) for (const v of ZTRSM_VARIANTS) for (const n of [1, 9, 32]) for (const kindB of ['strided', 'pointer'] as const) {
      entries.add(ztrsmColumnsSource(colParams({ ...v, dtype, n, kindB })).entry);
      total++;
    }
    assert.equal(entries.size, total);
    assert.equal(ztrsmColumnsSource(colParams({ dtype: 'float32', side: 'right', uplo: 'upper', transA: 'C', diag: 'unit', kindA: 'pointer', n: 12 })).entry, 'ztrsm_c_rucu_n12_cols_m2_l32_r1e_past');
  });

  it('reads the stored triangle only (the diagonal for non-unit), conjugated for C; the reciprocals by Smith; B by columns (left) or rows (right)', () => {
    const s = (over: Partial<ZtrsmColumnsParams>) => ztrsmColumnsSource(colParams(over)).source;
    assert.match(s({}), /am < count && i >= j\)/);
    assert.match(s({ diag: 'unit' }), /am < count && i > j\)/);
    assert.match(s({ uplo: 'upper', diag: 'unit' }), /am < count && i < j\)/);
    assert.match(s({ transA: 'C' }), /conjReal2\(\(A \+ offsetA/);
    assert.doesNotMatch(s({ transA: 'T' }), /conjReal2\(\(A/);
    assert.match(s({}), /divBy\(makeReal2\(real\(1\), real\(0\)\), divisorOf/);
    assert.doesNotMatch(s({ diag: 'unit' }), /divisorOf|divBy/);
    assert.match(s({}), /b\[r \+ \(long long\)\(q\) \* ldB\]/);
    assert.match(s({ side: 'right' }), /b\[\(q\) \+ \(long long\)\(r\) \* ldB\]/);
    // T(r, k): A(r, k) read by rows (left N), A(k, r) otherwise.
    assert.match(s({}), /t\[packedAt\(r, k\)\]/);
    assert.match(s({ transA: 'T' }), /t\[packedAt\(k, r\)\]/);
    assert.match(s({ side: 'right', transA: 'C' }), /t\[packedAt\(r, k\)\]/);
  });

  it('refuses orders outside 1 .. 32, lanes outside 1 .. 32, no vectors, more than 1024 threads or 48 KiB of triangles', () => {
    for (const over of [{ n: 0 }, { n: 33 }, { lanes: 0 }, { lanes: 33 }, { rhs: 0 }, { matrices: 0 }, { matrices: 33, lanes: 32 }, { matrices: 6 }, { n: 1.5 }]) {
      assert.throws(() => ztrsmColumnsSource(colParams(over)), RangeError, JSON.stringify(over));
    }
    assert.doesNotThrow(() => ztrsmColumnsSource(colParams({ matrices: 5 })));
  });
});

describe('complex trsm: the router and the launcher', () => {
  it('lists the own kernel, then the CPU reference, named as the real route', () => {
    assert.deepEqual(COMPLEX_ROUTES.trsm.map((c) => c.name), ['cublas', 'trsm', 'cpu']);
  });

  it('device data, both sides and dtypes: the GPU route, one launch, ld / stride / offset in pairs, the vectors and alpha passed', () => {
    checkOneLaunchTriangular('trsm');
  });

  it('host data is staged and reaches the kernel counted in pairs; list batches as pointer tables', () => {
    const { ctx, dev } = recordingContext();
    try {
      const [n, count] = [6, 4];
      const A = new Float32Array(2 * ((n + 1) * n * count + 3)).fill(1);
      const B = new Float32Array(2 * n * 2 * count).fill(1);
      ctx.trsm({ uplo: 'lower', a: strided(A, { rows: n, ld: n + 1, offset: 3, count, dtype: 'complex64' }), b: strided(B, { rows: n, cols: 2, count, dtype: 'complex64' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'trsm', route: 'trsm', gpu: true });
      let { src, args } = dev.launches.at(-1)!;
      assert.equal(src.entry, 'ztrsm_c_llnn_n6_r2_stst_w4');
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, (n + 1) * n, n + 1], 'staged from its first pair');
      const xs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * n * n + 4));
      const bs = [0, 1, 2].map(() => ctx.alloc('float64', 2 * 3 * n));
      ctx.trsm({ side: 'right', a: list(xs.map((data) => ({ data, offset: 2 })), { rows: n, dtype: 'complex128' }), b: list(bs, { rows: 3, cols: n, dtype: 'complex128' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'trsm', route: 'trsm', gpu: true });
      ({ src, args } = dev.launches.at(-1)!);
      assert.equal(src.entry, 'ztrsm_z_rlnn_n6_r3_papa_w4');
      assert.deepEqual([num(args[1]), num(args[2]), num(args[3])], [0, 0, n], 'offsets folded into the table');
      assert.equal(num(args[10]), 3, 'the vectors: B\'s rows');
    } finally {
      ctx.dispose();
    }
  });

  it('order > 32 runs on the GPU (the recursion: leaf kernels and complex GEMM); force pins a route, and an unknown one is an error', () => {
    const { ctx, dev, backend } = recordingContext();
    try {
      const cx = (rows: number, cols: number, count = 2) => strided(ctx.alloc('float64', 2 * rows * cols * count), { rows, cols, count, dtype: 'complex128' });
      dev.launches.length = 0;
      ctx.trsm({ a: cx(33, 33), b: cx(33, 2) });
      assert.deepEqual(ctx.lastRoute, { op: 'trsm', route: 'trsm', gpu: true });
      assert.deepEqual(dev.launches.filter((l) => l.src.entry.startsWith('ztrsm_')).map((l) => l.src.entry), ['ztrsm_z_llnn_n32_r2_stst_w2', 'ztrsm_z_llnn_n1_r2_stst_w4']);
      assert.equal(dev.launches.length, 3, 'two leaves and one GEMM');
      dev.launches.length = 0;
      ctx.trsm({ side: 'right', a: cx(100, 100), b: cx(2, 100) });
      assert.deepEqual(ctx.lastRoute, { op: 'trsm', route: 'trsm', gpu: true });
      assert.equal(dev.launches.filter((l) => l.src.entry.startsWith('ztrsm_')).length, 4, 'leaves 32, 32, 32, 4');
      dev.launches.length = 0;
      ctx.trsm({ a: cx(64, 64), b: cx(64, 3), alpha: 0 });
      assert.deepEqual(dev.launches.map((l) => l.src.entry), ['ztrsm_z_llnn_n32_r3_stst_w2', 'ztrsm_z_llnn_n32_r3_stst_w2'], 'alpha = 0: the leaves alone write the zeros');
      dev.launches.length = 0;
      backend.force = { trsm: 'cpu' };
      ctx.trsm({ a: cx(4, 4), b: cx(4, 1) });
      assert.deepEqual(ctx.lastRoute, { op: 'trsm', route: 'cpu', gpu: false });
      assert.equal(dev.launches.length, 0, 'nothing launched');
      backend.force = { trsm: 'vbatched' };
      fails(() => ctx.trsm({ a: cx(4, 4), b: cx(4, 1) }), 'ENUM', 'force', /trsm on complex data has no route 'vbatched' \(routes: cublas, trsm, cpu\)/);
      assert.equal(dev.launches.length, 0, 'nothing launched');
    } finally {
      ctx.dispose();
    }
  });

  it('the columns design where it serves: its grid (matrices a block, passes over y), block, arguments; leaves of the recursion too', () => {
    const { ctx, dev } = recordingContext();
    try {
      for (const dtype of ['complex128', 'complex64'] as const) for (const side of ['left', 'right'] as const) {
        const part = dtype === 'complex128' ? 'float64' : 'float32';
        const n = 20, count = 9, lda = n + 1, vectors = 40;
        const [rows, cols] = side === 'left' ? [n, vectors] : [vectors, n];
        const a = strided(ctx.alloc(part, 2 * lda * n * count), { rows: n, ld: lda, count, dtype });
        const b = strided(ctx.alloc(part, 2 * rows * cols * count), { rows, cols, count, dtype });
        dev.launches.length = 0;
        ctx.trsm({ side, uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: [2, 1], a, b });
        assert.deepEqual(ctx.lastRoute, { op: 'trsm', route: 'trsm', gpu: true });
        assert.equal(dev.launches.length, 1);
        const { src, args, config } = dev.launches[0]!;
        // 40 vectors: two passes of 20 lanes, 1 matrix a block (32 / 20): 9 blocks of x, both passes on y (a small batch).
        assert.equal(src.entry, `ztrsm_${dtype === 'complex128' ? 'z' : 'c'}_${side[0]}ltn_n20_cols_m1_l20_r1e_stst`);
        assert.deepEqual(config.grid, [9, 2, 1]);
        assert.deepEqual(config.block, [32, 1, 1]);
        assert.deepEqual([1, 2, 3].map((i) => num(args[i])), [0, lda * n, lda]);
        assert.deepEqual([num(args[9]), num(args[10])], [count, vectors]);
        assert.deepEqual([args[11], args[12]], [{ type: 'f64', value: 2 }, { type: 'f64', value: 1 }]);
      }
      // Order 40 with 16 vectors: leaves of 32 and 8 (both on the columns design) and one GEMM.
      const cx = (r: number, c: number) => strided(ctx.alloc('float64', 2 * r * c * 2), { rows: r, cols: c, count: 2, dtype: 'complex128' });
      dev.launches.length = 0;
      ctx.trsm({ a: cx(40, 40), b: cx(40, 16) });
      assert.deepEqual(dev.launches.filter((l) => l.src.entry.startsWith('ztrsm_')).map((l) => l.src.entry), ['ztrsm_z_llnn_n32_cols_m4_l16_r1e_stst', 'ztrsm_z_llnn_n8_cols_m2_l16_r1e_stst']);
    } finally {
      ctx.dispose();
    }
  });

  it('force pins the columns design and its choices through the launcher', () => {
    const { ctx, dev } = recordingContext();
    try {
      const cx = (r: number, c: number, count = 3) => strided(ctx.alloc('float64', 2 * r * c * count), { rows: r, cols: c, count, dtype: 'complex128' });
      const device: GpuDevice = dev;
      dev.launches.length = 0;
      complexTrsmCuda(device, { side: 'left', uplo: 'upper', transA: 'N', diag: 'unit', alpha: [1, 0], a: cx(4, 4) as never, b: cx(4, 3) as never }, { force: { design: 'columns', matrices: 2, rhs: 2 } });
      assert.deepEqual(dev.launches.map((l) => [l.src.entry, l.config.grid, l.config.block]), [['ztrsm_z_lunu_n4_cols_m2_l2_r2e_stst', [2, 1, 1], [32, 1, 1]]]);
      dev.launches.length = 0;
      complexTrsmCuda(device, { side: 'left', uplo: 'upper', transA: 'N', diag: 'unit', alpha: [1, 0], a: cx(20, 20) as never, b: cx(20, 20) as never }, { force: { design: 'warp' } });
      assert.deepEqual(dev.launches.map((l) => l.src.entry), ['ztrsm_z_lunu_n20_r4_stst_w2']);
    } finally {
      ctx.dispose();
    }
  });

  it('nothing to solve (no matrices, no vectors, order 0): no launch', () => {
    const { ctx, dev } = recordingContext();
    try {
      const cx = (rows: number, cols: number, count: number) => strided(ctx.alloc('float64', 2 * Math.max(1, rows * cols * count)), { rows, cols, count, dtype: 'complex128' });
      ctx.trsm({ a: cx(4, 4, 0), b: cx(4, 2, 0) });
      ctx.trsm({ a: cx(4, 4, 2), b: cx(4, 0, 2) });
      ctx.trsm({ side: 'right', a: cx(0, 0, 2), b: cx(3, 0, 2) });
      assert.equal(dev.launches.length, 0);
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex trsm: nvcc for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, () => {
  it('compiles without spills at order 32, both designs (registers reported)', async () => {
    const sources: KernelSource[] = [];
    for (const dtype of ['float64', 'float32'] as const) for (const v of ZTRSM_VARIANTS) for (const n of [1, 7, 16, 31, 32]) for (const kind of ['strided', 'pointer'] as const) {
      sources.push(ztrsmSmallSource(planZtrsm({ dtype, n, vectors: 33, ...v, kindA: kind, kindB: kind })));
    }
    // The columns design: both dtypes and sweep directions at order 32 (complex128's vector alone is 128 registers), the pointer form, 2 vectors a thread.
    for (const dtype of ['float64', 'float32'] as const) for (const v of ZTRSM_VARIANTS) for (const kind of ['strided', 'pointer'] as const) for (const rhs of [1, 2]) {
      sources.push(ztrsmColumnsSource(planZtrsmColumns({ ...problem, dtype, ...v, kindA: kind, kindB: kind }, { rhs })));
    }
    // Both dtypes at order 32 (complex128's row of T alone is 128 registers), one in the pointer form.
    const columns = new Set(['ztrsm_z_llnn_n32_cols_m2_l32_r1e_stst', 'ztrsm_z_rucn_n32_cols_m2_l32_r1e_papa', 'ztrsm_c_lutu_n32_cols_m2_l32_r1e_stst', 'ztrsm_c_llcn_n32_cols_m4_l16_r2e_papa']);
    const picked = compileSet(sources, (e) => e === 'ztrsm_z_llnn_n32_r4_stst_w2' || e === 'ztrsm_c_rucn_n32_r4_papa_w2' || columns.has(e));
    for (const e of columns) assert.ok(picked.some((k) => k.entry === e), `${e} among the compiled`);
    const results = await compileForSm90(picked);
    for (const r of results) {
      assert.ok(!('error' in r), `${r.src.entry}: ${'error' in r ? r.error : ''}`);
      if ('error' in r) continue;
      assert.equal(r.report.spillStores, 0, `${r.src.entry} spills: ${r.report.log}`);
      assert.ok(r.report.registers <= 255, `${r.src.entry}: ${r.report.registers} registers`);
    }
  });
});

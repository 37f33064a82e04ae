/**
 * The trsm family without a GPU: generators pure (every parameter changes the source or the
 * name), the recursion's list of launches, the leaf's launch shapes, and the whole plan run on
 * the CPU (the leaf emulated line for line as generate-leaf.ts computes it, the GEMM updates as
 * the very requests the launcher passes to the gemm family, run by the CPU gemm) against the CPU
 * reference for every variant, deep recursions (tiny forced leaves), odd layouts, stride-0 A and
 * list batches; where nvcc is installed, representative kernels compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { batchCount, list, matrixAt, strided, type ListBatch, type StridedBatch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { TrsmRequest } from '../../src/core/ops.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { splitPoint } from '../../src/cuda/kernels/common/split.js';
import { gemmCuda, type MmaGemmParams } from '../../src/cuda/kernels/gemm/index.js';
import {
  chainRhs, leafChunk, leafMapping, leafOffsets, leafShape, planTrsm, recursionSteps, solvesForward, trmmCuda, trmmProductTakes, trsmChainSource, trsmLeafSource, trsmZeroSource, updateRequest,
  type TriangularOp, type TrsmProblem, type TrsmVariant,
} from '../../src/cuda/kernels/trsm/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { defaultTrsmTuning } from '../../src/cuda/model/tuning/trsm-default.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { recordingDevice, type Recorded } from '../helpers/recording-device.js';
import {
  TRSM_VARIANTS, caseName, compareOutput, fillTriangle, inStrided, layoutLength, oddLayout, randomBuffer, trsmTolerance, type Layout,
} from '../helpers/trsm-data.js';

const tuning = tuningFor('sm_90', 'trsm');
const LIMIT = 227 * 1024 - 1024;

test('trsm generators are pure and every parameter changes the kernel', () => {
  const base = { op: 'trsm', dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kind: 'strided' } as const;
  assert.equal(trsmLeafSource(base).source, trsmLeafSource({ ...base }).source);
  const variants: KernelSource[] = [
    trsmLeafSource(base), trsmLeafSource({ ...base, dtype: 'float32' }), trsmLeafSource({ ...base, side: 'right' }),
    trsmLeafSource({ ...base, uplo: 'upper' }), trsmLeafSource({ ...base, transA: 'T' }), trsmLeafSource({ ...base, diag: 'unit' }),
    trsmLeafSource({ ...base, kind: 'pointer' }), trsmLeafSource({ ...base, op: 'trmm' }),
    trsmZeroSource({ dtype: 'float64', kind: 'strided' }), trsmZeroSource({ dtype: 'float32', kind: 'strided' }), trsmZeroSource({ dtype: 'float64', kind: 'pointer' }),
  ];
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  for (const v of variants) assert.match(v.source, new RegExp(`__global__ void __launch_bounds__\\([^)]*\\) ${v.entry}\\(`));
  // All 16 variants of both operations are distinct kernels.
  assert.equal(new Set(TRSM_VARIANTS.flatMap((c) => [trsmLeafSource({ ...base, ...c }).source, trsmLeafSource({ ...base, ...c, op: 'trmm' }).source])).size, 32);
});

test('trsm recursion: halves at multiples of 16, the first solve scaled by alpha, the rest by the updates', () => {
  assert.deepEqual([splitPoint(128, 16), splitPoint(100, 16), splitPoint(300, 16), splitPoint(5, 16), splitPoint(2, 1)], [64, 48, 144, 2, 1]);
  assert.deepEqual(recursionSteps(64, 64, 16, true), [{ kind: 'leaf', span: { off: 0, size: 64 }, scaled: true }]);
  assert.deepEqual(recursionSteps(0, 64, 16, true), []);
  const s = (off: number, size: number) => ({ off, size });
  assert.deepEqual(recursionSteps(128, 64, 16, true), [
    { kind: 'leaf', span: s(0, 64), scaled: true },
    { kind: 'update', target: s(64, 64), source: s(0, 64), scaled: true },
    { kind: 'leaf', span: s(64, 64), scaled: false },
  ]);
  // trmm: the dependent block first (with the other's input still in place), every leaf and update scaled.
  assert.deepEqual(recursionSteps(128, 64, 16, true, 'trmm'), [
    { kind: 'leaf', span: s(64, 64), scaled: true },
    { kind: 'update', target: s(64, 64), source: s(0, 64), scaled: true },
    { kind: 'leaf', span: s(0, 64), scaled: true },
  ]);
  // Backward (op(A) upper, side left): the second half first; 200 = 96 + (48 + 56).
  assert.deepEqual(recursionSteps(200, 64, 16, false), [
    { kind: 'leaf', span: s(144, 56), scaled: true },
    { kind: 'update', target: s(96, 48), source: s(144, 56), scaled: true },
    { kind: 'leaf', span: s(96, 48), scaled: false },
    { kind: 'update', target: s(0, 96), source: s(96, 104), scaled: true },
    { kind: 'leaf', span: s(48, 48), scaled: false },
    { kind: 'update', target: s(0, 48), source: s(48, 48), scaled: false },
    { kind: 'leaf', span: s(0, 48), scaled: false },
  ]);
  // Every row range is solved exactly once.
  for (const [t, leaf, fwd] of [[512, 64, true], [300, 64, false], [47, 4, true], [512, 1, false]] as const) {
    const steps = recursionSteps(t, leaf, 16, fwd);
    const leaves = steps.filter((x) => x.kind === 'leaf');
    const rows = leaves.flatMap((x) => (x.kind === 'leaf' ? Array.from({ length: x.span.size }, (_, i) => x.span.off + i) : [])).sort((x, y) => x - y);
    assert.deepEqual(rows, Array.from({ length: t }, (_, i) => i), `t = ${t}: each row in one leaf`);
    assert.ok(leaves.every((x) => x.kind === 'leaf' && x.span.size <= leaf));
    assert.equal(steps.length, 2 * leaves.length - 1, 'one update between consecutive leaves');
  }
  assert.equal(recursionSteps(512, 64, 16, true).length, 15);
});

test('trsm leaf shapes fit the block and the shared memory; the plan covers every leaf size', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [t, nvec, count] of [[1, 1, 1000], [64, 1, 1000], [64, 64, 10], [64, 500, 3], [17, 5, 7], [64, 64, 1]] as const) {
      const sh = leafShape(dtype, t, nvec, count, tuning.vectorsMax, tuning, LIMIT);
      const chunk = leafChunk(sh);
      assert.ok(sh.vectors * sh.matrices <= 256 && chunk >= 1 && sh.matrices >= 1 && sh.matrices <= count);
      // ldx is the plan's chunk made odd, so a pass takes that chunk or one more (the tile has ldx columns).
      assert.ok(sh.sharedBytes <= LIMIT && sh.ldx % 2 === 1 && chunk >= sh.ldx - 1);
      assert.ok(chunk <= Math.max(nvec, 1) + 1 || chunk % 32 === 0);
      // A triangle is loaded by at least a warp from 32 (its next power of two below), whatever the vectors.
      assert.ok(sh.vectors >= Math.min(32, 2 ** Math.ceil(Math.log2(t))), `t = ${t}, nvec = ${nvec}: ${sh.vectors} threads a matrix`);
    }
  }
  // One vector: one column of the shared tile, a warp a matrix.
  const one = leafShape('float64', 32, 1, 8192, tuning.vectorsMax, tuning, LIMIT);
  assert.deepEqual([one.vectors, one.ldx, leafChunk(one), one.matrices], [32, 1, 1, 8]);
  const plan = planTrsm({ op: 'trsm', dtype: 'float64', side: 'right', uplo: 'upper', transA: 'T', diag: 'unit', m: 7, n: 300, count: 5, kind: 'strided', sharedLimit: LIMIT }, tuning);
  for (const st of plan.steps) if (st.kind === 'leaf') assert.ok(plan.shapes.has(st.span.size));
  assert.equal(planTrsm({ op: 'trmm', dtype: 'float32', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', m: 40, n: 3, count: 5, kind: 'pointer', sharedLimit: LIMIT }, tuning, { force: { leafMax: 8 } })
    .steps.filter((x) => x.kind === 'leaf').length, 5);
  assert.throws(() => leafShape('float64', 512, 1, 1, 64, tuning, 48 * 1024), /does not fit/);
});

test('trmm side left in one product (float64 tensor cores, float32 CUDA cores): where the sm_90 table takes it, and its tiles', () => {
  const sm90 = tuningFor('sm_90', 'trsm');
  const base: Omit<TrsmProblem, 'm' | 'n' | 'count'> = { op: 'trmm', dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kind: 'strided', sharedLimit: LIMIT };
  const takes = (over: Partial<typeof base> & { m: number; n: number; count: number }, force = {}): boolean => trmmProductTakes({ ...base, ...over }, sm90, force);
  assert.ok(takes({ m: 32, n: 32, count: 65536 }) && takes({ m: 512, n: 512, count: 256 }) && takes({ m: 64, n: 64, count: 1024 }));
  assert.ok(!takes({ m: 31, n: 31, count: 65536 }), 'below the table\'s order');
  assert.ok(!takes({ m: 4096, n: 4096, count: 1 }), 'one large triangle: 64 panels');
  assert.ok(!takes({ m: 64, n: 64, count: 1023 }), 'fewer panels than the table asks');
  assert.ok(!takes({ m: 64, n: 64, count: 4096, side: 'right' }) && takes({ m: 64, n: 64, count: 4096, dtype: 'float32' }));
  assert.ok(!takes({ m: 31, n: 31, count: 65536, dtype: 'float32' }) && !takes({ m: 64, n: 64, count: 1023, dtype: 'float32' }));
  assert.ok(!takes({ m: 64, n: 64, count: 4096 }, { trmmProduct: false }) && !takes({ m: 64, n: 64, count: 4096 }, { leafMax: 16 }));
  assert.ok(takes({ m: 7, n: 3, count: 1 }, { trmmProduct: true }));
  assert.ok(!trmmProductTakes({ ...base, m: 64, n: 64, count: 4096 }, defaultTrsmTuning), 'no table: only where forced');
  // The table's tiles by order, with the problem's operand form; trsm never takes it.
  const tiles = (m: number, transA: 'N' | 'T', kind: 'strided' | 'pointer' = 'strided') => planTrsm({ ...base, transA, kind, m, n: m, count: 1 << 20 }, sm90).product?.params as MmaGemmParams | undefined;
  const tag = (c: { bm: number; bn: number; bk: number; stages: number }): string => `${c.bm}x${c.bn}x${c.bk}s${c.stages}`;
  for (const transA of ['N', 'T'] as const) {
    const bands = sm90.trmmProduct!.double!.tiles[transA];
    const orders = [32, 33, 48, 49, 64, 65, 96, 97, 128, 129, 512];
    assert.deepEqual(orders.map((m) => tag(tiles(m, transA)!)), orders.map((m) => tag(bands.find((b) => m <= b.maxDim)!.config)), transA);
  }
  // The band edges as measured: 16 x 16 tiles for triangles of 33-48, 64 x 64 from 129.
  assert.deepEqual([32, 33, 48, 49, 129].map((m) => tag(tiles(m, 'N')!)), ['32x32x16s3', '16x16x8s4', '16x16x8s4', '32x64x16s3', '64x64x16s4']);
  const t = tiles(128, 'T', 'pointer')!;
  assert.ok(t.transA === 'T' && t.betaZero && t.layouts.a.kind === 'pointer' && t.layouts.c.kind === 'pointer' && t.doubleBuffer === undefined);
  const plan = planTrsm({ ...base, m: 128, n: 128, count: 4096 }, sm90);
  assert.ok(plan.product !== undefined && plan.steps.length === 0);
  assert.equal(planTrsm({ ...base, op: 'trsm', m: 128, n: 128, count: 4096 }, sm90).product, undefined);
  assert.deepEqual(planTrsm({ ...base, m: 128, n: 128, count: 4096 }, defaultTrsmTuning, { force: { trmmProduct: true } }).product, {});
  // float32: the tiled kernel's bands, by transpose.
  const tiled = (m: number, transA: 'N' | 'T') => {
    const p = planTrsm({ ...base, dtype: 'float32', transA, m, n: m, count: 1 << 20 }, sm90).product?.params;
    assert.ok(p !== undefined && p.variant === 'tiled' && p.dtype === 'float32' && p.betaZero && p.transB === 'N');
    return `${p.bm}x${p.bn}x${p.bk}t${p.tm}`;
  };
  assert.deepEqual([32, 40, 48, 49, 128, 129, 512].map((m) => tiled(m, 'N')), ['32x32x16t4', '48x48x16t4', '48x48x16t4', '32x32x16t4', '32x32x16t4', '64x64x16t8', '64x64x16t8']);
  assert.deepEqual([32, 96, 97, 128, 129, 512].map((m) => tiled(m, 'T')), ['32x32x16t4', '32x32x16t4', '64x128x8t8', '64x128x8t8', '64x64x16t8', '64x64x16t8']);
});

test('trmm side left in one product, launched: one triangular kernel of the precision\'s design, a block per column panel; the gemm face refuses other designs', () => {
  const launches: Recorded[] = [];
  const dev = recordingDevice(launches);
  for (const [dtype, design] of [['float64', 'gemm_mma_d'], ['float32', 'gemm_tiled_s']] as const) {
    launches.length = 0;
    const [t, w, count] = [64, 100, 30];
    const a = dev.alloc(dtype, t * t * count), b = dev.alloc(dtype, t * w * count);
    const v = { side: 'left', uplo: 'lower', transA: 'T', diag: 'unit' } as const;
    trmmCuda(dev, { ...v, alpha: 2, a: strided(a, { rows: t, cols: t, count }), b: strided(b, { rows: t, cols: w, count }) }, { force: { trmmProduct: true } });
    assert.equal(launches.length, 1, `${dtype}: one launch`);
    const [l] = launches;
    // op(A) = A^T of a lower A: upper, unit diagonal.
    assert.ok(l!.src.entry.startsWith(design) && l!.src.entry.endsWith('_tauu'), l!.src.entry);
    const bn = Number(/_\d+x(\d+)x\d+_/.exec(l!.src.entry)![1]);
    assert.deepEqual(l!.config.grid, [Math.ceil(w / bn), count, 1]);
  }
  const [a, b] = [dev.alloc('float32', 16 * 16), dev.alloc('float32', 16 * 16)];
  const one = (x: typeof a) => strided(x, { rows: 16, cols: 16, count: 1 });
  // Forced parameters of the right design whose k-steps would not end on a tile's diagonal.
  const st = { kind: 'strided' as const, dense: false };
  const forced = { variant: 'tiled' as const, dtype: 'float32' as const, transA: 'N' as const, transB: 'N' as const, betaZero: true, layouts: { a: st, b: st, c: st }, bm: 32, bn: 32, bk: 12, tm: 4, tn: 4 };
  assert.throws(() => gemmCuda(dev, { transA: 'N', transB: 'N', alpha: 1, beta: 0, a: one(a), b: one(b), c: one(b) }, { variant: forced, triangularA: { lower: true, unit: false } }),
    (e: Error & { argument?: string }) => /runs on the tiled kernel with bk dividing bm, not the tiled kernel of bm 32, bk 12/.test(e.message) && e.argument === 'variant');
  assert.throws(() => gemmCuda(dev, { transA: 'N', transB: 'N', alpha: 1, beta: 1, a: one(a), b: one(b), c: one(b) }, { triangularA: { lower: true, unit: false } }), /beta must be 0/);
});

// ---- The plan on the CPU -------------------------------------------------------------------

type HostBatch = StridedBatch<FloatArray> | ListBatch<FloatArray>;

/** The leaf kernel's arithmetic (generate-leaf.ts) on one t x t diagonal block, every vector. */
function emulateLeaf(op: TriangularOp, v: TrsmVariant, t: number, nvec: number, alpha: number, A: FloatArray, aOff: number, lda: number, B: FloatArray, bOff: number, ldb: number): void {
  const map = leafMapping(v);
  const at = (p: number): number => (map.reverse ? t - 1 - p : p);
  const L = (p: number, q: number): number => (map.transposed ? A[aOff + at(q) + at(p) * lda]! : A[aOff + at(p) + at(q) * lda]!);
  for (let w = 0; w < nvec; w++) {
    const addr = (p: number): number => (map.left ? bOff + at(p) + w * ldb : bOff + w + at(p) * ldb);
    const x: number[] = [];
    for (let p = 0; p < t; p++) x.push(alpha * B[addr(p)]!);
    if (op === 'trsm') {
      for (let p = 0; p < t; p++) {
        let s = x[p]!;
        for (let q = 0; q < p; q++) s -= L(p, q) * x[q]!;
        x[p] = v.diag === 'unit' ? s : s / L(p, p);
      }
    } else {
      for (let p = t - 1; p >= 0; p--) {
        let s = v.diag === 'unit' ? x[p]! : L(p, p) * x[p]!;
        for (let q = 0; q < p; q++) s += L(p, q) * x[q]!;
        x[p] = s;
      }
    }
    for (let p = 0; p < t; p++) B[addr(p)] = x[p]!;
  }
}

/** The launcher's plan (plan.ts + blocks.ts) run on host batches. */
function runPlanOnCpu(op: TriangularOp, r: TrsmRequest<FloatArray> & { a: HostBatch; b: HostBatch }, leafMax: number): void {
  const count = batchCount(r.b);
  const m = r.b.rows, n = r.b.cols;
  const plan = planTrsm({ ...r, op, dtype: 'float64', m, n, count, kind: 'strided', sharedLimit: LIMIT }, tuning, { force: { leafMax } });
  for (const step of plan.steps) {
    if (step.kind === 'update') { cpuGemm(updateRequest(op, r, r.a, r.b, m, n, step)); continue; }
    for (let i = 0; i < count; i++) {
      const a = matrixAt(r.a, i), b = matrixAt(r.b, i);
      const d = leafOffsets(r.side === 'left', step.span.off, a.ld, b.ld);
      emulateLeaf(op, r, step.span.size, r.side === 'left' ? n : m, step.scaled ? r.alpha : 1, a.data, a.offset + d.a, a.ld, b.data, b.offset + d.b, b.ld);
    }
  }
}

test('trsm and trmm plans on the CPU match the reference: every variant, deep recursion, odd layouts, stride-0 A, lists', () => {
  const rng = new Rng(12);
  const dtype: DType = 'float64';
  for (const [op, reference] of [['trsm', cpuTrsm], ['trmm', cpuTrmm]] as const) for (const c of TRSM_VARIANTS) {
    for (const [m, n, leafMax, alpha, broadcast] of [[13, 5, 4, -2.5, false], [5, 13, 3, 1, true], [1, 9, 1, 1, false], [9, 1, 2, -2.5, false], [33, 20, 16, 0.5, false]] as const) {
      const t = c.side === 'left' ? m : n;
      const count = 3;
      const la: Layout = oddLayout(t, t, count, broadcast);
      const lb: Layout = oddLayout(m, n, count);
      const A = randomBuffer(rng, dtype, layoutLength(la));
      for (let i = 0; i < (broadcast ? 1 : count); i++) fillTriangle(rng, A, la.offset + i * la.stride, la.ld, t, c.uplo, c.diag);
      const B = randomBuffer(rng, dtype, layoutLength(lb));
      const batches = (b: FloatArray): { a: StridedBatch<FloatArray>; b: StridedBatch<FloatArray> } => ({
        a: strided(A, { rows: t, cols: t, count, ld: la.ld, stride: la.stride, offset: la.offset }),
        b: strided(b, { rows: m, cols: n, count, ld: lb.ld, stride: lb.stride, offset: lb.offset }),
      });
      const want = B.slice();
      reference({ ...c, alpha, ...batches(want) });
      const got = B.slice();
      runPlanOnCpu(op, { ...c, alpha, ...batches(got) }, leafMax);
      const what = `${op} ${caseName(c)} m=${m} n=${n} leaf=${leafMax}`;
      compareOutput(got, want, inStrided(lb), trsmTolerance(dtype, t), what);
      // The same as a list batch (matrices in reverse order, one buffer each side).
      const gotList = B.slice();
      const sb = batches(gotList);
      const entries = (x: StridedBatch<FloatArray>) => Array.from({ length: count }, (_, i) => ({ data: x.data, offset: x.offset + (count - 1 - i) * x.stride }));
      const wantList = B.slice();
      const wb = batches(wantList);
      reference({ ...c, alpha, a: list(entries(wb.a), { rows: t, ld: la.ld }), b: list(entries(wb.b), { rows: m, cols: n, ld: lb.ld }) });
      runPlanOnCpu(op, { ...c, alpha, a: list(entries(sb.a), { rows: t, ld: la.ld }), b: list(entries(sb.b), { rows: m, cols: n, ld: lb.ld }) }, leafMax);
      compareOutput(gotList, wantList, inStrided(lb), trsmTolerance(dtype, t), `${what} (list)`);
    }
  }
});

test('solve direction: left forward where op(A) is lower, right where op(A) is upper', () => {
  const fwd = TRSM_VARIANTS.filter((c) => c.diag === 'unit' && solvesForward(c)).map(caseName);
  assert.deepEqual(fwd, ['left/lower/N/unit', 'left/upper/T/unit', 'right/lower/T/unit', 'right/upper/N/unit']);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('trsm and trmm leaf kernels and the chained substitution compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  const sources = [
    trsmLeafSource({ op: 'trsm', dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kind: 'strided' }),
    trsmLeafSource({ op: 'trmm', dtype: 'float32', side: 'right', uplo: 'upper', transA: 'T', diag: 'unit', kind: 'pointer' }),
    // The flag-chained substitution (side left, few right-hand sides).
    trsmChainSource({ dtype: 'float64', uplo: 'lower', transA: 'N', diag: 'nonunit', rhs: 16, kind: 'strided' }),
    trsmChainSource({ dtype: 'float64', uplo: 'upper', transA: 'T', diag: 'unit', rhs: 1, kind: 'pointer' }),
    trsmChainSource({ dtype: 'float32', uplo: 'lower', transA: 'T', diag: 'nonunit', rhs: 4, kind: 'strided' }),
  ];
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('the chained substitution: chosen for side left trsm with few columns from the table\'s m, chains of a power of two, never where another path is forced', () => {
  const tuning = defaultTrsmTuning;
  const base = { op: 'trsm' as const, dtype: 'float64' as const, side: 'left' as const, uplo: 'lower' as const, transA: 'N' as const, diag: 'nonunit' as const, count: 1, sms: 132 };
  assert.equal(chainRhs({ ...base, m: 4096, n: 1 }, tuning), 1);
  assert.equal(chainRhs({ ...base, m: 4096, n: 3 }, tuning), 4);
  assert.equal(chainRhs({ ...base, m: 4096, n: 64 }, tuning), 16);
  assert.equal(chainRhs({ ...base, m: 4096, n: 65 }, tuning), 0, 'beyond chainMaxRhs');
  assert.equal(chainRhs({ ...base, m: 16384, n: 16 }, tuning), 16);
  assert.equal(chainRhs({ ...base, m: 16384, n: 17 }, tuning), 0, 'beyond chainMaxElements');
  assert.equal(chainRhs({ ...base, m: 511, n: 1 }, tuning), 0, 'below chainFrom');
  assert.equal(chainRhs({ ...base, m: 511, n: 1 }, tuning, { chain: true }), 1, 'forced');
  assert.equal(chainRhs({ ...base, m: 4096, n: 1 }, tuning, { chain: false }), 0);
  assert.equal(chainRhs({ ...base, m: 4096, n: 1 }, tuning, { invertFrom: 0 }), 0, 'another forced path');
  assert.equal(chainRhs({ ...base, side: 'right', m: 1, n: 4096 }, tuning), 0);
  assert.equal(chainRhs({ ...base, op: 'trmm', m: 4096, n: 1 }, tuning), 0);
  assert.equal(chainRhs({ ...base, m: 4096, n: 64, count: 20000 }, tuning), 0, 'more chains than grid.y holds');
  // Batches: at most chainMaxPerSm matrices an SM take the chain; a larger one the recursion, unless forced.
  const most = tuning.chainMaxPerSm * base.sms;
  assert.equal(chainRhs({ ...base, m: 512, n: 1, count: most }, tuning), 1);
  assert.equal(chainRhs({ ...base, m: 512, n: 1, count: most + 1 }, tuning), 0, 'a batch that fills the GPU');
  assert.equal(chainRhs({ ...base, m: 512, n: 1, count: most + 1, sms: 2 * base.sms }, tuning), 1, 'twice the SMs');
  assert.equal(chainRhs({ ...base, m: 512, n: 1, count: most + 1 }, tuning, { chain: true }), 1, 'forced');
});

test('the chained substitution by bands of right-hand sides (sm_90): the first band holding n decides the order it starts from', () => {
  const tuning = tuningFor('sm_90', 'trsm');
  const base = { op: 'trsm' as const, side: 'left' as const, uplo: 'lower' as const, transA: 'N' as const, diag: 'nonunit' as const, count: 100, sms: 132 };
  for (const dtype of ['float64', 'float32'] as const) {
    const bands = tuning.chain[dtype];
    assert.ok(bands.length > 1, `${dtype}: bands`);
    bands.forEach((band, i) => {
      assert.ok(i === 0 || band.maxRhs > bands[i - 1]!.maxRhs, `${dtype}: increasing maxRhs`);
      const widest = { ...base, dtype, n: band.maxRhs };
      assert.ok(chainRhs({ ...widest, m: band.from }, tuning) > 0, `${dtype} ${band.maxRhs} columns at ${band.from}`);
      assert.equal(chainRhs({ ...widest, m: band.from - 1 }, tuning), 0, `${dtype} ${band.maxRhs} columns below ${band.from}`);
      // One column more than a band holds takes the next band's order (or none after the last).
      const next = bands[i + 1];
      const beyond = { ...base, dtype, n: band.maxRhs + 1, m: band.from };
      assert.equal(chainRhs(beyond, tuning) > 0, next !== undefined && next.from <= band.from, `${dtype} ${band.maxRhs + 1} columns at ${band.from}`);
    });
  }
  assert.equal(chainRhs({ ...base, dtype: 'float64', m: 128, n: 8 }, tuning), 8);
  assert.equal(chainRhs({ ...base, dtype: 'float64', m: 128, n: 9 }, tuning), 0, 'float64 9-16 columns from 192');
  assert.equal(chainRhs({ ...base, dtype: 'float64', m: 96, n: 1 }, tuning), 0);
  assert.equal(chainRhs({ ...base, dtype: 'float32', m: 96, n: 3 }, tuning), 4);
});

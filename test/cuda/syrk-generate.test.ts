/**
 * The syrk family without a GPU: the generator pure (every parameter changes the source or the
 * name), the recursion's list of launches, the leaf's tiles and launch shapes, and the whole plan
 * run on the CPU (the leaf emulated as generate-leaf.ts computes it, the off-diagonal blocks as
 * the very GEMM requests the launcher passes to the gemm family, run by the CPU gemm) against the
 * CPU reference: both uplo x trans, deep recursions (tiny forced leaves), odd layouts, stride-0 A,
 * k = 0 and alpha = 0, beta = 0 over a NaN C, list batches; where nvcc is installed,
 * representative kernels compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { batchCount, list, matrixAt, strided, type ListBatch, type StridedBatch } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import type { SyrkRequest } from '../../src/core/ops.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { gemmCuda, type MmaGemmParams } from '../../src/cuda/kernels/gemm/index.js';
import {
  leafOffsets, leafTile, offdiagRequest, planSyrk, syrkCuda, syrkLeafShape, syrkLeafSource, syrkSteps, type SyrkLeafParams, type SyrkVariant,
} from '../../src/cuda/kernels/syrk/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { GemmTuning, SyrkTuning } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { inTriangle, syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const tuning = tuningFor('sm_90', 'syrk');
const LIMIT = 227 * 1024 - 1024;
const VARIANTS: readonly SyrkVariant[] = (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).map((trans) => ({ uplo, trans })));

test('the syrk leaf generator is pure and every parameter changes the kernel', () => {
  const base: SyrkLeafParams = { dtype: 'float64', uplo: 'lower', trans: 'N', kind: 'strided', tile: 64, reg: 4, chunk: 32 };
  assert.equal(syrkLeafSource(base).source, syrkLeafSource({ ...base }).source);
  const variants: KernelSource[] = [
    syrkLeafSource(base), syrkLeafSource({ ...base, dtype: 'float32' }), syrkLeafSource({ ...base, uplo: 'upper' }),
    syrkLeafSource({ ...base, trans: 'T' }), syrkLeafSource({ ...base, kind: 'pointer' }), syrkLeafSource({ ...base, tile: 32 }),
    syrkLeafSource({ ...base, reg: 2 }), syrkLeafSource({ ...base, chunk: 16 }),
  ];
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  for (const v of variants) assert.match(v.source, new RegExp(`__global__ void __launch_bounds__\\([^)]*\\) ${v.entry}\\(`));
});

test('syrk recursion: leaves merged where adjacent and equal, one GEMM per off-diagonal block on the uplo side', () => {
  assert.deepEqual(syrkSteps(64, 64, 16, 'lower'), [{ kind: 'leaf', off: 0, size: 64, blocks: 1 }]);
  assert.deepEqual(syrkSteps(0, 64, 16, 'lower'), []);
  const s = (off: number, size: number) => ({ off, size });
  assert.deepEqual(syrkSteps(128, 64, 16, 'upper'), [
    { kind: 'leaf', off: 0, size: 64, blocks: 2 },
    { kind: 'offdiag', rows: s(0, 64), cols: s(64, 64) },
  ]);
  const big = syrkSteps(512, 64, 16, 'lower');
  assert.deepEqual(big[0], { kind: 'leaf', off: 0, size: 64, blocks: 8 });
  assert.equal(big.length, 8, 'one leaf launch and 7 GEMMs');
  // Every element of the lower triangle is written by exactly one step.
  for (const [n, leaf, uplo] of [[300, 64, 'lower'], [47, 4, 'upper'], [200, 1, 'lower'], [127, 64, 'upper']] as const) {
    const hits = new Int32Array(n * n);
    for (const st of syrkSteps(n, leaf, 16, uplo)) {
      if (st.kind === 'leaf') {
        assert.ok(st.size <= leaf);
        for (let b = 0; b < st.blocks; b++) {
          const o = st.off + b * st.size;
          for (let j = 0; j < st.size; j++) for (let i = 0; i < st.size; i++) if (uplo === 'lower' ? i >= j : i <= j) hits[o + i + (o + j) * n]!++;
        }
      } else if (st.kind === 'offdiag') {
        for (let j = 0; j < st.cols.size; j++) for (let i = 0; i < st.rows.size; i++) hits[st.rows.off + i + (st.cols.off + j) * n]!++;
      }
    }
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.equal(hits[i + j * n], (uplo === 'lower' ? i >= j : i <= j) ? 1 : 0, `n=${n} (${i}, ${j})`);
  }
  assert.throws(() => syrkSteps(100, 65, 16, 'lower'), /leaf size/);
});

test('syrk leaf tiles and shapes: power-of-two tiles, at most 256 threads and 64 matrices (blockDim.z), the shared memory fits', () => {
  assert.deepEqual([1, 2, 3, 5, 16, 17, 33, 64].map((t) => leafTile(t)), [
    { tile: 1, reg: 1 }, { tile: 2, reg: 1 }, { tile: 4, reg: 1 }, { tile: 8, reg: 1 }, { tile: 16, reg: 1 }, { tile: 32, reg: 2 }, { tile: 64, reg: 4 }, { tile: 64, reg: 4 },
  ]);
  for (const dtype of ['float64', 'float32'] as const) for (const size of [1, 3, 8, 20, 64]) for (const count of [1, 7, 1000]) {
    const p: SyrkLeafParams = { dtype, uplo: 'lower', trans: 'N', kind: 'strided', ...leafTile(size), chunk: 32 };
    const sh = syrkLeafShape(p, count, tuning, LIMIT);
    assert.ok(sh.side * sh.side * sh.matrices <= 256 && sh.matrices >= 1 && sh.matrices <= count && sh.matrices <= 64 && sh.sharedBytes <= LIMIT);
  }
  // Order 1: one thread a matrix, but CUDA stacks at most 64 blocks' worth along z.
  assert.equal(syrkLeafShape({ dtype: 'float64', uplo: 'lower', trans: 'N', kind: 'strided', ...leafTile(1), chunk: 32 }, 1000, tuning, LIMIT).matrices, 64);
  const plan = planSyrk({ uplo: 'upper', trans: 'T', dtype: 'float32', n: 300, k: 5, count: 9, kind: 'pointer', sharedLimit: LIMIT }, tuning);
  for (const st of plan.steps) if (st.kind === 'leaf') assert.ok(plan.leaves.has(st.size));
  assert.throws(() => syrkLeafShape({ dtype: 'float64', uplo: 'lower', trans: 'N', kind: 'strided', tile: 64, reg: 4, chunk: 512 }, 1, tuning, 48 * 1024), /does not fit/);
});

// ---- The plan on the CPU -------------------------------------------------------------------

type HostBatch = StridedBatch<FloatArray> | ListBatch<FloatArray>;

/** The leaf kernel's arithmetic (generate-leaf.ts) on one t x t diagonal block. */
function emulateLeaf(v: SyrkVariant, t: number, k: number, alpha: number, beta: number, A: FloatArray, aOff: number, lda: number, C: FloatArray, cOff: number, ldc: number): void {
  const op = (i: number, l: number): number => (v.trans === 'N' ? A[aOff + i + l * lda]! : A[aOff + l + i * lda]!);
  for (let j = 0; j < t; j++) for (let i = 0; i < t; i++) {
    if (v.uplo === 'lower' ? i < j : i > j) continue;
    let s = 0;
    for (let l = 0; l < k; l++) s += op(i, l) * op(j, l);
    const e = cOff + i + j * ldc;
    C[e] = beta === 0 ? alpha * s : beta * C[e]! + alpha * s;
  }
}

/** The launcher's plan (plan.ts + blocks.ts) run on host batches. */
function runPlanOnCpu(r: SyrkRequest<FloatArray> & { a: HostBatch; c: HostBatch }, leafMax: number): void {
  const count = batchCount(r.c);
  const n = r.c.rows;
  const k = r.alpha === 0 ? 0 : r.trans === 'N' ? r.a.cols : r.a.rows;
  if (n === 0 || (k === 0 && r.beta === 1)) return;
  const plan = planSyrk({ ...r, dtype: 'float64', n, k, count, kind: 'strided', sharedLimit: LIMIT }, tuning, { force: { leafMax } });
  for (const step of plan.steps) {
    if (step.kind === 'offdiag') { cpuGemm(offdiagRequest({ ...r, alpha: k === 0 ? 0 : r.alpha }, r.a, r.c, k, step)); continue; }
    if (step.kind === 'triangle' || step.kind === 'tiles') throw new Error(`the forced leaf plan has no ${step.kind} step`);
    for (let i = 0; i < count; i++) {
      const a = matrixAt(r.a, i), c = matrixAt(r.c, i);
      for (let b = 0; b < step.blocks; b++) {
        const d = leafOffsets(r.trans, step.off + b * step.size, a.ld, c.ld);
        emulateLeaf(r, step.size, k, r.alpha, r.beta, a.data, a.offset + d.a, a.ld, c.data, c.offset + d.c, c.ld);
      }
    }
  }
}

test('syrk plan: one GEMM over the triangle from the table\'s triangleFrom (or forced), the recursion below it', () => {
  const problem = (n: number) => ({ uplo: 'lower' as const, trans: 'N' as const, dtype: 'float64' as const, n, k: 64, count: 1, kind: 'strided' as const, sharedLimit: LIMIT });
  // The tile design off (it takes small n before the triangle's bound: syrk-tiles-generate.test.ts).
  const t: SyrkTuning = { ...tuning, tilesUpTo: { float64: 0, float32: 0 } };
  const from = t.triangleFrom.float64;
  assert.deepEqual(planSyrk(problem(from), t).steps, [{ kind: 'triangle' }]);
  assert.ok(planSyrk(problem(from - 1), t).steps.every((s) => s.kind !== 'triangle'));
  assert.deepEqual(planSyrk(problem(10), t, { force: { triangle: true } }).steps, [{ kind: 'triangle' }]);
  assert.ok(planSyrk(problem(4 * from), t, { force: { triangle: false } }).steps.length > 1);
});

test('syrk\'s triangle launch takes the card\'s triangle tiles by op(A) and n to their last band, the gemm plan\'s above; forced tiles stay', () => {
  const launches: Recorded[] = [];
  const dev = recordingDevice(launches);
  const gemmTuning = tuningFor('sm_90', 'gemm');
  const bands = gemmTuning.mmaTriangle!;
  const tag = (c: { bm: number; bn: number; bk: number; wm: number; wn: number; stages: number }): string => `${c.bm}x${c.bn}x${c.bk}_w${c.wm}x${c.wn}_s${c.stages}`;
  // The launch of C's lower triangle (syrk's, or the gemm face's under `tuning`), or of the whole C.
  const entryOf = (n: number, trans: 'N' | 'T', opts: { tuning?: GemmTuning; whole?: boolean } = {}): string => {
    launches.length = 0;
    const [a, c] = [dev.alloc('float64', n * n * 8), dev.alloc('float64', n * n * 8)];
    const batch = (x: typeof a) => strided(x, { rows: n, cols: n, count: 8 });
    const [A, C] = [batch(a), batch(c)];
    if (opts.tuning === undefined && opts.whole !== true) syrkCuda(dev, { uplo: 'lower', trans, alpha: 1, beta: 0, a: A, c: C }, { force: { triangle: true } });
    else gemmCuda(dev, { transA: trans, transB: trans === 'N' ? 'T' : 'N', alpha: 1, beta: 0, a: A, b: A, c: C }, opts.whole === true ? {} : { triangle: 'lower', tuning: opts.tuning! });
    assert.equal(launches.length, 1, `n ${n} ${trans}: one launch`);
    return launches[0]!.src.entry;
  };
  for (const trans of ['N', 'T'] as const) {
    const op = trans === 'N' ? 'NT' : 'TN';
    const list = bands[trans]!;
    assert.ok(list.length > 0 && list.at(-1)!.maxDim >= 128, `${trans}: bands to 128`);
    for (let n = 33; n <= list.at(-1)!.maxDim; n += 5) {
      const want = list.find((b) => n <= b.maxDim)!.config;
      const entry = entryOf(n, trans);
      assert.ok(entry.startsWith(`gemm_mma_d${op}_${tag(want)}_`) && entry.endsWith('_tl'), `n ${n} ${trans}: ${entry}`);
    }
    // Above the last band, the gemm plan's own tiles for the whole C.
    const above = list.at(-1)!.maxDim + 32;
    assert.equal(entryOf(above, trans), `${entryOf(above, trans, { whole: true })}_tl`);
    // A table without triangle bands keeps the plan's tiles at every n.
    const { mmaTriangle: _, ...plain } = gemmTuning;
    const n = list[0]!.maxDim;
    assert.equal(entryOf(n, trans, { tuning: plain }), `${entryOf(n, trans, { whole: true })}_tl`);
    assert.notEqual(entryOf(n, trans), entryOf(n, trans, { tuning: plain }), `${n} ${trans}: the band differs from the plan`);
  }
  // Forced parameters are the caller's, triangle or not.
  launches.length = 0;
  const st = { kind: 'strided' as const, dense: false };
  const forced: MmaGemmParams = { variant: 'mma', dtype: 'float64', transA: 'N', transB: 'T', betaZero: true, layouts: { a: st, b: st, c: st }, bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 };
  const x = strided(dev.alloc('float64', 40 * 40), { rows: 40, cols: 40, count: 1 });
  gemmCuda(dev, { transA: 'N', transB: 'T', alpha: 1, beta: 0, a: x, b: x, c: x }, { variant: forced, triangle: 'lower' });
  assert.ok(launches[0]!.src.entry.startsWith(`gemm_mma_dNT_${tag(forced)}_`), launches[0]!.src.entry);
});

test('a float32 triangle of C takes the tiled bands, not the tiles by padding the whole C would take', () => {
  const launches: Recorded[] = [];
  const dev = recordingDevice(launches);
  const gemmTuning = tuningFor('sm_90', 'gemm');
  const entryOf = (n: number, triangle: boolean): string => {
    launches.length = 0;
    const x = strided(dev.alloc('float32', n * n * 600), { rows: n, cols: n, count: 600 });
    gemmCuda(dev, { transA: 'N', transB: 'T', alpha: 1, beta: 0, a: x, b: x, c: x }, triangle ? { triangle: 'lower' } : {});
    return launches[0]!.src.entry;
  };
  for (const n of [40, 48, 100, 160]) {
    const band = gemmTuning.tiled.float32.find((b) => n <= b.maxDim)!.config;
    const tri = entryOf(n, true);
    assert.ok(tri.startsWith(`gemm_tiled_sNT_${band.bm}x${band.bn}x${band.bk}_t${band.tm}x${band.tn}_`) && tri.endsWith('_tl'), `${n}: ${tri}`);
  }
  // Where padding and the band differ (48: 64 x 64 against 32 x 32), the whole C takes the padding's tile.
  assert.ok(entryOf(48, false).startsWith('gemm_tiled_sNT_64x64x8_'), entryOf(48, false));
});

test('syrk plans on the CPU match the reference: both uplo x trans, deep recursion, k = 0, alpha = 0, beta = 0 over NaN, stride-0 A, lists', () => {
  const rng = new Rng(1207);
  for (const v of VARIANTS) {
    for (const [n, k, leafMax, alpha, beta, broadcast] of [
      [13, 5, 4, -2.5, 0.5, false], [20, 1, 3, 1, 0, true], [1, 9, 1, 1, 1, false], [33, 40, 16, -2.5, 0, false], [9, 0, 2, 1, -2.5, false],
      [17, 6, 4, 0, 0, false], [30, 7, 64, 1, 1, false], [70, 3, 16, 2, -1, false],
    ] as const) {
      const count = 3;
      const [ar, ac] = v.trans === 'N' ? [n, k] : [k, n];
      const la: Layout = oddLayout(ar, ac, count, broadcast);
      const lc: Layout = oddLayout(n, n, count);
      const A = randomBuffer(rng, 'float64', layoutLength(la));
      const C = randomBuffer(rng, 'float64', layoutLength(lc));
      const written = inTriangle(lc, v.uplo);
      if (beta === 0) for (let e = 0; e < C.length; e++) if (written(e)) C[e] = NaN;
      const batches = (c: FloatArray): { a: StridedBatch<FloatArray>; c: StridedBatch<FloatArray> } => ({
        a: strided(A, { rows: ar, cols: ac, count, ld: la.ld, stride: la.stride, offset: la.offset }),
        c: strided(c, { rows: n, cols: n, count, ld: lc.ld, stride: lc.stride, offset: lc.offset }),
      });
      const want = C.slice();
      cpuSyrk({ ...v, alpha, beta, ...batches(want) });
      const got = C.slice();
      runPlanOnCpu({ ...v, alpha, beta, ...batches(got) }, leafMax);
      const what = `syrk ${v.uplo}/${v.trans} n=${n} k=${k} leaf=${leafMax} alpha=${alpha} beta=${beta}`;
      compareOutput(got, want, written, syrkTolerance('float64', k), what);
      // The same as a list batch (matrices in reverse order).
      const entries = (x: StridedBatch<FloatArray>) => Array.from({ length: count }, (_, i) => ({ data: x.data, offset: x.offset + (count - 1 - i) * x.stride }));
      const gotList = C.slice(), wantList = C.slice();
      const sb = batches(gotList), wb = batches(wantList);
      cpuSyrk({ ...v, alpha, beta, a: list(entries(wb.a), { rows: ar, cols: ac, ld: la.ld }), c: list(entries(wb.c), { rows: n, ld: lc.ld }) });
      runPlanOnCpu({ ...v, alpha, beta, a: list(entries(sb.a), { rows: ar, cols: ac, ld: la.ld }), c: list(entries(sb.c), { rows: n, ld: lc.ld }) }, leafMax);
      compareOutput(gotList, wantList, written, syrkTolerance('float64', k), `${what} (list)`);
    }
  }
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('syrk leaf kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  const sources = [
    syrkLeafSource({ dtype: 'float64', uplo: 'lower', trans: 'N', kind: 'strided', tile: 64, reg: 4, chunk: 32 }),
    syrkLeafSource({ dtype: 'float32', uplo: 'upper', trans: 'T', kind: 'pointer', tile: 8, reg: 1, chunk: 32 }),
  ];
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

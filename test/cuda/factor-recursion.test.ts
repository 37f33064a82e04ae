/**
 * The pure plans of compositions across families, without a GPU: the recursive Cholesky
 * (potrf/plan.ts: leaves, updates, when it applies), the recursive LU (getrf/plan.ts: its steps run
 * with the CPU's dgetf2, trsm and gemm equal dgetrf; its leaf shapes), the solves' trsm route
 * (solve/plan.ts), and the kernels they add (the info combine, the LU's panel and row
 * interchanges, getrs's row interchanges, posv/gesv's copy of B).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { infoCombineSource, potrfRecursionSteps, potrfRecursive, RECURSIVE_LEAF } from '../../src/cuda/kernels/potrf/index.js';
import { copySource } from '../../src/cuda/kernels/common/matrix-copy.js';
import { permuteSource } from '../../src/cuda/kernels/solve/generate-permute.js';
import { TRSM_ROUTE_MIN_RHS, trsmRouteApplies } from '../../src/cuda/kernels/solve/plan.js';
import { strided } from '../../src/core/batch.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { getrfMatrix } from '../../src/cpu/lapack/index.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { getrfLaswpSource, getrfRecursionSteps, getrfRecursive, getrfMidBand, getrfTallSource, tallShape } from '../../src/cuda/kernels/getrf/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';

test('the recursive Cholesky covers the matrix: leaves in order, each update between its two halves', () => {
  for (const n of [129, 200, 256, 300, 511, 1000, 1025, 2048, 4096]) {
    const steps = potrfRecursionSteps(n);
    const leaves = steps.filter((s) => s.kind === 'leaf');
    // The leaves tile [0, n) in order, none above the leaf size.
    let next = 0;
    for (const l of leaves) {
      assert.equal(l.off, next, `n = ${n}: leaves in order`);
      assert.ok(l.size >= 1 && l.size <= RECURSIVE_LEAF, `n = ${n}: leaf of ${l.size}`);
      next += l.size;
    }
    assert.equal(next, n);
    // Every update comes after the leaves of its top block and before those of the rest.
    for (const [i, s] of steps.entries()) {
      if (s.kind !== 'update') continue;
      assert.ok(s.top % 32 === 0 || s.top < 32, `n = ${n}: splits at multiples of 32`);
      const before = steps.slice(0, i).filter((x) => x.kind === 'leaf');
      const after = steps.slice(i + 1).filter((x) => x.kind === 'leaf');
      assert.ok(before.some((x) => x.off + x.size === s.off + s.top), `n = ${n}: the top block is factored first`);
      assert.ok(after.some((x) => x.off === s.off + s.top), `n = ${n}: the rest after`);
    }
  }
  assert.deepEqual(potrfRecursionSteps(100), [{ kind: 'leaf', off: 0, size: 100 }]);
  assert.deepEqual(potrfRecursionSteps(0), []);
});

test('when the recursion applies: from n = 256 whatever the count; force overrides', () => {
  assert.equal(potrfRecursive(1024, 10_000, 132), true);
  assert.equal(potrfRecursive(512, 256, 132), true);
  assert.equal(potrfRecursive(512, 4, 132), true);
  assert.equal(potrfRecursive(256, 1, 132), true);
  assert.equal(potrfRecursive(255, 1, 132), false);
  assert.equal(potrfRecursive(255, 10_000, 132), false);
  assert.equal(potrfRecursive(256, 132, 132), true, 'as many matrices as SMs too');
  assert.equal(potrfRecursive(200, 1, 132, true), true);
  assert.equal(potrfRecursive(100, 1, 132, true), false, 'nothing to split at or below a leaf');
  assert.equal(potrfRecursive(4096, 1, 132, false), false);
});

test('the solves take the trsm route from TRSM_ROUTE_MIN_RHS right-hand sides and n > 32, for every matrix', () => {
  assert.equal(trsmRouteApplies([{ n: 33, nrhs: TRSM_ROUTE_MIN_RHS }]), true);
  assert.equal(trsmRouteApplies([{ n: 32, nrhs: 100 }]), false);
  assert.equal(trsmRouteApplies([{ n: 100, nrhs: TRSM_ROUTE_MIN_RHS - 1 }]), false);
  assert.equal(trsmRouteApplies([{ n: 100, nrhs: 20 }, { n: 20, nrhs: 20 }]), false, 'a variable batch takes it only whole');
  assert.equal(trsmRouteApplies([]), false);
});

test('the added kernels: pure, every parameter changes the source, and they compile', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  const permutes = [false, true].flatMap((inverse) => (['strided', 'pointer'] as const).map((kind) => permuteSource({ dtype: 'float64', kind, inverse })));
  const copies = [false, true].flatMap((failedOnly) => (['float64', 'float32'] as const).map((dtype) => copySource({ dtype, kind: 'strided', failedOnly })));
  const all = [...permutes, ...copies, infoCombineSource()];
  assert.equal(new Set(all.map((k) => k.source)).size, all.length);
  assert.equal(permuteSource({ dtype: 'float32', kind: 'pointer', inverse: true }).source, permuteSource({ dtype: 'float32', kind: 'pointer', inverse: true }).source);
  const failures = compileFailures(await compileForSm90(all), () => undefined);
  assert.deepEqual(failures, [], failures.join('\n'));
});

// ---- getrf's recursion (getrf/plan.ts) ----

const GETRF_T = tuningFor('sm_90', 'getrf').recursion;

test('the recursive LU applies from minN, or minNFew with fewer matrices than SMs, or minNMany with more; force overrides', () => {
  const { minNMany: _tableMany, mid: _tableMid, ...withoutMany } = GETRF_T;
  const t = { ...withoutMany, minN: { float64: 512, float32: 1024 }, minNFew: { float64: 256, float32: 256 } };
  const d = 'float64';
  assert.equal(getrfRecursive(d, 512, 512, 10_000, 132, t), true);
  assert.equal(getrfRecursive('float32', 512, 512, 10_000, 132, t), false, 'per dtype');
  assert.equal(getrfRecursive(d, 256, 256, 500, 132, t), false, 'no minNMany: minN for many matrices');
  assert.equal(getrfRecursive(d, 256, 256, 4, 132, t), true);
  const many = { ...t, minNMany: { float64: 300, float32: 300 } };
  assert.equal(getrfRecursive(d, 300, 300, 132, 132, many), true);
  assert.equal(getrfRecursive(d, 299, 299, 500, 132, many), false);
  assert.equal(getrfRecursive(d, 256, 256, 4, 132, many), true, 'few: minNFew still');
  const mid = { ...many, mid: { float64: [{ minN: 65, perSm: 15 }, { minN: 97, perSm: 6 }], float32: [{ minN: 129, perSm: 6 }] } };
  assert.equal(getrfRecursive(d, 65, 65, 1980, 132, mid), true, 'mid: from minN with perSm matrices an SM');
  assert.equal(getrfRecursive(d, 65, 65, 1979, 132, mid), false, 'mid: fewer matrices an SM');
  assert.equal(getrfRecursive(d, 96, 96, 1979, 132, mid), false, 'mid: the first band to its next minN');
  assert.equal(getrfRecursive(d, 97, 97, 792, 132, mid), true, 'mid: the second band from its minN');
  assert.equal(getrfRecursive(d, 97, 97, 791, 132, mid), false);
  assert.equal(getrfRecursive(d, 100, 65, 792, 132, mid), true, 'mid: by max(rows, cols)');
  assert.equal(getrfRecursive(d, 64, 64, 100_000, 132, mid), false, 'mid: below its first minN');
  assert.equal(getrfRecursive('float32', 128, 128, 100_000, 132, mid), false, 'mid: per dtype');
  assert.equal(getrfRecursive('float32', 129, 129, 1_000, 132, mid), true);
  assert.equal(getrfRecursive(d, 299, 299, 791, 132, mid), false, 'mid below perSm: minNMany');
  assert.equal(getrfRecursive(d, 96, 96, 10_000, 132, mid, false), false, 'force overrides mid');
  const none = { ...many, mid: { float64: [], float32: [] } };
  assert.equal(getrfRecursive(d, 200, 200, 100_000, 132, none), false, 'no bands: never');
  assert.deepEqual(getrfMidBand(mid, d, 96), { minN: 65, perSm: 15 });
  assert.deepEqual(getrfMidBand(mid, d, 4096), { minN: 97, perSm: 6 });
  assert.equal(getrfMidBand(mid, 'float32', 128), undefined);
  assert.equal(getrfRecursive(d, 100, 600, 1000, 132, t), true, 'by max(rows, cols)');
  assert.equal(getrfRecursive(d, 255, 255, 1, 132, t), false);
  assert.equal(getrfRecursive(d, 40, 40, 1, 132, t, true), true);
  assert.equal(getrfRecursive(d, 0, 40, 1, 132, t, true), false, 'nothing to factor');
  assert.equal(getrfRecursive(d, 4096, 4096, 1, 132, t, false), false);
  // The table (factor-sm_90.ts): from 2560, or 1024 for fewer matrices than SMs, or 256 for as many or more, both dtypes ...
  assert.equal(getrfRecursive(d, 4096, 4096, 1, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 2048, 2048, 1, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 1023, 1023, 1, 132, GETRF_T), false);
  assert.equal(getrfRecursive(d, 2048, 2048, 500, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 256, 256, 132, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 255, 255, 791, 132, GETRF_T), false);
  assert.equal(getrfRecursive(d, 512, 512, 131, 132, GETRF_T), false, 'fewer than SMs: the per-matrix kernel to 1023');
  assert.equal(getrfRecursive('float32', 8192, 8192, 1, 132, GETRF_T), true);
  // ... and batches of 15 matrices an SM at 65-96 (float64) and 113-128 (float32), 10 at 97-112 and 6 from 113 (float64), 6 from 129 (float32).
  assert.equal(getrfRecursive(d, 96, 96, 7281, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 65, 65, 1980, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 72, 72, 1056, 132, GETRF_T), false, 'float64 65-96: the register design at 8 an SM');
  assert.equal(getrfRecursive(d, 97, 97, 1320, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 112, 112, 1319, 132, GETRF_T), false, 'float64 97-112: the register design below 10 an SM');
  assert.equal(getrfRecursive(d, 113, 113, 792, 132, GETRF_T), true);
  assert.equal(getrfRecursive(d, 128, 128, 791, 132, GETRF_T), false);
  assert.equal(getrfRecursive(d, 64, 64, 16_384, 132, GETRF_T), false, 'the register design to 64');
  assert.equal(getrfRecursive('float32', 112, 112, 100_000, 132, GETRF_T), false, 'float32: the register design to 112');
  assert.equal(getrfRecursive('float32', 128, 128, 8192, 132, GETRF_T), true, 'float32 113-128: from 15 an SM');
  assert.equal(getrfRecursive('float32', 128, 128, 1979, 132, GETRF_T), false);
  assert.equal(getrfRecursive('float32', 129, 129, 792, 132, GETRF_T), true);
  assert.equal(getrfRecursive('float32', 160, 160, 5242, 132, GETRF_T), true);
  assert.equal(getrfRecursive('float32', 1000, 1000, 1, 132, GETRF_T), false);
});

test('tallShape: the panel fits the block and the register budget; wider as the rows shrink', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    let last = 0;
    for (const m of [4096, 3000, 2048, 1025, 1024, 600, 256, 100, 1]) {
      const s = tallShape(dtype, m, GETRF_T);
      assert.ok(s.threads % 32 === 0 && s.threads >= 64 && s.threads <= GETRF_T.maxThreads);
      assert.ok(s.threads * s.rowsPerThread >= m, `${dtype} m = ${m}: every row has a thread`);
      assert.ok(s.nb >= 1 && s.nb <= GETRF_T.widest[dtype] && (s.nb & (s.nb - 1)) === 0);
      if (s.threads === GETRF_T.maxThreads) assert.ok(s.rowsPerThread * s.nb * (dtype === 'float64' ? 2 : 1) <= GETRF_T.valueRegisters);
      assert.ok(s.nb >= last, 'no narrower for fewer rows');
      last = s.nb;
    }
  }
  assert.deepEqual(tallShape('float64', 512, GETRF_T), { threads: 512, rowsPerThread: 1, nb: 16 });
  assert.equal(tallShape('float64', 4096, GETRF_T, 2).nb, 2, 'a forced narrower widest');
});

/** The recursion's steps run with the CPU: dgetf2 on leaves, dlaswp, trsm and gemm on sub-blocks. */
function runGetrfSteps(a: Float64Array, m: number, n: number, ld: number, piv: Int32Array, leaf: (rows: number) => number): number {
  let info = 0;
  const sub = (r0: number, c0: number, rows: number, cols: number) => strided(a, { rows, cols, count: 1, ld, stride: 0, offset: r0 + c0 * ld });
  for (const s of getrfRecursionSteps(m, n, leaf)) {
    if (s.kind === 'panel') {
      assert.ok(s.width <= Math.max(1, leaf(m - s.off)));
      const local = new Int32Array(s.width);
      const i = getrfMatrix(a, s.off + s.off * ld, ld, m - s.off, s.width, local, 0);
      local.forEach((p, j) => { piv[s.off + j] = s.off + p; });
      if (info === 0 && i > 0) info = s.off + i;
    } else if (s.kind === 'swap') {
      for (let c = s.col; c < s.col + s.cols; c++) for (let k = s.from; k < s.to; k++) {
        const p = piv[k]!, x = a[k + c * ld]!;
        a[k + c * ld] = a[p + c * ld]!; a[p + c * ld] = x;
      }
    } else if (s.kind === 'solve') {
      cpuTrsm({ side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1, a: sub(s.off, s.off, s.top, s.top), b: sub(s.off, s.col, s.top, s.cols) });
    } else if (m - s.off - s.top > 0) {
      const below = m - s.off - s.top;
      cpuGemm({ transA: 'N', transB: 'N', alpha: -1, beta: 1, a: sub(s.off + s.top, s.off, below, s.top), b: sub(s.off, s.col, s.top, s.cols), c: sub(s.off + s.top, s.col, below, s.cols) });
    }
  }
  return info;
}

test('the recursive LU\'s steps give dgetrf\'s factors, pivots and info (square, tall, wide, singular)', () => {
  const rng = new Rng(17);
  const leaves = [(): number => 16, (rows: number): number => (rows > 100 ? 4 : rows > 50 ? 8 : 16), (): number => 1];
  for (const [m, n] of [[1, 1], [5, 3], [3, 5], [100, 100], [257, 257], [300, 130], [130, 300], [200, 201]] as const) {
    for (const leaf of m * n > 40_000 ? leaves.slice(0, 2) : leaves) for (const zero of [-1, Math.floor(Math.min(m, n) / 3)]) {
      const ld = m + 3;
      const a = new Float64Array(ld * n);
      for (let e = 0; e < a.length; e++) a[e] = rng.uniform();
      if (zero >= 0) for (let i = 0; i < m; i++) a[i + zero * ld] = 0;
      const want = a.slice(), wantPiv = new Int32Array(Math.min(m, n));
      const wantInfo = getrfMatrix(want, 0, ld, m, n, wantPiv, 0);
      const piv = new Int32Array(Math.min(m, n)).fill(-1);
      const info = runGetrfSteps(a, m, n, ld, piv, leaf);
      const what = `${m}x${n} leaf(${leaf(m)}) zero column ${zero}`;
      assert.equal(info, wantInfo, `${what}: info`);
      if (zero >= 0 && Math.min(m, n) > 1) assert.equal(info, zero + 1);
      assert.deepEqual([...piv], [...wantPiv], `${what}: pivots`);
      for (let e = 0; e < a.length; e++) if (!(Math.abs(a[e]! - want[e]!) <= 1e-11 * Math.max(m, n))) assert.fail(`${what}: element ${e} ${a[e]} vs ${want[e]}`);
    }
  }
  // The steps cover [0, min(m, n)) with panels in order, and the columns past it (n > m) get every swap and the solve.
  const steps = getrfRecursionSteps(70, 100, () => 16);
  const panels = steps.filter((s) => s.kind === 'panel');
  let next = 0;
  for (const p of panels) { assert.equal(p.off, next); next += p.width; }
  assert.equal(next, 70);
  assert.deepEqual(steps.slice(-2), [{ kind: 'swap', from: 0, to: 70, col: 70, cols: 30 }, { kind: 'solve', off: 0, top: 70, col: 70, cols: 30 }]);
  assert.deepEqual(getrfRecursionSteps(0, 5, () => 16), []);
});

test('the recursive LU\'s kernels: pure, every parameter changes the source, they compile', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  const base = { dtype: 'float64', kind: 'strided', nb: 16, threads: 512, rowsPerThread: 1 } as const;
  const talls = [base, { ...base, dtype: 'float32' as const }, { ...base, kind: 'pointer' as const }, { ...base, nb: 8 },
    { ...base, threads: 1024, rowsPerThread: 4, nb: 4 }, { ...base, rowsPerThread: 2 }].map(getrfTallSource);
  const swaps = (['float64', 'float32'] as const).flatMap((dtype) => (['strided', 'pointer'] as const).map((kind) => getrfLaswpSource({ dtype, kind })));
  const all = [...talls, ...swaps];
  assert.equal(new Set(all.map((k) => k.source)).size, all.length);
  assert.equal(getrfTallSource(base).source, getrfTallSource({ ...base }).source);
  // (the panel kernels are fully unrolled, so a compile is slow: a representative few)
  const failures = compileFailures(await compileForSm90([talls[0]!, talls[1]!, talls[4]!, swaps[0]!, swaps[3]!]), () => undefined);
  assert.deepEqual(failures, [], failures.join('\n'));
});

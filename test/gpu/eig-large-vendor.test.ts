/**
 * syev and gesvd beyond the own designs' range on a real GPU (skipped where none is usable), through
 * the API on device data: the routes 'cusolver-syevd' (n = 513, 700, 1025; a variable batch with
 * members on both sides of 512 split with the own design, route 'split') and 'cusolver-gesvd' (600 x 520, 520 x 600 (solved as A^T), 5000 x 40 and
 * 40 x 5000 (beyond the bidiagonalization table's 4096 rows)), both dtypes, both triangles, every job.
 * Fresh random matrices placed with ld > rows, gaps and NaN where syev must not read (the other
 * triangle); outputs poisoned with NaN inside and a sentinel around, which must come back; a member
 * with a NaN flagged (info k + 2, NaN outputs) beside correct neighbours. No CPU reference at these
 * sizes: the checks are residuals independent of the vendor (LAPACK's ratios, below 30):
 * ||A V - V W|| / (n eps ||A||), ||V^T V - I|| / (n eps), ||A - U S VT|| / (max(m, n) eps ||A||),
 * ||U^T U - I||, ||VT VT^T - I|| / (k eps); values ascending (syev) or descending (gesvd); with values
 * only, sum w = trace A and sum w^2 = ||A||_F^2 (sum s^2 = ||A||_F^2), within 30 n eps ||A||_F.
 * The checks' products run in float64 on the own GEMM kernels (route 'gemm' forced: no vendor library).
 * Where libcusolver does not load the routes are not taken: the tests skip with the reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided, variable, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import { choose } from '../../src/cuda/router.js';
import { gpu, gpuContext, gpuSkipReason } from '../helpers/gpu.js';
import { generalCase, symmetricCase, type Mat, type SvdKind, type SymKind } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, rounded } from '../helpers/syev-gpu-checks.js';
import { needs } from '../helpers/vendor-placed.js';

const skip = gpuSkipReason();
/** What the padding around the outputs holds (and must hold after the call). */
const SENTINEL = -12345.5;

// ---------------------------------------------------------------------------------------------
// The residuals' products: float64 on the GPU by the project's own GEMM (forced 'gemm': no vendor
// library in the check), the rest O(n^2) in JavaScript.

/** op(A) B in float64 by the own GEMM kernels (transA 'T': A^T B). */
function product(a: Mat, b: Mat, transA: 'N' | 'T' = 'N'): Mat {
  const { ctx, backend } = gpuContext();
  const m = transA === 'N' ? a.m : a.n, k = transA === 'N' ? a.n : a.m;
  assert.equal(k, b.m, 'product: inner dimensions');
  const dA = ctx.upload(a.d), dB = ctx.upload(b.d), dC = ctx.alloc('float64', m * b.n);
  const saved = backend.force;
  backend.force = { ...saved, gemm: 'gemm' };
  try {
    ctx.gemm({ transA, a: strided(dA, { rows: a.m, cols: a.n, count: 1 }), b: strided(dB, { rows: b.m, cols: b.n, count: 1 }), c: strided(dC, { rows: m, cols: b.n, count: 1 }) });
    return { m, n: b.n, d: Float64Array.from(ctx.download(dC) as Float64Array) };
  } finally {
    backend.force = saved;
    for (const d of [dA, dB, dC]) (d as { dispose?: () => void }).dispose?.();
  }
}
function transposed(a: Mat): Mat {
  const t = { m: a.n, n: a.m, d: new Float64Array(a.m * a.n) };
  for (let j = 0; j < a.n; j++) for (let i = 0; i < a.m; i++) t.d[j + i * a.n] = a.d[i + j * a.m]!;
  return t;
}
const frob = (x: ArrayLike<number>): number => { let s = 0; for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!; return Math.sqrt(s); };
/** ||Q^T Q - I||_F / (cols eps). */
function orthoRatio(q: Mat, eps: number): number {
  const g = product(q, q, 'T');
  for (let i = 0; i < g.m; i++) g.d[i + i * g.m] -= 1;
  return frob(g.d) / (Math.max(1, q.n) * eps);
}
/** ||A V - V diag(w)||_F / (n eps ||A||_F). */
function eigenRatio(a: Mat, v: Mat, w: ArrayLike<number>, eps: number): number {
  const r = product(a, v);
  for (let j = 0; j < v.n; j++) for (let i = 0; i < v.m; i++) r.d[i + j * v.m] -= v.d[i + j * v.m]! * w[j]!;
  return frob(r.d) / (Math.max(1, v.m) * eps * (frob(a.d) || 1));
}

// ---------------------------------------------------------------------------------------------
// Placement: inputs with ld = rows + 1, a gap of 3 and NaN around; outputs NaN inside, SENTINEL around.

interface Placed { data: FloatArray; rows: number; cols: number; ld: number; stride: number; count: number }
function placeIn(dtype: DType, rows: number, cols: number, count: number, inside: (k: number, i: number, j: number) => number, around: number): Placed {
  const ld = rows + 1, stride = ld * cols + 3;
  const data = allocate(dtype, stride * count + 2).fill(around);
  for (let k = 0; k < count; k++) for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) data[k * stride + i + j * ld] = inside(k, i, j);
  return { data, rows, cols, ld, stride, count };
}
const isInside = (p: Placed, e: number): boolean => { const k = Math.floor(e / p.stride), r = e % p.stride; return k < p.count && r < p.ld * p.cols && r % p.ld < p.rows; };
function readMat(p: Placed, data: FloatArray, k: number): Mat {
  const out = { m: p.rows, n: p.cols, d: new Float64Array(p.rows * p.cols) };
  for (let j = 0; j < p.cols; j++) for (let i = 0; i < p.rows; i++) out.d[i + j * p.rows] = data[k * p.stride + i + j * p.ld]!;
  return out;
}
const batchOf = (p: Placed, d: DeviceStorage): Batch<Storage> => strided(d, { rows: p.rows, cols: p.cols, count: p.count, ld: p.ld, stride: p.stride });
/** Every element outside the matrices came back as it went (bit for bit, NaN as NaN). */
function untouchedAround(p: Placed, before: FloatArray, after: FloatArray, what: string): void {
  for (let e = 0; e < before.length; e++) if (!isInside(p, e)) assert.ok(Object.is(after[e], before[e]), `${what}: element ${e} outside the matrices changed (${before[e]} -> ${after[e]})`);
}

// ---------------------------------------------------------------------------------------------
// syev

const SYM: readonly SymKind[] = ['random', 'clustered', 'repeated'];

function checkSyev(dtype: DType, n: number, count: number, jobz: 'vectors' | 'values', uplo: Uplo, rng: Rng): void {
  const { ctx } = gpuContext();
  const eps = EPS[dtype];
  const mats = Array.from({ length: count }, (_, k) => rounded(symmetricCase(rng, SYM[k % SYM.length]!, n).a, dtype));
  const bad = count > 2 ? 1 : -1;
  // The input: the `uplo` triangle, NaN in the other (never read), one NaN in the triangle of member `bad`.
  const A = placeIn(dtype, n, n, count, (k, i, j) => ((uplo === 'lower' ? i >= j : i <= j) ? (k === bad && i === j && i === n - 1 ? NaN : mats[k]!.d[i + j * n]!) : NaN), NaN);
  const W = placeIn(dtype, n, 1, count, () => NaN, SENTINEL);
  const dA = ctx.upload(A.data), dW = ctx.upload(W.data), dInfo = ctx.upload(new Int32Array(count).fill(-7));
  const what = `syev ${dtype} n=${n} x ${count} ${jobz} ${uplo}`;
  try {
    ctx.syev({ jobz, uplo, a: batchOf(A, dA), w: batchOf(W, dW), info: dInfo });
    assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'cusolver-syevd', gpu: true }, what);
    const a = ctx.download(dA) as FloatArray, w = ctx.download(dW) as FloatArray, info = ctx.download(dInfo) as Int32Array;
    untouchedAround(W, W.data, w, `${what} w`);
    if (jobz === 'values') assert.ok(a.every((x, e) => Object.is(x, A.data[e])), `${what}: values only leaves A alone`);
    else untouchedAround(A, A.data, a, `${what} A`);
    for (let k = 0; k < count; k++) {
      const at = `${what} #${k}`;
      const wk = Array.from({ length: n }, (_, i) => w[k * W.stride + i]!);
      if (k === bad) {
        assert.equal(info[k], n + 2, `${at}: a NaN flagged`);
        assert.ok(wk.every(Number.isNaN), `${at}: w NaN`);
        if (jobz === 'vectors') assert.ok(readMat(A, a, k).d.every(Number.isNaN), `${at}: vectors NaN`);
        continue;
      }
      assert.equal(info[k], 0, `${at}: info`);
      for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at}: ascending at ${j} (${wk[j - 1]}, ${wk[j]})`);
      const m0 = mats[k]!, norm = frob(m0.d) || 1;
      if (jobz === 'values') {
        let trace = 0;
        for (let i = 0; i < n; i++) trace += m0.d[i + i * n]!;
        const sum = wk.reduce((s, x) => s + x, 0), squares = wk.reduce((s, x) => s + x * x, 0);
        assert.ok(Math.abs(sum - trace) <= LIMIT * n * eps * norm, `${at}: sum w ${sum}, trace ${trace}`);
        assert.ok(Math.abs(Math.sqrt(squares) - norm) <= LIMIT * n * eps * norm, `${at}: ||w|| ${Math.sqrt(squares)}, ||A||_F ${norm}`);
        continue;
      }
      const v = readMat(A, a, k);
      const residual = eigenRatio(m0, v, wk, eps), ortho = orthoRatio(v, eps);
      assert.ok(residual < LIMIT && ortho < LIMIT, `${at}: ||AV - VW|| ratio ${residual}, ||V^T V - I|| ratio ${ortho}`);
    }
  } finally {
    for (const d of [dA, dW, dInfo]) (d as { dispose?: () => void }).dispose?.();
  }
}

test('syev above 512 on cusolver-syevd: n = 513, 700, 1025, both dtypes and triangles, vectors and values only, a NaN member', { skip, timeout: 300_000 }, (t) => {
  if (!needs(t, 'cusolver')) return;
  const rng = new Rng(513);
  checkSyev('float64', 513, 3, 'vectors', 'lower', rng);
  checkSyev('float32', 513, 3, 'values', 'upper', rng);
  checkSyev('float32', 700, 2, 'vectors', 'upper', rng);
  checkSyev('float64', 700, 3, 'values', 'lower', rng);
  checkSyev('float64', 1025, 1, 'vectors', 'upper', rng);
});

test('syev: a variable batch with members on both sides of 512 is split (route \'split\'): the own design takes the small ones, cusolver-syevd the rest, each member at its place, a NaN member flagged', { skip, timeout: 120_000 }, (t) => {
  if (!needs(t, 'cusolver')) return;
  const { ctx } = gpuContext();
  const rng = new Rng(600);
  const orders = [40, 600, 3, 100, 513];
  const bad = 2;
  const mats = orders.map((n) => symmetricCase(rng, 'random', n).a);
  const dA = mats.map((m, q) => ctx.upload(Float64Array.from(m.d, (x, e) => (q === bad && e === 0 ? NaN : x))));
  const dW = orders.map((n) => ctx.upload(new Float64Array(n).fill(NaN)));
  const dInfo = ctx.upload(new Int32Array(orders.length).fill(-7));
  try {
    ctx.syev({ jobz: 'vectors', uplo: 'lower', a: variable(dA.map((data, q) => ({ data, rows: orders[q]! }))), w: variable(dW.map((data, q) => ({ data, rows: orders[q]!, cols: 1 }))), info: dInfo });
    assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'split', gpu: true });
    assert.deepEqual([...(ctx.download(dInfo) as Int32Array)], orders.map((n, q) => (q === bad ? n + 2 : 0)), 'info at each place');
    orders.forEach((n, q) => {
      const w = ctx.download(dW[q]!) as Float64Array;
      if (q === bad) { assert.ok(w.every(Number.isNaN), `member ${q}: w NaN`); return; }
      for (let j = 1; j < n; j++) assert.ok(w[j - 1]! <= w[j]!, `member ${q}: ascending at ${j}`);
      const v = { m: n, n, d: Float64Array.from(ctx.download(dA[q]!) as Float64Array) };
      const residual = eigenRatio(mats[q]!, v, w, EPS.float64), ortho = orthoRatio(v, EPS.float64);
      assert.ok(residual < LIMIT && ortho < LIMIT, `member ${q} (n = ${n}): ${residual}, ${ortho}`);
    });
  } finally {
    for (const d of [...dA, ...dW, dInfo]) (d as { dispose?: () => void }).dispose?.();
  }
});

test('gesvd: a variable batch with members inside and beyond the own designs is split (route \'split\'), each member at its place', { skip, timeout: 120_000 }, (t) => {
  if (!needs(t, 'cusolver')) return;
  const { ctx } = gpuContext();
  const rng = new Rng(601);
  const shapes = [[30, 20], [600, 520], [100, 100], [40, 5000], [8, 8]] as const;
  const mats = shapes.map(([m, n]) => generalCase(rng, 'random', m, n).a);
  const dA = mats.map((a) => ctx.upload(Float64Array.from(a.d)));
  const dS = shapes.map(([m, n]) => ctx.upload(new Float64Array(Math.min(m, n)).fill(NaN)));
  const dU = shapes.map(([m, n]) => ctx.upload(new Float64Array(m * Math.min(m, n)).fill(NaN)));
  const dVT = shapes.map(([m, n]) => ctx.upload(new Float64Array(Math.min(m, n) * n).fill(NaN)));
  const dInfo = ctx.upload(new Int32Array(shapes.length).fill(-7));
  const of = (list: readonly DeviceStorage[], rows: (q: number) => number, cols: (q: number) => number) =>
    variable(list.map((data, q) => ({ data, rows: rows(q), cols: cols(q) })));
  const k = (q: number) => Math.min(shapes[q]![0], shapes[q]![1]);
  try {
    ctx.gesvd({ jobu: 'thin', jobvt: 'thin', a: of(dA, (q) => shapes[q]![0], (q) => shapes[q]![1]), s: of(dS, k, () => 1),
      u: of(dU, (q) => shapes[q]![0], k), vt: of(dVT, k, (q) => shapes[q]![1]), info: dInfo });
    assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'split', gpu: true });
    assert.deepEqual([...(ctx.download(dInfo) as Int32Array)], shapes.map(() => 0));
    shapes.forEach(([m, n], q) => {
      const kq = k(q), s = ctx.download(dS[q]!) as Float64Array;
      for (let j = 1; j < kq; j++) assert.ok(s[j - 1]! >= s[j]! && s[j]! >= 0, `member ${q}: descending at ${j}`);
      const u = { m, n: kq, d: Float64Array.from(ctx.download(dU[q]!) as Float64Array) }, vt = { m: kq, n, d: Float64Array.from(ctx.download(dVT[q]!) as Float64Array) };
      assert.ok(orthoRatio(u, EPS.float64) < LIMIT && orthoRatio(transposed(vt), EPS.float64) < LIMIT, `member ${q}: orthogonality`);
      for (let j = 0; j < kq; j++) for (let i = 0; i < m; i++) u.d[i + j * m] *= s[j]!;
      const r = product(u, vt), a0 = mats[q]!;
      for (let e = 0; e < r.d.length; e++) r.d[e] -= a0.d[e]!;
      const residual = frob(r.d) / (Math.max(m, n) * EPS.float64 * (frob(a0.d) || 1));
      assert.ok(residual < LIMIT, `member ${q} (${m} x ${n}): ||A - U S VT|| ratio ${residual}`);
    });
  } finally {
    for (const d of [...dA, ...dS, ...dU, ...dVT, dInfo]) (d as { dispose?: () => void }).dispose?.();
  }
});

// ---------------------------------------------------------------------------------------------
// gesvd

const GEN: readonly SvdKind[] = ['random', 'rank-deficient', 'repeated'];

function checkGesvd(dtype: DType, m: number, n: number, count: number, wantU: boolean, wantVt: boolean, rng: Rng): void {
  const { ctx } = gpuContext();
  const eps = EPS[dtype], k = Math.min(m, n);
  const mats = Array.from({ length: count }, (_, q) => rounded(generalCase(rng, GEN[q % GEN.length]!, m, n).a, dtype));
  const bad = count > 2 ? 1 : -1;
  const A = placeIn(dtype, m, n, count, (q, i, j) => (q === bad && i === m - 1 && j === 0 ? NaN : mats[q]!.d[i + j * m]!), NaN);
  const S = placeIn(dtype, k, 1, count, () => NaN, SENTINEL);
  const U = placeIn(dtype, m, k, count, () => NaN, SENTINEL);
  const VT = placeIn(dtype, k, n, count, () => NaN, SENTINEL);
  const dA = ctx.upload(A.data), dS = ctx.upload(S.data), dU = ctx.upload(U.data), dVT = ctx.upload(VT.data), dInfo = ctx.upload(new Int32Array(count).fill(-7));
  const what = `gesvd ${dtype} ${m} x ${n} x ${count} u ${wantU} vt ${wantVt}`;
  try {
    ctx.gesvd({ jobu: wantU ? 'thin' : 'none', jobvt: wantVt ? 'thin' : 'none', a: batchOf(A, dA), s: batchOf(S, dS),
      ...(wantU ? { u: batchOf(U, dU) } : {}), ...(wantVt ? { vt: batchOf(VT, dVT) } : {}), info: dInfo });
    assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'cusolver-gesvd', gpu: true }, what);
    const a = ctx.download(dA) as FloatArray, s = ctx.download(dS) as FloatArray, info = ctx.download(dInfo) as Int32Array;
    const u = ctx.download(dU) as FloatArray, vt = ctx.download(dVT) as FloatArray;
    assert.ok(a.every((x, e) => Object.is(x, A.data[e])), `${what}: A is only read`);
    untouchedAround(S, S.data, s, `${what} s`);
    if (wantU) untouchedAround(U, U.data, u, `${what} u`); else assert.ok(u.every((x, e) => Object.is(x, U.data[e])), `${what}: u not given, not written`);
    if (wantVt) untouchedAround(VT, VT.data, vt, `${what} vt`); else assert.ok(vt.every((x, e) => Object.is(x, VT.data[e])), `${what}: vt not given, not written`);
    for (let q = 0; q < count; q++) {
      const at = `${what} #${q}`;
      const sq = Array.from({ length: k }, (_, i) => s[q * S.stride + i]!);
      if (q === bad) {
        assert.equal(info[q], k + 2, `${at}: a NaN flagged`);
        assert.ok(sq.every(Number.isNaN), `${at}: s NaN`);
        if (wantU) assert.ok(readMat(U, u, q).d.every(Number.isNaN), `${at}: u NaN`);
        if (wantVt) assert.ok(readMat(VT, vt, q).d.every(Number.isNaN), `${at}: vt NaN`);
        continue;
      }
      assert.equal(info[q], 0, `${at}: info`);
      for (let j = 1; j < k; j++) assert.ok(sq[j - 1]! >= sq[j]! && sq[j]! >= 0, `${at}: descending at ${j} (${sq[j - 1]}, ${sq[j]})`);
      const a0 = mats[q]!, norm = frob(a0.d) || 1;
      const squares = sq.reduce((x, y) => x + y * y, 0);
      assert.ok(Math.abs(Math.sqrt(squares) - norm) <= LIMIT * Math.max(m, n) * eps * norm, `${at}: ||s|| ${Math.sqrt(squares)}, ||A||_F ${norm}`);
      const uq = wantU ? readMat(U, u, q) : undefined, vtq = wantVt ? readMat(VT, vt, q) : undefined;
      if (uq) assert.ok(orthoRatio(uq, eps) < LIMIT, `${at}: ||U^T U - I|| ratio ${orthoRatio(uq, eps)}`);
      if (vtq) assert.ok(orthoRatio(transposed(vtq), eps) < LIMIT, `${at}: ||VT VT^T - I|| ratio ${orthoRatio(transposed(vtq), eps)}`);
      if (uq && vtq) {
        for (let j = 0; j < k; j++) for (let i = 0; i < m; i++) uq.d[i + j * m] *= sq[j]!;
        const r = product(uq, vtq);
        for (let e = 0; e < r.d.length; e++) r.d[e] -= a0.d[e]!;
        const residual = frob(r.d) / (Math.max(m, n) * eps * norm);
        assert.ok(residual < LIMIT, `${at}: ||A - U S VT|| ratio ${residual}`);
      }
    }
  } finally {
    for (const d of [dA, dS, dU, dVT, dInfo]) (d as { dispose?: () => void }).dispose?.();
  }
}

test('gesvd beyond the own designs on cusolver-gesvd: 600 x 520 and 520 x 600 (as A^T), 5000 x 40 and 40 x 5000, both dtypes, a NaN member', { skip, timeout: 300_000 }, (t) => {
  if (!needs(t, 'cusolver')) return;
  const rng = new Rng(600);
  checkGesvd('float64', 600, 520, 3, true, true, rng);
  checkGesvd('float32', 520, 600, 3, true, true, rng);
  checkGesvd('float64', 520, 600, 2, true, true, rng);
  checkGesvd('float32', 600, 520, 1, true, true, rng);
  checkGesvd('float64', 5000, 40, 3, true, true, rng);
  checkGesvd('float32', 40, 5000, 2, true, true, rng);
});

test('gesvd on cusolver-gesvd: U only, VT only and values only, tall and wide (the vendor computes the side the job needs)', { skip, timeout: 300_000 }, (t) => {
  if (!needs(t, 'cusolver')) return;
  const rng = new Rng(601);
  for (const [m, n] of [[600, 520], [520, 600]] as const) {
    checkGesvd('float64', m, n, 1, true, false, rng);
    checkGesvd('float64', m, n, 1, false, true, rng);
    checkGesvd('float32', m, n, 3, false, false, rng);
  }
  checkGesvd('float64', 40, 5000, 2, true, false, rng);
  checkGesvd('float64', 5000, 40, 2, false, true, rng);
});

test("the dense routes stop where the vendor's int workspace does: syev of order 23155 and gesvd 100000 x 6633 stay off cuSOLVER (the CPU reference), 23154 and 100000 x 6000 take it", { skip, timeout: 120_000 }, (t) => {
  if (!needs(t, 'cusolver')) return;
  const dev = gpu();
  const route = (op: 'syev' | 'gesvd', rows: number, cols: number, dtype: DType): string => {
    const a = dev.alloc(dtype, rows * cols);
    try {
      const request = op === 'syev'
        ? { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows, cols }), w: strided(a, { rows, cols: 1 }) }
        : { a: strided(a, { rows, cols }), s: strided(a, { rows: Math.min(rows, cols), cols: 1 }) };
      return choose(op, request, dev).name;
    } finally {
      a.dispose();
    }
  };
  for (const dtype of ['float64', 'float32'] as const) {
    assert.equal(route('syev', 23154, 23154, dtype), 'cusolver-syevd', `${dtype} syev 23154`);
    assert.notEqual(route('syev', 23155, 23155, dtype), 'cusolver-syevd', `${dtype} syev 23155`);
    assert.equal(route('gesvd', 100000, 6000, dtype), 'cusolver-gesvd', `${dtype} gesvd 100000 x 6000`);
    assert.notEqual(route('gesvd', 100000, 6633, dtype), 'cusolver-gesvd', `${dtype} gesvd 100000 x 6633`);
  }
});

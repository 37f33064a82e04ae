/**
 * The complex heev rows design (zjacobi/generate-heev-rows.ts) forced through its launcher on a real GPU
 * (skipped where none is usable) against the complex reference (cpu/complex/zheev.ts), on fresh random
 * data: n = 9, 12, 16, 17, 24, 31, 32, complex128 and complex64, vectors (V where the plan keeps it, and
 * at 16, 17 and 24 in the other place) and values, lower and upper, strided batches with odd leading
 * dimensions, gaps and an offset, and list batches of separate arrays; two blocks and a partial one.
 * Each batch mixes random, clustered, repeated, diagonal, zero, graded and positive definite Hermitian
 * matrices with one holding NaN and one Inf in its triangle; every matrix carries NaN in the diagonal's
 * imaginary parts and in the triangle not referenced (neither may be read); W is poisoned with NaN.
 * Checked: info exactly the reference's; every element outside the outputs unchanged (A bit for bit
 * with 'values'); a failed matrix's W (and with vectors its A) NaN; the eigenvalues ascending and within
 * n eps ||A||_F of the reference's; with vectors ||A V - V diag(w)||_F / (n ||A||_F eps) and
 * ||V^H V - I||_F / (n eps) below 30. Then 4,000 random matrices a size against the warp design.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuHeevComplex } from '../../src/cpu/complex/zheev.js';
import { complexHeevCuda, heevRowsShape, planHeevRows, type ZjacobiForce } from '../../src/cuda/kernels/zjacobi/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { get, hermitianFrom, set, zeros, type Z } from '../helpers/complex.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { HERMITIAN_KINDS, hermitianCase, heevResidual, unitaryResidual } from '../helpers/zjacobi-cases.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const LIMIT = 30;
const SENTINEL = -777.25;
const SIZES = [9, 12, 16, 17, 24, 31, 32];

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);
const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);
const host = (dtype: DType, len: number): Float64Array | Float32Array => (dtype === 'float32' ? new Float32Array(len) : new Float64Array(len));

interface Case { dtype: DType; n: number; uplo: Uplo; vectors: boolean; form: 'strided' | 'list'; force: ZjacobiForce }

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) for (const n of SIZES) for (const vectors of [true, false]) {
    const at = (force: ZjacobiForce): void => {
      out.push({ dtype, n, uplo: i % 2 === 0 ? 'lower' : 'upper', vectors, form: (i >> 1) % 2 === 0 ? 'strided' : 'list', force });
      i++;
    };
    at({ design: 'rows' });
    if (vectors && (n === 16 || n === 17 || n === 24)) at({ design: 'rows', vShared: !planHeevRows({ dtype, n, uplo: 'lower', vectors, kind: 'strided' }).vShared });
  }
  return out;
}

/** One case: the batch built, run, checked. */
function check(c: Case, rng: Rng): void {
  const dev = gpu();
  const { n, dtype } = c;
  const count = 2 * heevRowsShape(planHeevRows({ ...c, kind: 'strided' }, { force: c.force })).perBlock + 3;
  const ld = n + 1 + (n % 2);
  const type = dtype === 'float64' ? 'complex128' : 'complex64';
  const at = `heev rows ${type} n=${n} ${c.uplo} ${c.vectors ? 'vectors' : 'values'} ${c.form} ${JSON.stringify(c.force)}`;
  // The members as stored (junk where heev must not read) and as the Hermitian matrices they stand for.
  const stored: Z[] = [], mats: Z[] = [], failing: boolean[] = [];
  for (let q = 0; q < count; q++) {
    const h = hermitianCase(rng, HERMITIAN_KINDS[q % HERMITIAN_KINDS.length]!, n);
    const m = zeros(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const [re, im] = get(h, i, j);
      if (!inTriangle(c.uplo, i, j)) set(m, i, j, NaN, NaN);
      else set(m, i, j, round(dtype, re), i === j ? NaN : round(dtype, im));
    }
    mats.push(hermitianFrom(m, c.uplo));
    const bad = q === 3 ? NaN : q === count - 2 ? Infinity : undefined;
    if (bad !== undefined) set(m, c.uplo === 'lower' ? n - 1 : 0, c.uplo === 'lower' ? 0 : n - 1, bad, 0);
    stored.push(m);
    failing.push(bad !== undefined);
  }
  // A (pairs) and W (reals): strided in one array each (gaps, an offset) or a list of arrays.
  const aStride = ld * n + 3, aOff = 5, wStride = n + 2, wOff = 3;
  const aHosts = c.form === 'strided' ? [host(dtype, 2 * (aOff + aStride * count) + 2)] : Array.from({ length: count }, () => host(dtype, 2 * (aOff + ld * n) + 2));
  const wHosts = c.form === 'strided' ? [host(dtype, wOff + wStride * count + 1)] : Array.from({ length: count }, () => host(dtype, wOff + n + 1));
  for (const x of [...aHosts, ...wHosts]) x.fill(SENTINEL);
  const aAt = (q: number): [number, number] => (c.form === 'strided' ? [0, aOff + q * aStride] : [q, aOff]);
  const wAt = (q: number): [number, number] => (c.form === 'strided' ? [0, wOff + q * wStride] : [q, wOff]);
  stored.forEach((m, q) => {
    const [h, o] = aAt(q);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const [re, im] = get(m, i, j); aHosts[h]![2 * (o + i + j * ld)] = re; aHosts[h]![2 * (o + i + j * ld) + 1] = im; }
    const [hw, ow] = wAt(q);
    wHosts[hw]!.fill(NaN, ow, ow + n);
  });
  const aBefore = aHosts.map((x) => x.slice()), wBefore = wHosts.map((x) => x.slice());
  const dA = aHosts.map((x) => dev.upload(x)), dW = wHosts.map((x) => dev.upload(x));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  try {
    const a: Batch<DeviceArray> = c.form === 'strided'
      ? strided(dA[0]!, { rows: n, cols: n, ld, stride: aStride, offset: aOff, count, dtype: type })
      : list(dA.map((data) => ({ data, offset: aOff })), { rows: n, cols: n, ld, dtype: type });
    const w: Batch<DeviceArray> = c.form === 'strided'
      ? strided(dW[0]!, { rows: n, cols: 1, ld: n, stride: wStride, offset: wOff, count })
      : list(dW.map((data) => ({ data, offset: wOff })), { rows: n, cols: 1, ld: n });
    complexHeevCuda(dev, { jobz: c.vectors ? 'vectors' : 'values', uplo: c.uplo, a, w, info: dInfo }, { force: c.force });
    const aOut = dA.map((x) => dev.download(x) as Float64Array | Float32Array), wOut = dW.map((x) => dev.download(x) as Float64Array | Float32Array);
    const info = dev.download(dInfo) as Int32Array;
    // The reference, values only, on the stored members.
    const refInfo = new Int32Array(count);
    const refW = new Float64Array(n * count);
    const refA = new Float64Array(2 * n * n * count);
    stored.forEach((m, q) => refA.set(m.d, 2 * n * n * q));
    cpuHeevComplex({ jobz: 'values', uplo: c.uplo, a: strided(refA, { rows: n, cols: n, count, dtype: 'complex128' }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
    assert.deepEqual([...info], [...refInfo], `${at}: info`);
    const eps = DTYPE_EPS[dtype];
    // Outside the outputs: unchanged.
    const written = (h: number, e: number, outs: (q: number) => [number, number], len: number): boolean => {
      for (let q = 0; q < count; q++) { const [hq, o] = outs(q); if (hq === h && e >= o && e < o + len) return true; }
      return false;
    };
    wOut.forEach((x, h) => x.forEach((v, e) => { if (!written(h, e, wAt, n)) assert.ok(Object.is(v, wBefore[h]![e]), `${at}: W element ${e} of array ${h} changed`); }));
    aOut.forEach((x, h) => x.forEach((v, e) => {
      const q = c.vectors ? [...Array(count).keys()].find((k) => { const [hq, o] = aAt(k); const r = Math.floor(e / 2) - o; return hq === h && r >= 0 && r < ld * n && r % ld < n; }) : undefined;
      if (q === undefined) assert.ok(Object.is(v, aBefore[h]![e]), `${at}: A element ${e} of array ${h} changed`);
    }));
    for (let q = 0; q < count; q++) {
      const [hw, ow] = wAt(q);
      const wq = [...wOut[hw]!.subarray(ow, ow + n)];
      const v = zeros(n, n);
      if (c.vectors) { const [h, o] = aAt(q); for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) set(v, i, j, aOut[h]![2 * (o + i + j * ld)]!, aOut[h]![2 * (o + i + j * ld) + 1]!); }
      if (failing[q]) {
        assert.equal(info[q], n + 2, `${at} #${q}: the failed member's info`);
        assert.ok(wq.every(Number.isNaN), `${at} #${q}: W NaN`);
        if (c.vectors) assert.ok(v.d.every(Number.isNaN), `${at} #${q}: A NaN`);
        continue;
      }
      let norm = 0;
      for (const x of mats[q]!.d) norm += x * x;
      norm = Math.sqrt(norm);
      wq.forEach((x, j) => {
        assert.ok(Math.abs(x - refW[q * n + j]!) <= n * eps * norm, `${at} #${q}: w[${j}] ${x}, reference ${refW[q * n + j]}`);
        if (j > 0) assert.ok(wq[j - 1]! <= x, `${at} #${q}: ascending`);
      });
      if (!c.vectors) continue;
      const r1 = heevResidual(mats[q]!, v, wq, eps), r2 = unitaryResidual(v, eps);
      assert.ok(r1 < LIMIT && r2 < LIMIT, `${at} #${q}: ||AV - VW|| ratio ${r1}, ||V^H V - I|| ratio ${r2}`);
    }
  } finally {
    for (const x of [...dA, ...dW, dInfo]) x.dispose();
  }
}

test('complex heev rows design: n = 9 ... 32, both dtypes, vectors (V in registers and in shared memory) and values, strided and list, NaN and Inf members', { skip, timeout: 900_000 }, () => {
  const rng = new Rng(4242);
  for (const c of cases()) check(c, rng);
});

test('complex heev rows design, 4,000 random matrices a size: the eigenvalues against the warp design, residuals of a sample', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(5151);
  for (const dtype of ['float64', 'float32'] as const) for (const n of [12, 20, 32]) {
    const count = 4000;
    const type = dtype === 'float64' ? 'complex128' : 'complex64';
    const mats = Array.from({ length: count }, () => {
      const h = hermitianCase(rng, 'random', n);
      const m = zeros(n, n);
      for (let e = 0; e < h.d.length; e++) m.d[e] = round(dtype, h.d[e]!);
      return hermitianFrom(m, 'upper');
    });
    const data = host(dtype, 2 * n * n * count);
    mats.forEach((m, k) => data.set(m.d, 2 * n * n * k));
    const eps = DTYPE_EPS[dtype];
    const results = (['rows', 'warp'] as const).map((design) => {
      const dA = dev.upload(data), dW = dev.upload(host(dtype, n * count).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
      try {
        complexHeevCuda(dev, { jobz: 'vectors', uplo: 'upper', a: strided(dA, { rows: n, cols: n, count, dtype: type }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo }, { force: { design } });
        return { a: dev.download(dA) as Float64Array | Float32Array, w: dev.download(dW) as Float64Array | Float32Array, info: dev.download(dInfo) as Int32Array };
      } finally {
        dA.dispose(); dW.dispose(); dInfo.dispose();
      }
    });
    const [rows, warp] = results as [typeof results[0], typeof results[0]];
    for (let k = 0; k < count; k++) {
      const at = `heev rows ${type} n=${n} #${k}`;
      assert.equal(rows.info[k], 0, `${at}: info`);
      assert.equal(warp.info[k], 0, `${at}: the warp design's info`);
      let norm = 0;
      for (const x of mats[k]!.d) norm += x * x;
      norm = Math.sqrt(norm);
      for (let j = 0; j < n; j++) {
        const x = rows.w[k * n + j]!, y = warp.w[k * n + j]!;
        assert.ok(Math.abs(x - y) <= 2 * n * eps * norm, `${at}: w[${j}] ${x} against the warp design's ${y}`);
      }
      if (k % 97 === 0) {
        const v = zeros(n, n);
        for (let e = 0; e < 2 * n * n; e++) v.d[e] = rows.a[2 * n * n * k + e]!;
        const r1 = heevResidual(mats[k]!, v, [...rows.w.subarray(k * n, (k + 1) * n)], eps), r2 = unitaryResidual(v, eps);
        assert.ok(r1 < LIMIT && r2 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}, ||V^H V - I|| ratio ${r2}`);
      }
    }
  }
});

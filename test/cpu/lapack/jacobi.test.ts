/**
 * syev and gesvd (cyclic Jacobi, src/cpu/lapack/jacobi.ts) against checks that do not depend on
 * it: residuals and orthogonality (LAPACK's test ratios, < 30), known spectra, trace and Frobenius
 * identities; NaN among good matrices; row-major, upper, padded layouts; the array level; and
 * validation errors that name the argument.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as my from '../../../src/index.js';
import { MyriadError, strided, type ErrorCode } from '../../../src/index.js';
import { referenceContext } from '../../../src/api/context.js';
import { allocate, type DType, type FloatArray } from '../../../src/core/dtype.js';
import {
  SVD_KINDS, SYM_KINDS, eigenResidual, frob, generalCase, mat, orthoResidual, svdResidual, symmetricCase, type Mat,
} from '../../helpers/jacobi-checks.js';
import { GRADED_COND_BOUND, GRADED_ORDERS, eigenvaluesBelow, gradedSpd, relativeEigenvalueErrors } from '../../helpers/graded.js';
import { Rng } from '../../helpers/random.js';
import { cpuSyev } from '../../../src/cpu/lapack/index.js';
import { jacobiSweeps, MAX_SWEEPS } from '../../../src/core/algorithms.js';

const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const SIZES = [1, 2, 3, 4, 5, 7, 8, 13, 16, 24, 31, 40];

/** Packs matrices (column-major, ld = rows + pad) into one strided batch of `dtype`. */
function pack(mats: Mat[], dtype: DType, pad: number): { data: FloatArray; ld: number; stride: number } {
  const { m, n } = mats[0]!;
  const ld = m + pad;
  const stride = ld * n + 1;
  const data = allocate(dtype, stride * mats.length);
  data.fill(-7);
  mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) data[k * stride + i + j * ld] = a.d[i + j * m]!; });
  return { data, ld, stride };
}

function unpack(data: FloatArray, k: number, stride: number, ld: number, m: number, n: number): Mat {
  const out = mat(m, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) out.d[i + j * m] = data[k * stride + i + j * ld]!;
  return out;
}

/** The matrices as `dtype` rounds them (the data syev actually sees). */
const rounded = (a: Mat, dtype: DType): Mat => ({ ...a, d: dtype === 'float32' ? Float64Array.from(new Float32Array(a.d)) : a.d });

function checkSyev(mats: Mat[], dtype: DType, spectra: (number[] | undefined)[], label: string, ctx = referenceContext): void {
  const n = mats[0]!.n;
  const eps = EPS[dtype];
  const p = pack(mats, dtype, 2);
  const w = allocate(dtype, n * mats.length).fill(NaN);
  const { info } = ctx.syev({
    a: strided(p.data, { rows: n, count: mats.length, ld: p.ld, stride: p.stride }),
    w: strided(w, { rows: n, cols: 1, count: mats.length }), jobz: 'vectors',
  });
  mats.forEach((a0, k) => {
    const a = rounded(a0, dtype);
    const at = `${label} n=${n} #${k}`;
    assert.equal(info[k], 0, `${at}: info`);
    const wk = Array.from(w.subarray(k * n, (k + 1) * n));
    for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at}: ascending`);
    const v = unpack(p.data, k, p.stride, p.ld, n, n);
    const r1 = eigenResidual(a, v, wk, eps);
    const r2 = orthoResidual(v, eps);
    assert.ok(r1 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}`);
    assert.ok(r2 < LIMIT, `${at}: ||V^T V - I|| ratio ${r2}`);
    // Independent checks of the values: trace and ||A||_F^2 = sum w^2, and known spectra.
    const norm = frob(a);
    let trace = 0;
    for (let i = 0; i < n; i++) trace += a.d[i + i * n]!;
    const sum = wk.reduce((s, x) => s + x, 0);
    const sq = Math.sqrt(wk.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(trace - sum) <= LIMIT * n * eps * Math.max(norm, 1e-300) * Math.sqrt(n) || norm === 0, `${at}: trace`);
    assert.ok(Math.abs(norm - sq) <= LIMIT * n * eps * norm, `${at}: Frobenius norm`);
    const spectrum = spectra[k];
    if (spectrum) spectrum.forEach((x, j) => assert.ok(Math.abs(x - wk[j]!) <= LIMIT * n * eps * Math.max(norm, 1e-300) || norm === 0, `${at}: w[${j}] = ${wk[j]}, known ${x}`));
  });
}

function checkGesvd(mats: Mat[], dtype: DType, known: (number[] | undefined)[], label: string, ctx = referenceContext): void {
  const { m, n } = mats[0]!;
  const k = Math.min(m, n);
  const eps = EPS[dtype];
  const p = pack(mats, dtype, 1);
  const before = p.data.slice();
  const count = mats.length;
  const s = allocate(dtype, k * count).fill(NaN);
  const u = allocate(dtype, m * k * count).fill(NaN);
  const vt = allocate(dtype, k * n * count).fill(NaN);
  const { info } = ctx.gesvd({
    a: strided(p.data, { rows: m, cols: n, count, ld: p.ld, stride: p.stride }),
    s: strided(s, { rows: k, cols: 1, count }), u: strided(u, { rows: m, cols: k, count }), vt: strided(vt, { rows: k, cols: n, count }),
  });
  assert.deepEqual(p.data, before, `${label}: A is only read`);
  mats.forEach((a0, i) => {
    const a = rounded(a0, dtype);
    const at = `${label} ${m}x${n} #${i}`;
    assert.equal(info[i], 0, `${at}: info`);
    const si = Array.from(s.subarray(i * k, (i + 1) * k));
    for (let j = 0; j < k; j++) assert.ok(si[j]! >= 0 && (j === 0 || si[j - 1]! >= si[j]!), `${at}: descending, non-negative`);
    const ui = unpack(u, i, m * k, m, m, k);
    const vti = unpack(vt, i, k * n, k, k, n);
    const r = svdResidual(a, ui, si, vti, eps);
    assert.ok(r < LIMIT, `${at}: ||A - U S VT|| ratio ${r}`);
    assert.ok(orthoResidual(ui, eps) < LIMIT, `${at}: ||U^T U - I|| ratio ${orthoResidual(ui, eps)}`);
    assert.ok(orthoResidual(vti, eps, true) < LIMIT, `${at}: ||VT VT^T - I|| ratio ${orthoResidual(vti, eps, true)}`);
    const norm = frob(a);
    const sq = Math.sqrt(si.reduce((t, x) => t + x * x, 0));
    assert.ok(Math.abs(norm - sq) <= LIMIT * Math.max(m, n) * eps * norm, `${at}: Frobenius norm`);
    known[i]?.forEach((x, j) => assert.ok(Math.abs(x - si[j]!) <= LIMIT * Math.max(m, n) * eps * norm, `${at}: s[${j}] = ${si[j]}, known ${x}`));
  });
}

describe('syev (reference)', () => {
  it('every kind of matrix, n from 1 to 40, both dtypes', () => {
    const rng = new Rng(17);
    for (const dtype of ['float64', 'float32'] as const)
      for (const n of SIZES)
        for (const kind of SYM_KINDS) {
          const cases = Array.from({ length: n <= 8 ? 3 : 1 }, () => symmetricCase(rng, kind, n));
          // float32 rounds A: its known spectrum moves by about eps ||A||, inside the bound.
          checkSyev(cases.map((c) => c.a), dtype, cases.map((c) => c.spectrum), `${dtype} ${kind}`);
        }
  });
  it('n = 64 and 100 (one matrix each)', () => {
    const rng = new Rng(5);
    for (const n of [64, 100]) {
      const c = symmetricCase(rng, 'clustered', n);
      checkSyev([c.a], 'float64', [c.spectrum], 'clustered');
      checkSyev([symmetricCase(rng, 'random', n).a], 'float32', [undefined], 'random');
    }
  });
  it('the 2x2 by hand: [2 1; 1 2] has 1 and 3', () => {
    const a = new Float64Array([2, 1, 1, 2]);
    const w = new Float64Array(2);
    const { info } = referenceContext.syev({ a: strided(a, { rows: 2 }), w: strided(w, { rows: 2, cols: 1 }) });
    assert.equal(info[0], 0);
    assert.ok(Math.abs(w[0]! - 1) < 1e-15 && Math.abs(w[1]! - 3) < 1e-15);
    assert.ok(Math.abs(Math.abs(a[0]!) - Math.SQRT1_2) < 1e-15);
  });
  it('reads only the uplo triangle; row-major; values only leaves A', () => {
    const rng = new Rng(3);
    const n = 6;
    const { a } = symmetricCase(rng, 'random', n);
    const expected = new Float64Array(n);
    referenceContext.syev({ a: strided(a.d.slice(), { rows: n }), w: strided(expected, { rows: n, cols: 1 }), jobz: 'values' });
    for (const uplo of ['lower', 'upper'] as const) {
      const g = a.d.slice();
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i < j : i > j) g[i + j * n] = NaN;
      const w = new Float64Array(n);
      const copy = g.slice();
      const { info } = referenceContext.syev({ a: strided(g, { rows: n }), w: strided(w, { rows: n, cols: 1 }), uplo, jobz: 'values' });
      assert.equal(info[0], 0);
      assert.deepEqual(g, copy, 'values only: A unchanged');
      assert.deepEqual(w, expected);
      // Row-major: the same data read as rows holds the transpose, so the other triangle.
      const wr = new Float64Array(n);
      const r = referenceContext.syev({ a: strided(g.slice(), { rows: n, order: 'row' }), w: strided(wr, { rows: n, cols: 1 }), uplo: uplo === 'lower' ? 'upper' : 'lower' });
      assert.equal(r.info[0], 0);
      assert.deepEqual(wr, expected);
    }
  });
  it('NaN and Inf among good matrices: info n + 2, NaN outputs, the others untouched', () => {
    const rng = new Rng(9);
    const n = 5;
    const mats = Array.from({ length: 4 }, () => symmetricCase(rng, 'random', n).a);
    mats[1]!.d[7] = NaN;
    mats[3]!.d[0] = Infinity;
    const p = pack(mats, 'float64', 1);
    const w = new Float64Array(4 * n);
    const { info } = referenceContext.syev({ a: strided(p.data, { rows: n, count: 4, ld: p.ld, stride: p.stride }), w: strided(w, { rows: n, cols: 1, count: 4 }) });
    assert.deepEqual([...info], [0, n + 2, 0, n + 2]);
    assert.ok(w.subarray(n, 2 * n).every(Number.isNaN) && unpack(p.data, 1, p.stride, p.ld, n, n).d.every(Number.isNaN));
    for (const k of [0, 2]) assert.ok(eigenResidual(mats[k]!, unpack(p.data, k, p.stride, p.ld, n, n), w.subarray(k * n, (k + 1) * n), EPS.float64) < LIMIT);
    // Padding between the matrices is never written.
    for (let k = 0; k < 4; k++) assert.equal(p.data[k * p.stride + p.ld * n], -7);
  });
  it('the fast CPU backend agrees (it delegates to the reference)', () => {
    const rng = new Rng(4);
    const cases = Array.from({ length: 40 }, () => symmetricCase(rng, 'random', 12));
    checkSyev(cases.map((c) => c.a), 'float64', [], 'cpu-fast', my.cpuContext);
  });
});

describe('syev on graded matrices: eigenvalues to high relative accuracy (README, Demmel and Veselic)', () => {
  // A = D H D, D over 16 orders (eigenvalues from about 1 down to 1e-32; 8 in float32), cond(H) <= 3; each
  // eigenvalue checked against the exact count of eigenvalues of the stored A below w (1 -+ delta)
  // (test/helpers/graded.ts: Sylvester's inertia in BigInt, no eigensolver involved).
  const delta = (dtype: DType, n: number): number => 64 * n * EPS[dtype] * GRADED_COND_BOUND;
  const values = (a: FloatArray, n: number, dtype: DType, jobz: 'values' | 'vectors'): { w: FloatArray; info: number } => {
    const w = allocate(dtype, n), info = new Int32Array(1);
    cpuSyev({ jobz, uplo: 'lower', a: strided(a.slice(), { rows: n }), w: strided(w, { rows: n, cols: 1 }), info });
    return { w, info: info[0]! };
  };
  for (const dtype of ['float64', 'float32'] as const) {
    it(`${dtype}: n = 1 ... 16, values and vectors (to 32 in test/gpu/jacobi-syev.test.ts)`, () => {
      const rng = new Rng(dtype === 'float64' ? 1964 : 1992);
      for (const n of dtype === 'float64' ? [1, 2, 3, 5, 9, 16] : [2, 5, 12]) {
        const a = allocate(dtype, n * n);
        a.set(gradedSpd(rng, n, GRADED_ORDERS[dtype]));
        const { w, info } = values(a, n, dtype, n % 2 === 0 ? 'vectors' : 'values');
        assert.equal(info, 0, `n=${n}: info`);
        assert.deepEqual(relativeEigenvalueErrors(a, n, w, delta(dtype, n)), [], `${dtype} n=${n}`);
      }
    });
  }
  it('the check can fail: an answer accurate to n eps ||A|| only (as QR-based LAPACK promises) misses the small eigenvalues', () => {
    const n = 9, a = gradedSpd(new Rng(7), n, 16);
    const { w } = values(a, n, 'float64', 'values');
    const absolute = Float64Array.from(w);
    absolute[0] = absolute[0]! + n * EPS.float64 * w[n - 1]!;
    assert.equal(relativeEigenvalueErrors(a, n, absolute, delta('float64', n)).length, 1);
    // and the exact counts bracket the spectrum: none below 0 (positive definite), all below 2.
    assert.equal(eigenvaluesBelow(a, n, 0), 0);
    assert.equal(eigenvaluesBelow(a, n, 2), n);
  });
});

describe('syev: the sweeps grow with the order', () => {
  it('jacobiSweeps: MAX_SWEEPS below 128, then 4 more a doubling (the GPU plans take it too: test/cuda/jacobi-generate.test.ts)', () => {
    assert.deepEqual([1, 32, 127, 128, 255, 256, 512, 1024].map(jacobiSweeps), [MAX_SWEEPS, MAX_SWEEPS, MAX_SWEEPS, 34, 34, 38, 42, 46]);
  });
  it('a graded 200 x 200 (D B D, D from 1e-5 to 1e5) that rotates in its 30th sweep converges (info 0, as LAPACK), its eigenvalues of the right sum and residual', () => {
    // The matrix the inverse-iteration host emulation's large case drew: the generator's stream advanced past
    // a random matrix and a clustered one (150 eigenvalue draws and n^2 draws for Q) first.
    const n = 200, rng = new Rng(1731);
    symmetricCase(rng, 'random', n);
    for (let i = 0; i < n - n / 4 + n * n; i++) rng.uniform(-1, 1);
    const a = symmetricCase(rng, 'graded', n).a;
    const v = Float64Array.from(a.d), w = new Float64Array(n), info = new Int32Array(1);
    cpuSyev({ jobz: 'vectors', uplo: 'upper', a: strided(v, { rows: n }), w: strided(w, { rows: n, cols: 1 }), info });
    assert.equal(info[0], 0);
    const vm = mat(n, n);
    vm.d.set(v);
    assert.ok(eigenResidual(a, vm, w, EPS.float64) < LIMIT, 'residual');
    assert.ok(orthoResidual(vm, EPS.float64) < LIMIT, 'orthogonality');
    let trace = 0;
    for (let i = 0; i < n; i++) trace += a.d[i + i * n]!;
    assert.ok(Math.abs(w.reduce((x, y) => x + y, 0) - trace) <= n * EPS.float64 * frob(a), 'trace');
  });
});

describe('gesvd (reference)', () => {
  it('every kind, tall, square and wide, both dtypes', () => {
    const rng = new Rng(23);
    const shapes: [number, number][] = [[1, 1], [1, 4], [4, 1], [2, 2], [3, 3], [5, 3], [3, 5], [8, 8], [13, 7], [7, 13], [16, 16], [40, 9], [9, 40], [32, 32]];
    for (const dtype of ['float64', 'float32'] as const)
      for (const [m, n] of shapes)
        for (const kind of SVD_KINDS) {
          const cases = Array.from({ length: Math.max(m, n) <= 8 ? 3 : 1 }, () => generalCase(rng, kind, m, n));
          checkGesvd(cases.map((c) => c.a), dtype, cases.map((c) => c.values), `${dtype} ${kind}`);
        }
  });
  it('64 x 64 and 100 x 30', () => {
    const rng = new Rng(8);
    checkGesvd([generalCase(rng, 'random', 64, 64).a], 'float64', [], 'random');
    const c = generalCase(rng, 'repeated', 100, 30);
    checkGesvd([c.a], 'float32', [c.values], 'repeated');
  });
  it('values only, and NaN among good matrices', () => {
    const rng = new Rng(2);
    const [m, n] = [6, 4];
    const mats = Array.from({ length: 3 }, () => generalCase(rng, 'random', m, n).a);
    mats[2]!.d[3] = -Infinity;
    const p = pack(mats, 'float64', 0);
    const s = new Float64Array(3 * n);
    const { info } = referenceContext.gesvd({ a: strided(p.data, { rows: m, cols: n, count: 3, ld: p.ld, stride: p.stride }), s: strided(s, { rows: n, cols: 1, count: 3 }), jobu: 'none', jobvt: 'none' });
    assert.deepEqual([...info], [0, 0, n + 2]);
    assert.ok(s.subarray(2 * n).every(Number.isNaN));
    const a0 = frob(mats[0]!);
    assert.ok(Math.abs(a0 - Math.hypot(...s.subarray(0, n))) < 1e-14 * a0);
  });
});

function throwsArg(fn: () => unknown, code: ErrorCode, argument: string): void {
  assert.throws(fn, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument);
}

describe('syev and gesvd validation', () => {
  const f = (n: number): Float64Array => new Float64Array(n);
  it('names the argument at fault', () => {
    throwsArg(() => my.syev({ a: strided(f(9), { rows: 3 }), w: strided(f(2), { rows: 2, cols: 1 }) }), 'SHAPE', 'w');
    throwsArg(() => my.syev({ a: strided(f(6), { rows: 3, cols: 2 }), w: strided(f(3), { rows: 3, cols: 1 }) }), 'SHAPE', 'a');
    throwsArg(() => my.syev({ a: strided(f(9), { rows: 3 }), w: strided(f(3), { rows: 3, cols: 1 }), jobz: 'V' as never }), 'ENUM', 'jobz');
    throwsArg(() => my.syev({ a: strided(f(9), { rows: 3 }), w: strided(new Float32Array(3), { rows: 3, cols: 1 }) as never }), 'DTYPE', 'w');
    const a = f(9);
    throwsArg(() => my.syev({ a: strided(a, { rows: 3 }), w: strided(a, { rows: 3, cols: 1, count: 1 }) }), 'LAYOUT', 'w');
    const g = strided(f(6), { rows: 3, cols: 2 });
    throwsArg(() => my.gesvd({ a: g, s: strided(f(3), { rows: 3, cols: 1 }), jobu: 'none', jobvt: 'none' }), 'SHAPE', 's');
    throwsArg(() => my.gesvd({ a: g, s: strided(f(2), { rows: 2, cols: 1 }), vt: strided(f(4), { rows: 2 }), jobvt: 'thin' }), 'INVALID_ARGUMENT', 'u');
    throwsArg(() => my.gesvd({ a: g, s: strided(f(2), { rows: 2, cols: 1 }), u: strided(f(6), { rows: 3, cols: 2 }), vt: strided(f(4), { rows: 2 }), jobu: 'none' }), 'INVALID_ARGUMENT', 'u');
    throwsArg(() => my.gesvd({ a: g, s: strided(f(2), { rows: 2, cols: 1 }), u: strided(f(9), { rows: 3 }), vt: strided(f(4), { rows: 2 }) }), 'SHAPE', 'u');
    throwsArg(() => my.gesvd({ a: g, s: strided(f(2), { rows: 2, cols: 1 }), u: strided(f(6), { rows: 3, cols: 2 }), vt: strided(f(6), { rows: 2, cols: 3 }) }), 'SHAPE', 'vt');
    throwsArg(() => my.gesvd({ a: g, s: strided(f(2), { rows: 2, cols: 1 }), jobu: 'full' as never, jobvt: 'none' }), 'ENUM', 'jobu');
  });
});

describe('array level: eigh, eigvalsh, svd, svdvals', () => {
  it('numpy shapes and results', () => {
    const rng = new Rng(11);
    const n = 4;
    const mats = Array.from({ length: 6 }, () => symmetricCase(rng, 'random', n).a);
    // Row-major [2, 3, n, n] (symmetric: the same numbers either way).
    const data = new Float64Array(6 * n * n);
    mats.forEach((a, k) => data.set(a.d, k * n * n));
    const { values, vectors } = my.eigh(my.ndarray(data, [2, 3, n, n]));
    assert.deepEqual(values.shape, [2, 3, n]);
    assert.deepEqual(vectors.shape, [2, 3, n, n]);
    // eigvalsh's values within 30 n eps ||A||_F of eigh's (the fast backend's values-only path is a
    // different QL iteration from the one that carries the vectors: the same values up to rounding)
    const only = my.eigvalsh(my.ndarray(data, [2, 3, n, n]));
    assert.deepEqual(only.shape, values.shape);
    mats.forEach((a, k) => {
      const bound = 30 * n * EPS.float64 * Math.hypot(...a.d);
      for (let j = 0; j < n; j++) assert.ok(Math.abs(only.data[k * n + j]! - values.data[k * n + j]!) <= bound, `matrix ${k}: eigvalsh[${j}]`);
    });
    mats.forEach((a, k) => {
      // vectors[k][i][j] row-major: column j is the eigenvector of values[k][j].
      const v = mat(n, n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) v.d[i + j * n] = vectors.data[k * n * n + i * n + j]!;
      assert.ok(eigenResidual(a, v, values.data.subarray(k * n, (k + 1) * n), EPS.float64) < LIMIT);
    });
    for (const [m, nn] of [[5, 3], [3, 5]] as const) {
      const x = new Float32Array(2 * m * nn).map(() => rng.uniform());
      const r = my.svd(my.ndarray(x, [2, m, nn]));
      const k = Math.min(m, nn);
      assert.deepEqual([r.u.shape, r.s.shape, r.vt.shape], [[2, m, k], [2, k], [2, k, nn]]);
      for (let b = 0; b < 2; b++) {
        // Row-major blocks read as column-major transposes: A^T = VT^T S U^T.
        const at = mat(nn, m), vtT = mat(nn, k), uT = mat(k, m);
        at.d.set(Float64Array.from(x.subarray(b * m * nn, (b + 1) * m * nn)));
        vtT.d.set(Float64Array.from(r.vt.data.subarray(b * k * nn, (b + 1) * k * nn)));
        uT.d.set(Float64Array.from(r.u.data.subarray(b * m * k, (b + 1) * m * k)));
        assert.ok(svdResidual(at, vtT, r.s.data.subarray(b * k, (b + 1) * k), uT, EPS.float32) < LIMIT);
      }
      assert.deepEqual(my.svdvals(my.ndarray(x, [2, m, nn])).data, r.s.data);
    }
  });
  it('*Ex report info and NaN; the plain forms throw NUMERICAL', () => {
    const a = new Float64Array([1, 0, 0, 1, NaN, 0, 0, 1]);
    const r = my.eighEx(my.ndarray(a, [2, 2, 2]));
    assert.deepEqual([...r.info], [0, 4]);
    assert.deepEqual([...r.values.data.subarray(0, 2)], [1, 1]);
    assert.ok(r.values.data.subarray(2).every(Number.isNaN) && r.vectors.data.subarray(4).every(Number.isNaN));
    assert.throws(() => my.eigh(my.ndarray(a, [2, 2, 2])), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /#1/.test(e.message));
    assert.throws(() => my.svd(my.ndarray(a, [2, 2, 2])), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL');
    const s = my.svdvalsEx(my.ndarray(a, [2, 2, 2]));
    assert.deepEqual([...s.info], [0, 4]);
    assert.throws(() => my.eigh(my.ndarray(new Float64Array(6), [2, 3])), (e: unknown) => e instanceof MyriadError && e.argument === 'a.shape');
  });
  it('empty stacks and 0 x 0 matrices', () => {
    assert.deepEqual(my.eigh(my.ndarray(new Float64Array(0), [0, 3, 3])).values.shape, [0, 3]);
    assert.deepEqual(my.eigvalsh(my.ndarray(new Float64Array(0), [2, 0, 0])).shape, [2, 0]);
    assert.deepEqual(my.svd(my.ndarray(new Float64Array(0), [2, 3, 0])).u.shape, [2, 3, 0]);
  });
});

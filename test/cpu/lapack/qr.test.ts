/**
 * geqrf, orgqr and gels (Householder QR, src/cpu/lapack/qr.ts) against checks that need no second
 * implementation: ||A - Q R|| / (n eps ||A||) and ||Q^T Q - I|| / (n eps) below 30, R upper
 * triangular, gels against the normal equations (m >= n) and the row space of A (m < n, minimum
 * norm); rank-deficient info; NaN among good matrices; strided, list, variable and row-major
 * batches, both dtypes; validation errors that name the argument.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as my from '../../../src/index.js';
import { MyriadError, list, strided, variable, type ErrorCode } from '../../../src/index.js';
import { referenceContext as ctx } from '../../../src/api/context.js';
import { allocate, type DType, type FloatArray } from '../../../src/core/dtype.js';

const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const DTYPES: DType[] = ['float64', 'float32'];
const SHAPES: [number, number][] = [[1, 1], [2, 2], [3, 3], [5, 5], [8, 3], [13, 13], [30, 7], [3, 8], [16, 33]];

let seed = 12345;
const rand = (): number => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 30 - 1; };

/** m x n column-major random matrix, as `dtype` rounds it. */
function random(m: number, n: number, dtype: DType): Float64Array {
  const d = Float64Array.from({ length: m * n }, rand);
  return dtype === 'float32' ? Float64Array.from(new Float32Array(d)) : d;
}
function matmul(a: Float64Array, b: Float64Array, m: number, k: number, n: number, ta = false): Float64Array {
  const c = new Float64Array(m * n);
  for (let j = 0; j < n; j++) for (let p = 0; p < k; p++) {
    const x = b[p + j * k]!;
    for (let i = 0; i < m; i++) c[i + j * m] += (ta ? a[p + i * k]! : a[i + p * m]!) * x;
  }
  return c;
}
const fro = (a: ArrayLike<number>): number => Math.sqrt(Array.from(a).reduce((s, x) => s + x * x, 0));
const diff = (a: Float64Array, b: Float64Array): number => fro(a.map((x, i) => x - b[i]!));

/** Q (m x n, m >= n... or m x m from a square slice) and R (k x n) from geqrf + orgqr on one matrix. */
function factor(a: Float64Array, m: number, n: number, dtype: DType): { q: Float64Array; r: Float64Array; k: number } {
  const k = Math.min(m, n);
  const data = allocate(dtype, m * n);
  data.set(a);
  const tau = allocate(dtype, k);
  const { info } = ctx.geqrf({ a: strided(data, { rows: m, cols: n }), tau: strided(tau, { rows: k, cols: 1 }) });
  assert.equal(info[0], 0);
  const r = new Float64Array(k * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < k; i++) r[i + j * k] = i <= j ? data[i + j * m]! : 0;
  // Q's first k columns: orgqr on the m x k leading block.
  const qd = allocate(dtype, m * k);
  qd.set(data.subarray(0, m * k));
  ctx.orgqr({ a: strided(qd, { rows: m, cols: k }), tau: strided(tau, { rows: k, cols: 1 }) });
  return { q: Float64Array.from(qd), r, k };
}

describe('geqrf and orgqr (CPU reference)', () => {
  for (const dtype of DTYPES) {
    for (const [m, n] of SHAPES) {
      it(`${dtype} ${m}x${n}: ||A - QR|| and ||Q^T Q - I|| below ${LIMIT}`, () => {
        const a = random(m, n, dtype);
        const { q, r, k } = factor(a, m, n, dtype);
        const eps = EPS[dtype];
        const res = diff(matmul(q, r, m, k, n), a) / (Math.max(m, n) * eps * fro(a));
        const qtq = matmul(q, q, k, m, k, true);
        for (let i = 0; i < k; i++) qtq[i + i * k] -= 1;
        const orth = fro(qtq) / (Math.max(m, n) * eps);
        assert.ok(res < LIMIT, `residual ${res}`);
        assert.ok(orth < LIMIT, `orthogonality ${orth}`);
      });
    }
  }

  for (const dtype of DTYPES) {
    it(`${dtype}: graded (rows and columns scaled over 1e-12), cond 1e12, tall (m = 10 n) and rank-deficient matrices keep the ratios below ${LIMIT}`, () => {
      const eps = EPS[dtype];
      const cases: [string, number, number, Float64Array][] = [];
      const g = random(12, 12, 'float64').map((v, p) => v * 10 ** (-12 * ((p % 12) + Math.floor(p / 12)) / 22));
      cases.push(['graded', 12, 12, g]);
      // U diag(s) V^T with s from 1 to 1e-12: U, V the Q factors of random matrices (float64).
      const u = factor(random(10, 10, 'float64'), 10, 10, 'float64').q;
      const v = factor(random(10, 10, 'float64'), 10, 10, 'float64').q;
      const us = u.map((x, p) => x * 10 ** (-12 * Math.floor(p / 10) / 9));
      cases.push(['cond 1e12', 10, 10, matmul(us, transpose(v, 10, 10), 10, 10, 10)]);
      cases.push(['tall', 60, 6, random(60, 6, 'float64')]);
      const low = matmul(random(9, 3, 'float64'), random(3, 7, 'float64'), 9, 3, 7);
      cases.push(['rank 3', 9, 7, low]);
      for (const [label, m, n, a0] of cases) {
        const a = dtype === 'float32' ? Float64Array.from(new Float32Array(a0)) : a0;
        const { q, r, k } = factor(a, m, n, dtype);
        const res = diff(matmul(q, r, m, k, n), a) / (Math.max(m, n) * eps * fro(a));
        const qtq = matmul(q, q, k, m, k, true);
        for (let i = 0; i < k; i++) qtq[i + i * k] -= 1;
        assert.ok(res < LIMIT, `${label}: residual ${res}`);
        assert.ok(fro(qtq) / (Math.max(m, n) * eps) < LIMIT, `${label}: orthogonality ${fro(qtq) / (Math.max(m, n) * eps)}`);
      }
    });
  }

  it('complete Q of a tall matrix (orgqr with k < n) is orthogonal and matches the thin one', () => {
    const [m, n] = [7, 3];
    const data = Float64Array.from(random(m, m, 'float64'));
    const tau = new Float64Array(n);
    ctx.geqrf({ a: strided(data, { rows: m, cols: n, ld: m, count: 1, stride: m * m }), tau: strided(tau, { rows: n, cols: 1 }) });
    const thin = data.slice(0, m * n);
    ctx.orgqr({ a: strided(thin, { rows: m, cols: n }), tau: strided(tau, { rows: n, cols: 1 }) });
    ctx.orgqr({ a: strided(data, { rows: m, cols: m }), tau: strided(tau, { rows: n, cols: 1 }) });
    const qtq = matmul(data, data, m, m, m, true);
    for (let i = 0; i < m; i++) qtq[i + i * m] -= 1;
    assert.ok(fro(qtq) < LIMIT * m * EPS.float64);
    assert.ok(diff(data.slice(0, m * n), thin) === 0);
  });

  it('strided (padded), list, variable and row-major batches agree with one-by-one calls; NaN stays in its matrix', () => {
    const shapes: [number, number][] = [[6, 4], [4, 6], [5, 5]];
    const mats = shapes.map(([m, n]) => random(m, n, 'float64'));
    mats[1]![3] = NaN;
    const alone = mats.map((a, i) => {
      const [m, n] = shapes[i]!;
      const d = a.slice();
      const t = new Float64Array(Math.min(m, n));
      ctx.geqrf({ a: strided(d, { rows: m, cols: n }), tau: strided(t, { rows: t.length, cols: 1 }) });
      return { d, t };
    });
    assert.ok(alone[1]!.d.some(Number.isNaN));
    assert.ok(!alone[0]!.d.some(Number.isNaN) && !alone[2]!.t.some(Number.isNaN));
    const datas = mats.map((a) => a.slice());
    const taus = shapes.map(([m, n]) => new Float64Array(Math.min(m, n)));
    const { info } = ctx.geqrf({
      a: variable(datas.map((data, i) => ({ data, rows: shapes[i]![0], cols: shapes[i]![1] }))),
      tau: variable(taus.map((data) => ({ data, rows: data.length, cols: 1 }))),
    });
    assert.deepEqual(Array.from(info), [0, 0, 0]);
    datas.forEach((d, i) => { assert.deepEqual(d, alone[i]!.d); assert.deepEqual(taus[i], alone[i]!.t); });
    // The same 6x4 twice: list, padded strided and row-major.
    const a0 = mats[0]!;
    const l = [a0.slice(), a0.slice()];
    const lt = new Float64Array(8);
    ctx.geqrf({ a: list(l, { rows: 6, cols: 4 }), tau: strided(lt, { rows: 4, cols: 1 }) });
    l.forEach((d) => assert.deepEqual(d, alone[0]!.d));
    const padded = new Float64Array(2 * 40).fill(-3);
    for (let c = 0; c < 2; c++) for (let j = 0; j < 4; j++) for (let i = 0; i < 6; i++) padded[1 + c * 40 + i + j * 8] = a0[i + j * 6]!;
    ctx.geqrf({ a: strided(padded, { rows: 6, cols: 4, ld: 8, stride: 40, offset: 1, count: 2 }), tau: strided(lt, { rows: 4, cols: 1 }) });
    for (let j = 0; j < 4; j++) for (let i = 0; i < 6; i++) assert.equal(padded[41 + i + j * 8], alone[0]!.d[i + j * 6]);
    assert.equal(padded[0], -3);
    assert.equal(padded[7], -3);
    const row = new Float64Array(24);
    for (let j = 0; j < 4; j++) for (let i = 0; i < 6; i++) row[i * 4 + j] = a0[i + j * 6]!;
    ctx.geqrf({ a: strided(row, { rows: 6, cols: 4, order: 'row' }), tau: strided(lt, { rows: 4, cols: 1, count: 1 }) });
    for (let j = 0; j < 4; j++) for (let i = 0; i < 6; i++) assert.equal(row[i * 4 + j], alone[0]!.d[i + j * 6]);
  });
});

describe('gels (CPU reference)', () => {
  for (const dtype of DTYPES) {
    for (const [m, n] of [[6, 3], [20, 20], [9, 4], [3, 7], [1, 4], [4, 4]] as [number, number][]) {
      it(`${dtype} ${m}x${n}, 2 right-hand sides: ${m >= n ? 'the normal equations' : 'a solution in the row space of A'}`, () => {
        const nrhs = 2;
        const big = Math.max(m, n);
        const a = random(m, n, dtype);
        const b0 = random(big, nrhs, dtype);
        const ad = allocate(dtype, m * n);
        ad.set(a);
        const bd = allocate(dtype, big * nrhs);
        bd.set(b0);
        const { info } = ctx.gels({ a: strided(ad, { rows: m, cols: n }), b: strided(bd, { rows: big, cols: nrhs }) });
        assert.equal(info[0], 0);
        const x = new Float64Array(n * nrhs);
        for (let c = 0; c < nrhs; c++) for (let j = 0; j < n; j++) x[j + c * n] = bd[j + c * big]!;
        const bm = new Float64Array(m * nrhs);
        for (let c = 0; c < nrhs; c++) for (let i = 0; i < m; i++) bm[i + c * m] = b0[i + c * big]!;
        const r = matmul(a, x, m, n, nrhs).map((v, i) => v - bm[i]!);
        const scale = Math.max(m, n) * EPS[dtype] * fro(a) * (fro(a) * fro(x) + fro(bm));
        if (m >= n) {
          // Optimality: A^T (A x - b) = 0.
          const g = matmul(a, r, n, m, nrhs, true);
          assert.ok(fro(g) / scale < LIMIT, `||A^T r|| ratio ${fro(g) / scale}`);
        } else {
          // Consistent: A x = b; minimum norm: x = A^T y for the y solving (A A^T) y = b, i.e. x in A's row space,
          // checked as x's component outside the row space being zero: x - A^T (A A^T)^-1 A x, through QR of A^T.
          assert.ok(fro(r) / (Math.max(m, n) * EPS[dtype] * (fro(a) * fro(x) + fro(bm))) < LIMIT, `||A x - b|| ${fro(r)}`);
          const { q, k } = factor(transpose(a, m, n), n, m, 'float64');
          const proj = matmul(q, matmul(q, x, k, n, nrhs, true), n, k, nrhs);
          assert.ok(diff(proj, x) / (n * EPS[dtype] * fro(x)) < LIMIT, `x outside the row space: ${diff(proj, x)}`);
        }
      });
    }
  }

  it('a known solution: the line through (0, 1), (1, 3), (2, 5), (3, 7) and the minimum norm of x + y = 2', () => {
    const a = Float64Array.from([1, 1, 1, 1, 0, 1, 2, 3]);
    const b = Float64Array.from([1, 3, 5, 7]);
    ctx.gels({ a: strided(a, { rows: 4, cols: 2 }), b: strided(b, { rows: 4, cols: 1 }) });
    assert.ok(Math.abs(b[0]! - 1) < 1e-14 && Math.abs(b[1]! - 2) < 1e-14, `${b}`);
    const w = Float64Array.from([1, 1]);
    const y = Float64Array.from([2, 0]);
    ctx.gels({ a: strided(w, { rows: 1, cols: 2 }), b: strided(y, { rows: 2, cols: 1 }) });
    assert.ok(Math.abs(y[0]! - 1) < 1e-15 && Math.abs(y[1]! - 1) < 1e-15, `${y}`);
  });

  it('rank-deficient matrices report info = j + 1; a zero matrix gives x = 0; NaN stays in its matrix', () => {
    // Column 1 = 2 * column 0 = 2 e_0: R(1, 1) is exactly zero.
    const a = new Float64Array(4 * 2 * 4);
    const b = new Float64Array(4 * 4).fill(1);
    const good = Float64Array.from([1, 0, 0, 0, 0, 1, 0, 0]);
    a.set([1, 0, 0, 0, 2, 0, 0, 0], 0);
    a.set(good, 8);
    a.set(good, 16); a[17] = NaN;
    a.set(good, 24); a.fill(0, 24, 32);
    const { info } = ctx.gels({ a: strided(a, { rows: 4, cols: 2, count: 4 }), b: strided(b, { rows: 4, cols: 1, count: 4 }) });
    assert.deepEqual(Array.from(info), [2, 0, 0, 0]);
    assert.deepEqual(Array.from(b.subarray(4, 6)), [1, 1]);
    assert.ok(Number.isNaN(b[8]!) || Number.isNaN(b[9]!));
    assert.deepEqual(Array.from(b.subarray(12, 16)), [0, 0, 0, 0]);
  });

  it('no right-hand sides (nrhs = 0): A untouched and info 0, as dgels, real and complex, on both CPU backends', () => {
    for (const backend of ['reference', 'cpu'] as const) {
      const c = my.open({ backend });
      for (const dtype of ['float64', 'float32', 'complex128', 'complex64'] as const) {
        const complex = dtype === 'complex128' || dtype === 'complex64';
        const parts = complex ? 2 : 1;
        for (const [m, n] of [[4, 2], [2, 4], [3, 3]] as const) {
          const a = allocate(dtype === 'complex128' ? 'float64' : dtype === 'complex64' ? 'float32' : dtype, parts * m * n * 2);
          for (let i = 0; i < a.length; i++) a[i] = 1 + i;
          const before = a.slice();
          const info = new Int32Array(2).fill(-5);
          const rows = Math.max(m, n);
          c.gels({ a: strided(a, { rows: m, cols: n, count: 2, ...(complex ? { dtype } : {}) }), b: strided(a.subarray(0, 0), { rows, cols: 0, count: 2, ...(complex ? { dtype } : {}) }), info });
          assert.deepEqual(Array.from(a), Array.from(before), `${backend} ${dtype} ${m}x${n}: A untouched`);
          assert.deepEqual(Array.from(info), [0, 0], `${backend} ${dtype} ${m}x${n}: info`);
        }
      }
      c.dispose();
    }
  });

  it('row-major A and B give the column-major answer', () => {
    const a = random(5, 3, 'float64');
    const b = random(5, 2, 'float64');
    const ac = a.slice();
    const bc = b.slice();
    ctx.gels({ a: strided(ac, { rows: 5, cols: 3 }), b: strided(bc, { rows: 5, cols: 2 }) });
    const ar = transpose(a, 5, 3);
    const br = transpose(b, 5, 2);
    ctx.gels({ a: strided(ar, { rows: 5, cols: 3, order: 'row' }), b: strided(br, { rows: 5, cols: 2, order: 'row' }) });
    assert.deepEqual(transpose(br, 2, 5), bc);
  });
});

describe('geqrf, orgqr and gels: validation names the argument', () => {
  const expect = (fn: () => unknown, code: ErrorCode, argument: string): void =>
    assert.throws(fn, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument);
  const a = (m: number, n: number): ReturnType<typeof strided<FloatArray>> => strided(new Float64Array(m * n), { rows: m, cols: n });
  it('shapes, dtypes, keys', () => {
    expect(() => ctx.geqrf({ a: a(4, 3), tau: a(4, 1) }), 'SHAPE', 'tau');
    expect(() => ctx.geqrf({ a: a(4, 3), tau: strided(new Float32Array(3), { rows: 3, cols: 1 }) }), 'DTYPE', 'tau');
    expect(() => ctx.geqrf({ a: a(4, 3), tau: a(3, 1), k: 2 } as never), 'INVALID_ARGUMENT', 'k');
    expect(() => ctx.orgqr({ a: a(3, 4), tau: a(3, 1) }), 'SHAPE', 'a');
    expect(() => ctx.orgqr({ a: a(5, 3), tau: a(4, 1) }), 'SHAPE', 'tau');
    expect(() => ctx.gels({ a: a(3, 5), b: a(3, 1) }), 'SHAPE', 'b');
    expect(() => ctx.gels({ a: a(3, 5), b: a(5, 1), info: new Int32Array(0) }), 'BOUNDS', 'info');
    const shared = new Float64Array(16);
    expect(() => ctx.gels({ a: strided(shared, { rows: 4, cols: 2, count: 1 }), b: strided(shared, { rows: 4, cols: 1, count: 1 }) }), 'LAYOUT', 'b');
  });
});

function transpose(a: Float64Array, m: number, n: number): Float64Array {
  const t = new Float64Array(m * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) t[j + i * n] = a[i + j * m]!;
  return t;
}

describe('qr and lstsq (array level, numpy conventions)', () => {
  /** Row-major [m, n] matrix c of a stack as column-major Float64Array. */
  const pick = (d: FloatArray, c: number, m: number, n: number): Float64Array =>
    Float64Array.from({ length: m * n }, (_, p) => d[c * m * n + (p % m) * n + Math.floor(p / m)]!);
  for (const dtype of DTYPES) {
    for (const [m, n] of [[5, 3], [3, 5], [4, 4]] as [number, number][]) {
      it(`${dtype} [2, ${m}, ${n}]: modes reduced, complete and r`, () => {
        const k = Math.min(m, n);
        const data = allocate(dtype, 2 * m * n);
        data.set(random(2 * m, n, dtype));
        const a = my.ndarray(data, [2, m, n]);
        const before = data.slice();
        const red = my.qr(a);
        const full = my.qr(a, { mode: 'complete' });
        const ronly = my.qr(a, { mode: 'r' });
        assert.deepEqual(data, before);
        assert.deepEqual(red.q!.shape, [2, m, k]);
        assert.deepEqual(red.r.shape, [2, k, n]);
        assert.deepEqual(full.q!.shape, [2, m, m]);
        assert.deepEqual(full.r.shape, [2, m, n]);
        assert.equal(ronly.q, undefined);
        assert.deepEqual(ronly.r.data, red.r.data);
        for (const [res, qc, rr] of [[red, k, k], [full, m, m]] as const) {
          for (let c = 0; c < 2; c++) {
            const q = pick(res.q!.data, c, m, qc);
            const r = pick(res.r.data, c, rr, n);
            for (let j = 0; j < n; j++) for (let i = j + 1; i < rr; i++) assert.equal(r[i + j * rr], 0);
            const ac = pick(data, c, m, n);
            assert.ok(diff(matmul(q, r, m, qc, n), ac) / (m * EPS[dtype] * fro(ac)) < LIMIT);
            const qtq = matmul(q, q, qc, m, qc, true);
            for (let i = 0; i < qc; i++) qtq[i + i * qc] -= 1;
            assert.ok(fro(qtq) / (m * EPS[dtype]) < LIMIT);
          }
        }
      });
    }
  }

  it('lstsq: x and residuals for an overdetermined line fit, a 1-D b, a stack, minimum norm, and rank-deficient info', () => {
    const a = my.ndarray(Float64Array.from([1, 0, 1, 1, 1, 2, 1, 3]), [4, 2]);
    const { x, residuals } = my.lstsq(a, my.ndarray(Float64Array.from([1, 3, 5, 8]), [4]));
    assert.deepEqual(x.shape, [2]);
    assert.deepEqual(residuals.shape, [1]);
    // Normal equations: [4 6; 6 14] x = [17; 37] -> x = [0.8, 2.3]; residuals 0.2^2 + 0.1^2 * 2 + ... computed directly.
    assert.ok(Math.abs(x.data[0]! - 0.8) < 1e-14 && Math.abs(x.data[1]! - 2.3) < 1e-14, `${x.data}`);
    const r = [1, 3, 5, 8].map((y, i) => y - 0.8 - 2.3 * i);
    assert.ok(Math.abs(residuals.data[0]! - r.reduce((s, v) => s + v * v, 0)) < 1e-13);
    const wide = my.lstsq(my.ndarray(Float64Array.from([1, 1, 0, 0, 1, 1]), [1, 2, 3]), my.ndarray(Float64Array.from([2, 2]), [1, 2, 1]));
    assert.deepEqual(wide.x.shape, [1, 3, 1]);
    assert.deepEqual(wide.residuals.shape, [1, 0]);
    // x + y = 2, y + z = 2, minimum norm: (2/3, 4/3, 2/3).
    [2 / 3, 4 / 3, 2 / 3].forEach((v, i) => assert.ok(Math.abs(wide.x.data[i]! - v) < 1e-14, `${wide.x.data}`));
    const stack = my.ndarray(Float64Array.from([1, 0, 2, 0, 1, 0, 0, 1]), [2, 2, 2]);
    const ex = my.lstsqEx(stack, my.ndarray(Float64Array.from([1, 1, 3, 4]), [2, 2, 1]));
    assert.deepEqual(Array.from(ex.info), [2, 0]);
    assert.ok(Number.isNaN(ex.x.data[0]!));
    assert.deepEqual(Array.from(ex.x.data.subarray(2)), [3, 4]);
    assert.throws(() => my.lstsq(stack, my.ndarray(Float64Array.from([1, 1, 3, 4]), [2, 2, 1])), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL');
    assert.throws(() => my.lstsq(stack, my.ndarray(Float64Array.from([1, 1, 3]), [3])), (e: unknown) => e instanceof MyriadError && e.argument === 'b.shape');
    assert.throws(() => my.qr(a, { mode: 'full' as never }), (e: unknown) => e instanceof MyriadError && e.argument === 'options.mode');
  });
});

describe('geqrf and gels: prepared calls', () => {
  it('run again on new a, tau and b storages', () => {
    const a1 = random(4, 3, 'float64');
    const a2 = random(4, 3, 'float64');
    const direct = a2.slice();
    const t = new Float64Array(3);
    ctx.geqrf({ a: strided(direct, { rows: 4, cols: 3 }), tau: strided(t, { rows: 3, cols: 1 }) });
    const f = ctx.prepare.geqrf({ a: strided(a1.slice(), { rows: 4, cols: 3 }), tau: strided(new Float64Array(3), { rows: 3, cols: 1 }) });
    const tau = new Float64Array(3);
    const again = a2.slice();
    f({ a: again, tau });
    assert.deepEqual(again, direct);
    assert.deepEqual(tau, t);
    const g = ctx.prepare.gels({ a: strided(a1.slice(), { rows: 4, cols: 3 }), b: strided(new Float64Array(4), { rows: 4, cols: 1 }) });
    const b = Float64Array.from([1, 2, 3, 4]);
    assert.deepEqual(Array.from(g({ a: a2.slice(), b }).info as Int32Array), [0]);
    const b2 = Float64Array.from([1, 2, 3, 4]);
    ctx.gels({ a: strided(a2.slice(), { rows: 4, cols: 3 }), b: strided(b2, { rows: 4, cols: 1 }) });
    assert.deepEqual(b, b2);
  });
});

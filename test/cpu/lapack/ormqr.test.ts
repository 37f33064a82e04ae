/**
 * ormqr (src/cpu/lapack/qr.ts, dorm2r) against an explicitly formed Q: the complete Q of the
 * reflectors (orgqr on an r x r copy, in float64) times C, every side and trans, square, tall and
 * wide reflector blocks, k below min(r, p), both dtypes; Q^T Q C = C; elements outside C (padding,
 * gaps, A, tau) bit-identical; strided, list, variable and row-major batches; NaN kept in its
 * matrix; validation errors naming the argument; prepared calls.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as my from '../../../src/index.js';
import { MyriadError, list, strided, variable, type ErrorCode } from '../../../src/index.js';
import { referenceContext as ctx } from '../../../src/api/context.js';
import { allocate, type DType, type FloatArray } from '../../../src/core/dtype.js';
import { SIDES, TRANSES, applyDense, explicitQ, fro, reflectorBatch, reflectors } from '../../helpers/ormqr-data.js';
import { Rng } from '../../helpers/random.js';

const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const DTYPES: DType[] = ['float64', 'float32'];

/** Reflector sources r x p with k reflectors, and the other dimension of C. */
const CASES: { r: number; p: number; k: number; other: number; label: string }[] = [
  { r: 1, p: 1, k: 1, other: 3, label: '1x1' },
  { r: 5, p: 5, k: 5, other: 4, label: 'square' },
  { r: 9, p: 4, k: 4, other: 6, label: 'tall (k < r)' },
  { r: 4, p: 7, k: 4, other: 2, label: 'wide (A has more columns than k)' },
  { r: 8, p: 6, k: 3, other: 5, label: 'k < min(r, p)' },
  { r: 17, p: 17, k: 16, other: 1, label: 'one vector' },
];

function randomC(rng: Rng, dtype: DType, m: number, n: number): FloatArray {
  const c = allocate(dtype, m * n);
  for (let i = 0; i < c.length; i++) c[i] = rng.uniform();
  return c;
}

describe('ormqr (CPU reference) against the explicit Q', () => {
  for (const dtype of DTYPES) {
    for (const { r, p, k, other, label } of CASES) {
      it(`${dtype} ${label}: r=${r} p=${p} k=${k}, every side and trans`, () => {
        const rng = new Rng(1000 + r * 31 + p * 7 + k);
        const { a, tau } = reflectors(rng, dtype, r, p, k);
        const q = explicitQ(a, r, tau, r, k);
        for (const side of SIDES) {
          for (const trans of TRANSES) {
            const [m, n] = side === 'left' ? [r, other] : [other, r];
            const c0 = randomC(rng, dtype, m, n);
            const c = c0.slice();
            const a0 = a.slice();
            const t0 = tau.slice();
            ctx.ormqr({ side, trans, a: strided(a, { rows: r, cols: p }), tau: strided(tau, { rows: k, cols: 1 }), c: strided(c, { rows: m, cols: n }) });
            const want = applyDense(side, trans, q, c0, m, n);
            const err = fro(want.map((v, i) => v - c[i]!)) / (r * EPS[dtype] * fro(c0));
            assert.ok(err < LIMIT, `${side} ${trans}: error ratio ${err}`);
            assert.deepEqual(a, a0, 'A changed');
            assert.deepEqual(tau, t0, 'tau changed');
          }
        }
      });
    }
  }

  for (const dtype of DTYPES) {
    it(`${dtype}: Q^T (Q C) = C and (C Q) Q^T = C`, () => {
      const rng = new Rng(77);
      const { a, tau } = reflectors(rng, dtype, 12, 12, 10);
      for (const side of SIDES) {
        const [m, n] = side === 'left' ? [12, 7] : [7, 12];
        const c0 = randomC(rng, dtype, m, n);
        const c = c0.slice();
        const args = { side, a: strided(a, { rows: 12, cols: 12 }), tau: strided(tau, { rows: 10, cols: 1 }), c: strided(c, { rows: m, cols: n }) };
        ctx.ormqr({ ...args, trans: 'N' });
        assert.ok(fro(c.map((v, i) => v - c0[i]!)) > 0.1 * fro(c0), 'Q C is not C');
        ctx.ormqr({ ...args, trans: 'T' });
        const err = fro(c.map((v, i) => v - c0[i]!)) / (12 * EPS[dtype] * fro(c0));
        assert.ok(err < LIMIT, `${side}: round trip ratio ${err}`);
      }
    });
  }

  it("'C' means 'T'; k = 0 leaves C as it is; tau = 0 is the identity reflector", () => {
    const rng = new Rng(5);
    const { a, tau } = reflectors(rng, 'float64', 6, 6);
    const c0 = randomC(rng, 'float64', 6, 3);
    const c1 = c0.slice();
    const c2 = c0.slice();
    ctx.ormqr({ trans: 'T', a: strided(a, { rows: 6 }), tau: strided(tau, { rows: 6, cols: 1 }), c: strided(c1, { rows: 6, cols: 3 }) });
    ctx.ormqr({ trans: 'C', a: strided(a, { rows: 6 }), tau: strided(tau, { rows: 6, cols: 1 }), c: strided(c2, { rows: 6, cols: 3 }) });
    assert.deepEqual(c1, c2);
    const c3 = c0.slice();
    ctx.ormqr({ a: strided(a, { rows: 6 }), tau: strided(new Float64Array(0), { rows: 0, cols: 1, count: 1 }), c: strided(c3, { rows: 6, cols: 3 }) });
    assert.deepEqual(c3, c0);
    const zero = tau.slice();
    zero.fill(0);
    const c4 = c0.slice();
    ctx.ormqr({ side: 'left', trans: 'N', a: strided(a, { rows: 6 }), tau: strided(zero, { rows: 6, cols: 1 }), c: strided(c4, { rows: 6, cols: 3 }) });
    assert.deepEqual(c4, c0);
  });
});

describe('ormqr: batches, layouts and untouched memory', () => {
  it('padded strided C: every element outside the matrices is bit-identical; list and variable batches agree with one-by-one calls', () => {
    const rng = new Rng(99);
    const count = 3;
    const [r, k, n] = [7, 5, 4];
    const refl = Array.from({ length: count }, () => reflectors(rng, 'float64', r, k));
    const cs = Array.from({ length: count }, () => randomC(rng, 'float64', r, n));
    const alone = cs.map((c0, i) => {
      const c = c0.slice();
      ctx.ormqr({ side: 'left', trans: 'T', a: strided(refl[i]!.a, { rows: r, cols: k }), tau: strided(refl[i]!.tau, { rows: k, cols: 1 }), c: strided(c, { rows: r, cols: n }) });
      return c;
    });
    // One strided batch: A with ld 9 and gaps, C with ld 10, stride 47, offset 3; everything else a sentinel.
    const A = new Float64Array(2 + count * 50).fill(-7);
    const T = new Float64Array(count * 6).fill(-5);
    const C = new Float64Array(3 + count * 47).fill(-9);
    for (let i = 0; i < count; i++) {
      for (let j = 0; j < k; j++) for (let p = 0; p < r; p++) A[2 + i * 50 + p + j * 9] = refl[i]!.a[p + j * r]!;
      for (let j = 0; j < k; j++) T[i * 6 + j] = refl[i]!.tau[j]!;
      for (let j = 0; j < n; j++) for (let p = 0; p < r; p++) C[3 + i * 47 + p + j * 10] = cs[i]![p + j * r]!;
    }
    const A0 = A.slice();
    const T0 = T.slice();
    const C0 = C.slice();
    ctx.ormqr({
      side: 'left', trans: 'T',
      a: strided(A, { rows: r, cols: k, ld: 9, stride: 50, offset: 2, count }),
      tau: strided(T, { rows: k, cols: 1, stride: 6, count }),
      c: strided(C, { rows: r, cols: n, ld: 10, stride: 47, offset: 3, count }),
    });
    assert.deepEqual(A, A0);
    assert.deepEqual(T, T0);
    for (let e = 0; e < C.length; e++) {
      const i = Math.floor((e - 3) / 47);
      const w = (e - 3) % 47;
      const inside = e >= 3 && i < count && w % 10 < r && Math.floor(w / 10) < n;
      if (inside) assert.equal(C[e], alone[i]![(w % 10) + Math.floor(w / 10) * r], `element ${e}`);
      else assert.ok(Object.is(C[e], C0[e]), `element ${e} outside C changed`);
    }
    const l = cs.map((c) => c.slice());
    ctx.ormqr({ side: 'left', trans: 'T', a: list(refl.map((x) => x.a), { rows: r, cols: k }), tau: list(refl.map((x) => x.tau), { rows: k, cols: 1 }), c: list(l, { rows: r, cols: n }) });
    l.forEach((c, i) => assert.deepEqual(c, alone[i]));
    const v = cs.map((c) => c.slice());
    ctx.ormqr({
      side: 'left', trans: 'T',
      a: variable(refl.map((x) => ({ data: x.a, rows: r, cols: k }))),
      tau: variable(refl.map((x) => ({ data: x.tau, rows: k, cols: 1 }))),
      c: variable(v.map((data) => ({ data, rows: r, cols: n }))),
    });
    v.forEach((c, i) => assert.deepEqual(c, alone[i]));
  });

  it('a variable batch of different shapes and k matches one-by-one calls', () => {
    const rng = new Rng(4);
    const shapes = [{ r: 3, p: 3, k: 2, other: 5, side: 'left' as const }, { r: 6, p: 2, k: 2, other: 1, side: 'right' as const }, { r: 1, p: 4, k: 1, other: 2, side: 'right' as const }];
    for (const trans of TRANSES) {
      for (const side of SIDES) {
        const data = shapes.map((s) => ({ ...reflectors(rng, 'float32', s.r, s.p, s.k), c: randomC(rng, 'float32', side === 'left' ? s.r : s.other, side === 'left' ? s.other : s.r) }));
        const dims = (i: number): [number, number] => (side === 'left' ? [shapes[i]!.r, shapes[i]!.other] : [shapes[i]!.other, shapes[i]!.r]);
        const alone = data.map((d, i) => {
          const c = d.c.slice();
          const [m, n] = dims(i);
          ctx.ormqr({ side, trans, a: strided(d.a, { rows: shapes[i]!.r, cols: shapes[i]!.p }), tau: strided(d.tau, { rows: shapes[i]!.k, cols: 1 }), c: strided(c, { rows: m, cols: n }) });
          return c;
        });
        ctx.ormqr({
          side, trans,
          a: variable(data.map((d, i) => ({ data: d.a, rows: shapes[i]!.r, cols: shapes[i]!.p }))),
          tau: variable(data.map((d, i) => ({ data: d.tau, rows: shapes[i]!.k, cols: 1 }))),
          c: variable(data.map((d, i) => ({ data: d.c, rows: dims(i)[0], cols: dims(i)[1] }))),
        });
        data.forEach((d, i) => assert.deepEqual(d.c, alone[i], `${side} ${trans} matrix ${i}`));
      }
    }
  });

  it('row-major C (the transposed operation, no copy) and row-major A and tau (copied) give the column-major answer bit for bit', () => {
    const rng = new Rng(31);
    const [r, k] = [6, 4];
    const { a, tau } = reflectors(rng, 'float64', r, k);
    for (const side of SIDES) {
      for (const trans of TRANSES) {
        const [m, n] = side === 'left' ? [r, 3] : [3, r];
        const c0 = Float64Array.from(randomC(rng, 'float64', m, n));
        const col = c0.slice();
        ctx.ormqr({ side, trans, a: strided(a, { rows: r, cols: k }), tau: strided(tau, { rows: k, cols: 1 }), c: strided(col, { rows: m, cols: n }) });
        const row = transpose(c0, m, n);
        ctx.ormqr({ side, trans, a: strided(a, { rows: r, cols: k }), tau: strided(tau, { rows: k, cols: 1 }), c: strided(row, { rows: m, cols: n, order: 'row' }) });
        assert.deepEqual(transpose(row, n, m), col, `row-major C, ${side} ${trans}`);
        const aRow = transpose(a, r, k);
        const aRow0 = aRow.slice();
        const c2 = c0.slice();
        ctx.ormqr({ side, trans, a: strided(aRow, { rows: r, cols: k, order: 'row' }), tau: strided(Float64Array.from(tau), { rows: k, cols: 1, order: 'row' }), c: strided(c2, { rows: m, cols: n }) });
        assert.deepEqual(c2, col, `row-major A, ${side} ${trans}`);
        assert.deepEqual(aRow, aRow0, 'row-major A written back');
      }
    }
  });

  it('NaN in one matrix (in C or in its reflectors) stays in that matrix', () => {
    const rng = new Rng(8);
    const count = 4;
    const [r, n] = [5, 3];
    const { a: A, tau: T } = reflectorBatch(rng, r, r, count);
    const C = randomC(rng, 'float64', r, n * count);
    C[1 * r * n + 4] = NaN;
    A[2 * r * r + 3] = NaN;
    ctx.ormqr({ a: strided(A, { rows: r, count }), tau: strided(T, { rows: r, cols: 1, count }), c: strided(C, { rows: r, cols: n, count }) });
    for (let i = 0; i < count; i++) {
      const part = C.subarray(i * r * n, (i + 1) * r * n);
      assert.equal(part.some(Number.isNaN), i === 1 || i === 2, `matrix ${i}`);
    }
  });

  it('the fast CPU backend (top-level ormqr) and a prepared call give the reference answer', () => {
    const rng = new Rng(12);
    const count = 40;
    const [r, k, n] = [9, 9, 9];
    const { a: A, tau: T } = reflectorBatch(rng, r, k, count);
    const C0 = Float64Array.from(randomC(rng, 'float64', r, n * count));
    const ref = C0.slice();
    const args = (c: Float64Array): my.OrmqrArgs<Float64Array> => ({ side: 'right', trans: 'T', a: strided(A, { rows: r, cols: k, count }), tau: strided(T, { rows: k, cols: 1, count }), c: strided(c, { rows: n, cols: r, count }) });
    ctx.ormqr(args(ref));
    const fast = C0.slice();
    my.ormqr(args(fast));
    assert.deepEqual(fast, ref);
    const f = ctx.prepare.ormqr(args(C0.slice()));
    const again = C0.slice();
    f({ c: again });
    assert.deepEqual(again, ref);
  });
});

describe('ormqr: validation names the argument', () => {
  const expect = (fn: () => unknown, code: ErrorCode, argument: string): void =>
    assert.throws(fn, (e: unknown) => e instanceof MyriadError && e.code === code && e.argument === argument, `${code} ${argument}`);
  const mat = (m: number, n: number): ReturnType<typeof strided<FloatArray>> => strided(new Float64Array(m * n), { rows: m, cols: n });
  it('shapes, k, ld, enums, dtypes, counts, keys and overlaps', () => {
    const c = mat(5, 3);
    expect(() => ctx.ormqr({ a: mat(4, 3), tau: mat(3, 1), c }), 'SHAPE', 'a');
    expect(() => ctx.ormqr({ side: 'right', a: mat(5, 3), tau: mat(3, 1), c }), 'SHAPE', 'a');
    expect(() => ctx.ormqr({ a: mat(5, 3), tau: mat(3, 2), c }), 'SHAPE', 'tau');
    expect(() => ctx.ormqr({ a: mat(5, 3), tau: mat(4, 1), c }), 'SHAPE', 'tau');
    expect(() => ctx.ormqr({ side: 'right', a: mat(3, 5), tau: mat(4, 1), c }), 'SHAPE', 'tau');
    const short: my.StridedBatch<Float64Array> = { kind: 'strided', order: 'col', data: new Float64Array(20), rows: 5, cols: 3, ld: 4, stride: 20, offset: 0, count: 1 };
    expect(() => ctx.ormqr({ a: short, tau: mat(3, 1), c }), 'LAYOUT', 'a.ld');
    expect(() => ctx.ormqr({ side: 'top' as never, a: mat(5, 3), tau: mat(3, 1), c }), 'ENUM', 'side');
    expect(() => ctx.ormqr({ trans: 'X' as never, a: mat(5, 3), tau: mat(3, 1), c }), 'ENUM', 'trans');
    expect(() => ctx.ormqr({ a: mat(5, 3), tau: mat(3, 1), c: strided(new Float32Array(15), { rows: 5, cols: 3 }) }), 'DTYPE', 'c');
    expect(() => ctx.ormqr({ a: mat(5, 3), tau: strided(new Float64Array(6), { rows: 3, cols: 1, count: 2 }), c }), 'SHAPE', 'tau');
    expect(() => ctx.ormqr({ a: mat(5, 3), tau: mat(3, 1), c, k: 2 } as never), 'INVALID_ARGUMENT', 'k');
    expect(() => ctx.ormqr({ a: mat(5, 3), tau: mat(3, 1) } as never), 'INVALID_ARGUMENT', 'c');
    expect(() => ctx.ormqr(null as never), 'INVALID_ARGUMENT', 'args');
    // A row-major device A would need a hidden copy: rejected before anything runs.
    const dev: my.DeviceStorage = { kind: 'device', dtype: 'float64', length: 15, device: 0 };
    expect(() => ctx.ormqr<my.Storage>({ a: strided(dev, { rows: 5, cols: 3, order: 'row', count: 1 }), tau: mat(3, 1), c }), 'LAYOUT', 'a.order');
    const shared = new Float64Array(30);
    expect(() => ctx.ormqr({ a: strided(shared, { rows: 5, cols: 3, count: 1 }), tau: mat(3, 1), c: strided(shared, { rows: 5, cols: 3, count: 1, offset: 10 }) }), 'LAYOUT', 'c');
  });
});

function transpose(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const t = new Float64Array(m * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) t[j + i * n] = a[i + j * m]!;
  return t;
}

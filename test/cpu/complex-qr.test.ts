/**
 * Complex geqrf, orgqr, ormqr and gels (LAPACK's zgeqrf, zungqr, zunmqr, zgels) through the
 * reference and cpu contexts, against residuals computed in the test: ||A - Q R|| / (max(m, n)
 * ||A|| eps) and ||Q^H Q - I|| / (m eps) with Q from orgqr, ormqr against products with that Q
 * (both sides, 'N' and 'C'), and for gels ||A^H (B - A X)|| (m >= n) or ||A X - B|| (m < n) over
 * LAPACK's scaling; square sizes 1..12, 17, 33 and rectangular shapes, odd ld, strides and
 * offsets; rank-deficient, all-zero and NaN members mixed in. Then the argument errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { Side } from '../../src/core/enums.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import {
  LIST, ODD, Rng, epsOf, get, identity, multiply, norm, op, place, random, ratio, set, subtract, triangle, zeros, type Z, throwsArg, TYPES
} from '../helpers/complex.js';

const SQUARE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 17, 33];
const SHAPES: [number, number][] = [...SQUARE.map((n): [number, number] => [n, n]), [5, 3], [3, 5], [12, 7], [7, 12], [33, 17], [17, 33]];

/** The first `cols` columns of a (a copy). */
function columns(a: Z, cols: number): Z {
  return { rows: a.rows, cols, d: a.d.slice(0, 2 * a.rows * cols) };
}

/** A complex batch of `count` k x 1 columns (tau), read back as plain arrays. */
function taus(count: number, k: number, dtype: ComplexDType) {
  return place(Array.from({ length: count }, () => zeros(k, 1)), k, 1, dtype, LIST);
}

for (const backend of ['reference', 'cpu'] as const) {
  describe(`complex QR and least squares through the ${backend} context`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };

    for (const dtype of TYPES) {
      const eps = epsOf(dtype);

      it(`geqrf, orgqr, ormqr ${dtype}: A = Q R, Q^H Q = I, op(Q) C and C op(Q) as products with Q`, withCtx((ctx) => {
        const rng = new Rng(41);
        for (const [m, n] of SHAPES) {
          const k = Math.min(m, n);
          const nan = random(rng, m, n);
          set(nan, m - 1, n - 1, NaN, 0);
          const as = [random(rng, m, n), nan, random(rng, m, n)];
          const A = place(as, m, n, dtype, m % 2 === 0 ? ODD : LIST);
          const T = taus(as.length, k, dtype);
          assert.deepEqual([...ctx.geqrf({ a: A.batch, tau: T.batch }).info], [0, 0, 0]);
          for (const p of [0, 2]) {
            const f = A.read(p);
            const r = triangle(columns(f, n), 'upper');
            const rk: Z = zeros(k, n);
            for (let j = 0; j < n; j++) for (let i = 0; i < k; i++) set(rk, i, j, ...get(r, i, j));
            for (let i = 0; i < k; i++) assert.equal(get(f, i, i)[1], 0, 'R has a real diagonal');
            // Q (m x k) from the k reflectors: orgqr over the first k columns.
            const Qb = place([columns(f, k)], m, k, dtype, ODD);
            ctx.orgqr({ a: Qb.batch, tau: place([T.read(p)], k, 1, dtype).batch });
            const q = Qb.read(0);
            const res = ratio(norm(subtract(multiply(q, rk), as[p]!)), Math.max(m, n), norm(as[p]!), eps);
            assert.ok(res < 30, `geqrf ${m}x${n} #${p}: ||A - Q R|| ratio ${res}`);
            const orth = ratio(norm(subtract(multiply(op(q, 'C'), q), identity(k))), m, 1, eps);
            assert.ok(orth < 30, `orgqr ${m}x${n} #${p}: ||Q^H Q - I|| ratio ${orth}`);
            // The full m x m Q = H(0) ... H(k-1): orgqr over an m x m matrix holding the reflectors.
            const full = zeros(m, m);
            full.d.set(f.d.subarray(0, 2 * m * k));
            const Fb = place([full], m, m, dtype, LIST);
            ctx.orgqr({ a: Fb.batch, tau: place([T.read(p)], k, 1, dtype).batch });
            const qf = Fb.read(0);
            for (const side of ['left', 'right'] as Side[]) for (const trans of ['N', 'C'] as const) {
              const c = side === 'left' ? random(rng, m, 3) : random(rng, 3, m);
              const C = place([c], c.rows, c.cols, dtype, ODD);
              ctx.ormqr({ side, trans, a: place([f], m, n, dtype).batch, tau: place([T.read(p)], k, 1, dtype).batch, c: C.batch });
              const want = side === 'left' ? multiply(op(qf, trans), c) : multiply(c, op(qf, trans));
              const e = ratio(norm(subtract(C.read(0), want)), m, norm(c), eps);
              assert.ok(e < 30, `ormqr ${side} ${trans} ${m}x${n} #${p}: ratio ${e}`);
            }
          }
        }
      }));

      it(`gels ${dtype}: least squares and minimum norm, rank-deficient, all-zero and NaN members`, withCtx((ctx) => {
        const rng = new Rng(43);
        for (const [m, n] of SHAPES) {
          const k = Math.min(m, n);
          const rows = Math.max(m, n);
          const nrhs = 1 + (m % 3);
          const deficient = random(rng, m, n);
          const at = 1 + (4 % k);
          // A zero column (m >= n) or row (m < n): R(at, at) of A or A^H is exactly zero.
          if (m >= n) for (let i = 0; i < m; i++) set(deficient, i, at - 1, 0, 0);
          else for (let j = 0; j < n; j++) set(deficient, at - 1, j, 0, 0);
          const nan = random(rng, m, n);
          set(nan, 0, n - 1, 0, NaN);
          const as = [random(rng, m, n), deficient, zeros(m, n), nan, random(rng, m, n)];
          const bs = as.map(() => random(rng, rows, nrhs));
          const A = place(as, m, n, dtype, ODD);
          const B = place(bs, rows, nrhs, dtype, n % 2 === 0 ? LIST : ODD);
          const before = B.outside();
          // With k = 1 the deficient matrix is all zero: X = 0, info 0.
          assert.deepEqual([...ctx.gels({ a: A.batch, b: B.batch }).info], [0, k > 1 ? at : 0, 0, 0, 0], `gels ${m}x${n}`);
          assert.deepEqual(B.outside(), before);
          assert.ok(B.read(2).d.every((x) => x === 0), 'an all-zero A: X = 0');
          assert.ok(columns(B.read(3), nrhs).d.some(Number.isNaN), 'the NaN matrix: NaN in X');
          for (const p of [0, 4]) {
            const a = as[p]!;
            const xb = B.read(p);
            const x = zeros(n, nrhs);
            for (let j = 0; j < nrhs; j++) for (let i = 0; i < n; i++) set(x, i, j, ...get(xb, i, j));
            const b = zeros(m, nrhs);
            for (let j = 0; j < nrhs; j++) for (let i = 0; i < m; i++) set(b, i, j, ...get(bs[p]!, i, j));
            const r = subtract(b, multiply(a, x));
            const e = m >= n
              ? ratio(norm(multiply(op(a, 'C'), r)), m, norm(a) * (norm(a) * norm(x) + norm(b)), eps)
              : ratio(norm(r), n, norm(a) * norm(x), eps);
            assert.ok(e < 30, `gels ${m}x${n} #${p}: ratio ${e}`);
          }
        }
      }));
    }

    it('errors name the argument: element types, trans, shapes', withCtx((ctx) => {
      const z = (rows = 3, cols = rows, dtype: ComplexDType = 'complex128') =>
        strided(dtype === 'complex64' ? new Float32Array(2 * rows * cols) : new Float64Array(2 * rows * cols), { rows, cols, dtype });
      throwsArg(() => ctx.geqrf({ a: z(), tau: strided(new Float64Array(3), { rows: 3, cols: 1 }) }), 'DTYPE', 'tau', /float64 but a is complex128/);
      throwsArg(() => ctx.geqrf({ a: z(), tau: z(2, 1) }), 'SHAPE', 'tau');
      throwsArg(() => ctx.orgqr({ a: z(2, 3), tau: z(2, 1) }), 'SHAPE', 'a');
      throwsArg(() => ctx.ormqr({ trans: 'T', a: z(), tau: z(3, 1), c: z() }), 'ENUM', 'trans', /'N' or 'C'/);
      throwsArg(() => ctx.ormqr({ a: z(), tau: z(3, 1), c: z(3, 3, 'complex64') }), 'DTYPE', 'c');
      throwsArg(() => ctx.gels({ a: z(3, 2), b: z(2, 1) }), 'SHAPE', 'b');
      throwsArg(() => ctx.gels({ a: z(), b: strided(new Float64Array(12), { rows: 3, cols: 2, order: 'row', dtype: 'complex128' }) }), 'UNSUPPORTED', 'b.order');
    }));
  });
}

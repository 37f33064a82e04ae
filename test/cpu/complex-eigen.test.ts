/**
 * heev (Hermitian eigendecomposition) through the reference and cpu contexts, against residuals
 * computed in the test: ||A V - V diag(w)|| / (n ||A|| eps) and ||V^H V - I|| / (n eps) below 30,
 * w real and ascending; with 'values', the invariants sum(w) = trace(A) and sum(w^2) = ||A||_F^2.
 * n = 1..12, 17 and 33, both uplo, odd ld, strides and offsets, strided and list batches; each
 * batch mixes random Hermitian and positive definite matrices with one holding NaN (info n + 2,
 * its outputs NaN, its neighbours untouched), junk imaginary parts on the diagonal and NaN in the
 * triangle not referenced. Then heev on real data (syev), syev on complex data, argument errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { MyriadError } from '../../src/core/errors.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import {
  LIST, ODD, Rng, epsOf, get, hermitianFrom, identity, multiply, norm, op, place, randomHermitian, randomHpd, ratio, realColumns, scaleColumns, set,
  subtract, type Z, throwsArg, SIZES, TYPES
} from '../helpers/complex.js';

/** A as heev sees it stored: junk imaginary parts on the diagonal, NaN in the triangle not referenced. */
function stored(a: Z, uplo: Uplo): Z {
  const out: Z = { rows: a.rows, cols: a.cols, d: a.d.slice() };
  for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) {
    if (i === j) set(out, i, i, get(a, i, i)[0], 5 + i);
    else if (uplo === 'lower' ? i < j : i > j) set(out, i, j, NaN, NaN);
  }
  return out;
}

/** The members: Hermitian, positive definite, NaN (in the referenced triangle), Hermitian, scaled by 1e-3. */
function members(rng: Rng, n: number, uplo: Uplo): Z[] {
  const nan = randomHermitian(rng, n);
  set(nan, uplo === 'lower' ? n - 1 : 0, uplo === 'lower' ? 0 : n - 1, NaN, 0);
  const small = randomHermitian(rng, n);
  small.d.forEach((x, k) => { small.d[k] = x * 1e-3; });
  return [randomHermitian(rng, n), randomHpd(rng, n), nan, randomHermitian(rng, n), small].map((a) => stored(a, uplo));
}

for (const backend of ['reference', 'cpu'] as const) {
  describe(`heev through the ${backend} context`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };

    for (const dtype of TYPES) {
      const eps = epsOf(dtype);

      it(`${dtype}: A V = V diag(w), V^H V = I, w ascending; 'values' keeps A; NaN members flagged`, withCtx((ctx) => {
        const rng = new Rng(31);
        for (const n of SIZES) for (const uplo of ['lower', 'upper'] as Uplo[]) {
          const as = members(rng, n, uplo);
          const want = as.map((_, p) => (p === 2 ? n + 2 : 0));
          const A = place(as, n, n, dtype, n % 2 === 0 ? ODD : LIST);
          const W = realColumns(as.length, n, dtype);
          const before = A.outside();
          assert.deepEqual([...ctx.heev({ uplo, a: A.batch, w: W.batch }).info], want, `heev n=${n} ${uplo}`);
          assert.deepEqual(A.outside(), before, 'nothing outside the matrices written');
          assert.ok(W.read(2).every(Number.isNaN) && A.read(2).d.every(Number.isNaN), 'the NaN matrix: NaN outputs');
          for (const p of [0, 1, 3, 4]) {
            const a = hermitianFrom(as[p]!, uplo);
            const w = W.read(p);
            const v = A.read(p);
            for (let j = 1; j < n; j++) assert.ok(w[j - 1]! <= w[j]!, `n=${n} #${p}: w ascending`);
            const r = ratio(norm(subtract(multiply(a, v), scaleColumns(v, w))), n, norm(a), eps);
            assert.ok(r < 30, `heev n=${n} ${uplo} #${p}: ||A V - V W|| ratio ${r}`);
            const o = ratio(norm(subtract(multiply(op(v, 'C'), v), identity(n))), n, 1, eps);
            assert.ok(o < 30, `heev n=${n} ${uplo} #${p}: ||V^H V - I|| ratio ${o}`);
            if (p === 1) assert.ok(w[0]! > 0, 'a positive definite matrix: positive eigenvalues');
          }
          // Values only: A unchanged; the eigenvalues' sum and sum of squares are A's trace and ||A||_F^2.
          const A2 = place(as, n, n, dtype, ODD);
          const W2 = realColumns(as.length, n, dtype);
          const kept = as.map((_, p) => [...A2.read(p).d]);
          assert.deepEqual([...ctx.heev({ jobz: 'values', uplo, a: A2.batch, w: W2.batch }).info], want);
          as.forEach((_, p) => assert.deepEqual([...A2.read(p).d], kept[p], `values: A #${p} unchanged`));
          assert.ok(W2.read(2).every(Number.isNaN));
          for (const p of [0, 1, 3, 4]) {
            const a = hermitianFrom(as[p]!, uplo);
            const w = W2.read(p);
            let trace = 0;
            for (let i = 0; i < n; i++) trace += get(a, i, i)[0];
            const nrm = norm(a);
            const sum = w.reduce((s, x) => s + x, 0);
            const squares = w.reduce((s, x) => s + x * x, 0);
            assert.ok(ratio(Math.abs(sum - trace), n, nrm, eps) < 30, `values n=${n} #${p}: sum(w) = trace(A)`);
            assert.ok(ratio(Math.abs(squares - nrm * nrm), n, nrm * nrm, eps) < 30, `values n=${n} #${p}: sum(w^2) = ||A||_F^2`);
          }
        }
      }));
    }

    it('check: true names the NaN matrix; heev on real data is syev; syev on complex data points to heev', withCtx((ctx) => {
      const rng = new Rng(5);
      const as = [randomHermitian(rng, 4), randomHermitian(rng, 4)];
      set(as[1]!, 2, 1, NaN, 0);
      assert.throws(() => ctx.heev({ a: place(as, 4, 4, 'complex128').batch, w: realColumns(2, 4, 'complex128').batch, check: true }),
        (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /1 of the matrices failed: #1 NaN\/Inf/.test(e.message));
      const real = Float64Array.from({ length: 3 * 3 * 2 }, () => rng.uniform());
      const [x, y] = [real.slice(), real.slice()];
      const [wx, wy] = [new Float64Array(6), new Float64Array(6)];
      const ix = ctx.heev({ a: strided(x, { rows: 3, count: 2 }), w: strided(wx, { rows: 3, cols: 1, count: 2 }) }).info;
      const iy = ctx.syev({ a: strided(y, { rows: 3, count: 2 }), w: strided(wy, { rows: 3, cols: 1, count: 2 }) }).info;
      assert.deepEqual([...ix, ...wx, ...x], [...iy, ...wy, ...y]);
      const z = strided(new Float64Array(2 * 9), { rows: 3, dtype: 'complex128' });
      throwsArg(() => ctx.syev({ a: z, w: strided(new Float64Array(3), { rows: 3, cols: 1 }) }), 'UNSUPPORTED', 'a', /use heev/);
    }));

    it('errors name the argument: w real of the component type, shapes, enums', withCtx((ctx) => {
      const z = (n = 3, dtype: ComplexDType = 'complex128', count = 1) =>
        strided(dtype === 'complex64' ? new Float32Array(2 * n * n * count) : new Float64Array(2 * n * n * count), { rows: n, count, dtype });
      const w = (n = 3, count = 1, data: Float64Array | Float32Array = new Float64Array(n * count)) => strided(data, { rows: n, cols: 1, count });
      throwsArg(() => ctx.heev({ a: z(), w: strided(new Float64Array(6), { rows: 3, cols: 1, dtype: 'complex128' }) }), 'DTYPE', 'w', /real: expected a float64 batch/);
      throwsArg(() => ctx.heev({ a: z(), w: w(3, 1, new Float32Array(3)) }), 'DTYPE', 'w', /expected a float64 batch for complex128/);
      throwsArg(() => ctx.heev({ a: z(3, 'complex64'), w: w() }), 'DTYPE', 'w', /expected a float32 batch for complex64/);
      throwsArg(() => ctx.heev({ a: z(3, 'complex128', 2), w: w(3, 1) }), 'SHAPE', 'w', /holds 1 matrices/);
      throwsArg(() => ctx.heev({ a: z(), w: w(2) }), 'SHAPE', 'w');
      throwsArg(() => ctx.heev({ a: z() } as never), 'INVALID_ARGUMENT', 'w');
      throwsArg(() => ctx.heev({ jobz: 'N' as 'values', a: z(), w: w() }), 'ENUM', 'jobz');
      throwsArg(() => ctx.heev({ uplo: 'L' as 'lower', a: z(), w: w() }), 'ENUM', 'uplo');
      throwsArg(() => ctx.heev({ a: strided(new Float64Array(12), { rows: 2, cols: 3, dtype: 'complex128' }), w: w(2) }), 'SHAPE', 'a');
      throwsArg(() => ctx.heev({ a: strided(new Float64Array(18), { rows: 3, order: 'row', dtype: 'complex128' }), w: w() }), 'UNSUPPORTED', 'a.order');
    }));
  });
}

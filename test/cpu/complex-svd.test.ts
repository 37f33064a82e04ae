/**
 * gesvd on complex batches through the reference and cpu contexts, against residuals computed in
 * the test: ||A - U diag(s) VT|| / (max(m, n) ||A|| eps), ||U^H U - I|| and ||VT VT^H - I|| / (n eps)
 * below 30, s real, non-negative and descending; without vectors, sum(s^2) = ||A||_F^2. Square
 * sizes 1..12, 17, 33 and rectangular shapes, odd ld, strides and offsets; a rank-deficient and a
 * NaN member in each batch (info k + 2, its outputs NaN, its neighbours untouched). Then errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import {
  LIST, ODD, Rng, epsOf, identity, multiply, norm, op, place, random, ratio, realColumns, scaleColumns, set, subtract, zeros, throwsArg, TYPES
} from '../helpers/complex.js';

const SHAPES: [number, number][] = [
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 17, 33].map((n): [number, number] => [n, n]), [5, 3], [3, 5], [12, 7], [7, 12], [33, 17], [17, 33],
];

for (const backend of ['reference', 'cpu'] as const) {
  describe(`complex gesvd through the ${backend} context`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };

    for (const dtype of TYPES) {
      const eps = epsOf(dtype);
      it(`${dtype}: A = U diag(s) VT with orthonormal U and VT, s descending; values only; NaN members flagged`, withCtx((ctx) => {
        const rng = new Rng(53);
        for (const [m, n] of SHAPES) {
          const k = Math.min(m, n);
          const deficient = random(rng, m, n);
          for (let i = 0; i < m; i++) set(deficient, i, n - 1, 0, 0);
          const nan = random(rng, m, n);
          set(nan, 0, 0, Infinity, 0);
          const as = [random(rng, m, n), deficient, nan, random(rng, m, n)];
          const want = as.map((_, p) => (p === 2 ? k + 2 : 0));
          const A = place(as, m, n, dtype, ODD);
          const before = as.map((_, p) => [...A.read(p).d]);
          const S = realColumns(as.length, k, dtype);
          const U = place(as.map(() => zeros(m, k)), m, k, dtype, LIST);
          const VT = place(as.map(() => zeros(k, n)), k, n, dtype, ODD);
          assert.deepEqual([...ctx.gesvd({ a: A.batch, s: S.batch, u: U.batch, vt: VT.batch }).info], want, `gesvd ${m}x${n}`);
          as.forEach((_, p) => assert.deepEqual([...A.read(p).d], before[p], 'A is only read'));
          assert.ok(S.read(2).every(Number.isNaN) && U.read(2).d.every(Number.isNaN) && VT.read(2).d.every(Number.isNaN), 'the NaN/Inf matrix: NaN outputs');
          for (const p of [0, 1, 3]) {
            const s = S.read(p), u = U.read(p), vt = VT.read(p), a = as[p]!;
            for (let j = 0; j < k; j++) assert.ok(s[j]! >= 0 && (j === 0 || s[j - 1]! >= s[j]!), `${m}x${n} #${p}: s descending, non-negative`);
            const r = ratio(norm(subtract(multiply(scaleColumns(u, s), vt), a)), Math.max(m, n), norm(a), eps);
            assert.ok(r < 30, `gesvd ${m}x${n} #${p}: ||A - U S VT|| ratio ${r}`);
            const ou = ratio(norm(subtract(multiply(op(u, 'C'), u), identity(k))), m, 1, eps);
            const ov = ratio(norm(subtract(multiply(vt, op(vt, 'C')), identity(k))), n, 1, eps);
            assert.ok(ou < 30 && ov < 30, `gesvd ${m}x${n} #${p}: orthonormality ratios ${ou}, ${ov}`);
          }
          const S2 = realColumns(as.length, k, dtype);
          assert.deepEqual([...ctx.gesvd({ jobu: 'none', jobvt: 'none', a: A.batch, s: S2.batch }).info], want);
          for (const p of [0, 1, 3]) {
            const nrm = norm(as[p]!);
            const squares = S2.read(p).reduce((t, x) => t + x * x, 0);
            assert.ok(ratio(Math.abs(squares - nrm * nrm), Math.max(m, n), nrm * nrm, eps) < 30, `values ${m}x${n} #${p}: sum(s^2) = ||A||_F^2`);
          }
        }
      }));
    }

    it('a zero singular value whose left vector no unit vector approaches (real and complex): U stays orthonormal', withCtx((ctx) => {
      // A = Q(:, 0:8) diag(1..8) with a zero last column, Q the reflector taking e_8 to u = ones / 3:
      // the missing column of U is +-u, and every unit vector keeps only 1/3 of its length against the others.
      const n = 9;
      const w = Array.from({ length: n }, (_, i) => (i === n - 1 ? 1 : 0) - 1 / 3);
      const ww = w.reduce((t, x) => t + x * x, 0);
      const real = new Float64Array(n * n);
      for (let j = 0; j < n - 1; j++) for (let i = 0; i < n; i++) real[i + j * n] = ((i === j ? 1 : 0) - (2 * w[i]! * w[j]!) / ww) * (j + 1);
      for (const dtype of ['float64', 'complex128'] as const) {
        const data = dtype === 'float64' ? real.slice() : Float64Array.from({ length: 2 * n * n }, (_, k) => (k % 2 === 0 ? real[k / 2]! : 0));
        const u = new Float64Array((dtype === 'float64' ? 1 : 2) * n * n);
        const opts = dtype === 'float64' ? { rows: n } : { rows: n, dtype };
        ctx.gesvd({ a: strided(data, opts), s: strided(new Float64Array(n), { rows: n, cols: 1 }), u: strided(u, opts), vt: strided(new Float64Array(u.length), opts) });
        const uz = { rows: n, cols: n, d: dtype === 'float64' ? Float64Array.from({ length: 2 * n * n }, (_, k) => (k % 2 === 0 ? u[k / 2]! : 0)) : u };
        const o = ratio(norm(subtract(multiply(op(uz, 'C'), uz), identity(n))), n, 1, 2 ** -53);
        assert.ok(o < 30, `${dtype}: ||U^H U - I|| ratio ${o}`);
      }
    }));

    it('errors name the argument: s real of the component type, u and vt complex', withCtx((ctx) => {
      const z = (rows: number, cols: number) => strided(new Float64Array(2 * rows * cols), { rows, cols, dtype: 'complex128' });
      const s = strided(new Float64Array(2), { rows: 2, cols: 1 });
      throwsArg(() => ctx.gesvd({ a: z(2, 2), s: z(2, 1), u: z(2, 2), vt: z(2, 2) }), 'DTYPE', 's', /real: expected a float64 batch/);
      throwsArg(() => ctx.gesvd({ a: z(2, 2), s: strided(new Float32Array(2), { rows: 2, cols: 1 }) as never, jobu: 'none', jobvt: 'none' }), 'DTYPE', 's');
      throwsArg(() => ctx.gesvd({ a: z(2, 2), s, u: strided(new Float64Array(4), { rows: 2 }), vt: z(2, 2) }), 'DTYPE', 'u', /is float64 but a is complex128/);
      throwsArg(() => ctx.gesvd({ a: z(3, 2), s, u: z(3, 3), vt: z(2, 2) }), 'SHAPE', 'u');
    }));
  });
}

/**
 * Complex trsm, trmm, syrk and herk through the reference and cpu contexts, against residuals and
 * products computed in the test (test/helpers/complex.ts): ||op(A) X - alpha B|| for trsm, the
 * product for trmm, zsyrk's A A^T and zherk's A A^H (real diagonal) for the updates, on n = 1..12,
 * 17 and 33 with odd ld, strides and offsets; the triangle not referenced holds NaN and must not
 * matter, the floats outside the matrices must not change. Then the argument errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { Diag, Side, Uplo } from '../../src/core/enums.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import {
  LIST, ODD, Rng, epsOf, get, hermitianFrom, identity, multiply, norm, op, place, random, ratio, set, subtract, triangle, type Z, throwsArg, SIZES, TYPES
} from '../helpers/complex.js';

const OPS: readonly ComplexOp[] = ['N', 'T', 'C'];

/** A triangular test matrix: a well-conditioned `uplo` triangle (diagonal n + ...), NaN in the other (and on the diagonal where unit). */
function triangular(rng: Rng, n: number, uplo: Uplo, diag: Diag): Z {
  const a = random(rng, n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    if (i === j) set(a, i, i, diag === 'unit' ? NaN : get(a, i, i)[0] + n, diag === 'unit' ? NaN : get(a, i, i)[1]);
    else if (uplo === 'lower' ? i < j : i > j) set(a, i, j, NaN, NaN);
  }
  return a;
}

for (const backend of ['reference', 'cpu'] as const) {
  describe(`complex BLAS-3 through the ${backend} context`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };

    for (const dtype of TYPES) {
      const eps = epsOf(dtype);
      for (const kind of ['trsm', 'trmm'] as const) {
        it(`${kind} ${dtype}: every side, uplo, transA, diag, n = 1..12, 17, 33`, withCtx((ctx) => {
          const rng = new Rng(kind === 'trsm' ? 101 : 202);
          for (const n of SIZES) for (const side of ['left', 'right'] as Side[]) for (const uplo of ['lower', 'upper'] as Uplo[])
            for (const transA of OPS) for (const diag of ['nonunit', 'unit'] as Diag[]) {
              const m = 1 + (n % 4);
              const [br, bc] = side === 'left' ? [n, m] : [m, n];
              const as = [triangular(rng, n, uplo, diag), triangular(rng, n, uplo, diag)];
              const bs = [random(rng, br, bc), random(rng, br, bc)];
              const alpha: [number, number] = [0.75, -1.25];
              const A = place(as, n, n, dtype, n % 2 === 0 ? ODD : LIST);
              const B = place(bs, br, bc, dtype, n % 2 === 0 ? LIST : ODD);
              const before = B.outside();
              ctx[kind]({ side, uplo, transA, diag, alpha, a: A.batch, b: B.batch });
              assert.deepEqual(B.outside(), before, 'floats outside the matrices untouched');
              for (let p = 0; p < 2; p++) {
                const t = op(triangle(A.read(p), uplo, diag === 'unit'), transA);
                const x = B.read(p);
                let r: number;
                if (kind === 'trsm') {
                  const tx = side === 'left' ? multiply(t, x) : multiply(x, t);
                  r = ratio(norm(subtract(tx, multiply(identity(br), bs[p]!, alpha))), n, norm(t) * norm(x), eps);
                } else {
                  const want = side === 'left' ? multiply(t, bs[p]!, alpha) : multiply(bs[p]!, t, alpha);
                  r = ratio(norm(subtract(x, want)), n, Math.hypot(...alpha) * norm(t) * norm(bs[p]!), eps);
                }
                assert.ok(r < 30, `${kind} n=${n} ${side} ${uplo} ${transA} ${diag} #${p}: ratio ${r}`);
              }
            }
        }));
      }

      it(`syrk ${dtype} (zsyrk: no conjugation) and herk (zherk: real diagonal), both uplo and trans`, withCtx((ctx) => {
        const rng = new Rng(303);
        for (const n of SIZES) for (const uplo of ['lower', 'upper'] as Uplo[]) for (const which of ['syrk', 'herk'] as const)
          for (const trans of which === 'syrk' ? (['N', 'T'] as const) : (['N', 'C'] as const)) {
            const k = 1 + ((n * 7) % 5);
            const [ar, ac] = trans === 'N' ? [n, k] : [k, n];
            const as = [random(rng, ar, ac), random(rng, ar, ac)];
            const cs = [random(rng, n, n), random(rng, n, n)];
            // The triangle not referenced holds NaN; it must stay as it is.
            for (const c of cs) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i < j : i > j) set(c, i, j, NaN, NaN);
            const alpha: [number, number] = which === 'syrk' ? [0.5, 1.5] : [1.5, 0];
            const beta: [number, number] = which === 'syrk' ? [-0.25, 0.75] : [-0.5, 0];
            const A = place(as, ar, ac, dtype, LIST);
            const C = place(cs, n, n, dtype, ODD);
            if (which === 'syrk') ctx.syrk({ uplo, trans, alpha, beta, a: A.batch, c: C.batch });
            else ctx.herk({ uplo, trans, alpha: alpha[0], beta: beta[0], a: A.batch, c: C.batch });
            for (let p = 0; p < 2; p++) {
              const opA = op(as[p]!, trans === 'N' ? 'N' : which === 'syrk' ? 'T' : 'C');
              const prod = which === 'syrk' ? multiply(opA, op(opA, 'T'), alpha) : multiply(opA, op(opA, 'C'), alpha);
              const old = which === 'syrk' ? cs[p]! : hermitianFrom(cs[p]!, uplo);
              const got = C.read(p);
              let err = 0;
              for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
                const [gr, gi] = get(got, i, j);
                if (uplo === 'lower' ? i < j : i > j) {
                  assert.ok(Number.isNaN(gr) && Number.isNaN(gi), 'the other triangle untouched');
                  continue;
                }
                const [pr, pi] = get(prod, i, j);
                const [or, oi] = get(old, i, j);
                const wr = pr + beta[0] * or - beta[1] * oi;
                const wi = pi + beta[0] * oi + beta[1] * or;
                if (which === 'herk' && i === j) assert.equal(gi, 0, 'zherk: the diagonal is real');
                err = Math.max(err, Math.hypot(gr - wr, gi - wi));
              }
              const r = ratio(err, k, Math.hypot(...alpha) * norm(as[p]!) ** 2 + Math.hypot(...beta) * norm(hermitianFrom(cs[p]!, uplo)), eps);
              assert.ok(r < 30, `${which} n=${n} ${uplo} ${trans} #${p}: ratio ${r}`);
            }
          }
      }));
    }

    it('herk on real data is syrk (trans C is T); complex herk with beta = 0 writes C without reading it', withCtx((ctx) => {
      const rng = new Rng(5);
      const a = Float64Array.from({ length: 12 }, () => rng.uniform());
      const run = (which: 'syrk' | 'herk', trans: 'T' | 'C'): number[] => {
        const c = new Float64Array(9).fill(0.5);
        ctx[which]({ trans, alpha: 2, beta: 3, a: strided(a, { rows: 4, cols: 3 }), c: strided(c, { rows: 3 }) });
        return [...c];
      };
      assert.deepEqual(run('herk', 'C'), run('syrk', 'T'));
      const z = new Float64Array(2 * 6).map(() => rng.uniform());
      const c = new Float64Array(2 * 4).fill(NaN);
      ctx.herk({ a: strided(z, { rows: 2, cols: 3, dtype: 'complex128' }), c: strided(c, { rows: 2, dtype: 'complex128' }) });
      assert.ok(!Number.isNaN(c[0]!) && c[1] === 0 && !Number.isNaN(c[2]!) && Number.isNaN(c[4]!), `${[...c]}`);
    }));

    it('errors name the argument: element types, enums, scalars, row-major complex', withCtx((ctx) => {
      const z = (n = 2, dtype: ComplexDType = 'complex128') =>
        strided(dtype === 'complex64' ? new Float32Array(2 * n * n) : new Float64Array(2 * n * n), { rows: n, dtype });
      const r = (n = 2) => strided(new Float64Array(n * n), { rows: n });
      throwsArg(() => ctx.trsm({ a: r(), b: z() }), 'DTYPE', 'b', /is complex128 but a is float64/);
      throwsArg(() => ctx.trmm({ a: z(), b: z(2, 'complex64') }), 'DTYPE', 'b', /is complex64 but a is complex128/);
      throwsArg(() => ctx.trsm({ a: z(), b: r() }), 'DTYPE', 'b', /is float64 but a is complex128/);
      throwsArg(() => ctx.trsm({ transA: 'H' as 'N', a: z(), b: z() }), 'ENUM', 'transA', /'N', 'T', 'C'/);
      throwsArg(() => ctx.trsm({ alpha: [1, 1], a: r(), b: r() }), 'INVALID_ARGUMENT', 'alpha', /needs complex batches/);
      throwsArg(() => ctx.trmm({ alpha: [1, Number.NaN], a: z(), b: z() }), 'INVALID_ARGUMENT', 'alpha');
      throwsArg(() => ctx.syrk({ trans: 'C', a: z(), c: z() }), 'ENUM', 'trans', /herk/);
      throwsArg(() => ctx.herk({ trans: 'T', a: z(), c: z() }), 'ENUM', 'trans', /syrk/);
      throwsArg(() => ctx.herk({ alpha: [1, 0] as unknown as number, a: z(), c: z() }), 'INVALID_ARGUMENT', 'alpha', /real alpha/);
      throwsArg(() => ctx.herk({ a: z(), c: r() }), 'DTYPE', 'c');
      const row = strided(new Float64Array(8), { rows: 2, order: 'row', dtype: 'complex128' });
      throwsArg(() => ctx.trsm({ a: z(), b: row }), 'UNSUPPORTED', 'b.order', /column-major/);
      throwsArg(() => ctx.trsm({ a: z(3), b: z() }), 'SHAPE', 'a');
    }));
  });
}

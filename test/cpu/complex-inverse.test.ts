/**
 * Complex trtri, lauum, potri and poti through the reference and cpu contexts, against identities
 * computed in the test: ||T inv(T) - I|| and ||A inv(A) - I|| over n ||.|| ||inv|| eps (LAPACK's
 * ztrt01 / zpot03 ratios), U U^H and L^H L as products, on n = 1..12, 17 and 33 with odd ld,
 * strides and offsets; singular, not positive definite and NaN members mixed in, the triangle
 * not referenced holding NaN.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import {
  LIST, ODD, Rng, epsOf, get, hermitianFrom, identity, multiply, norm, op, place, random, randomHpd, ratio, set, subtract, triangle, type Z, SIZES, TYPES
} from '../helpers/complex.js';

const other = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i < j : i > j);

/** A well-conditioned triangle, NaN in the other one (and on the diagonal where unit). */
function triangular(rng: Rng, n: number, uplo: Uplo, diag: Diag): Z {
  const a = random(rng, n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    if (i === j) set(a, i, i, diag === 'unit' ? NaN : get(a, i, i)[0] + n, diag === 'unit' ? NaN : get(a, i, i)[1]);
    else if (other(uplo, i, j)) set(a, i, j, NaN, NaN);
  }
  return a;
}

function untouchedOther(got: Z, uplo: Uplo, what: string): void {
  for (let j = 0; j < got.cols; j++) for (let i = 0; i < got.rows; i++)
    if (other(uplo, i, j) && !(Number.isNaN(get(got, i, j)[0]) && Number.isNaN(get(got, i, j)[1]))) assert.fail(`${what}: the other triangle untouched`);
}

for (const backend of ['reference', 'cpu'] as const) {
  describe(`complex inverses through the ${backend} context`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };

    for (const dtype of TYPES) {
      const eps = epsOf(dtype);

      it(`trtri ${dtype}: T inv(T) = I, both uplo and diag, a singular member untouched`, withCtx((ctx) => {
        const rng = new Rng(31);
        for (const n of SIZES) for (const uplo of ['lower', 'upper'] as Uplo[]) for (const diag of ['nonunit', 'unit'] as Diag[]) {
          const as = [triangular(rng, n, uplo, diag), triangular(rng, n, uplo, diag), triangular(rng, n, uplo, diag)];
          const k = 1 + (3 % n);
          if (diag === 'nonunit') set(as[1]!, k - 1, k - 1, 0, 0);
          const A = place(as, n, n, dtype, n % 2 === 0 ? ODD : LIST);
          const { info } = ctx.trtri({ uplo, diag, a: A.batch });
          assert.deepEqual([...info], [0, diag === 'nonunit' ? k : 0, 0], `trtri n=${n} ${uplo} ${diag}`);
          if (diag === 'nonunit') assert.deepEqual([...A.read(1).d], [...place([as[1]!], n, n, dtype).read(0).d], 'the singular matrix untouched');
          for (const p of diag === 'nonunit' ? [0, 2] : [0, 1, 2]) {
            const got = A.read(p);
            untouchedOther(got, uplo, `trtri n=${n}`);
            const t = triangle(place([as[p]!], n, n, dtype).read(0), uplo, diag === 'unit');
            const x = triangle(got, uplo, diag === 'unit');
            const r = ratio(norm(subtract(multiply(t, x), identity(n))), n, norm(t) * norm(x), eps);
            assert.ok(r < 30, `trtri n=${n} ${uplo} ${diag} #${p}: ratio ${r}`);
          }
        }
      }));

      it(`lauum ${dtype}: U U^H and L^H L over the triangle, the diagonal's imaginary parts not read`, withCtx((ctx) => {
        const rng = new Rng(37);
        for (const n of SIZES) for (const uplo of ['lower', 'upper'] as Uplo[]) {
          const as = [triangular(rng, n, uplo, 'nonunit'), triangular(rng, n, uplo, 'nonunit')];
          const A = place(as, n, n, dtype, ODD);
          assert.deepEqual([...ctx.lauum({ uplo, a: A.batch }).info], [0, 0]);
          as.forEach((orig, p) => {
            const t = triangle(place([orig], n, n, dtype).read(0), uplo);
            for (let i = 0; i < n; i++) set(t, i, i, get(t, i, i)[0], 0); // a factor's real diagonal
            const want = uplo === 'upper' ? multiply(t, op(t, 'C')) : multiply(op(t, 'C'), t);
            const got = A.read(p);
            untouchedOther(got, uplo, `lauum n=${n}`);
            for (let i = 0; i < n; i++) assert.equal(get(got, i, i)[1], 0, 'a real diagonal');
            const r = ratio(norm(subtract(hermitianFrom(got, uplo), want)), n, norm(t) ** 2, eps);
            assert.ok(r < 30, `lauum n=${n} ${uplo} #${p}: ratio ${r}`);
          });
        }
      }));

      it(`potri and poti ${dtype}: A inv(A) = I, not positive definite and NaN members`, withCtx((ctx) => {
        const rng = new Rng(41);
        for (const n of SIZES) for (const uplo of ['lower', 'upper'] as Uplo[]) {
          const hpd = (): Z => {
            const a = randomHpd(rng, n);
            for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (other(uplo, i, j)) set(a, i, j, NaN, NaN);
            return a;
          };
          const as = [hpd(), hpd(), hpd(), hpd()];
          const k = 1 + (5 % n);
          set(as[1]!, k - 1, k - 1, -1, 0);
          if (uplo === 'lower') set(as[2]!, n - 1, 0, NaN, 1);
          else set(as[2]!, 0, n - 1, NaN, 1);
          if (n === 1) set(as[2]!, 0, 0, NaN, 0);
          const want = [0, k, n, 0];
          const check = (got: Z, orig: Z, what: string): void => {
            untouchedOther(got, uplo, what);
            const a = hermitianFrom(orig, uplo);
            const inv = hermitianFrom(got, uplo);
            const r = ratio(norm(subtract(multiply(a, inv), identity(n))), n, norm(a) * norm(inv), eps);
            assert.ok(r < 30, `${what}: ratio ${r}`);
          };
          const A = place(as, n, n, dtype, LIST);
          assert.deepEqual([...ctx.poti({ uplo, a: A.batch }).info], want, `poti n=${n} ${uplo}`);
          for (const p of [0, 3]) check(A.read(p), as[p]!, `poti n=${n} ${uplo} #${p}`);
          // potri from the factors of the good members.
          const F = place([as[0]!, as[3]!], n, n, dtype, ODD);
          assert.deepEqual([...ctx.potrf({ uplo, a: F.batch }).info], [0, 0]);
          assert.deepEqual([...ctx.potri({ uplo, a: F.batch }).info], [0, 0]);
          check(F.read(0), as[0]!, `potri n=${n} ${uplo} #0`);
          check(F.read(1), as[3]!, `potri n=${n} ${uplo} #1`);
        }
      }));
    }
  });
}

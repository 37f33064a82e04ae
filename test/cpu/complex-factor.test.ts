/**
 * Complex Cholesky (potrf, potrs, posv) and LU (getrf, getri, getrs 'N' | 'T' | 'C', gesv) through the
 * reference and cpu contexts, against residuals computed in the test: ||L L^H - A||, ||P A - L U||,
 * ||A inv(A) - I||, ||op(A) X - B||, on n = 1..12, 17 and 33 with odd ld, strides and offsets. Each batch mixes good
 * matrices with failing ones (not positive definite at a known minor, exactly singular at a known
 * column) and one holding NaN: info is per matrix, a failing matrix's B is untouched, and nothing
 * spreads to the neighbours. Then the argument errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { MyriadError } from '../../src/core/errors.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import {
  LIST, ODD, Rng, epsOf, get, hermitianFrom, identity, multiply, norm, op, place, random, randomHpd, ratio, set, subtract, triangle, zeros, type Z, throwsArg, SIZES, TYPES
} from '../helpers/complex.js';

/** A copy of `a` with the triangle opposite `uplo` set to NaN (a factorisation must not read it). */
function poisonOther(a: Z, uplo: Uplo): Z {
  const out: Z = { rows: a.rows, cols: a.cols, d: a.d.slice() };
  for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) if (uplo === 'lower' ? i < j : i > j) set(out, i, j, NaN, NaN);
  return out;
}

/** The Hermitian factorisation's members: HPD (with junk imaginary parts on the diagonal), not HPD at minor k, NaN. */
function hpdBatch(rng: Rng, n: number, uplo: Uplo): { as: Z[]; want: number[] } {
  const good = (): Z => {
    const a = randomHpd(rng, n);
    for (let i = 0; i < n; i++) set(a, i, i, get(a, i, i)[0], 3 + i); // not read: zpotrf reads the real part
    return poisonOther(a, uplo);
  };
  const k = 1 + (7 % n);
  const notPd = good();
  set(notPd, k - 1, k - 1, -1, 0);
  const nan = good();
  if (uplo === 'lower') set(nan, n - 1, 0, NaN, 0);
  else set(nan, 0, n - 1, 0, NaN);
  if (n === 1) set(nan, 0, 0, NaN, 0);
  return { as: [good(), notPd, good(), nan, good()], want: [0, k, 0, n, 0] };
}

/** Rows of A swapped as getrf's 0-based pivots say, in order (P A). */
function pivoted(a: Z, ipiv: Int32Array, off: number): Z {
  const out: Z = { rows: a.rows, cols: a.cols, d: a.d.slice() };
  for (let j = 0; j < Math.min(a.rows, a.cols); j++) {
    const p = ipiv[off + j]!;
    for (let c = 0; c < a.cols; c++) {
      const x = get(out, j, c);
      set(out, j, c, ...get(out, p, c));
      set(out, p, c, ...x);
    }
  }
  return out;
}

/** L (unit lower, m x q) and U (upper, q x n) from getrf's output, q = min(m, n). */
function luFactors(f: Z): { l: Z; u: Z } {
  const q = Math.min(f.rows, f.cols);
  const l = zeros(f.rows, q);
  const u = zeros(q, f.cols);
  for (let j = 0; j < f.cols; j++) for (let i = 0; i < f.rows; i++) {
    if (i > j && j < q) set(l, i, j, ...get(f, i, j));
    else if (i <= j && i < q) set(u, i, j, ...get(f, i, j));
    if (i === j && j < q) set(l, i, i, 1, 0);
  }
  return { l, u };
}

/** The LU members: general, exactly singular at column k (column k - 1 zero), NaN. */
function generalBatch(rng: Rng, m: number, n: number): { as: Z[]; singularAt: number } {
  const k = 1 + (5 % Math.min(m, n));
  const singular = random(rng, m, n);
  for (let i = 0; i < m; i++) set(singular, i, k - 1, 0, 0);
  const nan = random(rng, m, n);
  set(nan, m - 1, 0, NaN, NaN);
  return { as: [random(rng, m, n), singular, random(rng, m, n), nan, random(rng, m, n)], singularAt: k };
}

for (const backend of ['reference', 'cpu'] as const) {
  describe(`complex factorizations through the ${backend} context`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };

    for (const dtype of TYPES) {
      const eps = epsOf(dtype);

      it(`potrf, potrs, posv ${dtype}: L L^H = A, A X = B, info per matrix, both uplo`, withCtx((ctx) => {
        const rng = new Rng(11);
        for (const n of SIZES) for (const uplo of ['lower', 'upper'] as Uplo[]) {
          const { as, want } = hpdBatch(rng, n, uplo);
          const nrhs = 1 + (n % 3);
          const A = place(as, n, n, dtype, n % 2 === 0 ? ODD : LIST);
          const { info } = ctx.potrf({ uplo, a: A.batch });
          assert.deepEqual([...info], want, `potrf n=${n} ${uplo}`);
          const factors = as.map((_, p) => A.read(p));
          for (const p of [0, 2, 4]) {
            const f = factors[p]!;
            const t = triangle(f, uplo);
            for (let i = 0; i < n; i++) assert.equal(get(f, i, i)[1], 0, 'a real diagonal');
            for (let j = 0; j < n; j++) for (let i = 0; i < n; i++)
              if (uplo === 'lower' ? i < j : i > j) assert.ok(Number.isNaN(get(f, i, j)[0]), 'the other triangle untouched');
            const llh = uplo === 'lower' ? multiply(t, op(t, 'C')) : multiply(op(t, 'C'), t);
            const a = hermitianFrom(as[p]!, uplo);
            const r = ratio(norm(subtract(llh, a)), n, norm(a), eps);
            assert.ok(r < 30, `potrf n=${n} ${uplo} #${p}: ratio ${r}`);
          }
          // potrs with the good factors, posv on the originals.
          const good = [0, 2, 4];
          const bs = good.map(() => random(rng, n, nrhs));
          const F = place(good.map((p) => factors[p]!), n, n, dtype, LIST);
          const B = place(bs, n, nrhs, dtype, ODD);
          assert.deepEqual([...ctx.potrs({ uplo, a: F.batch, b: B.batch }).info], [0, 0, 0]);
          good.forEach((p, q) => {
            const a = hermitianFrom(as[p]!, uplo);
            const x = B.read(q);
            const r = ratio(norm(subtract(multiply(a, x), bs[q]!)), n, norm(a) * norm(x), eps);
            assert.ok(r < 30, `potrs n=${n} ${uplo} #${p}: ratio ${r}`);
          });
          const bs2 = as.map(() => random(rng, n, nrhs));
          const A2 = place(as, n, n, dtype, ODD);
          const B2 = place(bs2, n, nrhs, dtype, LIST);
          const before = B2.outside();
          assert.deepEqual([...ctx.posv({ uplo, a: A2.batch, b: B2.batch }).info], want, `posv n=${n} ${uplo}`);
          assert.deepEqual(B2.outside(), before);
          as.forEach((orig, p) => {
            const x = B2.read(p);
            if (want[p] !== 0) {
              assert.deepEqual([...x.d], [...place([bs2[p]!], n, nrhs, dtype).read(0).d], `posv: failing #${p}'s B untouched`);
              return;
            }
            const a = hermitianFrom(orig, uplo);
            const r = ratio(norm(subtract(multiply(a, x), bs2[p]!)), n, norm(a) * norm(x), eps);
            assert.ok(r < 30, `posv n=${n} ${uplo} #${p}: ratio ${r}`);
          });
        }
      }));

      it(`getrf, getri, getrs ('N', 'T', 'C'), gesv ${dtype}: P A = L U, A inv(A) = I, op(A) X = B, singular and NaN members`, withCtx((ctx) => {
        const rng = new Rng(23);
        const shapes: [number, number][] = [...SIZES.map((n): [number, number] => [n, n]), [5, 3], [3, 5], [12, 7]];
        for (const [m, n] of shapes) {
          const { as, singularAt } = generalBatch(rng, m, n);
          const q = Math.min(m, n);
          const A = place(as, m, n, dtype, m % 2 === 0 ? LIST : ODD);
          const { info, ipiv } = ctx.getrf({ a: A.batch });
          assert.deepEqual([0, 1, 2, 4].map((p) => info[p]), [0, singularAt, 0, 0], `getrf ${m}x${n} info ${[...info]}`);
          for (let p = 0; p < as.length; p++) {
            for (let j = 0; j < q; j++) assert.ok(ipiv[p * q + j]! >= j && ipiv[p * q + j]! < m, 'pivots 0-based, in [j, m)');
            if (p === 3) continue; // NaN: its factors are NaN, the neighbours are checked
            const { l, u } = luFactors(A.read(p));
            const pa = pivoted(as[p]!, ipiv, p * q);
            const r = ratio(norm(subtract(multiply(l, u), pa)), Math.max(m, n), norm(as[p]!), eps);
            assert.ok(r < 30, `getrf ${m}x${n} #${p}: ratio ${r}`);
          }
          if (m !== n) continue;
          // getri on copies of the factors: A inv(A) = I; the singular matrix reported and left as it is.
          const I = place(as.map((_, p) => A.read(p)), n, n, dtype, LIST);
          const gi = ctx.getri({ a: I.batch, ipiv });
          assert.deepEqual([0, 1, 2, 4].map((p) => gi.info[p]), [0, singularAt, 0, 0], `getri n=${n}`);
          assert.deepEqual([...I.read(1).d], [...A.read(1).d], 'getri: the singular matrix untouched');
          for (const p of [0, 2, 4]) {
            const inv = I.read(p);
            const r = ratio(norm(subtract(multiply(as[p]!, inv), identity(n))), n, norm(as[p]!) * norm(inv), eps);
            assert.ok(r < 30, `getri n=${n} #${p}: ratio ${r}`);
          }
          const good = [0, 2, 4];
          const lu = place(good.map((p) => A.read(p)), n, n, dtype, ODD);
          const piv = Int32Array.from(good.flatMap((p) => [...ipiv.subarray(p * n, p * n + n)]));
          for (const trans of ['N', 'T', 'C'] as ComplexOp[]) {
            const nrhs = 1 + (n % 3);
            const bs = good.map(() => random(rng, n, nrhs));
            const B = place(bs, n, nrhs, dtype, LIST);
            assert.deepEqual([...ctx.getrs({ trans, a: lu.batch, ipiv: piv, b: B.batch }).info], [0, 0, 0]);
            good.forEach((p, k) => {
              const x = B.read(k);
              const opA = op(as[p]!, trans);
              const r = ratio(norm(subtract(multiply(opA, x), bs[k]!)), n, norm(opA) * norm(x), eps);
              assert.ok(r < 30, `getrs ${trans} n=${n} #${p}: ratio ${r}`);
            });
          }
          const bs = as.map(() => random(rng, n, 2));
          const A2 = place(as, n, n, dtype, ODD);
          const B2 = place(bs, n, 2, dtype, ODD);
          const res = ctx.gesv({ a: A2.batch, b: B2.batch });
          assert.deepEqual([0, 1, 2, 4].map((p) => res.info[p]), [0, singularAt, 0, 0]);
          assert.deepEqual([...B2.read(1).d], [...place([bs[1]!], n, 2, dtype).read(0).d], 'gesv: the singular matrix leaves B untouched');
          for (const p of [0, 2, 4]) {
            const x = B2.read(p);
            const r = ratio(norm(subtract(multiply(as[p]!, x), bs[p]!)), n, norm(as[p]!) * norm(x), eps);
            assert.ok(r < 30, `gesv n=${n} #${p}: ratio ${r}`);
          }
        }
      }));
    }

    it('check: true names the failed complex matrices: not positive definite, NaN in the result of a solve', withCtx((ctx) => {
      const rng = new Rng(3);
      const as = [randomHpd(rng, 3), randomHpd(rng, 3), randomHpd(rng, 3)];
      set(as[1]!, 1, 1, -1, 0);
      assert.throws(() => ctx.posv({ a: place(as, 3, 3, 'complex128').batch, b: place(as.map(() => random(rng, 3, 1)), 3, 1, 'complex128').batch, check: true }),
        (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /#1 not positive definite \(the leading minor of order 2\)/.test(e.message));
      const gs = [random(rng, 4, 4), random(rng, 4, 4)];
      set(gs[1]!, 3, 3, NaN, 0);
      assert.throws(() => ctx.gesv({ a: place(gs, 4, 4, 'complex64').batch, b: place(gs.map(() => random(rng, 4, 1)), 4, 1, 'complex64').batch, check: true }),
        (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /1 of the matrices failed: #1 NaN\/Inf/.test(e.message));
    }));

    it('errors name the argument: element types, enums, pivots', withCtx((ctx) => {
      const z = (n = 2, dtype: ComplexDType = 'complex128') =>
        strided(dtype === 'complex64' ? new Float32Array(2 * n * n) : new Float64Array(2 * n * n), { rows: n, dtype });
      const r = (n = 2) => strided(new Float64Array(n * n), { rows: n });
      throwsArg(() => ctx.potrs({ a: z(), b: z(2, 'complex64') }), 'DTYPE', 'b', /is complex64 but a is complex128/);
      throwsArg(() => ctx.posv({ a: r(), b: z() }), 'DTYPE', 'b', /is complex128 but a is float64/);
      throwsArg(() => ctx.gesv({ a: z(), b: r() }), 'DTYPE', 'b', /is float64 but a is complex128/);
      throwsArg(() => ctx.getrs({ trans: 'H' as 'N', a: z(), ipiv: new Int32Array(2), b: z() }), 'ENUM', 'trans');
      throwsArg(() => ctx.getrs({ a: z(), ipiv: new Int32Array([5, 1]), b: z() }), 'INVALID_ARGUMENT', 'ipiv');
      throwsArg(() => ctx.potrf({ uplo: 'Lower' as 'lower', a: z() }), 'ENUM', 'uplo');
      throwsArg(() => ctx.getrf({ a: strided(new Float64Array(8), { rows: 2, order: 'row', dtype: 'complex128' }) }), 'UNSUPPORTED', 'a.order');
      throwsArg(() => ctx.potrf({ a: strided(new Float64Array(12), { rows: 2, cols: 3, dtype: 'complex128' }) }), 'SHAPE', 'a');
    }));
  });
}

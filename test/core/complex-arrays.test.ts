/**
 * The array level on complex arrays (numpy 2's conventions), through the reference and cpu
 * contexts, against residuals computed here on row-major complex matrices: stacks of random
 * matrices of orders 1-8 and 17 in both precisions, with numpy's shapes and results (cholesky's
 * lower L with L L^H = A, eigh's real ascending values and unitary vectors, svd's u, real s and
 * vt = V^H, qr's Q with Q^H Q = I). Then failed members (info, NaN outputs, NUMERICAL naming the
 * member) and errors that name the argument: mixed element types, a real array where complex is
 * expected and the reverse, a complex array handed to the LAPACK level or to transpose.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ComplexDType, FloatArray } from '../../src/core/dtype.js';
import { MyriadError } from '../../src/core/errors.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import { ndarray, type NDArray } from '../../src/api/array.js';
import { batchOf } from '../../src/api/bridge.js';
import { transpose } from '../../src/api/elementwise.js';
import { Rng } from '../helpers/random.js';
import { epsOf, throwsArg, TYPES } from '../helpers/complex.js';

/** A dense row-major complex matrix: element (i, j) at d[2 (i n + j)]. */
interface M { readonly m: number; readonly n: number; readonly d: Float64Array }

const zero = (m: number, n: number): M => ({ m, n, d: new Float64Array(2 * m * n) });
const at = (a: M, i: number, j: number): [number, number] => [a.d[2 * (i * a.n + j)]!, a.d[2 * (i * a.n + j) + 1]!];
function put(a: M, i: number, j: number, re: number, im: number): void {
  a.d[2 * (i * a.n + j)] = re;
  a.d[2 * (i * a.n + j) + 1] = im;
}
function eye(n: number): M {
  const a = zero(n, n);
  for (let i = 0; i < n; i++) put(a, i, i, 1, 0);
  return a;
}
function mul(a: M, b: M): M {
  const c = zero(a.m, b.n);
  for (let i = 0; i < a.m; i++) for (let j = 0; j < b.n; j++) {
    let re = 0, im = 0;
    for (let l = 0; l < a.n; l++) {
      const [x, y] = at(a, i, l);
      const [u, v] = at(b, l, j);
      re += x * u - y * v;
      im += x * v + y * u;
    }
    put(c, i, j, re, im);
  }
  return c;
}
/** A^T, or A^H with conj. */
function tr(a: M, conj = true): M {
  const c = zero(a.n, a.m);
  for (let i = 0; i < a.m; i++) for (let j = 0; j < a.n; j++) { const [x, y] = at(a, i, j); put(c, j, i, x, conj ? -y : y); }
  return c;
}
const sub = (a: M, b: M): M => ({ m: a.m, n: a.n, d: a.d.map((x, k) => x - b.d[k]!) });
const nrm = (a: M): number => Math.sqrt(a.d.reduce((s, x) => s + x * x, 0));
/** V diag(w). */
const scaleCols = (v: M, w: ArrayLike<number>): M => ({ m: v.m, n: v.n, d: v.d.map((x, k) => x * w[Math.floor(k / 2) % v.n]!) });

/** Matrix c of a row-major complex stack, as float64. */
const member = (x: NDArray, c: number, m: number, n: number): M => ({ m, n, d: Float64Array.from(x.data.subarray(2 * c * m * n, 2 * (c + 1) * m * n)) });
/** A complex array of the members `ms`, batch shape `batch`, in `dtype`. */
function stack(ms: readonly M[], batch: readonly number[], dtype: ComplexDType): NDArray {
  const [m, n] = [ms[0]!.m, ms[0]!.n];
  const data = dtype === 'complex128' ? new Float64Array(2 * ms.length * m * n) : new Float32Array(2 * ms.length * m * n);
  ms.forEach((a, c) => data.set(a.d, 2 * c * m * n));
  return ndarray<FloatArray>(data, [...batch, m, n], { dtype });
}
function random(rng: Rng, m: number, n: number): M {
  const a = zero(m, n);
  for (let k = 0; k < a.d.length; k++) a.d[k] = rng.uniform(-1, 1);
  return a;
}
/** Hermitian positive definite: B B^H + n I. */
function hpd(rng: Rng, n: number): M {
  const b = random(rng, n, n);
  const a = mul(b, tr(b));
  for (let i = 0; i < n; i++) put(a, i, i, at(a, i, i)[0] + n, 0);
  return a;
}
function hermitian(rng: Rng, n: number): M {
  const b = random(rng, n, n);
  return { m: n, n, d: b.d.map((x, k) => (x + tr(b).d[k]!) / 2) };
}
/** Well conditioned: random plus 2n on the diagonal. */
function general(rng: Rng, n: number): M {
  const a = random(rng, n, n);
  for (let i = 0; i < n; i++) put(a, i, i, at(a, i, i)[0] + 2 * n, at(a, i, i)[1]);
  return a;
}

const SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 17];
/** Batch shapes by order: a stack of several, two batch dimensions, one matrix. */
const batchOf3 = (n: number): number[] => (n % 3 === 0 ? [3] : n % 3 === 1 ? [2, 2] : []);
const countOf = (b: readonly number[]): number => b.reduce((p, d) => p * d, 1);
/** A residual ratio ||r|| / (n scale eps), below 30 for a backward-stable result. */
const ok = (what: string, r: number, n: number, scale: number, eps: number): void =>
  assert.ok(r / (Math.max(1, n) * Math.max(scale, 1e-300) * eps) < 30, `${what}: ratio ${r / (Math.max(1, n) * scale * eps)}`);

for (const backend of ['reference', 'cpu'] as const) {
  describe(`complex arrays through the ${backend} context`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };
    for (const dtype of TYPES) {
      const eps = epsOf(dtype);
      it(`${dtype}: matmul broadcasts and takes 1-D operands; cholesky, choleskySolve, solve, inv`, withCtx((ctx) => {
        const rng = new Rng(7);
        for (const n of SIZES) {
          const batch = batchOf3(n);
          const count = countOf(batch);
          // matmul: a [2, 1, m, n] x b [3, n, k] -> [2, 3, m, k]
          const as = [random(rng, n + 1, n), random(rng, n + 1, n)];
          const bs = [random(rng, n, 2), random(rng, n, 2), random(rng, n, 2)];
          const c = ctx.matmul(stack(as, [2, 1], dtype), stack(bs, [3], dtype));
          assert.deepEqual(c.shape, [2, 3, n + 1, 2]);
          assert.equal(c.dtype, dtype);
          for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++)
            ok('matmul', nrm(sub(member(c, i * 3 + j, n + 1, 2), mul(as[i]!, bs[j]!))), n, nrm(as[i]!) * nrm(bs[j]!), eps);
          const v = random(rng, 1, n);
          const av = ctx.matmul(stack([as[0]!], [], dtype), { ...stack([v], [], dtype), shape: [n] });
          assert.deepEqual(av.shape, [n + 1]);
          ok('matmul 1-D', nrm(sub(member(av, 0, n + 1, 1), mul(as[0]!, tr(v, false)))), n, nrm(as[0]!) * nrm(v), eps);

          const spd = Array.from({ length: count }, () => hpd(rng, n));
          const a = stack(spd, batch, dtype);
          for (const upper of [false, true]) {
            const f = ctx.cholesky(a, { upper });
            assert.deepEqual(f.shape, a.shape);
            spd.forEach((x, p) => {
              const t = member(f, p, n, n);
              for (let i = 0; i < n; i++) {
                assert.ok(at(t, i, i)[0] > 0 && at(t, i, i)[1] === 0, 'a real positive diagonal');
                for (let j = 0; j < n; j++) if (upper ? j < i : j > i) assert.deepEqual(at(t, i, j), [0, 0]);
              }
              ok('cholesky', nrm(sub(upper ? mul(tr(t), t) : mul(t, tr(t)), x)), n, nrm(x), eps);
            });
            const rhs = Array.from({ length: count }, () => random(rng, n, 2));
            const x = ctx.choleskySolve(f, stack(rhs, batch, dtype), { upper });
            spd.forEach((s, p) => ok('choleskySolve', nrm(sub(mul(s, member(x, p, n, 2)), rhs[p]!)), n, nrm(s) * nrm(member(x, p, n, 2)), eps));
          }

          const gs = Array.from({ length: count }, () => general(rng, n));
          const g = stack(gs, batch, dtype);
          // solve: b [2, ...batch, n, 2] broadcasts against a; a 1-D b is one vector.
          const bs2 = Array.from({ length: 2 * count }, () => random(rng, n, 2));
          const x = ctx.solve(g, stack(bs2, [2, ...batch], dtype));
          assert.deepEqual(x.shape, [2, ...batch, n, 2]);
          bs2.forEach((b, p) => ok('solve', nrm(sub(mul(gs[p % count]!, member(x, p, n, 2)), b)), n, nrm(gs[p % count]!) * nrm(member(x, p, n, 2)), eps));
          const x1 = ctx.solve(g, { ...stack([v], [], dtype), shape: [n] });
          assert.deepEqual(x1.shape, [...batch, n]);
          gs.forEach((s, p) => ok('solve 1-D', nrm(sub(mul(s, member(x1, p, n, 1)), tr(v, false))), n, nrm(s) * nrm(member(x1, p, n, 1)), eps));
          for (const [which, mats, arr] of [['general', gs, g], ['spd', spd, a]] as const) {
            const inv = ctx.inv(arr, { assume: which });
            mats.forEach((s, p) => ok(`inv ${which}`, nrm(sub(mul(s, member(inv, p, n, n)), eye(n))), n, nrm(s) * nrm(member(inv, p, n, n)), eps));
          }
          // lu: P A = L U from the packed factors and 0-based pivots.
          const f = ctx.lu(g);
          gs.forEach((s, p) => {
            const packed = member(f.lu, p, n, n);
            const l = eye(n), u = zero(n, n);
            for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) (j < i ? put(l, i, j, ...at(packed, i, j)) : put(u, i, j, ...at(packed, i, j)));
            const pa: M = { m: n, n, d: s.d.slice() };
            for (let j = 0; j < n; j++) {
              const r = f.pivots[p * n + j]!;
              const row = pa.d.slice(2 * j * n, 2 * (j + 1) * n);
              pa.d.copyWithin(2 * j * n, 2 * r * n, 2 * (r + 1) * n);
              pa.d.set(row, 2 * r * n);
            }
            ok('lu', nrm(sub(pa, mul(l, u))), n, nrm(s), eps);
          });
        }
      }));

      it(`${dtype}: triangularSolve on both sides with A, A^T and A^H`, withCtx((ctx) => {
        const rng = new Rng(11);
        for (const n of SIZES) {
          const batch = batchOf3(n);
          const count = countOf(batch);
          for (const upper of [false, true]) for (const op of ['N', 'T', 'C'] as const) for (const left of [true, false]) {
            const ts = Array.from({ length: count }, () => general(rng, n));
            // Junk in the triangle not referenced, and on the diagonal when it is taken as ones.
            const unitDiagonal = op === 'T';
            const stored = ts.map((t) => {
              const s: M = { m: n, n, d: t.d.slice() };
              for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
                if (upper ? j < i : j > i) put(t, i, j, 0, 0);
                if (upper ? j < i : j > i) put(s, i, j, 1e5, -1e5);
                if (unitDiagonal && i === j) { put(t, i, i, 1, 0); put(s, i, i, 1e5, 3); }
              }
              return s;
            });
            const bs = Array.from({ length: count }, () => (left ? random(rng, n, 3) : random(rng, 3, n)));
            const x = ctx.triangularSolve(stack(stored, batch, dtype), stack(bs, batch, dtype),
              { upper, left, transpose: op === 'T', adjoint: op === 'C', unitDiagonal });
            ts.forEach((t, p) => {
              const opA = op === 'N' ? t : tr(t, op === 'C');
              const xp = member(x, p, left ? n : 3, left ? 3 : n);
              ok(`trsm ${op} ${upper} ${left}`, nrm(sub(left ? mul(opA, xp) : mul(xp, opA), bs[p]!)), n, nrm(t) * nrm(xp), eps);
            });
          }
        }
      }));

      it(`${dtype}: eigh, eigvalsh, svd, svdvals, qr, lstsq`, withCtx((ctx) => {
        const rng = new Rng(13);
        for (const n of SIZES) {
          const batch = batchOf3(n);
          const count = countOf(batch);
          const hs = Array.from({ length: count }, () => hermitian(rng, n));
          for (const upper of [false, true]) {
            // NaN in the triangle not read and junk imaginary parts on the diagonal.
            const stored = hs.map((h) => {
              const s: M = { m: n, n, d: h.d.slice() };
              for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (upper ? j < i : j > i) put(s, i, j, NaN, NaN);
              for (let i = 0; i < n; i++) put(s, i, i, at(h, i, i)[0], 7);
              return s;
            });
            const a = stack(stored, batch, dtype);
            const { values, vectors } = ctx.eigh(a, { upper });
            assert.deepEqual(values.shape, [...batch, n]);
            assert.deepEqual(vectors.shape, [...batch, n, n]);
            assert.equal(values.dtype, undefined);
            assert.equal(vectors.dtype, dtype);
            assert.equal(values.data.constructor, a.data.constructor);
            const w2 = ctx.eigvalsh(a, { upper });
            hs.forEach((h, p) => {
              const w = values.data.subarray(p * n, (p + 1) * n);
              for (let i = 1; i < n; i++) assert.ok(w[i - 1]! <= w[i]!, 'ascending');
              const v = member(vectors, p, n, n);
              ok('eigh A V = V W', nrm(sub(mul(h, v), scaleCols(v, w))), n, nrm(h), eps);
              ok('eigh V^H V = I', nrm(sub(mul(tr(v), v), eye(n))), n, 1, eps);
              for (let i = 0; i < n; i++) assert.ok(Math.abs(w2.data[p * n + i]! - w[i]!) <= 30 * n * eps * nrm(h));
            });
          }
          for (const [m, k] of [[n, n], [n + 2, n], [n, n + 3]]) {
            const as = Array.from({ length: count }, () => random(rng, m!, k!));
            const a = stack(as, batch, dtype);
            const q = Math.min(m!, k!);
            const { u, s, vt } = ctx.svd(a);
            assert.deepEqual([u.shape, s.shape, vt.shape], [[...batch, m, q], [...batch, q], [...batch, q, k]]);
            assert.equal(s.dtype, undefined);
            const sv = ctx.svdvals(a);
            as.forEach((x, p) => {
              const sp = s.data.subarray(p * q, (p + 1) * q);
              for (let i = 0; i < q; i++) assert.ok(sp[i]! >= 0 && (i === 0 || sp[i - 1]! >= sp[i]!), 'descending, non-negative');
              const up = member(u, p, m!, q), vp = member(vt, p, q, k!);
              ok('svd A = U S V^H', nrm(sub(mul(scaleCols(up, sp), vp), x)), Math.max(m!, k!), nrm(x), eps);
              ok('svd U^H U = I', nrm(sub(mul(tr(up), up), eye(q))), m!, 1, eps);
              ok('svd V^H V = I', nrm(sub(mul(vp, tr(vp)), eye(q))), k!, 1, eps);
              for (let i = 0; i < q; i++) assert.ok(Math.abs(sv.data[p * q + i]! - sp[i]!) <= 30 * k! * eps * nrm(x));
            });
            for (const mode of ['reduced', 'complete', 'r'] as const) {
              const r = ctx.qr(a, { mode });
              const rows = mode === 'complete' ? m! : q;
              assert.deepEqual(r.r.shape, [...batch, rows, k]);
              assert.equal(r.q === undefined, mode === 'r');
              as.forEach((x, p) => {
                const rp = member(r.r, p, rows, k!);
                for (let i = 0; i < rows; i++) for (let j = 0; j < Math.min(i, k!); j++) assert.deepEqual(at(rp, i, j), [0, 0]);
                if (r.q === undefined) return;
                const qp = member(r.q, p, m!, rows);
                ok('qr A = Q R', nrm(sub(mul(qp, rp), x)), m!, nrm(x), eps);
                ok('qr Q^H Q = I', nrm(sub(mul(tr(qp), qp), eye(rows))), m!, 1, eps);
              });
            }
            // lstsq: b [2, ...batch, m, 2] broadcast against a; least squares (m > k) or minimum norm (m < k).
            const bs = Array.from({ length: 2 * count }, () => random(rng, m!, 2));
            const { x, residuals } = ctx.lstsq(a, stack(bs, [2, ...batch], dtype));
            assert.deepEqual([x.shape, residuals.shape], [[2, ...batch, k, 2], [2, ...batch, m! > k! ? 2 : 0]]);
            bs.forEach((b, p) => {
              const ap = as[p % count]!, xp = member(x, p, k!, 2);
              const r = sub(mul(ap, xp), b);
              if (m! > k!) {
                ok('lstsq A^H (A x - b) = 0', nrm(mul(tr(ap), r)), m!, nrm(ap) * (nrm(ap) * nrm(xp) + nrm(b)), eps);
                for (let j = 0; j < 2; j++) {
                  let sum = 0;
                  for (let i = 0; i < m!; i++) sum += at(r, i, j)[0] ** 2 + at(r, i, j)[1] ** 2;
                  assert.ok(Math.abs(residuals.data[p * 2 + j]! - sum) <= 1e3 * eps * (sum + nrm(b) ** 2));
                }
              } else ok('lstsq A x = b', nrm(r), k!, nrm(ap) * nrm(xp), eps);
            });
          }
        }
      }));

      it(`${dtype}: failed members are reported as the real array level reports them`, withCtx((ctx) => {
        const rng = new Rng(17);
        const n = 4;
        const ms = [hpd(rng, n), zero(n, n), hpd(rng, n)];
        const nan = hpd(rng, n);
        put(nan, 2, 1, NaN, 0);
        put(nan, 1, 2, NaN, 0);
        const a = stack([...ms, nan], [4], dtype);
        assert.throws(() => ctx.cholesky(a), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /#1/.test(e.message));
        const c = ctx.choleskyEx(a);
        assert.deepEqual([...c.info], [0, 1, 0, n + 2]);
        assert.ok(c.factor.data.slice(2 * n * n, 4 * n * n).every(Number.isNaN));
        assert.ok([...c.factor.data.slice(0, 2 * n * n), ...c.factor.data.slice(4 * n * n, 6 * n * n)].every(Number.isFinite));
        const s = ctx.solveEx(a, stack(Array.from({ length: 4 }, () => random(rng, n, 1)), [4], dtype));
        assert.deepEqual([...s.info].map((v) => v !== 0), [false, true, false, true]);
        assert.equal(s.info[3], n + 2);
        assert.throws(() => ctx.solve(a, s.x), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL');
        assert.deepEqual([...ctx.invEx(a).info].map((v) => v !== 0), [false, true, false, true]);
        assert.throws(() => ctx.inv(a, { assume: 'spd' }), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /#1/.test(e.message));
        const e = ctx.eighEx(a);
        assert.deepEqual([...e.info], [0, 0, 0, n + 2]);
        assert.ok(e.values.data.slice(3 * n).every(Number.isNaN) && e.vectors.data.slice(6 * n * n).every(Number.isNaN));
        assert.throws(() => ctx.eigh(a), (x: unknown) => x instanceof MyriadError && x.code === 'NUMERICAL' && /#3/.test(x.message));
        assert.deepEqual([...ctx.svdEx(a).info], [0, 0, 0, n + 2]);
        // lstsq: A = 0 is rank-deficient (R(1, 1) is exactly zero; gels, as LAPACK's, returns x = 0 with info 0), NaN fails.
        assert.deepEqual([...ctx.lstsqEx(a, stack([random(rng, n, 1)], [], dtype)).info], [0, 1, 0, n + 2]);
      }));
    }

    it('empty stacks and matrices of order 0 give numpy\'s shapes; qr of 3 x 0 completes Q to the identity', withCtx((ctx) => {
      const z = (shape: number[]): NDArray => ndarray(new Float64Array(2 * countOf(shape)), shape, { dtype: 'complex128' });
      assert.deepEqual(ctx.cholesky(z([0, 3, 3])).shape, [0, 3, 3]);
      assert.deepEqual(ctx.eigh(z([2, 0, 0])).values.shape, [2, 0]);
      assert.deepEqual(ctx.svd(z([2, 3, 0])).vt.shape, [2, 0, 0]);
      assert.deepEqual(ctx.matmul(z([2, 3, 0]), z([0, 2])).data, new Float64Array(24));
      assert.deepEqual(ctx.lstsq(z([2, 0, 3]), z([2, 0, 1])).x.shape, [2, 3, 1]);
      const { q } = ctx.qr(z([1, 3, 0]), { mode: 'complete' });
      assert.deepEqual(q!.shape, [1, 3, 3]);
      assert.deepEqual(member(q!, 0, 3, 3).d, eye(3).d);
      // On real arrays adjoint is the transpose.
      const r = ndarray(new Float64Array([2, 0, 1, 4]), [2, 2]), b = ndarray(new Float64Array([1, 2]), [2, 1]);
      assert.deepEqual(ctx.triangularSolve(r, b, { adjoint: true }).data, ctx.triangularSolve(r, b, { transpose: true }).data);
    }));

    it('errors name the argument: mixed element types, real where complex is expected and the reverse', withCtx((ctx) => {
      const z = (n = 2, dtype: ComplexDType = 'complex128'): NDArray => ndarray<FloatArray>(
        dtype === 'complex128' ? new Float64Array(2 * n * n) : new Float32Array(2 * n * n), [n, n], { dtype });
      const r = (n = 2): NDArray => ndarray(new Float64Array(n * n), [n, n]);
      throwsArg(() => ctx.solve(r(), z()), 'DTYPE', 'b', /a is float64, b is complex128/);
      throwsArg(() => ctx.solve(z(), r()), 'DTYPE', 'b', /a is complex128, b is float64/);
      throwsArg(() => ctx.matmul(z(), z(2, 'complex64')), 'DTYPE', 'b', /a is complex128, b is complex64/);
      throwsArg(() => ctx.matmul(r(), { ...z(), shape: [4] }), 'DTYPE', 'b');
      throwsArg(() => ctx.lstsq(z(), r()), 'DTYPE', 'b');
      throwsArg(() => ctx.triangularSolve(z(), r()), 'DTYPE', 'b');
      throwsArg(() => ctx.choleskySolve(z(), r()), 'DTYPE', 'b', /factor is complex128/);
      throwsArg(() => ctx.choleskySolve(r(), z()), 'DTYPE', 'b', /factor is float64/);
      throwsArg(() => ctx.triangularSolve(z(), z(), { transpose: true, adjoint: true }), 'INVALID_ARGUMENT', 'options.adjoint');
      throwsArg(() => ndarray(new Float32Array(8), [2, 2], { dtype: 'complex128' }), 'DTYPE', 'options.dtype', /Float64Array of interleaved/);
      throwsArg(() => ndarray(new Float64Array(4), [2, 2], { dtype: 'complex128' }), 'BOUNDS', 'array.data', /needs 8/);
      throwsArg(() => ndarray(new Float64Array(4), [2, 2], { dtype: 'complex' as ComplexDType }), 'DTYPE', 'options.dtype');
      throwsArg(() => ctx.eigh({ data: new Float32Array(8), shape: [2, 2], dtype: 'complex128' }), 'DTYPE', 'a.dtype');
      throwsArg(() => ctx.cholesky({ data: new Float64Array(8), shape: [2, 3], dtype: 'complex128' }), 'BOUNDS', 'a.data');
      throwsArg(() => ctx.svd({ data: new Float64Array(6), shape: [2, 3], dtype: 'complex128' }), 'BOUNDS', 'a.data', /needs 12/);
      throwsArg(() => transpose(z()), 'DTYPE', 'a', /complex128 array where this function takes real arrays/);
      throwsArg(() => batchOf(z()), 'UNSUPPORTED', 'array.dtype', /column-major only/);
      throwsArg(() => ctx.potrf({ a: z() }), 'UNSUPPORTED', 'a.dtype');
    }));
  });
}

/**
 * Complex gemm through ctx.gemm on the reference and cpu contexts: against a naive product for
 * every transA/transB pair in both precisions, list batches, and the errors (mixed element types,
 * [re, im] on real data, complex on an operation without complex, row-major complex).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import { MyriadError, type ErrorCode } from '../../src/core/errors.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import { Rng } from '../helpers/random.js';

type Z = [number, number];
type M = Z[][];
const OPS: readonly ComplexOp[] = ['N', 'T', 'C'];

function throwsArg(fn: () => unknown, code: ErrorCode, argument: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof MyriadError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.argument, argument, e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}
const random = (rng: Rng, r: number, c: number): M =>
  Array.from({ length: r }, () => Array.from({ length: c }, (): Z => [rng.uniform() - 0.5, rng.uniform() - 0.5]));
function op(x: M, t: ComplexOp): M {
  if (t === 'N') return x;
  const c = x.length === 0 ? 0 : x[0]!.length;
  return Array.from({ length: c }, (_, i) => x.map((row): Z => (t === 'C' ? [row[i]![0], -row[i]![1]] : row[i]!)));
}
function naive(alpha: Z, a: M, b: M, beta: Z, c: M): M {
  return c.map((row, i) => row.map((z, j) => {
    let re = 0;
    let im = 0;
    for (let l = 0; l < b.length; l++) {
      const x = a[i]![l]!;
      const y = b[l]![j]!;
      re += x[0] * y[0] - x[1] * y[1];
      im += x[0] * y[1] + x[1] * y[0];
    }
    return [alpha[0] * re - alpha[1] * im + beta[0] * z[0] - beta[1] * z[1], alpha[0] * im + alpha[1] * re + beta[0] * z[1] + beta[1] * z[0]];
  }));
}
/** Column-major interleaved: element (i, j) of matrix p at 2 (offset + p stride + i + j ld). */
function store(xs: readonly M[], rows: number, cols: number, ld: number, stride: number, offset: number, single: boolean): Float64Array | Float32Array {
  const n = 2 * (offset + stride * xs.length + 1);
  const data = single ? new Float32Array(n) : new Float64Array(n);
  xs.forEach((x, p) => { for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) {
    const e = 2 * (offset + p * stride + i + j * ld);
    data[e] = x[i]![j]![0];
    data[e + 1] = x[i]![j]![1];
  } });
  return data;
}
function load(data: Float64Array | Float32Array, rows: number, cols: number, ld: number, off: number): M {
  return Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j): Z => [data[2 * (off + i + j * ld)]!, data[2 * (off + i + j * ld) + 1]!]));
}
function maxDiff(x: M, y: M): number {
  let d = 0;
  x.forEach((row, i) => row.forEach((v, j) => { d = Math.max(d, Math.abs(v[0] - y[i]![j]![0]), Math.abs(v[1] - y[i]![j]![1])); }));
  return d;
}

for (const backend of ['reference', 'cpu'] as const) {
  describe(`complex gemm through ctx.gemm (${backend})`, () => {
    const withCtx = (fn: (ctx: Context) => void) => () => {
      const ctx = open({ backend });
      try { fn(ctx); } finally { ctx.dispose(); }
    };

    for (const single of [false, true]) {
      it(`every transA/transB pair, strided ${single ? 'complex64' : 'complex128'} batches, against the naive product`, withCtx((ctx) => {
        const rng = new Rng(7);
        const [m, n, k, count] = [3, 4, 5, 2];
        const tol = single ? 1e-5 : 1e-13;
        const dtype = single ? 'complex64' : 'complex128';
        for (const ta of OPS) for (const tb of OPS) {
          const [ar, ac] = ta === 'N' ? [m, k] : [k, m];
          const [br, bc] = tb === 'N' ? [k, n] : [n, k];
          const as = Array.from({ length: count }, () => random(rng, ar, ac));
          const bs = Array.from({ length: count }, () => random(rng, br, bc));
          const cs = Array.from({ length: count }, () => random(rng, m, n));
          const [lda, ldb, ldc] = [ar + 1, br + 2, m + 1];
          const [sa, sb, sc] = [lda * ac + 1, ldb * bc, ldc * n + 3];
          const A = store(as, ar, ac, lda, sa, 1, single);
          const B = store(bs, br, bc, ldb, sb, 0, single);
          const C = store(cs, m, n, ldc, sc, 2, single);
          const alpha: Z = [0.75, -1.25];
          const beta: Z = [0.5, 2];
          ctx.gemm({
            transA: ta, transB: tb, alpha, beta,
            a: strided(A, { rows: ar, cols: ac, ld: lda, stride: sa, offset: 1, count, dtype }),
            b: strided(B, { rows: br, cols: bc, ld: ldb, stride: sb, offset: 0, count, dtype }),
            c: strided(C, { rows: m, cols: n, ld: ldc, stride: sc, offset: 2, count, dtype }),
          });
          for (let p = 0; p < count; p++) {
            const want = naive(alpha, op(as[p]!, ta), op(bs[p]!, tb), beta, cs[p]!);
            const d = maxDiff(load(C, m, n, ldc, 2 + p * sc), want);
            assert.ok(d < tol, `${ta}${tb} matrix ${p}: max difference ${d}`);
          }
        }
      }));
    }

    it('list batches, real alpha (a number is (x, 0)) and beta = 0 (C not read)', withCtx((ctx) => {
      const rng = new Rng(11);
      const [m, n, k] = [2, 3, 4];
      const as = [random(rng, k, m), random(rng, k, m)];
      const bs = [random(rng, k, n), random(rng, k, n)];
      const A = as.map((x) => store([x], k, m, k, k * m, 0, false));
      const B = bs.map((x) => store([x], k, n, k, k * n, 0, false));
      const C = [new Float64Array(2 * m * n + 2).fill(NaN), new Float64Array(2 * m * n + 2).fill(NaN)];
      const dtype = 'complex128';
      ctx.gemm({
        transA: 'C', alpha: 2,
        a: list(A, { rows: k, cols: m, dtype }), b: list(B, { rows: k, cols: n, dtype }), c: list(C, { rows: m, cols: n, dtype }),
      });
      for (let p = 0; p < 2; p++) {
        const want = naive([2, 0], op(as[p]!, 'C'), bs[p]!, [0, 0], random(rng, m, n));
        assert.ok(maxDiff(load(C[p]!, m, n, m, 0), want) < 1e-13);
      }
    }));

    it("real data: 'C' means 'T', as BLAS", withCtx((ctx) => {
      const a = new Float64Array([1, 2, 3, 4, 5, 6]); // 2x3 column-major
      const run = (t: 'T' | 'C'): number[] => {
        const c = new Float64Array(9);
        ctx.gemm({ transA: t, a: strided(a, { rows: 2, cols: 3 }), b: strided(a, { rows: 2, cols: 3 }), c: strided(c, { rows: 3, cols: 3 }) });
        return [...c];
      };
      assert.deepEqual(run('C'), run('T'));
    }));

    it('errors: mixed element types, [re, im] on real data, complex where unsupported, row-major complex, bad scalars', withCtx((ctx) => {
      const z = (n = 4, dtype: 'complex128' | 'complex64' = 'complex128') =>
        strided(dtype === 'complex64' ? new Float32Array(2 * n) : new Float64Array(2 * n), { rows: 2, dtype });
      const r = () => strided(new Float64Array(4), { rows: 2 });
      throwsArg(() => ctx.gemm({ a: z(), b: z(4, 'complex64'), c: z() }), 'DTYPE', 'b', /is complex64 but a is complex128/);
      throwsArg(() => ctx.gemm({ a: z(), b: z(), c: r() }), 'DTYPE', 'c', /is float64 but a is complex128/);
      throwsArg(() => ctx.gemm({ a: r(), b: r(), c: z() }), 'DTYPE', 'c', /is complex128 but a is float64/);
      throwsArg(() => ctx.gemm({ alpha: [1, 1], a: r(), b: r(), c: r() }), 'INVALID_ARGUMENT', 'alpha', /needs complex batches/);
      throwsArg(() => ctx.gemm({ beta: [0, 1], a: r(), b: r(), c: r() }), 'INVALID_ARGUMENT', 'beta', /needs complex batches/);
      throwsArg(() => ctx.gemm({ alpha: [1, NaN], a: z(), b: z(), c: z() }), 'INVALID_ARGUMENT', 'alpha');
      throwsArg(() => ctx.gemm({ transA: 'X' as 'N', a: z(), b: z(), c: z() }), 'ENUM', 'transA');
      throwsArg(() => ctx.syev({ a: z(), w: strided(new Float64Array(2), { rows: 2, cols: 1 }) }), 'UNSUPPORTED', 'a', /use heev/);
      const rowC = strided(new Float64Array(8), { rows: 2, order: 'row', dtype: 'complex128' });
      throwsArg(() => ctx.gemm({ a: z(), b: z(), c: rowC }), 'UNSUPPORTED', 'c.order', /column-major batches only/);
      throwsArg(() => ctx.gemm({ a: z(), b: strided(new Float64Array(12), { rows: 2, cols: 3, dtype: 'complex128' }), c: z() }), 'SHAPE', 'c');
    }));
  });
}

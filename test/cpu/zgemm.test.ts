/**
 * The complex gemm reference (cpu/zgemm.ts) against an independent naive product over explicit
 * (re, im) matrices, and against identities of the conjugate transpose.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { ComplexOp, ComplexScalar } from '../../src/core/op-specs.js';
import { complexScalar } from '../../src/api/prepare.js';
import { cpuGemmComplex } from '../../src/cpu/complex/zgemm.js';
import { MyriadError } from '../../src/core/errors.js';
import { Rng } from '../helpers/random.js';

type Z = [number, number];
/** An explicit complex matrix: m[i][j] = [re, im]. */
type M = Z[][];

const mul = (x: Z, y: Z): Z => [x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0]];
const add = (x: Z, y: Z): Z => [x[0] + y[0], x[1] + y[1]];
const conj = (x: Z): Z => [x[0], -x[1]];

function random(rng: Rng, r: number, c: number): M {
  return Array.from({ length: r }, () => Array.from({ length: c }, (): Z => [rng.uniform(), rng.uniform()]));
}
function op(x: M, t: ComplexOp): M {
  if (t === 'N') return x;
  const r = x.length;
  const c = r === 0 ? 0 : x[0]!.length;
  return Array.from({ length: c }, (_, i) => Array.from({ length: r }, (_, j) => (t === 'C' ? conj(x[j]![i]!) : x[j]![i]!)));
}
function naive(alpha: Z, a: M, b: M, beta: Z, c: M): M {
  return c.map((row, i) => row.map((cij, j) => {
    let s: Z = [0, 0];
    for (let l = 0; l < b.length; l++) s = add(s, mul(a[i]![l]!, b[l]![j]!));
    return add(mul(alpha, s), mul(beta, cij));
  }));
}

/** Column-major interleaved storage of `x` at `offset` (complex elements) with leading dimension `ld`. */
function store(x: M, ld: number, offset: number, data: Float64Array | Float32Array): void {
  x.forEach((row, i) => row.forEach((v, j) => { data[2 * (offset + i + j * ld)] = v[0]; data[2 * (offset + i + j * ld) + 1] = v[1]; }));
}
function load(data: Float64Array | Float32Array, r: number, c: number, ld: number, offset: number): M {
  return Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j): Z => [data[2 * (offset + i + j * ld)]!, data[2 * (offset + i + j * ld) + 1]!]));
}
/** One matrix as a complex128 (or complex64) strided batch with padding: ld = rows + 1, offset 2. */
function batch(x: M, rows: number, cols: number, single = false): { data: Float64Array | Float32Array; b: Batch<Float64Array | Float32Array> } {
  const ld = rows + 1;
  const data = single ? new Float32Array(2 * (2 + ld * Math.max(cols, 1))) : new Float64Array(2 * (2 + ld * Math.max(cols, 1)));
  store(x, ld, 2, data);
  return { data, b: strided(data, { rows, cols, ld, offset: 2, count: 1, dtype: single ? 'complex64' : 'complex128' }, 'x') };
}
function maxDiff(x: M, y: M): number {
  let d = 0;
  x.forEach((row, i) => row.forEach((v, j) => { d = Math.max(d, Math.abs(v[0] - y[i]![j]![0]), Math.abs(v[1] - y[i]![j]![1])); }));
  return d;
}
function run(transA: ComplexOp, transB: ComplexOp, alpha: ComplexScalar, a: M, beta: ComplexScalar, b: M, c: M, m: number, n: number, k: number, single = false): M {
  const [ar, ac] = transA === 'N' ? [m, k] : [k, m];
  const [br, bc] = transB === 'N' ? [k, n] : [n, k];
  const A = batch(a, ar, ac, single);
  const B = batch(b, br, bc, single);
  const C = batch(c, m, n, single);
  cpuGemmComplex({ transA, transB, alpha, a: A.b, b: B.b, beta, c: C.b });
  return load(C.data, m, n, m + 1, 2);
}

const OPS: readonly ComplexOp[] = ['N', 'T', 'C'];

describe('complex gemm, the CPU reference', () => {
  it('matches a naive product for every transA, transB, complex alpha and beta, in both precisions', () => {
    const rng = new Rng(7);
    for (const single of [false, true]) for (const transA of OPS) for (const transB of OPS) for (const [m, n, k] of [[3, 4, 5], [1, 1, 1], [5, 2, 3], [2, 3, 0]] as const) {
      const a = random(rng, transA === 'N' ? m : k, transA === 'N' ? k : m);
      const b = random(rng, transB === 'N' ? k : n, transB === 'N' ? n : k);
      const c = random(rng, m, n);
      const alpha: Z = [0.75, -1.25];
      const beta: Z = [-0.5, 0.3];
      const got = run(transA, transB, alpha, a, beta, b, c, m, n, k, single);
      const want = naive(alpha, op(a, transA), op(b, transB), beta, c);
      const tol = single ? 1e-5 : 1e-13;
      assert.ok(maxDiff(got, want) <= tol * Math.max(1, k), `${transA}${transB} ${m}x${n}x${k} single=${single}: ${maxDiff(got, want)}`);
    }
  });

  it('A^H B = (B^H A)^H, and (A B)^T = B^T A^T', () => {
    const rng = new Rng(11);
    const [m, n, k] = [4, 3, 5];
    const a = random(rng, k, m);
    const b = random(rng, k, n);
    const zeros = (r: number, c: number): M => Array.from({ length: r }, () => Array.from({ length: c }, (): Z => [0, 0]));
    const ahb = run('C', 'N', [1, 0], a, [0, 0], b, zeros(m, n), m, n, k);
    const bha = run('C', 'N', [1, 0], b, [0, 0], a, zeros(n, m), n, m, k);
    assert.ok(maxDiff(ahb, op(bha, 'C')) < 1e-14);
    const x = random(rng, m, k);
    const y = random(rng, k, n);
    const xy = run('N', 'N', [1, 0], x, [0, 0], y, zeros(m, n), m, n, k);
    const ytxt = run('T', 'T', [1, 0], y, [0, 0], x, zeros(n, m), n, m, k);
    assert.ok(maxDiff(op(xy, 'T'), ytxt) < 1e-14);
    // A^H A is Hermitian with a real diagonal.
    const aha = run('C', 'N', [1, 0], a, [0, 0], a, zeros(m, m), m, m, k);
    assert.ok(maxDiff(aha, op(aha, 'C')) < 1e-14);
    for (let i = 0; i < m; i++) assert.equal(aha[i]![i]![1], 0);
  });

  it('beta = 0 does not read C; alpha = 0 does not read A or B; alpha = 0, beta = 1 leaves C', () => {
    const rng = new Rng(3);
    const a = random(rng, 2, 2);
    const b = random(rng, 2, 2);
    const nan: M = [[[NaN, NaN], [NaN, 0]], [[0, NaN], [NaN, NaN]]];
    const got = run('N', 'N', [1, 0], a, [0, 0], b, nan, 2, 2, 2);
    assert.ok(maxDiff(got, naive([1, 0], a, b, [0, 0], [[[0, 0], [0, 0]], [[0, 0], [0, 0]]])) < 1e-15);
    const c = random(rng, 2, 2);
    assert.ok(maxDiff(run('N', 'N', [0, 0], nan, [0, 2], nan, c, 2, 2, 2), c.map((r) => r.map((v) => mul([0, 2], v)))) === 0);
    assert.deepEqual(run('N', 'N', [0, 0], nan, [1, 0], nan, c, 2, 2, 2), c);
  });

  it('runs every matrix of a list batch', () => {
    const rng = new Rng(5);
    const as = [random(rng, 2, 3), random(rng, 2, 3)];
    const bs = [random(rng, 3, 2), random(rng, 3, 2)];
    const arrays = (ms: M[], r: number, c: number): Float64Array[] => ms.map((x) => { const d = new Float64Array(2 * r * c); store(x, r, 0, d); return d; });
    const A = arrays(as, 2, 3);
    const B = arrays(bs, 3, 2);
    const C = [new Float64Array(8), new Float64Array(8)];
    cpuGemmComplex({
      transA: 'N', transB: 'N', alpha: [1, 0], beta: [0, 0],
      a: list(A, { rows: 2, cols: 3, dtype: 'complex128' }, 'a'), b: list(B, { rows: 3, cols: 2, dtype: 'complex128' }, 'b'), c: list(C, { rows: 2, cols: 2, dtype: 'complex128' }, 'c'),
    });
    for (let p = 0; p < 2; p++) assert.ok(maxDiff(load(C[p]!, 2, 2, 2, 0), naive([1, 0], as[p]!, bs[p]!, [0, 0], load(new Float64Array(8), 2, 2, 2, 0))) < 1e-15);
  });

  it('complex scalars: a number or a pair [re, im]', () => {
    assert.deepEqual(complexScalar(undefined, [1, 0], 'alpha'), [1, 0]);
    assert.deepEqual(complexScalar(2.5, [1, 0], 'alpha'), [2.5, 0]);
    assert.deepEqual(complexScalar([1, -2], [1, 0], 'beta'), [1, -2]);
    for (const bad of [NaN, [1], [1, NaN], [1, 2, 3], '1', { re: 1, im: 0 }])
      assert.throws(() => complexScalar(bad, [0, 0], 'beta'), (e: unknown) => e instanceof MyriadError && e.code === 'INVALID_ARGUMENT' && e.argument === 'beta');
  });
});

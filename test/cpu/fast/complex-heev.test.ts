/**
 * The fast backend's complex heev (ops/zheev.ts: zhetd2 'L', implicit QL on the real tridiagonal,
 * V = Q Z) against residuals that do not depend on the reference, ||A V - V diag(w)|| / (n ||A|| eps)
 * and ||V^H V - I|| / (n eps) below 30, and against the reference: the same info, eigenvalues within
 * 30 n eps ||A||, NaN members' outputs NaN. Random Hermitian, clustered and repeated eigenvalues,
 * diagonal, zero, graded and positive definite members with a NaN one; both uplo, both types,
 * n = 1 ... 17, odd batch counts, strided (odd ld, gaps) and list batches; with 'values' (the
 * root-free QL) A unchanged and w within the same bound of the reference's; the matrices the path
 * hands back (a reflector's sum of squares below its bound) the reference's results bit for bit;
 * nothing outside the matrices written.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ComplexDType, FloatArray } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import type { Batch } from '../../../src/core/batch.js';
import { fastHeevComplex, type ComplexHeevOptions } from '../../../src/cpu-fast/ops/zheev.js';
import { planComplexHeev } from '../../../src/cpu-fast/plan/eigen.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { qlState, sortAscending, start, tridiagonalQl } from '../../../src/cpu-fast/kernels/tridiagonal-ql.js';
import { generateZheevWasm } from '../../../src/cpu-fast/kernels/zheev-wasm.js';
import { startValues, tridiagonalValues, valuesState } from '../../../src/cpu-fast/kernels/tridiagonal-values.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { hostComplexOp } from '../../../src/cpu-fast/backend.js';
import {
  LIST, ODD, Rng, epsOf, get, hermitianFrom, identity, multiply, norm, op, place, random, randomHermitian, randomHpd, ratio, realColumns,
  scaleColumns, set, subtract, zeros, type Layout, type Z,
} from '../../helpers/complex.js';

type Kind = 'random' | 'clustered' | 'repeated' | 'diagonal' | 'zero' | 'graded' | 'hpd' | 'nan';
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const OPTIONS: ComplexHeevOptions = { force: { variant: 'tridiagonal' }, tuning: T };
/** Seven members (odd: a lone last one), the NaN one among good ones. */
const KINDS: readonly Kind[] = ['random', 'clustered', 'nan', 'repeated', 'diagonal', 'graded', 'hpd'];
const PACKED: Layout = { kind: 'strided', pad: 0, gap: 0, offset: 0 };

/** U diag(lambda) U^H with U the product of two random Householder reflectors (unitary). */
function withEigenvalues(rng: Rng, lambda: readonly number[]): Z {
  const n = lambda.length;
  let u = identity(n);
  for (let r = 0; r < 2; r++) {
    const x = random(rng, n, 1);
    const xx = norm(x) ** 2;
    const h = subtract(identity(n), multiply(x, op(x, 'C'), [2 / xx, 0]));
    u = multiply(u, h);
  }
  return hermitianFrom(multiply(scaleColumns(u, lambda), op(u, 'C')), 'lower');
}

function matrix(rng: Rng, n: number, kind: Kind): Z {
  switch (kind) {
    case 'random': return randomHermitian(rng, n);
    case 'hpd': return randomHpd(rng, n);
    case 'clustered': return withEigenvalues(rng, Array.from({ length: n }, (_, k) => (k < n / 2 ? 1 + k * 1e-12 : -2 + k * 1e-9)));
    case 'repeated': return withEigenvalues(rng, Array.from({ length: n }, (_, k) => (k % 3 === 0 ? 3 : -1)));
    case 'diagonal': { const a = zeros(n, n); for (let i = 0; i < n; i++) set(a, i, i, rng.uniform() * 4 - 2, 0); return a; }
    case 'zero': return zeros(n, n);
    case 'graded': {
      // D H D, D = diag(10^-k): entries from 1 down to 10^-(2n - 2)
      const h = randomHermitian(rng, n);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const [re, im] = get(h, i, j); const s = 10 ** -(i + j); set(h, i, j, re * s, im * s); }
      return h;
    }
    case 'nan': { const a = randomHermitian(rng, n); set(a, n - 1, 0, NaN, 0); set(a, 0, n - 1, NaN, 0); return a; }
  }
}

/** As heev sees A stored: junk imaginary parts on the diagonal, NaN in the triangle not referenced. */
function stored(a: Z, uplo: Uplo): Z {
  const out: Z = { rows: a.rows, cols: a.cols, d: a.d.slice() };
  for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) {
    if (i === j) set(out, i, i, get(a, i, i)[0], 7 + i);
    else if (uplo === 'lower' ? i < j : i > j) set(out, i, j, NaN, NaN);
  }
  return out;
}

interface Run { info: number[]; w: number[][]; v: Z[]; outside: number[]; as: Z[] }

function run(heev: (r: never) => void, ms: readonly Z[], n: number, dtype: ComplexDType, uplo: Uplo, layout: Layout, jobz: 'vectors' | 'values'): Run {
  const A = place(ms.map((m) => stored(m, uplo)), n, n, dtype, layout);
  const W = realColumns(ms.length, n, dtype);
  const info = new Int32Array(ms.length).fill(-5);
  (heev as (r: object) => void)({ jobz, uplo, a: A.batch as Batch<FloatArray>, w: W.batch as Batch<FloatArray>, info });
  return { info: [...info], w: ms.map((_, p) => W.read(p)), v: ms.map((_, p) => A.read(p)), outside: A.outside(), as: ms.map((_, p) => hermitianFrom(A.read(p), uplo)) };
}

function check(n: number, dtype: ComplexDType, uplo: Uplo, layout: Layout, seed: number, kinds: readonly Kind[] = KINDS): void {
  const rng = new Rng(seed);
  // the matrices as the kernel sees them (complex64 rounded)
  const ms = kinds.map((kind) => hermitianFrom(place([matrix(rng, n, kind)], n, n, dtype, PACKED).read(0), 'lower'));
  const label = `heev ${dtype} n=${n} ${uplo} ${layout.kind} pad=${layout.pad}`;
  const fast = (r: never): void => fastHeevComplex(r, OPTIONS);
  const got = run(fast, ms, n, dtype, uplo, layout, 'vectors');
  const want = run(complexReference.heev, ms, n, dtype, uplo, layout, 'vectors');
  const values = run(fast, ms, n, dtype, uplo, layout, 'values');
  assert.deepEqual(got.info, want.info, `${label}: info`);
  assert.deepEqual(values.info, want.info, `${label}: info (values)`);
  assert.deepEqual(got.outside, want.outside, `${label}: nothing outside the matrices written`);
  const eps = epsOf(dtype);
  kinds.forEach((kind, p) => {
    const at = `${label} #${p} (${kind})`;
    if (kind === 'nan') {
      assert.equal(got.info[p], n + 2, `${at}: info`);
      assert.ok(got.w[p]!.every(Number.isNaN) && got.v[p]!.d.every(Number.isNaN) && values.w[p]!.every(Number.isNaN), `${at}: NaN outputs`);
      return;
    }
    assert.equal(got.info[p], 0, `${at}: info`);
    const a = ms[p]!, w = got.w[p]!, v = got.v[p]!;
    for (let j = 1; j < n; j++) assert.ok(w[j - 1]! <= w[j]!, `${at}: w ascending`);
    const anorm = norm(a);
    const res = ratio(norm(subtract(multiply(a, v), scaleColumns(v, w))), n, anorm, eps);
    assert.ok(res < 30, `${at}: ||A V - V W|| ratio ${res}`);
    const orth = ratio(norm(subtract(multiply(op(v, 'C'), v), identity(n))), n, 1, eps);
    assert.ok(orth < 30, `${at}: ||V^H V - I|| ratio ${orth}`);
    for (let j = 0; j < n; j++) {
      const diff = ratio(Math.abs(w[j]! - want.w[p]![j]!), n, anorm, eps);
      assert.ok(diff < 30, `${at}: w[${j}] ${w[j]} vs the reference's ${want.w[p]![j]} (ratio ${diff})`);
    }
    // values only runs the root-free QL (tridiagonal-values.ts): the reference's eigenvalues within the same bound, ascending
    for (let j = 0; j < n; j++) {
      const diff = ratio(Math.abs(values.w[p]![j]! - want.w[p]![j]!), n, anorm, eps);
      assert.ok(diff < 30 && (j === 0 || values.w[p]![j - 1]! <= values.w[p]![j]!), `${at}: values w[${j}] ${values.w[p]![j]} vs ${want.w[p]![j]} (ratio ${diff})`);
    }
    assert.deepEqual([...values.v[p]!.d], [...stored(a, uplo).d].map((x, k) => (Number.isNaN(x) ? values.v[p]!.d[k]! : x)), `${at}: 'values' leaves A`);
    if (kind === 'zero') assert.ok(w.every((x) => x === 0), `${at}: zero eigenvalues`);
    if (kind === 'hpd') assert.ok(w[0]! > 0, `${at}: positive eigenvalues`);
  });
}

describe('cpu-fast complex heev (tridiagonal path): residuals, and the reference\'s info and eigenvalues', () => {
  test('n = 1 ... 17, both types, each n in both uplo over the two types; strided with odd ld and back to back', () => {
    let seed = 1;
    for (const dtype of TYPES) for (let n = 1; n <= 17; n++) {
      const uplo = (n + (dtype === 'complex64' ? 1 : 0)) % 2 ? 'upper' : 'lower';
      check(n, dtype, uplo, n % 3 ? ODD : PACKED, seed++);
    }
  });
  test('list batches, batches of 1, 2 and 3', () => {
    let seed = 100;
    for (const dtype of TYPES) for (const n of [3, 8, 16]) {
      check(n, dtype, 'upper', LIST, seed++);
      for (const count of [1, 2, 3]) check(n, dtype, 'lower', ODD, seed++, KINDS.slice(0, count));
    }
  });
  test('values near float64\'s limits: scaled exactly (2^+-600), the eigenvalues scaled back', () => {
    for (const dtype of ['complex128'] as const) for (const s of [2 ** 600, 2 ** -600]) {
      const rng = new Rng(9);
      const ms = [randomHermitian(rng, 6), randomHpd(rng, 6)].map((m) => ({ ...m, d: m.d.map((x) => x * s) }));
      const got = run((r: never) => fastHeevComplex(r, OPTIONS), ms, 6, dtype, 'lower', ODD, 'vectors');
      const want = run(complexReference.heev, ms, 6, dtype, 'lower', ODD, 'vectors');
      assert.deepEqual(got.info, [0, 0]);
      ms.forEach((m, p) => {
        // the residuals of A / s and w / s (exact), whose norms do not overflow
        const a = { ...m, d: m.d.map((x) => x / s) };
        const w = got.w[p]!.map((x) => x / s);
        const res = ratio(norm(subtract(multiply(a, got.v[p]!), scaleColumns(got.v[p]!, w))), 6, norm(a), epsOf(dtype));
        assert.ok(res < 30, `scale ${s} #${p}: ratio ${res}`);
        w.forEach((x, j) => assert.ok(Math.abs(x - want.w[p]![j]! / s) <= 30 * 6 * epsOf(dtype) * norm(a), `scale ${s} #${p} w[${j}]`));
      });
    }
  });
  test('a matrix whose reflector\'s sum of squares underflows goes to the reference whole (its bits)', () => {
    const rng = new Rng(4);
    const a = randomHermitian(rng, 5);
    for (let i = 1; i < 5; i++) { set(a, i, 0, 1e-160, 1e-161); set(a, 0, i, 1e-160, -1e-161); }
    const ms = [randomHermitian(rng, 5), a, randomHermitian(rng, 5)];
    for (const jobz of ['vectors', 'values'] as const) {
      const got = run((r: never) => fastHeevComplex(r, OPTIONS), ms, 5, 'complex128', 'lower', ODD, jobz);
      const want = run(complexReference.heev, ms, 5, 'complex128', 'lower', ODD, jobz);
      assert.deepEqual(got.info, want.info);
      assert.deepEqual(got.w[1], want.w[1], `${jobz}: w`);
      assert.deepEqual([...got.v[1]!.d], [...want.v[1]!.d], `${jobz}: A`);
    }
  });
});

test('spread over the worker pool (the CPU context\'s path): the one-thread results, bit for bit; n = 40', () => {
  let seed = 700;
  for (const dtype of TYPES) for (const [n, layout] of [[5, ODD], [16, LIST], [40, PACKED]] as const) {
    const rng = new Rng(seed++);
    const ms = KINDS.map((kind) => hermitianFrom(place([matrix(rng, n, kind)], n, n, dtype, PACKED).read(0), 'lower'));
    const one = run((r: never) => fastHeevComplex(r), ms, n, dtype, 'upper', layout, 'vectors');
    const pool = run(hostComplexOp('cpu-fast', 'heev') as (r: never) => void, ms, n, dtype, 'upper', layout, 'vectors');
    assert.deepEqual(pool.info, one.info);
    ms.forEach((_, p) => {
      assert.deepEqual(pool.w[p], one.w[p], `${dtype} n=${n} #${p}: w`);
      assert.deepEqual([...pool.v[p]!.d], [...one.v[p]!.d], `${dtype} n=${n} #${p}: V`);
    });
    if (n === 40) check(n, dtype, 'lower', ODD, seed++, ['random', 'clustered', 'hpd']);
  }
});

test('the tridiagonal QL: eigenvalues of the 1-2-1 matrix, ascending, Z orthogonal; the root-free QL\'s; the plan', () => {
  const n = 9;
  const d = new Float64Array(n).fill(2), e = new Float64Array(n).fill(-1);
  const z = new Float64Array(n * n);
  for (let j = 0; j < n; j++) z[j * n + j] = 1;
  const cs = new Float64Array(2 * n);
  // the rotations on Z's columns one at a time, as written in the QL sweep
  const rotate = (l: number, m: number): void => {
    for (let i = m - 1; i >= l; i--) for (let k = 0; k < n; k++) {
      const c = cs[2 * i]!, s = cs[2 * i + 1]!, t = z[(i + 1) * n + k]!, u = z[i * n + k]!;
      z[(i + 1) * n + k] = s * u + c * t;
      z[i * n + k] = c * u - s * t;
    }
  };
  const st = qlState();
  start(st, d, e, n, cs, rotate);
  assert.ok(tridiagonalQl(st));
  const order = new Int32Array(n);
  sortAscending(d, n, order);
  for (let k = 0; k < n; k++) assert.ok(Math.abs(d[k]! - (2 - 2 * Math.cos(((k + 1) * Math.PI) / (n + 1)))) < 1e-14, `d[${k}]`);
  assert.deepEqual([...order].sort(), [...Array(n).keys()], 'order is a permutation');
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let s = 0, r = 0;
    for (let k = 0; k < n; k++) s += z[i * n + k]! * z[j * n + k]!;
    // T z_j = d_j z_j for the column that belongs to d[j]
    const zj = (k: number): number => (k < 0 || k >= n ? 0 : z[order[j]! * n + k]!);
    r = 2 * zj(i) - zj(i - 1) - zj(i + 1) - d[j]! * zj(i);
    assert.ok(Math.abs(s - (i === j ? 1 : 0)) < 1e-14, `Z^T Z (${i}, ${j})`);
    assert.ok(Math.abs(r) < 1e-14, `(T Z - Z D)(${i}, ${j})`);
  }
  // the root-free QL (values only) on the same matrix, and on the 2 x 2 and 1 x 1 blocks it solves directly
  for (const m of [1, 2, 9]) {
    const dv = new Float64Array(m).fill(2), ev = new Float64Array(m).fill(-1);
    const sv = valuesState();
    startValues(sv, dv, ev, m);
    assert.ok(tridiagonalValues(sv));
    sortAscending(dv, m, null);
    for (let k = 0; k < m; k++) assert.ok(Math.abs(dv[k]! - (2 - 2 * Math.cos(((k + 1) * Math.PI) / (m + 1)))) < 1e-14, `values n=${m} d[${k}]`);
  }
  assert.equal(planComplexHeev({ n: 0, jobz: 'vectors' }, T, { variant: 'tridiagonal' }), 'reference');
  assert.equal(planComplexHeev({ n: 4, jobz: 'vectors' }, T, { variant: 'reference' }), 'reference');
  assert.equal(planComplexHeev({ n: 1, jobz: 'values' }, T), 'reference');
  assert.equal(planComplexHeev({ n: 2, jobz: 'values' }, T), 'tridiagonal');
  assert.equal(planComplexHeev({ n: 2, jobz: 'vectors' }, T), 'reference');
  for (const jobz of ['vectors', 'values'] as const) for (const n of [3, 16, 512]) assert.equal(planComplexHeev({ n, jobz }, T), 'tridiagonal');
  assert.equal(planComplexHeev({ n: 513, jobz: 'values' }, T), 'reference');
  for (const n of [1, 2, 3, 16, 17, 40]) assert.ok(WebAssembly.validate(generateZheevWasm({ n })), `zheev-wasm n=${n}`);
  assert.throws(() => generateZheevWasm({ n: 0 }), /n must be a positive integer/);
});

/**
 * The fast backend's real syev (ops/syev.ts: dsytd2 'L', implicit QL on the tridiagonal, V = Q Z)
 * against residuals that do not depend on the reference, ||A V - V diag(w)|| / (n ||A|| eps) and
 * ||V^T V - I|| / (n eps) below 30, and against the reference: the same info, eigenvalues within
 * 30 n eps ||A||, NaN members' outputs NaN. Random, clustered, repeated, diagonal, zero, graded,
 * rank-deficient, diagonally dominant members with a NaN and an Inf one; both uplo, both dtypes,
 * n = 1 ... 40 and 64, odd batch counts, strided (odd ld, gaps between matrices, an offset) and list
 * batches; 'values' (the root-free QL) leaves A as it was and gives w within the same bound; the
 * matrices the path hands back (a reflector's sum of squares below its bound) get the reference's
 * results bit for bit; nothing outside the matrices written; the worker pool's results the one
 * thread's, bit for bit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { list, strided, type Batch } from '../../../src/core/batch.js';
import type { DType, FloatArray } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import type { SyevRequest } from '../../../src/core/ops.js';
import { cpuBackend } from '../../../src/cpu/backend.js';
import { fastCpuBackend } from '../../../src/cpu-fast/backend.js';
import { fastSyev, type SyevOptions } from '../../../src/cpu-fast/ops/syev.js';
import { planSyev } from '../../../src/cpu-fast/plan/eigen.js';
import { generateSyevWasm } from '../../../src/cpu-fast/kernels/syev-wasm.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { CLUSTER_KINDS, SYM_KINDS, eigenResidual, frob, mat, orthoResidual, symmetricCase, type Mat, type SymKind } from '../../helpers/jacobi-checks.js';
import { Rng } from '../../helpers/random.js';

type Kind = SymKind | 'nan' | 'inf';
const DTYPES: readonly DType[] = ['float64', 'float32'];
const OPTIONS: SyevOptions = { force: { variant: 'tridiagonal' }, tuning: T };
/** Eleven members (odd: a lone last one), the NaN and Inf ones among good ones. */
const KINDS: readonly Kind[] = ['random', 'clustered', 'nan', 'repeated', 'diagonal', 'zero', 'graded', 'inf', 'rank-deficient', ...CLUSTER_KINDS];
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
type Syev = (r: SyevRequest<FloatArray, Int32Array>) => void;

function matrix(rng: Rng, n: number, kind: Kind): Mat {
  if (kind === 'nan' || kind === 'inf') {
    const a = symmetricCase(rng, 'random', n).a;
    const bad = kind === 'nan' ? NaN : Infinity;
    a.d[n - 1] = bad; a.d[(n - 1) * n] = bad;   // A(n-1, 0) and A(0, n-1): in either triangle
    return a;
  }
  return symmetricCase(rng, kind, n).a;
}

/** How the batch lies: back to back, with an odd ld, gaps and an offset, or a list of arrays. */
type Layout = 'packed' | 'odd' | 'list';

interface Placed { batch: Batch<FloatArray>; read(p: number): Mat; outside(): number[] }

/** The matrices as syev sees them: the triangle not referenced set to a marker (-7) that must survive 'values'. */
function place(ms: readonly Mat[], n: number, dtype: DType, layout: Layout, uplo: Uplo, other = -7): Placed {
  const Array_ = dtype === 'float64' ? Float64Array : Float32Array;
  const ld = layout === 'odd' ? n + 3 : Math.max(1, n);
  const stride = layout === 'odd' ? ld * n + 5 : ld * n;
  const offset = layout === 'odd' ? 2 : 0;
  const fill = (data: FloatArray, at: number, m: Mat): void => {
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const mine = uplo === 'lower' ? i >= j : i <= j;
      data[at + i + j * ld] = mine ? m.d[i + j * n]! : other;
    }
  };
  if (layout === 'list') {
    const arrays = ms.map((m) => { const d = new Array_(ld * n + 4).fill(99); fill(d, 0, m); return d; });
    return {
      batch: list(arrays, { rows: n, ld }) as Batch<FloatArray>,
      read: (p) => readAt(arrays[p]!, 0, ld, n),
      outside: () => arrays.flatMap((d) => [...d.subarray(ld * n)]),
    };
  }
  const data = new Array_(offset + stride * ms.length + 3).fill(99);
  ms.forEach((m, p) => fill(data, offset + p * stride, m));
  const inside = new Uint8Array(data.length);
  ms.forEach((_, p) => { for (let j = 0; j < n; j++) inside.fill(1, offset + p * stride + j * ld, offset + p * stride + j * ld + n); });
  return {
    batch: strided(data, { rows: n, ld, stride, offset, count: ms.length }) as Batch<FloatArray>,
    read: (p) => readAt(data, offset + p * stride, ld, n),
    outside: () => [...data].filter((_, k) => inside[k] === 0),
  };
}

function readAt(data: FloatArray, at: number, ld: number, n: number): Mat {
  const m = mat(n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) m.d[i + j * n] = data[at + i + j * ld]!;
  return m;
}

interface Run { info: number[]; w: number[][]; v: Mat[]; outside: number[] }

function run(syev: Syev, ms: readonly Mat[], n: number, dtype: DType, uplo: Uplo, layout: Layout, jobz: 'vectors' | 'values'): Run {
  const A = place(ms, n, dtype, layout, uplo);
  const w = (dtype === 'float64' ? new Float64Array(n * ms.length + 1) : new Float32Array(n * ms.length + 1)).fill(-3);
  const info = new Int32Array(ms.length).fill(-5);
  syev({ jobz, uplo, a: A.batch, w: strided(w, { rows: n, cols: 1, count: ms.length }) as Batch<FloatArray>, info });
  assert.equal(w[n * ms.length], -3, 'nothing written after w');
  return { info: [...info], w: ms.map((_, p) => [...w.subarray(p * n, (p + 1) * n)]), v: ms.map((_, p) => A.read(p)), outside: A.outside() };
}

/** The matrices as the kernel sees them (float32 rounded). */
const rounded = (m: Mat, dtype: DType): Mat => (dtype === 'float64' ? m : { ...m, d: Float64Array.from(Float32Array.from(m.d)) });

function check(n: number, dtype: DType, uplo: Uplo, layout: Layout, seed: number, kinds: readonly Kind[] = KINDS): void {
  const rng = new Rng(seed);
  const ms = kinds.map((kind) => rounded(matrix(rng, n, kind), dtype));
  const label = `syev ${dtype} n=${n} ${uplo} ${layout}`;
  const fast: Syev = (r) => fastSyev(r, OPTIONS);
  const got = run(fast, ms, n, dtype, uplo, layout, 'vectors');
  const want = run(cpuBackend.syev, ms, n, dtype, uplo, layout, 'vectors');
  const values = run(fast, ms, n, dtype, uplo, layout, 'values');
  assert.deepEqual(got.info, want.info, `${label}: info`);
  assert.deepEqual(values.info, want.info, `${label}: info (values)`);
  assert.deepEqual(got.outside, want.outside, `${label}: nothing outside the matrices written`);
  assert.deepEqual(values.outside, want.outside, `${label}: nothing outside the matrices written (values)`);
  const eps = EPS[dtype];
  kinds.forEach((kind, p) => {
    const at = `${label} #${p} (${kind})`;
    const a = ms[p]!, w = got.w[p]!, v = got.v[p]!;
    if (kind === 'nan' || kind === 'inf') {
      assert.equal(got.info[p], n + 2, `${at}: info`);
      assert.ok(w.every(Number.isNaN) && v.d.every(Number.isNaN) && values.w[p]!.every(Number.isNaN), `${at}: NaN outputs`);
      return;
    }
    assert.equal(got.info[p], 0, `${at}: info`);
    for (let j = 1; j < n; j++) assert.ok(w[j - 1]! <= w[j]!, `${at}: w ascending`);
    const res = eigenResidual(a, v, w, eps);
    assert.ok(res < LIMIT, `${at}: ||A V - V W|| ratio ${res}`);
    const orth = orthoResidual(v, eps);
    assert.ok(orth < LIMIT, `${at}: ||V^T V - I|| ratio ${orth}`);
    const bound = LIMIT * Math.max(1, n) * eps * (frob(a) || 1);
    for (let j = 0; j < n; j++) {
      assert.ok(Math.abs(w[j]! - want.w[p]![j]!) <= bound, `${at}: w[${j}] ${w[j]} vs the reference's ${want.w[p]![j]}`);
      // values only runs the root-free QL (tridiagonal-values.ts): the same bound, ascending
      assert.ok(Math.abs(values.w[p]![j]! - want.w[p]![j]!) <= bound && (j === 0 || values.w[p]![j - 1]! <= values.w[p]![j]!), `${at}: values w[${j}]`);
    }
    // 'values' leaves A as it was (the marker of the other triangle too)
    const placed = place([a], n, dtype, 'packed', uplo).read(0);
    assert.deepEqual([...values.v[p]!.d], [...placed.d], `${at}: 'values' leaves A`);
    if (kind === 'zero') assert.ok(w.every((x) => x === 0), `${at}: zero eigenvalues`);
  });
}

describe('cpu-fast syev (tridiagonal path): residuals, and the reference\'s info and eigenvalues', () => {
  test('n = 1 ... 40 and 64, both dtypes, each n in both uplo over the two dtypes; strided with odd ld and gaps, and back to back', () => {
    let seed = 1;
    for (const dtype of DTYPES) for (const n of [...Array.from({ length: 40 }, (_, i) => i + 1), 64]) {
      const uplo: Uplo = (n + (dtype === 'float32' ? 1 : 0)) % 2 ? 'upper' : 'lower';
      check(n, dtype, uplo, n % 3 ? 'odd' : 'packed', seed++, n > 24 ? KINDS.filter((_, k) => k % 2 === 0 || k === 7) : KINDS);
    }
  });
  test('list batches; batches of 1, 2 and 3', () => {
    let seed = 100;
    for (const dtype of DTYPES) for (const n of [3, 8, 17]) {
      check(n, dtype, 'upper', 'list', seed++);
      for (const count of [1, 2, 3]) check(n, dtype, 'lower', 'odd', seed++, KINDS.slice(0, count));
    }
  });
  test('values near float64\'s limits: scaled exactly (2^+-600), the eigenvalues scaled back', () => {
    for (const s of [2 ** 600, 2 ** -600]) {
      const rng = new Rng(9);
      const ms = [symmetricCase(rng, 'random', 6).a, symmetricCase(rng, 'dominant', 6).a].map((m) => ({ ...m, d: m.d.map((x) => x * s) }));
      const got = run((r) => fastSyev(r, OPTIONS), ms, 6, 'float64', 'lower', 'odd', 'vectors');
      const want = run(cpuBackend.syev, ms, 6, 'float64', 'lower', 'odd', 'vectors');
      assert.deepEqual(got.info, [0, 0]);
      ms.forEach((m, p) => {
        // the residuals of A / s and w / s (exact), whose norms do not overflow
        const a = { ...m, d: m.d.map((x) => x / s) };
        const w = got.w[p]!.map((x) => x / s);
        const res = eigenResidual(a, got.v[p]!, w, EPS.float64);
        assert.ok(res < LIMIT, `scale ${s} #${p}: ratio ${res}`);
        w.forEach((x, j) => assert.ok(Math.abs(x - want.w[p]![j]! / s) <= LIMIT * 6 * EPS.float64 * frob(a), `scale ${s} #${p} w[${j}]`));
      });
    }
  });
  test('a matrix whose reflector\'s sum of squares underflows goes to the reference whole (its bits)', () => {
    const rng = new Rng(4);
    const a = symmetricCase(rng, 'random', 5).a;
    for (let i = 1; i < 5; i++) { a.d[i] = 1e-160; a.d[i * 5] = 1e-160; }
    const ms = [symmetricCase(rng, 'random', 5).a, a, symmetricCase(rng, 'random', 5).a];
    for (const jobz of ['vectors', 'values'] as const) {
      const got = run((r) => fastSyev(r, OPTIONS), ms, 5, 'float64', 'lower', 'odd', jobz);
      const want = run(cpuBackend.syev, ms, 5, 'float64', 'lower', 'odd', jobz);
      assert.deepEqual(got.info, want.info);
      assert.deepEqual(got.w[1], want.w[1], `${jobz}: w`);
      assert.deepEqual([...got.v[1]!.d], [...want.v[1]!.d], `${jobz}: A`);
    }
  });
  test('a tridiagonal matrix (every reflector the identity, tau 0), and NaN in the triangle not referenced (ignored)', () => {
    const rng = new Rng(21);
    for (const n of [2, 5, 9, 33]) for (const uplo of ['lower', 'upper'] as const) {
      const t = mat(n, n);
      for (let i = 0; i < n; i++) {
        t.d[i + i * n] = rng.uniform(-2, 2);
        if (i + 1 < n) { const x = rng.uniform(-1, 1); t.d[i + 1 + i * n] = x; t.d[i + (i + 1) * n] = x; }
      }
      const general = symmetricCase(rng, 'random', n).a;
      const ms = [t, general];
      const placed = place(ms, n, 'float64', 'odd', uplo, NaN);
      const w = new Float64Array(2 * n), info = new Int32Array(2).fill(-5);
      fastSyev({ jobz: 'vectors', uplo, a: placed.batch, w: strided(w, { rows: n, cols: 1, count: 2 }) as Batch<FloatArray>, info }, OPTIONS);
      assert.deepEqual([...info], [0, 0], `n = ${n} ${uplo}: info`);
      ms.forEach((a, p) => {
        const v = mat(n, n);
        const m = placed.read(p);
        v.d.set(m.d);   // the vectors over the whole of A (the other triangle's NaN overwritten too)
        const ws = w.subarray(p * n, (p + 1) * n);
        assert.ok(eigenResidual(a, v, ws, EPS.float64) < LIMIT && orthoResidual(v, EPS.float64) < LIMIT, `n = ${n} ${uplo} #${p}`);
      });
    }
  });
  test('heev on real data is the same path (the backend\'s heev and syev give the same bits)', () => {
    const rng = new Rng(12);
    const ms = ['random', 'graded', 'clustered'].map((k) => symmetricCase(rng, k as SymKind, 9).a);
    const viaSyev = run((r) => fastCpuBackend.syev(r), ms, 9, 'float64', 'upper', 'odd', 'vectors');
    const viaHeev = run((r) => fastCpuBackend.heev(r), ms, 9, 'float64', 'upper', 'odd', 'vectors');
    assert.deepEqual(viaHeev, viaSyev);
  });
});

test('spread over the worker pool (the CPU context\'s path): the one-thread results, bit for bit', () => {
  let seed = 700;
  for (const dtype of DTYPES) for (const [n, layout] of [[5, 'odd'], [16, 'list'], [40, 'packed']] as const) {
    const rng = new Rng(seed++);
    const kinds = [...KINDS, ...KINDS, ...SYM_KINDS];
    const ms = kinds.map((kind) => rounded(matrix(rng, n, kind), dtype));
    const one = run((r) => fastSyev(r), ms, n, dtype, 'upper', layout, 'vectors');
    const pool = run((r) => fastCpuBackend.syev(r), ms, n, dtype, 'upper', layout, 'vectors');
    assert.deepEqual(pool, one, `${dtype} n=${n}`);
  }
});

test('the plan: the table\'s ranges per job, n = 0 to the reference, force pins the path', () => {
  assert.equal(planSyev({ n: 0, jobz: 'vectors' }, T), 'reference');
  assert.equal(planSyev({ n: 0, jobz: 'vectors' }, T, { variant: 'tridiagonal' }), 'reference');
  for (const jobz of ['vectors', 'values'] as const) {
    const { min, max } = T.syevTridiagonal[jobz];
    assert.equal(planSyev({ n: min, jobz }, T), 'tridiagonal');
    assert.equal(planSyev({ n: Math.min(max, 4096), jobz }, T), 'tridiagonal');
    if (max < Infinity) assert.equal(planSyev({ n: max + 1, jobz }, T), 'reference');
    if (min > 1) assert.equal(planSyev({ n: min - 1, jobz }, T), 'reference');
    assert.equal(planSyev({ n: 1, jobz }, T, { variant: 'tridiagonal' }), 'tridiagonal');
    assert.equal(planSyev({ n: 100, jobz }, T, { variant: 'reference' }), 'reference');
  }
});

test('the module (rotate, reduce): a pure function of n, valid WebAssembly, a clear error for a bad n', () => {
  assert.deepEqual(generateSyevWasm({ n: 7 }), generateSyevWasm({ n: 7 }));
  assert.notDeepEqual(generateSyevWasm({ n: 7 }), generateSyevWasm({ n: 8 }));
  for (const n of [1, 2, 3, 40]) assert.ok(WebAssembly.validate(generateSyevWasm({ n })), `n = ${n}`);
  for (const n of [0, -1, 2.5]) assert.throws(() => generateSyevWasm({ n }), /syev-wasm: n must be a positive integer/);
});

/**
 * The two-matrix WebAssembly complex QR (kernels/zgeqrf-interleaved.ts through ops/zgeqrf-wasm.ts:
 * geqrf on complex128 and complex64) against the complex reference within rounding (every float of
 * A and tau; NaN where the reference has NaN), and against residuals that do not depend on it:
 * ||A - Q R|| / (max(m, n) ||A|| eps) and ||Q^H Q - I|| / (m eps), Q formed from our reflectors
 * and tau. Shapes 1 ... 16 square and rectangular; back to back, strided with odd ld and gaps, and
 * list batches; odd batches (the last matrix paired with itself) and several chunks of the wasm
 * memory. Members whose lanes take different paths: tau = 0 (a column already reduced, alpha
 * real) beside a reflecting one, alpha purely imaginary with x zero, rank-deficient and
 * ill-conditioned matrices (residuals only: their trailing reflectors are rounding noise), and the
 * pairs the kernel hands back (a NaN, an infinity, values near float64's limits): the failing
 * member then has the reference's bits exactly, its partner the kernel's alone. orgqr (the same kernel family: Q's first n
 * columns from k reflectors) against the reference within rounding and ||Q^H Q - I||, from geqrf's
 * output, with k < n and k = n, a NaN member handed back.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ComplexDType } from '../../../src/core/dtype.js';
import type { FloatArray } from '../../../src/core/dtype.js';
import { fastGeqrfComplex, fastOrgqrComplex, type ComplexPairOptions } from '../../../src/cpu-fast/ops/zfactor.js';
import { generateZgeqrfInterleaved, zgeqrfInterleavedScratch } from '../../../src/cpu-fast/kernels/zgeqrf-interleaved.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { hostComplexOp } from '../../../src/cpu-fast/backend.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { zung2r } from '../../../src/cpu/complex/zqr.js';
import type { GeqrfRequest } from '../../../src/core/op-specs.js';
import type { Batch } from '../../../src/core/batch.js';
import { LIST, ODD, Rng, epsOf, get, identity, multiply, norm, op, place, random, ratio, set, subtract, zeros, type Layout, type Z } from '../../helpers/complex.js';

type Kind = 'random' | 'reduced' | 'imag' | 'deficient' | 'ill' | 'nan' | 'inf' | 'tiny' | 'huge';
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
/** Kinds compared with the reference float by float (the others by residuals, or handed back and so bitwise). */
const CLOSE = new Set<Kind>(['random', 'reduced', 'imag']);
const HANDED_BACK = new Set<Kind>(['nan', 'inf', 'tiny', 'huge']);
/** 11 members: pairs whose lanes differ in kind, a pair handed back by one lane, a lone last matrix. */
const KINDS: readonly Kind[] = ['random', 'reduced', 'imag', 'random', 'deficient', 'ill', 'nan', 'random', 'random', 'tiny', 'huge'];
const PACKED: Layout = { kind: 'strided', pad: 0, gap: 0, offset: 1 };
const SHAPES: [number, number][] = [
  ...Array.from({ length: 16 }, (_, i): [number, number] => [i + 1, i + 1]),
  [5, 3], [3, 5], [16, 9], [9, 16], [16, 1], [1, 16], [2, 7], [13, 4],
];
const OPTIONS: ComplexPairOptions = { force: { variant: 'wasm' }, tuning: T };

function matrix(rng: Rng, m: number, n: number, kind: Kind): Z {
  const a = random(rng, m, n);
  const k = Math.min(m, n);
  const c = Math.min(n - 1, k >> 1);
  // the first column already reduced: zero below a real diagonal (tau(0) = 0 exactly), or below an imaginary one
  if (kind === 'reduced') { for (let i = 1; i < m; i++) set(a, i, 0, 0, 0); set(a, 0, 0, -2.5, 0); }
  if (kind === 'imag') { for (let i = 1; i < m; i++) set(a, i, 0, 0, 0); set(a, 0, 0, 0, 1.5); }
  if (kind === 'deficient') for (let i = 0; i < m; i++) set(a, i, c, ...get(a, i, 0));
  if (kind === 'ill') for (let i = 0; i < m; i++) { const [re, im] = get(a, i, 0); set(a, i, c, re * (1 + 1e-13), im); }
  if (kind === 'nan') set(a, m - 1, c, NaN, 0);
  if (kind === 'inf') set(a, m - 1, 0, Infinity, 1);
  if (kind === 'tiny') for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) set(a, i, j, get(a, i, j)[0] * 1e-150, get(a, i, j)[1] * 1e-150);
  if (kind === 'huge') for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) set(a, i, j, get(a, i, j)[0] * 1e150, get(a, i, j)[1] * 1e150);
  return a;
}

interface Built { request: GeqrfRequest<FloatArray, Int32Array>; read(p: number): Z; tau(p: number): Z; ms: Z[] }

function build(m: number, n: number, dtype: ComplexDType, layout: Layout, seed: number, kinds: readonly Kind[]): Built {
  const rng = new Rng(seed);
  const ms = kinds.map((kind) => matrix(rng, m, n, kind));
  const k = Math.min(m, n);
  const A = place(ms, m, n, dtype, layout, rng.uniform());
  const Tb = place(ms.map(() => zeros(k, 1)), k, 1, dtype, layout.kind === 'list' ? LIST : ODD, -3);
  const request = { a: A.batch as Batch<FloatArray>, tau: Tb.batch as Batch<FloatArray>, info: new Int32Array(ms.length).fill(-5) };
  // the matrices as the kernel sees them (complex64 rounded)
  const seen = ms.map((_, p) => A.read(p));
  return { request, read: A.read, tau: Tb.read, ms: seen };
}

/** Floats of got and want agree within tol (NaN with NaN); bitwise where tol = 0. */
function close(label: string, got: Z, want: Z, tol: number): void {
  for (let i = 0; i < got.d.length; i++) {
    const g = got.d[i]!, w = want.d[i]!;
    if (Number.isNaN(w) || tol === 0) { if (!Object.is(g, w)) assert.fail(`${label}: [${i}] ${g} != ${w}`); continue; }
    if (!(Math.abs(g - w) <= tol * Math.max(1, Math.abs(w)))) assert.fail(`${label}: [${i}] ${g} vs ${w}`);
  }
}

/** Q (m x m) from the reflectors of f and tau (the reference's zung2r on a copy), and R (min(m, n) x n). */
function qAndR(f: Z, tau: Z, m: number, n: number): { q: Z; r: Z } {
  const k = Math.min(m, n);
  const q = zeros(m, m);
  q.d.set(f.d.subarray(0, 2 * m * k));
  zung2r(q.d, tau.d, m, m, k);
  const r = zeros(m, n);
  for (let j = 0; j < n; j++) for (let i = 0; i <= Math.min(j, m - 1); i++) set(r, i, j, ...get(f, i, j));
  return { q, r };
}

function check(m: number, n: number, dtype: ComplexDType, layout: Layout, seed: number, kinds: readonly Kind[] = KINDS): void {
  const label = `geqrf ${dtype} ${m}x${n} pad=${layout.pad} ${layout.kind} count=${kinds.length}`;
  const got = build(m, n, dtype, layout, seed, kinds);
  fastGeqrfComplex(got.request, OPTIONS);
  const want = build(m, n, dtype, layout, seed, kinds);
  complexReference.geqrf(want.request);
  assert.deepEqual([...got.request.info], kinds.map(() => 0), `${label}: info`);
  const eps = epsOf(dtype);
  kinds.forEach((kind, p) => {
    const at = `${label} #${p} (${kind})`;
    // complex64's 'tiny' matrix is zero in float32 (the kernel takes it: tau = 0, numerically the reference's)
    if (HANDED_BACK.has(kind) && !(kind === 'tiny' && dtype === 'complex64')) {
      close(`${at} A`, got.read(p), want.read(p), 0);
      close(`${at} tau`, got.tau(p), want.tau(p), 0);
      return;
    }
    if (CLOSE.has(kind) || kind === 'tiny') {
      const tol = 8 * Math.max(m, n) * eps;
      close(`${at} A`, got.read(p), want.read(p), tol);
      close(`${at} tau`, got.tau(p), want.tau(p), tol);
    }
    const f = got.read(p);
    for (let i = 0; i < Math.min(m, n); i++) assert.ok(get(f, i, i)[1] === 0, `${at}: R has a real diagonal`);
    const { q, r } = qAndR(f, got.tau(p), m, n);
    const a = got.ms[p]!;
    const res = ratio(norm(subtract(multiply(q, r), a)), Math.max(m, n), norm(a), eps);
    assert.ok(res < 30, `${at}: ||A - Q R|| ratio ${res}`);
    const orth = ratio(norm(subtract(multiply(op(q, 'C'), q), identity(m))), m, 1, eps);
    assert.ok(orth < 30, `${at}: ||Q^H Q - I|| ratio ${orth}`);
  });
}

describe('cpu-fast two-matrix complex QR: the reference within rounding, and its residuals', () => {
  test('every shape to 16 (square and rectangular), both types, back to back and strided with odd ld', () => {
    let seed = 11;
    for (const dtype of TYPES) for (const [m, n] of SHAPES) for (const layout of [PACKED, ODD]) check(m, n, dtype, layout, seed++);
  });
  test('list batches, batches of 1, 2 and 3, and one over several chunks of the wasm memory', () => {
    let seed = 500;
    for (const dtype of TYPES) for (const [m, n] of [[4, 4], [16, 16], [9, 5]] as const) {
      check(m, n, dtype, LIST, seed++);
      for (const count of [1, 2, 3]) check(m, n, dtype, ODD, seed++, KINDS.slice(0, count));
    }
    const kinds = Array.from({ length: 83 }, (_, p) => KINDS[p % KINDS.length]!);
    check(16, 16, 'complex128', PACKED, seed++, kinds);
  });
  test('spread over the worker pool (the CPU context\'s path): the one-thread results, bit for bit', () => {
    let seed = 300;
    for (const dtype of TYPES) for (const [m, n] of [[5, 5], [16, 16]] as const) for (const layout of [ODD, LIST]) {
      const one = build(m, n, dtype, layout, seed, KINDS.slice(0, 7));
      fastGeqrfComplex(one.request);
      const pool = build(m, n, dtype, layout, seed++, KINDS.slice(0, 7));
      hostComplexOp('cpu-fast', 'geqrf')(pool.request);
      for (let p = 0; p < 7; p++) {
        assert.deepEqual([...pool.read(p).d], [...one.read(p).d], `geqrf ${dtype} ${m}x${n} #${p}`);
        assert.deepEqual([...pool.tau(p).d], [...one.tau(p).d], `tau ${dtype} ${m}x${n} #${p}`);
      }
    }
  });
  test('a pair handed back by either lane: the failing member runs the reference (bitwise), its partner the kernel alone (the bits of a batch of it alone)', () => {
    const kinds: Kind[] = ['random', 'nan', 'inf', 'random', 'huge', 'huge'];
    for (const dtype of TYPES) {
      const got = build(8, 8, dtype, PACKED, 77, kinds);
      fastGeqrfComplex(got.request, OPTIONS);
      const want = build(8, 8, dtype, PACKED, 77, kinds);
      complexReference.geqrf(want.request);
      for (let p = 0; p < kinds.length; p++) {
        if (HANDED_BACK.has(kinds[p]!)) { close(`#${p}`, got.read(p), want.read(p), 0); close(`tau #${p}`, got.tau(p), want.tau(p), 0); continue; }
        const lone = place([got.ms[p]!], 8, 8, dtype, PACKED, 0);
        const loneTau = place([zeros(8, 1)], 8, 1, dtype, ODD, -3);
        fastGeqrfComplex({ a: lone.batch as Batch<FloatArray>, tau: loneTau.batch as Batch<FloatArray>, info: new Int32Array(1) }, OPTIONS);
        close(`#${p} against itself alone`, got.read(p), lone.read(0), 0);
        close(`tau #${p} against itself alone`, got.tau(p), loneTau.read(0), 0);
        close(`#${p} against the reference`, got.read(p), want.read(p), 8 * 8 * epsOf(dtype));
      }
    }
  });
});

test('the two-matrix QR kernel: a valid module for each shape; its scratch; the plan serves n <= 16', () => {
  for (const [m, n] of [[1, 1], [1, 5], [5, 1], [8, 8], [16, 16], [16, 3]] as const) {
    assert.ok(WebAssembly.validate(generateZgeqrfInterleaved({ op: 'geqrf', m, n })), `${m}x${n}`);
    if (m >= n) for (const k of [1, n]) assert.ok(WebAssembly.validate(generateZgeqrfInterleaved({ op: 'orgqr', m, n, k })), `orgqr ${m}x${n} k=${k}`);
  }
  assert.throws(() => generateZgeqrfInterleaved({ op: 'orgqr', m: 3, n: 4, k: 2 }), /orgqr needs m >= n >= k >= 1/);
  assert.equal(zgeqrfInterleavedScratch({ m: 4, n: 3 }), 4 * 3 * 32);
  assert.throws(() => generateZgeqrfInterleaved({ op: 'geqrf', m: 0, n: 3 }), /m and n must be positive/);
  assert.ok(T.complexQrWasmPairs.min <= 1 && T.complexQrWasmPairs.max >= 16);
});

describe('cpu-fast two-matrix complex orgqr: the reference within rounding, Q^H Q = I', () => {
  test('m >= n >= k, k < n and k = n, both types, strided with odd ld and back to back, a NaN member', () => {
    let seed = 800;
    for (const dtype of TYPES) for (const [m, n, k] of [[1, 1, 1], [4, 4, 4], [5, 3, 3], [8, 8, 5], [16, 16, 16], [16, 9, 9], [13, 7, 2], [16, 16, 1]] as const) {
      for (const layout of [PACKED, ODD, LIST]) {
        const kinds: Kind[] = ['random', 'reduced', 'random', 'nan', 'imag'];
        // geqrf's reflectors of m x k matrices, widened to n columns (the columns after k are overwritten)
        const qr = build(m, k, dtype, PACKED, seed++, kinds);
        complexReference.geqrf(qr.request);
        const ms = kinds.map((_, p) => { const z = zeros(m, n); z.d.set(qr.read(p).d); return z; });
        const taus = kinds.map((_, p) => qr.tau(p));
        const make = () => ({
          a: place(ms, m, n, dtype, layout, -9),
          t: place(taus, k, 1, dtype, layout.kind === 'list' ? LIST : ODD, -3),
        });
        const got = make(), want = make();
        fastOrgqrComplex({ a: got.a.batch as Batch<FloatArray>, tau: got.t.batch as Batch<FloatArray> }, OPTIONS);
        complexReference.orgqr({ a: want.a.batch as Batch<FloatArray>, tau: want.t.batch as Batch<FloatArray> });
        const eps = epsOf(dtype);
        kinds.forEach((kind, p) => {
          const at = `orgqr ${dtype} ${m}x${n} k=${k} ${layout.kind} pad=${layout.pad} #${p} (${kind})`;
          const q = got.a.read(p);
          if (kind === 'nan') { close(at, q, want.a.read(p), 0); return; }
          close(at, q, want.a.read(p), 8 * m * eps);
          const orth = ratio(norm(subtract(multiply(op(q, 'C'), q), identity(n))), m, 1, eps);
          assert.ok(orth < 30, `${at}: ||Q^H Q - I|| ratio ${orth}`);
        });
        assert.deepEqual(got.a.outside(), want.a.outside(), 'nothing outside the matrices written');
      }
    }
  });
});

/**
 * The two-matrix WebAssembly complex SVD (kernels/zgesvd-interleaved.ts through ops/zgesvd-wasm.ts:
 * gesvd on complex128 and complex64) against residuals that do not depend on the reference,
 * ||A - U diag(s) VT|| / (max(m, n) ||A|| eps), ||U^H U - I|| and ||VT VT^H - I|| / (max(m, n)
 * eps) below 30, s descending and non-negative, and against the complex reference: info exactly,
 * s within rounding. Square orders 1 ... 17 (17 past the plan's range: forced), tall and wide
 * shapes, back to back, strided with odd ld and gaps, list batches, odd batch counts (the last
 * matrix alone). Members whose lanes differ: random, graded columns, rank-deficient (a repeated
 * column), a zero column and the zero matrix (an exactly zero singular value: handed to the
 * reference, its bits exactly), values near float64's limits (the reference's scaling), NaN and
 * infinity (info k + 2, NaN outputs, that matrix alone). Values only, U only and VT only give the
 * full call's bits; the worker pool the one-thread bits.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ComplexDType, FloatArray } from '../../../src/core/dtype.js';
import type { GesvdRequest } from '../../../src/core/op-specs.js';
import { fastGesvdComplex, type ComplexPairOptions } from '../../../src/cpu-fast/ops/zfactor.js';
import { generateZgesvdInterleaved, zgesvdInterleavedScratch } from '../../../src/cpu-fast/kernels/zgesvd-interleaved.js';
import { planComplexPairs } from '../../../src/cpu-fast/plan/complex.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { hostComplexOp } from '../../../src/cpu-fast/backend.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import {
  LIST, ODD, Rng, epsOf, get, identity, multiply, norm, op, place, random, ratio, realColumns, scaleColumns, set, subtract, type Layout, type Z,
} from '../../helpers/complex.js';

type Kind = 'random' | 'graded' | 'deficient' | 'zeroColumn' | 'zero' | 'tiny' | 'huge' | 'nan' | 'inf';
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
/** Handed to the reference (an exactly zero singular value) or flagged (not finite): the reference's bits. */
const REFERENCE_BITS = new Set<Kind>(['zeroColumn', 'zero', 'nan', 'inf']);
/** 11 members: pairs of differing kinds, pairs where either lane goes back, a lone last matrix. */
const KINDS: readonly Kind[] = ['random', 'graded', 'deficient', 'random', 'zeroColumn', 'random', 'random', 'nan', 'tiny', 'huge', 'inf'];
const PACKED: Layout = { kind: 'strided', pad: 0, gap: 0, offset: 1 };
const OPTIONS: ComplexPairOptions = { force: { variant: 'wasm' }, tuning: T };

function matrix(rng: Rng, m: number, n: number, kind: Kind, dtype: ComplexDType): Z {
  const a = random(rng, m, n);
  const last = n - 1;
  if (kind === 'graded') return scaleColumns(a, Array.from({ length: n }, (_, j) => (dtype === 'complex64' ? 4 : 10) ** -j));
  if (kind === 'deficient' && n > 1) for (let i = 0; i < m; i++) { const [re, im] = get(a, i, 0); set(a, i, last, 2 * re - im, re + 2 * im); }
  // a zero column of G (A, or A^H where A is wide): an exactly zero singular value
  if (kind === 'zeroColumn' && m >= n) for (let i = 0; i < m; i++) set(a, i, last, 0, 0);
  if (kind === 'zeroColumn' && m < n) for (let j = 0; j < n; j++) set(a, m - 1, j, 0, 0);
  if (kind === 'zero') a.d.fill(0);
  if (kind === 'tiny' || kind === 'huge') a.d.forEach((x, k) => { a.d[k] = x * (kind === 'tiny' ? 2 ** -560 : 2 ** 560); });
  if (kind === 'nan') set(a, m - 1, last, NaN, 0);
  if (kind === 'inf') set(a, 0, 0, 0, -Infinity);
  return a;
}

type Req = GesvdRequest<FloatArray, Int32Array>;
interface Built { request: Req; a: Z[]; s(p: number): number[]; u(p: number): Z; vt(p: number): Z; outside(): number[] }

/** The request over matrices of `kinds` (U and VT where asked for, poisoned with NaN; s strided, odd offset and stride). */
function build(m: number, n: number, dtype: ComplexDType, layout: Layout, seed: number, kinds: readonly Kind[], want: { u: boolean; vt: boolean }): Built {
  const rng = new Rng(seed);
  const complex64 = dtype === 'complex64';
  // tiny and huge members only where float32 holds them
  const ms = kinds.map((kind) => matrix(rng, m, n, complex64 && (kind === 'tiny' || kind === 'huge') ? 'random' : kind, dtype));
  const k = Math.min(m, n);
  const A = place(ms, m, n, dtype, layout);
  const S = realColumns(kinds.length, k, dtype, NaN);
  const U = want.u ? place(ms.map(() => ({ rows: m, cols: k, d: new Float64Array(2 * m * k).fill(NaN) })), m, k, dtype, layout) : undefined;
  const VT = want.vt ? place(ms.map(() => ({ rows: k, cols: n, d: new Float64Array(2 * k * n).fill(NaN) })), k, n, dtype, layout === LIST ? ODD : LIST) : undefined;
  const request: Req = { a: A.batch, s: S.batch, u: U?.batch, vt: VT?.batch, info: new Int32Array(kinds.length).fill(-5) };
  return {
    request, a: ms.map((_, p) => A.read(p)), s: S.read,
    u: (p) => U!.read(p), vt: (p) => VT!.read(p),
    outside: () => [...A.outside(), ...(U?.outside() ?? []), ...(VT?.outside() ?? [])],
  };
}

const ALL = { u: true, vt: true };

function check(m: number, n: number, dtype: ComplexDType, layout: Layout, seed: number, kinds: readonly Kind[] = KINDS, flags = false): void {
  const label = `gesvd ${dtype} ${m}x${n} ${layout.kind} pad=${layout.pad} count=${kinds.length}`;
  const k = Math.min(m, n), big = Math.max(m, n);
  const got = build(m, n, dtype, layout, seed, kinds, ALL);
  // (the padding read back only where the flags are checked: the test's costliest part)
  const outside = flags ? got.outside() : [];
  fastGesvdComplex(got.request, OPTIONS);
  const want = build(m, n, dtype, layout, seed, kinds, ALL);
  complexReference.gesvd(want.request);
  assert.deepEqual([...got.request.info], [...want.request.info], `${label}: info`);
  if (flags) assert.deepEqual(got.outside(), outside, `${label}: A and the padding untouched`);
  const eps = epsOf(dtype);
  kinds.forEach((kind, p) => {
    const at = `${label} #${p} (${kind})`;
    const s = got.s(p), u = got.u(p), vt = got.vt(p);
    if (REFERENCE_BITS.has(kind)) {
      const bits = (x: readonly number[], y: readonly number[], what: string): void =>
        x.forEach((v, i) => { if (!Object.is(v, y[i])) assert.fail(`${at}: ${what}[${i}] ${v} != ${y[i]}`); });
      bits(s, want.s(p), 's');
      bits([...u.d], [...want.u(p).d], 'U');
      bits([...vt.d], [...want.vt(p).d], 'VT');
      if (kind === 'nan' || kind === 'inf') assert.equal(got.request.info[p], k + 2, `${at}: info`);
      return;
    }
    assert.equal(got.request.info[p], 0, `${at}: info`);
    const ref = want.s(p);
    for (let j = 0; j < k; j++) {
      assert.ok(s[j]! >= 0 && (j === 0 || s[j - 1]! >= s[j]!), `${at}: s descending, non-negative`);
      assert.ok(Math.abs(s[j]! - ref[j]!) <= 8 * big * eps * ref[0]!, `${at}: s[${j}] ${s[j]} vs ${ref[j]}`);
    }
    // the residual of A and s scaled back near 1 (norms of the scaled ones over- or underflow)
    const f = dtype === 'complex64' ? 1 : kind === 'tiny' ? 2 ** 560 : kind === 'huge' ? 2 ** -560 : 1;
    const a = { ...got.a[p]!, d: got.a[p]!.d.map((x) => x * f) };
    const r = ratio(norm(subtract(multiply(scaleColumns(u, s.map((x) => x * f)), vt), a)), big, norm(a), eps);
    assert.ok(r < 30, `${at}: ||A - U S VT|| ratio ${r}`);
    const ou = ratio(norm(subtract(multiply(op(u, 'C'), u), identity(k))), big, 1, eps);
    const ov = ratio(norm(subtract(multiply(vt, op(vt, 'C')), identity(k))), big, 1, eps);
    assert.ok(ou < 30 && ov < 30, `${at}: orthonormality ratios ${ou}, ${ov}`);
  });
  if (flags) checkFlags(m, n, dtype, layout, seed, kinds, got);
}

/** Values only, U only, VT only: the full call's bits. */
function checkFlags(m: number, n: number, dtype: ComplexDType, layout: Layout, seed: number, kinds: readonly Kind[], got: Built): void {
  const label = `gesvd ${dtype} ${m}x${n} ${layout.kind} pad=${layout.pad} count=${kinds.length}`;
  for (const want of [{ u: false, vt: false }, { u: true, vt: false }, { u: false, vt: true }]) {
    const part = build(m, n, dtype, layout, seed, kinds, want);
    fastGesvdComplex(part.request, OPTIONS);
    const what = `${label} U ${want.u} VT ${want.vt}`;
    assert.deepEqual([...part.request.info], [...got.request.info], `${what}: info`);
    kinds.forEach((_, p) => {
      assert.deepEqual(part.s(p), got.s(p), `${what} #${p}: s`);
      if (want.u) assert.deepEqual([...part.u(p).d], [...got.u(p).d], `${what} #${p}: U`);
      if (want.vt) assert.deepEqual([...part.vt(p).d], [...got.vt(p).d], `${what} #${p}: VT`);
    });
  }
}

describe('cpu-fast two-matrix complex SVD: residuals, the reference\'s info and values, the flags\' bits', () => {
  test('square orders 1 ... 17, both types, back to back and strided with odd ld', () => {
    let seed = 31;
    for (const dtype of TYPES) for (let n = 1; n <= 17; n++) check(n, n, dtype, n & 1 ? ODD : PACKED, seed++, KINDS, n === 1 || n === 6);
  });
  test('tall and wide, list batches, batches of 1, 2 and 3, and one over several chunks of the wasm memory', () => {
    let seed = 800;
    for (const dtype of TYPES) {
      for (const [m, n] of [[5, 3], [3, 5], [16, 1], [1, 16], [16, 9], [9, 16], [2, 7], [13, 4]] as const) check(m, n, dtype, ODD, seed++, KINDS, m === 5);
      for (const [m, n] of [[6, 6], [8, 3], [3, 8]] as const) {
        check(m, n, dtype, LIST, seed++);
        for (const count of [1, 2, 3]) check(m, n, dtype, PACKED, seed++, KINDS.slice(0, count));
      }
    }
    const kinds = Array.from({ length: 61 }, (_, p) => KINDS[p % KINDS.length]!);
    check(12, 12, 'complex128', PACKED, seed++, kinds);
  });
  test('spread over the worker pool (the CPU context\'s path): the one-thread results, bit for bit', () => {
    let seed = 900;
    for (const dtype of TYPES) for (const [m, n] of [[7, 7], [16, 5], [5, 16]] as const) for (const layout of [ODD, LIST]) {
      const kinds = Array.from({ length: 9 }, (_, p) => KINDS[p % KINDS.length]!);
      const one = build(m, n, dtype, layout, seed, kinds, ALL);
      fastGesvdComplex(one.request);
      const pool = build(m, n, dtype, layout, seed++, kinds, ALL);
      hostComplexOp('cpu-fast', 'gesvd')(pool.request);
      assert.deepEqual([...pool.request.info], [...one.request.info]);
      kinds.forEach((_, p) => {
        assert.deepEqual(pool.s(p), one.s(p), `gesvd ${dtype} ${m}x${n} #${p}: s`);
        assert.deepEqual([...pool.u(p).d, ...pool.vt(p).d], [...one.u(p).d, ...one.vt(p).d], `gesvd ${dtype} ${m}x${n} #${p}: U, VT`);
      });
    }
  });
});

test('the two-matrix SVD kernel: a valid module for each shape; its scratch; the plan', () => {
  for (const [m, n] of [[1, 1], [2, 2], [5, 3], [16, 16], [16, 1]]) for (const vectors of [true, false]) {
    assert.ok(WebAssembly.validate(generateZgesvdInterleaved({ m, n, vectors })), `${m}x${n} ${vectors}`);
  }
  // two pairs' split G (and V) and their columns' squared norms and scales
  assert.equal(zgesvdInterleavedScratch({ m: 5, n: 3, vectors: true }), 2 * ((15 + 9) * 32 + 2 * 3 * 16));
  assert.equal(zgesvdInterleavedScratch({ m: 5, n: 3, vectors: false }), 2 * (15 * 32 + 2 * 3 * 16));
  assert.throws(() => generateZgesvdInterleaved({ m: 2, n: 3, vectors: true }), /m >= n >= 1/);
  const plan = (m: number, n: number): string => planComplexPairs({ op: 'gesvd', m, n }, T);
  assert.equal(plan(16, 16), 'wasm');
  assert.equal(plan(3, 16), 'wasm');
  assert.equal(plan(0, 4), 'reference');
  assert.equal(plan(T.complexGesvdWasmPairs.max + 1, 2), 'reference');
  // above 32 the reference reorthogonalizes V, which the kernel does not: never forced there
  assert.equal(planComplexPairs({ op: 'gesvd', m: 40, n: 33 }, T, { variant: 'wasm' }), 'reference');
  assert.equal(planComplexPairs({ op: 'gesvd', m: 40, n: 32 }, T, { variant: 'wasm' }), 'wasm');
});

/**
 * The two-matrix WebAssembly complex inverse (kernels/zgetri-interleaved.ts through
 * ops/zgetri-wasm.ts: getri on complex128 and complex64, from the reference's getrf) against the
 * complex reference within rounding (every float; info exactly), and against the residual
 * ||A inv(A) - I|| / (n ||A|| ||inv(A)|| eps), which does not depend on it. Orders 1 ... 16;
 * back to back, strided with odd ld and gaps, list batches, a pivot stride above n; odd batches
 * (the last matrix paired with itself) and several chunks of the wasm memory. Members whose lanes
 * differ: pivots (interchanges per lane), Smith's two branches (a mostly imaginary diagonal),
 * ill-conditioned matrices; and the pairs handed back to the reference (an exactly singular U:
 * info and the matrix untouched; a NaN or an infinity), which must then be its bits exactly.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Batch } from '../../../src/core/batch.js';
import type { ComplexDType, FloatArray } from '../../../src/core/dtype.js';
import type { GetriRequest } from '../../../src/core/op-specs.js';
import { fastGetriComplex, type ComplexPairOptions } from '../../../src/cpu-fast/ops/zfactor.js';
import { generateZgetriInterleaved, zgetriInterleavedScratch } from '../../../src/cpu-fast/kernels/zgetri-interleaved.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { hostComplexOp } from '../../../src/cpu-fast/backend.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { LIST, ODD, Rng, epsOf, get, identity, multiply, norm, place, random, ratio, set, subtract, type Layout, type Z } from '../../helpers/complex.js';

type Kind = 'random' | 'imag' | 'ill' | 'singular' | 'nan' | 'inf';
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const HANDED_BACK = new Set<Kind>(['singular', 'nan', 'inf']);
/** 9 members: pairs of differing kinds, pairs handed back by either lane, a lone last matrix. */
const KINDS: readonly Kind[] = ['random', 'imag', 'ill', 'random', 'singular', 'random', 'random', 'nan', 'inf'];
const PACKED: Layout = { kind: 'strided', pad: 0, gap: 0, offset: 1 };
const OPTIONS: ComplexPairOptions = { force: { variant: 'wasm' }, tuning: T };

/** `ill`: two rows apart by a relative `gap` (condition about 1 / gap: 1e-9 for complex128, 1e-3 for complex64). */
function matrix(rng: Rng, n: number, kind: Kind, gap: number): Z {
  const a = random(rng, n, n);
  const k = n >> 1;
  if (kind === 'imag') for (let i = 0; i < n; i++) set(a, i, i, 0.1 * get(a, i, i)[0], 4 + i);
  if (kind === 'ill' && n > 1) for (let j = 0; j < n; j++) { const [re, im] = get(a, 0, j); set(a, n - 1, j, re * (1 + gap), im); }
  if (kind === 'singular') for (let i = 0; i < n; i++) set(a, i, k, 0, 0);
  if (kind === 'nan') set(a, n - 1, k, NaN, 0);
  if (kind === 'inf') set(a, k, 0, Infinity, 0);
  return a;
}

interface Built { request: GetriRequest<FloatArray, Int32Array>; read(p: number): Z; original: Z[] }

/** Matrices of the kinds factored by the reference's getrf: getri's input. */
function build(n: number, dtype: ComplexDType, layout: Layout, seed: number, kinds: readonly Kind[]): Built {
  const rng = new Rng(seed);
  const ms = kinds.map((kind) => matrix(rng, n, kind, dtype === 'complex64' ? 1e-3 : 1e-9));
  const A = place(ms, n, n, dtype, layout, rng.uniform());
  const original = ms.map((_, p) => A.read(p));
  const pivotStride = n + (layout.pad > 0 ? 1 : 0);
  const lu = { a: A.batch as Batch<FloatArray>, ipiv: new Int32Array(kinds.length * pivotStride).fill(-5), pivotStride, info: new Int32Array(kinds.length) };
  complexReference.getrf(lu);
  lu.info.fill(-5);
  return { request: lu, read: A.read, original };
}

function check(n: number, dtype: ComplexDType, layout: Layout, seed: number, kinds: readonly Kind[] = KINDS): void {
  const label = `getri ${dtype} n=${n} pad=${layout.pad} ${layout.kind} count=${kinds.length}`;
  const got = build(n, dtype, layout, seed, kinds);
  fastGetriComplex(got.request, OPTIONS);
  const want = build(n, dtype, layout, seed, kinds);
  complexReference.getri(want.request);
  assert.deepEqual([...got.request.info], [...want.request.info], `${label}: info`);
  const eps = epsOf(dtype);
  kinds.forEach((kind, p) => {
    const at = `${label} #${p} (${kind})`;
    const g = got.read(p), w = want.read(p);
    if (HANDED_BACK.has(kind)) {
      for (let i = 0; i < g.d.length; i++) if (!Object.is(g.d[i], w.d[i])) assert.fail(`${at}: [${i}] ${g.d[i]} != ${w.d[i]}`);
      return;
    }
    let big = 0;
    for (const x of w.d) big = Math.max(big, Math.abs(x));
    const tol = 16 * n * eps * big;
    for (let i = 0; i < g.d.length; i++) if (!(Math.abs(g.d[i]! - w.d[i]!) <= tol)) assert.fail(`${at}: [${i}] ${g.d[i]} vs ${w.d[i]}`);
    const a = got.original[p]!;
    const r = ratio(norm(subtract(multiply(a, g), identity(n))), n, norm(a) * norm(g), eps);
    assert.ok(r < 30, `${at}: ||A inv(A) - I|| ratio ${r}`);
  });
}

describe('cpu-fast two-matrix complex inverse: the reference within rounding, and its residual', () => {
  test('orders 1 ... 16, both types, back to back and strided with odd ld and a pivot stride above n', () => {
    let seed = 21;
    for (const dtype of TYPES) for (let n = 1; n <= 16; n++) for (const layout of [PACKED, ODD]) check(n, dtype, layout, seed++);
  });
  test('list batches, batches of 1, 2 and 3, and one over several chunks of the wasm memory', () => {
    let seed = 600;
    for (const dtype of TYPES) for (const n of [3, 8, 16]) {
      check(n, dtype, LIST, seed++);
      for (const count of [1, 2, 3]) check(n, dtype, ODD, seed++, KINDS.slice(0, count));
    }
    const kinds = Array.from({ length: 83 }, (_, p) => KINDS[p % KINDS.length]!);
    check(16, 'complex128', PACKED, seed++, kinds);
  });
  test('spread over the worker pool (the CPU context\'s path): the one-thread results, bit for bit', () => {
    let seed = 700;
    for (const dtype of TYPES) for (const n of [5, 16]) for (const layout of [ODD, LIST]) {
      const kinds = Array.from({ length: 7 }, (_, p) => KINDS[p % KINDS.length]!);
      const one = build(n, dtype, layout, seed, kinds);
      fastGetriComplex(one.request);
      const pool = build(n, dtype, layout, seed++, kinds);
      hostComplexOp('cpu-fast', 'getri')(pool.request);
      assert.deepEqual([...pool.request.info], [...one.request.info]);
      kinds.forEach((_, p) => assert.deepEqual([...pool.read(p).d], [...one.read(p).d], `getri ${dtype} n=${n} #${p}`));
    }
  });
});

test('the two-matrix inverse kernel: a valid module for each order; its scratch; the plan serves n <= 16', () => {
  for (const n of [1, 2, 5, 8, 16]) assert.ok(WebAssembly.validate(generateZgetriInterleaved({ n })), `n=${n}`);
  assert.equal(zgetriInterleavedScratch({ n: 4 }), 2 * 4 * 4 * 32);
  assert.throws(() => generateZgetriInterleaved({ n: 0 }), /n must be positive/);
  assert.ok(T.complexGetriWasmPairs.min <= 1 && T.complexGetriWasmPairs.max >= 16);
});

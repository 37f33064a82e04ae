/**
 * The two-matrix WebAssembly complex LU (kernels/zgetrf-interleaved.ts, through ops/zgetrf-wasm.ts:
 * getrf and gesv on complex128 and complex64) against the complex reference, bit for bit: every
 * float of every array, info and pivots. The tuning is forced so that the kernel serves every
 * order tested (1 .. 17, 20, 24), with each pair's solve alone and with two pairs' solves side by
 * side, the rows unrolled and (some orders) runtime loops, factored right-looking and in Crout's
 * order (1, 2 and 3 rows a trip), and the batch's members are ordered so that every path runs:
 * pairs that complete (pivots differing per lane, ties of |re| + |im|, Smith's two branches), a
 * pair handed back by either lane (an exactly singular matrix, a NaN below the pivot, an infinite
 * or tiny pivot) beside one that completes and is solved alone, a last pair after the groups, and
 * an odd batch's lone last matrix; across chunks of the wasm memory too.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ComplexDType } from '../../../src/core/dtype.js';
import { fastGesvComplex, fastGetrfComplex, type ComplexLuOptions } from '../../../src/cpu-fast/ops/zfactor.js';
import { generateZgetrfInterleaved, zgetrfInterleavedScratch } from '../../../src/cpu-fast/kernels/zgetrf-interleaved.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { ODD, Rng, get, place, random, set, type Layout, type Z } from '../../helpers/complex.js';
import { assertSameBits } from './harness.js';

type Op = 'getrf' | 'gesv';
type Kind = 'random' | 'tie' | 'ill' | 'singular' | 'nan' | 'tiny' | 'inf' | 'imag';
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
/**
 * 19 members, 9 pairs and a lone last matrix: with two pairs a group, group 0 completes and is
 * solved side by side, group 1's second pair goes back by lane 1 (its first solved alone), group
 * 2's pairs go back by lane 0 and lane 1, group 3's both; then a pair alone (completes).
 */
const KINDS: readonly Kind[] = [
  'random', 'tie', 'imag', 'random', 'random', 'ill', 'random', 'singular', 'singular', 'random',
  'random', 'nan', 'tiny', 'random', 'inf', 'random', 'random', 'ill', 'random',
];
/** Back to back (the drivers' block copies) and strided with ld > n, gaps and an offset (the packing copies). */
const PACKED: Layout = { kind: 'strided', pad: 0, gap: 0, offset: 1 };
const SIZES = [...Array.from({ length: 17 }, (_, i) => i + 1), 20, 24];
/** The orders run with the rows as runtime loops (the same kernel's other form; fewer, for the suite's time). */
const LOOP_SIZES = [1, 2, 3, 5, 8, 12, 16];
/** The orders also run strided with gaps (the copies' other path; the kernel is the same). */
const STRIDED_SIZES = new Set([1, 2, 3, 5, 8, 13, 16, 17, 24]);

/**
 * The WebAssembly variant with the two-matrix kernel at every order, `group` pairs' solves side by
 * side; the pivot search, scaling and solves' rows unrolled or (`loops`) runtime loops at every
 * order.
 */
function options(group: number, loops = false, crout = 0): ComplexLuOptions {
  const complexLuWasmPairLoopMin = loops ? 1 : 99;
  const complexLuWasmPairCrout = { min: crout > 0 ? 1 : 99, rows: Math.max(1, crout) };
  return { force: { variant: 'wasm' }, tuning: { ...T, complexLuWasmPairs: { min: 1, max: 99 }, complexLuWasmPairGroup: group, complexLuWasmPairLoopMin, complexLuWasmPairCrout } };
}

function matrix(rng: Rng, n: number, kind: Kind): Z {
  const a = random(rng, n, n);
  const k = Math.min(n - 1, 1 + (n >> 1));
  if (kind === 'singular') for (let i = 0; i < n; i++) set(a, i, k, 0, 0);
  if (kind === 'nan') set(a, n - 1, 0, NaN, get(a, n - 1, 0)[1]);
  if (kind === 'inf') set(a, k, k, Infinity, 0);
  if (kind === 'tiny') for (let i = 0; i < n; i++) set(a, i, k, get(a, i, k)[0] * 1e-310, 0);
  if (kind === 'ill' && n > 1) for (let j = 0; j < n; j++) { const [re, im] = get(a, 0, j); set(a, n - 1, j, re * (1 + 1e-14), im); }
  // column 0's |re| + |im| equal on rows 1 and 3 and largest there: the first of them is the pivot
  if (kind === 'tie') for (let i = 0; i < n; i++) set(a, i, 0, ...((i === 1 ? [2, -1] : i === 3 ? [-1.5, 1.5] : [0.25, 0.5]) as [number, number]));
  // the diagonal mostly imaginary: Smith's second branch for the reciprocal and the solve's divisions
  if (kind === 'imag') for (let i = 0; i < n; i++) set(a, i, i, 0.1 * get(a, i, i)[0], 4 + i);
  return a;
}

/** One case's request, built afresh from its seed (so the fast run and the reference see equal data). */
function build(op: Op, dtype: ComplexDType, n: number, layout: Layout, seed: number, nrhs: number, kinds: readonly Kind[]): Record<string, unknown> {
  const rng = new Rng(seed);
  const ms = kinds.map((kind) => matrix(rng, n, kind));
  const count = ms.length;
  const a = place(ms, n, n, dtype, layout, rng.uniform()).batch;
  const b = place(ms.map(() => random(rng, n, nrhs)), n, nrhs, dtype, layout, rng.uniform()).batch;
  const lu = { ipiv: new Int32Array(count * (n + 1)).fill(-5), pivotStride: n + 1, info: new Int32Array(count).fill(-5) };
  return op === 'getrf' ? { a, ...lu } : { a, b, ...lu };
}

const FAST = { getrf: fastGetrfComplex, gesv: fastGesvComplex } as const;

function check(op: Op, dtype: ComplexDType, n: number, layout: Layout, seed: number, nrhs: number, opts: ComplexLuOptions, kinds = KINDS): void {
  const label = `${op} ${dtype} n=${n} ${layout.pad} nrhs=${nrhs} group=${opts.tuning?.complexLuWasmPairGroup} count=${kinds.length}`;
  const want = build(op, dtype, n, layout, seed, nrhs, kinds);
  (complexReference[op] as unknown as (r: Record<string, unknown>) => void)(want);
  const got = build(op, dtype, n, layout, seed, nrhs, kinds);
  (FAST[op] as unknown as (r: Record<string, unknown>, o: ComplexLuOptions) => void)(got, opts);
  assertSameBits(label, got, want);
}

describe('cpu-fast two-matrix complex LU matches the complex reference bit for bit', () => {
  // [pairs side by side, rows as runtime loops, Crout's rows (0: right-looking)]: Crout's order with
  // 1, 2 and 3 rows a trip (3 leaves groups of 1 and 2 over)
  for (const [group, loops, crout] of [[1, false, 0], [2, false, 0], [2, true, 0], [2, true, 2], [1, false, 3], [2, false, 1]] as const) {
    for (const op of ['getrf', 'gesv'] as const) {
      const sizes = loops ? LOOP_SIZES : SIZES;
      const order = crout > 0 ? `Crout's order, ${crout} rows a trip` : 'right-looking';
      test(`${op}, ${order}, solves of ${group} pair(s) side by side, rows ${loops ? 'runtime loops' : 'unrolled'}: n = ${sizes.join(', ')}, both types, back to back (and some strided with gaps)`, () => {
        let seed = 7 + 100 * group + (loops ? 50 : 0) + 1000 * crout;
        for (const dtype of TYPES) for (const n of sizes) {
          for (const layout of STRIDED_SIZES.has(n) ? [PACKED, ODD] : [PACKED]) check(op, dtype, n, layout, seed++, 1 + (n % 3 === 0 ? 1 : 0), options(group, loops, crout));
        }
      });
    }
  }
  test('gesv with no right-hand side and with several; batches of 2, 3 and 5', () => {
    let seed = 900;
    for (const group of [1, 2]) for (const dtype of TYPES) for (const n of [4, 16]) {
      for (const nrhs of [0, 3]) check('gesv', dtype, n, PACKED, seed++, nrhs, options(group, group === 2, group === 2 ? 2 : 0));
      for (const count of [2, 3, 5]) check('gesv', dtype, n, ODD, seed++, 1, options(group, group === 2, group === 2 ? 2 : 0), KINDS.slice(0, count));
    }
  });
  test('a batch over several chunks of the wasm memory (n = 16: 61 matrices, random and failing)', () => {
    const kinds = Array.from({ length: 61 }, (_, p) => KINDS[p % KINDS.length]!);
    let seed = 950;
    for (const group of [1, 2]) for (const op of ['getrf', 'gesv'] as const) check(op, 'complex128', 16, PACKED, seed++, 1, options(group, group === 2, group === 2 ? 2 : 0), kinds);
  });
});

test('the two-matrix kernel: a valid module for every order, op, rounding and group; its scratch', () => {
  for (const n of [1, 2, 3, 8, 16]) for (const op of ['getrf', 'gesv'] as const) for (const roundFactor of [false, true]) for (const pairs of [1, 2, 3]) for (const rowLoops of pairs === 2 ? [false, true] : [false]) for (const crout of [0, 1, 2, 3]) {
    // (roundFactor is complex64's gesv: its zero pivot test too)
    const zeroMax = roundFactor ? 2 ** -150 : 0;
    assert.ok(WebAssembly.validate(generateZgetrfInterleaved({ op, n, roundFactor, pairs, rowLoops, crout, zeroMax })), `n=${n} ${op} ${roundFactor} ${pairs} ${rowLoops} ${crout}`);
  }
  // a pair's scratch: the split matrix, B's split column, the reciprocal
  assert.equal(zgetrfInterleavedScratch({ op: 'gesv', n: 4, pairs: 2 }), 2 * (4 * 4 * 32 + 4 * 32 + 32), 'gesv: a pair\'s scratch for each pair of a trip');
  assert.equal(zgetrfInterleavedScratch({ op: 'getrf', n: 4, pairs: 2 }), 4 * 4 * 32 + 4 * 32 + 32, 'getrf: one pair a trip');
  const { min, max } = T.complexLuWasmPairs;
  assert.ok(min >= 1 && max >= 16 && max <= T.complexLuWasm.gesv.max, 'the pairs serve n <= 16 within the WebAssembly range');
  assert.ok(T.complexLuWasmPairGroup >= 1);
  assert.ok(T.complexLuWasmPairCrout.rows >= 1, 'Crout\'s order takes at least one row a trip');
});

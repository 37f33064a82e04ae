/**
 * The WebAssembly complex LU (kernels/zgetrf-wasm.ts: getrf, gesv, getrs 'N' on complex128 and
 * complex64) against the complex reference, bit for bit: every float of every array (padding,
 * gaps), info and pivots, for every order to 17 and a few to 25 (forced, so that the test does not depend on the
 * tuning table's range), on strided batches with ld > n, gaps and offsets, and list batches. Each
 * batch mixes random, exactly singular (a zero column: info = first zero pivot), NaN-holding,
 * ill-conditioned (two nearly equal rows) and tiny-pivot members (subnormal column: the kernel
 * leaves the matrix to the reference); the plan's choices by n and trans.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ComplexDType } from '../../../src/core/dtype.js';
import type { ComplexOp } from '../../../src/core/op-specs.js';
import { fastGesvComplex, fastGetrfComplex, fastGetrsComplex, type ComplexLuOptions } from '../../../src/cpu-fast/ops/zfactor.js';
import { planComplexLu } from '../../../src/cpu-fast/plan/complex.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { LIST, ODD, Rng, get, place, random, set, type Layout, type Z } from '../../helpers/complex.js';
import { assertSameBits } from './harness.js';

type Op = 'getrf' | 'gesv' | 'getrs';
type Kind = 'random' | 'singular' | 'nan' | 'ill' | 'tiny' | 'inf';
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
/**
 * Members in this order: the kernel takes gesv's and getrs's matrices in groups (complexLuWasmGroup;
 * tested with 1 to 4), so that a group that all factor, one with some failing or deferred, and a
 * remainder taken one by one all occur.
 */
const KINDS: readonly Kind[] = ['random', 'ill', 'random', 'singular', 'nan', 'tiny', 'inf', 'random'];
const WASM: ComplexLuOptions = { force: { variant: 'wasm' } };
/** Back to back (ld = n, no gap): the drivers' block copies. */
const PACKED: Layout = { kind: 'strided', pad: 0, gap: 0, offset: 1 };
const LAYOUTS: readonly Layout[] = [ODD, LIST, PACKED];
/** Every order to 17, and past the tuning table's range (asserted below). */
const SIZES = [...Array.from({ length: 17 }, (_, i) => i + 1), 20, 24, 25];

function matrix(rng: Rng, n: number, kind: Kind): Z {
  const a = random(rng, n, n);
  if (kind === 'random') return a;
  const k = Math.min(n - 1, 1 + (n >> 1));
  if (kind === 'singular') for (let i = 0; i < n; i++) set(a, i, k, 0, 0);
  if (kind === 'nan') set(a, n - 1, 0, NaN, get(a, n - 1, 0)[1]);
  if (kind === 'inf') set(a, k, k, Infinity, 0);
  if (kind === 'tiny') for (let i = 0; i < n; i++) set(a, i, k, get(a, i, k)[0] * 1e-310, 0);
  if (kind === 'ill' && n > 1) for (let j = 0; j < n; j++) { const [re, im] = get(a, 0, j); set(a, n - 1, j, re * (1 + 1e-14), im); }
  return a;
}

/** One case's request, built afresh from its seed (so the fast run and the reference see equal data). */
function build(op: Op, dtype: ComplexDType, n: number, layout: Layout, seed: number, nrhs: number): Record<string, unknown> {
  const rng = new Rng(seed);
  const ms = KINDS.map((kind) => matrix(rng, n, kind));
  const count = ms.length;
  const a = place(ms, n, n, dtype, layout, rng.uniform()).batch;
  const b = place(ms.map(() => random(rng, n, nrhs)), n, nrhs, dtype, layout, rng.uniform()).batch;
  const lu = { ipiv: new Int32Array(count * (n + 1)).fill(-5), pivotStride: n + 1, info: new Int32Array(count).fill(-5) };
  if (op === 'getrf') return { a, ...lu };
  if (op === 'gesv') return { a, b, ...lu };
  complexReference.getrf({ a, ...lu });
  return { trans: 'N' as ComplexOp, a, b, ...lu };
}

const FAST = { getrf: fastGetrfComplex, gesv: fastGesvComplex, getrs: fastGetrsComplex } as const;

function check(op: Op, dtype: ComplexDType, n: number, layout: Layout, seed: number, nrhs: number, options = WASM): void {
  const label = `${op} ${dtype} n=${n} ${layout.kind} nrhs=${nrhs} group=${(options.tuning ?? T).complexLuWasmGroup}`;
  const want = build(op, dtype, n, layout, seed, nrhs);
  (complexReference[op] as unknown as (r: Record<string, unknown>) => void)(want);
  const got = build(op, dtype, n, layout, seed, nrhs);
  (FAST[op] as unknown as (r: Record<string, unknown>, o: ComplexLuOptions) => void)(got, options);
  assertSameBits(label, got, want);
}

describe('cpu-fast complex WebAssembly LU matches the complex reference bit for bit', () => {
  for (const op of ['getrf', 'gesv', 'getrs'] as const) {
    test(`${op}: n = 1 .. 17, 20, 24, 25, both types, strided (ld > n, gaps, offset; back to back) and list batches`, () => {
      let seed = 1;
      for (const dtype of TYPES) for (const n of SIZES) {
        for (const layout of LAYOUTS) check(op, dtype, n, layout, seed++, 1 + (n % 3 === 0 ? 1 : 0));
      }
    });
  }
  test('gesv and getrs with 1, 2 and 4 matrices a group', () => {
    let seed = 300;
    for (const group of [1, 2, 4]) {
      const options: ComplexLuOptions = { ...WASM, tuning: { ...T, complexLuWasmGroup: group } };
      for (const op of ['gesv', 'getrs'] as const) for (const dtype of TYPES) for (const n of [1, 2, 5, 16]) check(op, dtype, n, PACKED, seed++, 1 + (n % 2), options);
    }
  });
  test('the solves, and the pivot search and interchange, looped at every n and unrolled at every n', () => {
    let seed = 400;
    const cases = [
      { knob: 'complexLuWasmSolveLoopMin', ops: ['gesv', 'getrs'], sizes: [1, 2, 3, 4, 5, 8, 16] },
      { knob: 'complexLuWasmFactorLoopMin', ops: ['getrf', 'gesv'], sizes: [1, 2, 3, 4, 5, 8, 16, 24, 25] },
    ] as const;
    for (const { knob, ops, sizes } of cases) for (const loopMin of [1, 99]) {
      const options: ComplexLuOptions = { ...WASM, tuning: { ...T, [knob]: loopMin } };
      for (const op of ops) for (const dtype of TYPES) for (const n of sizes) {
        check(op, dtype, n, n % 2 === 0 ? PACKED : ODD, seed++, 1 + (n % 3 === 0 ? 1 : 0), options);
      }
    }
  });
  test('gesv with no right-hand side, and with several', () => {
    for (const dtype of TYPES) for (const n of [5, 16]) for (const nrhs of [0, 4]) for (const layout of [ODD, PACKED]) check('gesv', dtype, n, layout, 50 + n + nrhs, nrhs);
  });
});

test('plan: WebAssembly LU in its range (getrs only with N), forced wasm where it does not apply is JavaScript', () => {
  const { getrf, gesv, getrs } = T.complexLuWasm;
  for (const [op, range] of [['getrf', getrf], ['gesv', gesv], ['getrs', getrs]] as const) {
    assert.ok(range.max >= 16 && range.max < SIZES[SIZES.length - 1]!, `${op}: the tests above reach past the range`);
    assert.equal(planComplexLu({ op, m: range.max, n: range.max, trans: 'N' }, T), 'wasm');
    assert.equal(planComplexLu({ op, m: range.max + 1, n: range.max + 1, trans: 'N' }, T), 'reference');
    assert.equal(planComplexLu({ op, m: range.max, n: range.max, trans: 'N' }, T, { variant: 'reference' }), 'reference');
    if (range.min > 1) assert.equal(planComplexLu({ op, m: range.min - 1, n: range.min - 1, trans: 'N' }, T), 'unrolled');
  }
  assert.equal(planComplexLu({ op: 'getrf', m: 4, n: 5, trans: 'N' }, T, { variant: 'wasm' }), 'reference', 'not square');
  assert.equal(planComplexLu({ op: 'getrs', m: 8, n: 8, trans: 'C' }, T), 'unrolled');
  assert.equal(planComplexLu({ op: 'getrs', m: 8, n: 8, trans: 'T' }, T, { variant: 'wasm' }), 'unrolled');
  assert.equal(planComplexLu({ op: 'getrs', m: 16, n: 16, trans: 'T' }, T), 'reference');
  assert.equal(planComplexLu({ op: 'getrf', m: 2, n: 2, trans: 'N' }, T), 'unrolled');
  assert.equal(planComplexLu({ op: 'gesv', m: 0, n: 0, trans: 'N' }, T, { variant: 'wasm' }), 'reference');
});

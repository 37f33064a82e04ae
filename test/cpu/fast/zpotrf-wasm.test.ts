/**
 * The WebAssembly complex Cholesky kernel (kernels/zpotrf-wasm.ts), forced, against the complex
 * reference bit for bit (every float of every array: the other triangle, padding, gaps; info):
 * potrf, posv and potrs on n = 1 ... 20, complex128 and complex64, 'lower' and 'upper', strided
 * batches with ld > n, gaps and offsets, list batches, members that fail at every step k, members
 * holding NaN or infinity, several right-hand sides; and the plan's choice of it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostComplexOp } from '../../../src/cpu-fast/backend.js';
import type { Batch } from '../../../src/core/batch.js';
import type { ComplexDType, FloatArray } from '../../../src/core/dtype.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { fastPosvComplex, fastPotrfComplex, fastPotrsComplex, type ComplexCholeskyOptions } from '../../../src/cpu-fast/ops/zfactor.js';
import { planComplexCholesky } from '../../../src/cpu-fast/plan/complex.js';
import { DEFAULT_CPU_TUNING } from '../../../src/cpu-fast/tuning.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { LIST, ODD, Rng, get, place, random, randomHpd, set, type Layout, type Z } from '../../helpers/complex.js';
import { assertSameBits, splitAcrossThreads } from './harness.js';

splitAcrossThreads(2);

type Op = 'potrf' | 'posv' | 'potrs';
type Uplo = 'lower' | 'upper';
interface Request { uplo: Uplo; a: Batch<FloatArray>; b: Batch<FloatArray>; info: Int32Array }
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
/** The kernels' row blocks and the pairs' range for the next forced runs (the table's by default). */
let shape: Partial<{ rows: number; pairs: { min: number; max: number }; pairRows: number }> = {};
const forced = (): ComplexCholeskyOptions => {
  const tuning = cpuTuning();
  return { force: { variant: 'wasm' }, tuning: { ...tuning, complexCholeskyWasm: { ...tuning.complexCholeskyWasm, ...shape } } };
};
const FAST: Readonly<Record<Op, (r: Request) => void>> = {
  potrf: (r) => fastPotrfComplex({ uplo: r.uplo, a: r.a, info: r.info }, forced()),
  posv: (r) => fastPosvComplex(r, forced()),
  potrs: (r) => fastPotrsComplex(r, forced()),
};
const REFERENCE: Readonly<Record<Op, (r: Request) => void>> = {
  potrf: (r) => complexReference.potrf({ uplo: r.uplo, a: r.a, info: r.info }),
  posv: (r) => complexReference.posv(r),
  potrs: (r) => complexReference.potrs(r),
};

/** What member p holds beyond a random HPD matrix. */
type Twist = { kind: 'none' } | { kind: 'fail'; k: number } | { kind: 'value'; i: number; j: number; v: number };

/** Member p: HPD, failing at step k (a non-positive diagonal), or with NaN / infinity at (i, j) of the referenced triangle. */
function member(rng: Rng, n: number, twist: Twist, uplo: Uplo): Z {
  const a = randomHpd(rng, n);
  if (twist.kind === 'fail') set(a, twist.k, twist.k, -get(a, twist.k, twist.k)[0] * 0.5, get(a, twist.k, twist.k)[1]);
  if (twist.kind === 'value') {
    const [i, j] = uplo === 'lower' ? [twist.i, twist.j] : [twist.j, twist.i];
    set(a, i, j, twist.v, i === j ? 0 : 0.5);
  }
  // a stray imaginary part on the diagonal (ignored by the factorisation, read by potrs)
  set(a, 0, 0, get(a, 0, 0)[0], 0.25);
  return a;
}

/** Twists that fail at every step k and place NaN / infinity on and below the diagonal. */
function twists(rng: Rng, n: number): Twist[] {
  const out: Twist[] = [{ kind: 'none' }];
  for (let k = 0; k < n; k++) out.push({ kind: 'fail', k });
  const i = Math.floor(rng.uniform(0, n)), j = Math.floor(rng.uniform(0, i + 1));
  out.push({ kind: 'value', i, j, v: NaN }, { kind: 'value', i: n - 1, j: 0, v: NaN }, { kind: 'value', i, j, v: Infinity });
  // a zero (and a negative zero) leading diagonal: d = 0 is not positive
  out.push({ kind: 'value', i: 0, j: 0, v: 0 }, { kind: 'value', i: 0, j: 0, v: -0 });
  out.push({ kind: 'none' });
  return out;
}

/**
 * Each twist beside a positive definite member, in the first lane or the second (alternating with
 * n, so each step's failure meets both lanes over the sizes), then a pair that factors and one
 * more: the pairs kernel sees failures in either lane, pairs that factor, and a remainder. B holds
 * a NaN and an infinity in members that factor.
 */
function paired(rng: Rng, n: number): Twist[] {
  const none: Twist = { kind: 'none' };
  return [...twists(rng, n).flatMap((t, k) => ((k + n) % 2 ? [none, t] : [t, none])), none, none, none];
}

function build(op: Op, dtype: ComplexDType, n: number, layout: Layout, seed: number, uplo: Uplo, nrhs: number, pairs = false): Request {
  const rng = new Rng(seed);
  const ms = (pairs ? paired(rng, n) : twists(rng, n)).map((t) => member(rng, n, t, uplo));
  const a = place(ms, n, n, dtype, layout, rng.uniform()).batch;
  const bs = ms.map(() => random(rng, n, nrhs));
  if (pairs && nrhs > 0) {
    set(bs[bs.length - 3]!, n - 1, 0, NaN, 1);
    set(bs[bs.length - 2]!, 0, nrhs - 1, 2, -Infinity);
  }
  const b = place(bs, n, nrhs, dtype, layout, rng.uniform()).batch;
  if (op === 'potrs') complexReference.potrf({ uplo, a, info: new Int32Array(ms.length) });
  return { uplo, a, b, info: new Int32Array(ms.length).fill(-5) };
}

/** The fast run: forced onto the kernel on this thread, or planned and spread over the worker pool. */
function check(op: Op, dtype: ComplexDType, n: number, layout: Layout, seed: number, uplo: Uplo, nrhs: number, threaded = false, pairs = false): void {
  const label = `${op} ${dtype} n=${n} ${layout.kind} ${uplo} nrhs=${nrhs} threads=${threaded} pairs=${pairs}`;
  const want = build(op, dtype, n, layout, seed, uplo, nrhs, pairs);
  REFERENCE[op](want);
  const got = build(op, dtype, n, layout, seed, uplo, nrhs, pairs);
  if (threaded) hostComplexOp('cpu-fast', op)(op === 'potrf' ? { uplo: got.uplo, a: got.a, info: got.info } : got);
  else FAST[op](got);
  assertSameBits(label, got, want);
  if (op !== 'potrs') assert.ok(want.info.some((v) => v > 0) && want.info[0] === 0, `${label}: the batch holds failing and passing members`);
}

const STRIDED: Layout = { kind: 'strided', pad: 0, gap: 0, offset: 1 };

describe('cpu-fast complex Cholesky in WebAssembly matches the complex reference bit for bit', () => {
  for (const op of ['potrf', 'posv', 'potrs'] as const) {
    test(`${op}: n = 1 ... 20, both types, both triangles`, () => {
      let seed = 7;
      for (const dtype of TYPES) for (const uplo of ['lower', 'upper'] as const) for (let n = 1; n <= 20; n++) {
        const layout = n % 3 === 0 ? LIST : n % 3 === 1 ? ODD : STRIDED;
        check(op, dtype, n, layout, seed++, uplo, op === 'potrf' ? 1 : 1 + (n % 3));
      }
    });
  }
  test('planned and spread over two threads (the kernel in the workers)', () => {
    let seed = 500;
    const { factor, potrs } = cpuTuning().complexCholeskyWasm;
    for (const op of ['potrf', 'posv', 'potrs'] as const) for (const dtype of TYPES) {
      const n = op === 'potrs' ? potrs.min : factor[dtype].min + 1;
      check(op, dtype, n, seed % 2 ? ODD : LIST, seed++, seed % 3 ? 'upper' : 'lower', 2, true);
    }
  });
  test('row blocks of 2 and 3 (the table measured 1 best)', () => {
    let seed = 900;
    try {
      for (const r of [2, 3]) {
        shape = { rows: r, pairs: { min: 1, max: 0 } };
        for (const op of ['potrf', 'posv'] as const) for (const n of [7, 13]) check(op, 'complex128', n, ODD, seed++, seed % 2 ? 'upper' : 'lower', 1);
      }
    } finally {
      shape = {};
    }
  });
  test('two matrices at a time: n = 1 ... 20, both types, both triangles, failures in either lane, odd counts', () => {
    let seed = 1100;
    try {
      for (const op of ['potrf', 'posv'] as const) for (const dtype of TYPES) for (const uplo of ['lower', 'upper'] as const) for (let n = 1; n <= 20; n++) {
        shape = { pairs: { min: 1, max: 32 }, pairRows: 1 + (n % 3) };
        const layout = n % 3 === 0 ? LIST : n % 3 === 1 ? ODD : STRIDED;
        check(op, dtype, n, layout, seed++, uplo, op === 'potrf' ? 1 : n % 4, false, true);
      }
    } finally {
      shape = {};
    }
  });
  test('complex64 back to back: the other triangle keeps its bits (signalling and payload NaNs)', () => {
    // The block path rounds only the triangle and sends the rest back as the caller's float32
    // bits; a float32 NaN through float64 and back may come back quieted.
    const NANS = [0x7f800001, 0xffa00005, 0x7fc12345, 0xff812345];
    const bitsOf = (r: Request): Uint32Array => {
      if (r.a.kind !== 'strided') throw new Error('strided only');
      return new Uint32Array(r.a.data.buffer, r.a.data.byteOffset, r.a.data.length);
    };
    const poke = (r: Request, n: number): void => {
      const bits = bitsOf(r);
      if (r.a.kind !== 'strided') return;
      for (let p = 0; p < r.a.count; p++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        if (r.uplo === 'lower' ? i >= j : i <= j) continue;
        const at = 2 * (r.a.offset + p * r.a.stride + i + j * r.a.ld);
        bits[at] = NANS[(i + j + p) % 4]!;
        bits[at + 1] = NANS[(i + 2 * j + p) % 4]!;
      }
    };
    let seed = 1300;
    for (const op of ['potrf', 'posv'] as const) for (const uplo of ['lower', 'upper'] as const) for (const n of [13, 16]) {
      const want = build(op, 'complex64', n, STRIDED, seed, uplo, 2);
      const got = build(op, 'complex64', n, STRIDED, seed++, uplo, 2);
      poke(want, n);
      poke(got, n);
      REFERENCE[op](want);
      FAST[op](got);
      const label = `${op} complex64 n=${n} ${uplo} NaN bits in the other triangle`;
      assertSameBits(label, got, want);
      // assertSameBits takes every NaN as equal: the words themselves
      assert.deepEqual(bitsOf(got), bitsOf(want), label);
    }
  });
  test('posv and potrs with no right-hand side', () => {
    for (const op of ['posv', 'potrs'] as const) for (const uplo of ['lower', 'upper'] as const) check(op, 'complex128', 9, ODD, 3, uplo, 0);
  });
  test('the default table reaches the tests: its ranges start within n = 20', () => {
    const { factor, potrs } = cpuTuning().complexCholeskyWasm;
    assert.ok(factor.complex128.min <= 20 && factor.complex64.min <= 20 && potrs.min <= 20);
  });
});

describe('planComplexCholesky', () => {
  const T = DEFAULT_CPU_TUNING;
  const { factor, potrs } = T.complexCholeskyWasm;
  test('wasm within its ranges, the unrolled kernel or the reference outside', () => {
    for (const dtype of TYPES) for (const op of ['potrf', 'posv'] as const) {
      const { min, max } = factor[dtype];
      assert.equal(planComplexCholesky({ op, m: min, n: min, dtype }, T), 'wasm');
      assert.equal(planComplexCholesky({ op, m: max, n: max, dtype }, T), 'wasm');
      assert.equal(planComplexCholesky({ op, m: max + 1, n: max + 1, dtype }, T), 'reference');
      assert.equal(planComplexCholesky({ op, m: min - 1, n: min - 1, dtype }, T), min - 1 <= T.complexUnrollMax.cholesky ? 'unrolled' : 'reference');
    }
    assert.equal(planComplexCholesky({ op: 'potrs', m: potrs.min, n: potrs.min, dtype: 'complex64' }, T), 'wasm');
    assert.equal(planComplexCholesky({ op: 'potrs', m: potrs.min - 1, n: potrs.min - 1, dtype: 'complex128' }, T), 'unrolled');
    assert.equal(planComplexCholesky({ op: 'potrs', m: potrs.max + 1, n: potrs.max + 1, dtype: 'complex128' }, T), 'reference');
  });
  test('a table without the range, empty and non-square matrices, force', () => {
    const none = { min: 1, max: 0 };
    const off = { ...T, complexCholeskyWasm: { ...T.complexCholeskyWasm, factor: { complex128: none, complex64: none } } };
    assert.equal(planComplexCholesky({ op: 'potrf', m: 12, n: 12, dtype: 'complex128' }, off), 'unrolled');
    assert.equal(planComplexCholesky({ op: 'posv', m: 0, n: 0, dtype: 'complex128' }, T), 'reference');
    assert.equal(planComplexCholesky({ op: 'potrf', m: 3, n: 4, dtype: 'complex128' }, T, { variant: 'wasm' }), 'reference');
    assert.equal(planComplexCholesky({ op: 'potrf', m: 3, n: 3, dtype: 'complex64' }, T, { variant: 'wasm' }), 'wasm');
    assert.equal(planComplexCholesky({ op: 'potrf', m: 16, n: 16, dtype: 'complex128' }, T, { variant: 'reference' }), 'reference');
    assert.equal(planComplexCholesky({ op: 'posv', m: 16, n: 16, dtype: 'complex128' }, T, { variant: 'unrolled' }), 'unrolled');
  });
});

/**
 * The fast backend's complex gemm and trsm kernels (kernels/zgemm-wasm.ts, zgemm-js.ts, ztrsm-js.ts)
 * against the complex reference, bit for bit: every float of C or B (padding and gaps included) on
 * shapes to one past the tuning table's complexUnrollMax.gemm, complexGemmWasm and .trsm (the
 * reference beyond), random shapes with each gemm variant forced, every pair of
 * transposes (gemm) and every side, triangle, operation and diagonal (trsm), both types, strided
 * batches with odd ld, stride and offset, list batches, alpha = 0 (A and B hold NaN: never read),
 * beta = 0 (C holds NaN: never read), alpha = 0 with beta = 1 and k = 0, on one thread (the serial
 * kernels) and spread over two (the worker pool, the copies for the workers included).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostComplexOp } from '../../../src/cpu-fast/backend.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { fastGemmComplex } from '../../../src/cpu-fast/ops/zgemm.js';
import type { ComplexGemmVariant } from '../../../src/cpu-fast/plan/complex.js';
import { fastTrsmComplex } from '../../../src/cpu-fast/ops/ztrsm.js';
import type { ComplexDType, FloatArray } from '../../../src/core/dtype.js';
import type { ComplexGemmRequest, ComplexOp, ComplexScalar, ComplexTrsmRequest } from '../../../src/core/op-specs.js';
import type { Diag, Side, Uplo } from '../../../src/core/enums.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { LIST, ODD, Rng, place, random, type Layout, type Z } from '../../helpers/complex.js';
import { splitAcrossThreads } from './harness.js';

splitAcrossThreads(2);

const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const OPS: readonly ComplexOp[] = ['N', 'T', 'C'];
const LAYOUTS: readonly Layout[] = [ODD, LIST, { kind: 'strided', pad: 0, gap: 0, offset: 1 }];

interface GemmCase {
  readonly m: number; readonly n: number; readonly k: number;
  readonly transA: ComplexOp; readonly transB: ComplexOp;
  readonly alpha: ComplexScalar; readonly beta: ComplexScalar;
  readonly dtype: ComplexDType; readonly layout: Layout; readonly count: number;
  /** NaN in A and B (alpha = 0) or in C (beta = 0): values the operation must not read. */
  readonly poison?: 'ab' | 'c';
}

const filled = (rows: number, cols: number, value: number): Z => ({ rows, cols, d: new Float64Array(2 * rows * cols).fill(value) });

/** The request of one case, built afresh from its seed (so the fast run and the reference see equal data). */
function build(c: GemmCase, seed: number): { r: ComplexGemmRequest<FloatArray>; c: FloatArray[] } {
  const rng = new Rng(seed);
  const [ar, ac] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [br, bc] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  const batch = (rows: number, cols: number, nan: boolean): ComplexGemmRequest<FloatArray>['a'] =>
    place(Array.from({ length: c.count }, () => (nan ? filled(rows, cols, NaN) : random(rng, rows, cols))), rows, cols, c.dtype, c.layout, rng.uniform()).batch;
  const a = batch(ar, ac, c.poison === 'ab');
  const b = batch(br, bc, c.poison === 'ab');
  const cb = batch(c.m, c.n, c.poison === 'c');
  const r: ComplexGemmRequest<FloatArray> = { transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta, a, b, c: cb };
  return { r, c: cb.kind === 'strided' ? [cb.data] : cb.kind === 'list' ? cb.matrices.map((x) => x.data) : [] };
}

/** Every float of two sets of arrays, bit for bit. */
function sameBits(label: string, got: FloatArray[], want: FloatArray[]): void {
  assert.equal(got.length, want.length, label);
  got.forEach((x, q) => {
    const y = want[q]!;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) assert.fail(`${label}: array ${q} [${i}] ${x[i]} != ${y[i]}`);
  });
}

function check(c: GemmCase, seed: number, threaded: boolean, variant?: ComplexGemmVariant): void {
  const label = `gemm ${c.dtype} ${c.m}x${c.n}x${c.k} ${c.transA}${c.transB} alpha=${c.alpha} beta=${c.beta} ${c.layout.kind} threads=${threaded} variant=${variant}`;
  const want = build(c, seed);
  complexReference.gemm(want.r);
  const got = build(c, seed);
  if (threaded) hostComplexOp('cpu-fast', 'gemm')(got.r);
  else fastGemmComplex(got.r, variant ? { force: { variant } } : {});
  sameBits(label, got.c, want.c);
}

const ALPHA: ComplexScalar = [0.75, -1.25];
const BETA: ComplexScalar = [-0.5, 0.375];

describe('cpu-fast complex gemm matches the complex reference bit for bit', () => {
  const max = cpuTuning().complexUnrollMax.gemm;
  test('the tests reach past the kernel sizes', () => assert.ok(max < 13));
  test('every pair of transposes, both types, strided and list batches, one thread', () => {
    let seed = 1;
    for (const dtype of TYPES) for (const transA of OPS) for (const transB of OPS) {
      for (const [m, n, k] of [[1, 1, 1], [2, 2, 2], [3, 5, 4], [4, 4, 4], [7, 2, 6], [8, 8, 8]] as const) {
        const layout = LAYOUTS[seed % LAYOUTS.length]!;
        check({ m, n, k, transA, transB, alpha: ALPHA, beta: BETA, dtype, layout, count: 3 }, seed++, false);
      }
    }
  });
  test('shapes to one past the kernels, rectangular and k = 0', () => {
    let seed = 200;
    const wasm = Math.max(...Object.values(cpuTuning().complexGemmWasm).map((r) => r.max));
    const shapes = [[max, max, max], [max + 1, max, max], [max, max + 1, 2], [3, 2, max + 1], [5, 9, 11], [1, 12, 3], [4, 3, 0],
      [wasm, 3, 2], [2, wasm + 1, 3], [wasm, 2, wasm + 1], [wasm, wasm, wasm]] as const;
    for (const dtype of TYPES) for (const [m, n, k] of shapes) {
      check({ m, n, k, transA: 'C', transB: 'T', alpha: ALPHA, beta: BETA, dtype, layout: ODD, count: 2 }, seed++, false);
      check({ m, n, k, transA: 'N', transB: 'C', alpha: ALPHA, beta: [0, 0], dtype, layout: LIST, count: 2 }, seed++, false);
    }
  });
  test('alpha and beta: zero (never reading NaN), one, real and complex', () => {
    let seed = 300;
    const pairs: [ComplexScalar, ComplexScalar, GemmCase['poison']][] = [
      [[0, 0], BETA, 'ab'], [[0, 0], [0, 0], 'ab'], [[0, 0], [1, 0], 'ab'], [ALPHA, [0, 0], 'c'], [[1, 0], [0, 0], 'c'],
      [[1, 0], [1, 0], undefined], [[-2, 0], [0, 1], undefined], [[-0, 0], [1, -0], 'ab'],
    ];
    for (const dtype of TYPES) for (const [alpha, beta, poison] of pairs) for (const [m, n, k] of [[2, 3, 2], [6, 6, 6]] as const) {
      const c: GemmCase = { m, n, k, transA: 'T', transB: 'N', alpha, beta, dtype, layout: seed % 2 ? ODD : LIST, count: 3, ...(poison ? { poison } : {}) };
      check(c, seed++, false);
    }
  });
  test('random shapes 1-17, every pair of transposes, alpha and beta (beta = 0 on NaN), each variant forced and the plan', () => {
    const rng = new Rng(500);
    const size = (): number => 1 + Math.floor(rng.uniform(0, 1) * 17);
    const scalar = (): ComplexScalar => {
      const u = rng.uniform(0, 1);
      return u < 0.15 ? [0, 0] : u < 0.25 ? [1, 0] : u < 0.35 ? [-0, rng.uniform(0, 1) - 0.5] : [4 * rng.uniform(0, 1) - 2, 4 * rng.uniform(0, 1) - 2];
    };
    let seed = 600;
    const variants: (ComplexGemmVariant | undefined)[] = [undefined, 'wasm', 'unrolled'];
    for (let trial = 0; trial < 120; trial++) {
      const m = size(), n = size(), k = size();
      const variant = variants[trial % variants.length];
      // the JavaScript kernel unrolls everything: forced only where the plan could choose it
      if (variant === 'unrolled' && Math.max(m, n, k) > 8) continue;
      const transA = OPS[trial % 3]!, transB = OPS[Math.floor(trial / 3) % 3]!;
      const alpha = trial % 7 === 0 ? ALPHA : scalar();
      const beta = trial % 4 === 0 ? [0, 0] as ComplexScalar : scalar();
      const betaZero = beta[0] === 0 && beta[1] === 0;
      const alphaZero = alpha[0] === 0 && alpha[1] === 0;
      const poison: GemmCase['poison'] = betaZero ? 'c' : alphaZero ? 'ab' : undefined;
      const dtype = TYPES[trial % 2]!;
      const layout = LAYOUTS[Math.floor(trial / 2) % LAYOUTS.length]!;
      check({ m, n, k, transA, transB, alpha, beta, dtype, layout, count: 1 + (trial % 4), ...(poison ? { poison } : {}) }, seed++, false, variant);
    }
  });
  test('spread over two threads (copies for the workers), both types', () => {
    let seed = 400;
    for (const dtype of TYPES) for (const n of [2, 5, 8]) for (const layout of [ODD, LIST]) {
      check({ m: n, n, k: n, transA: 'C', transB: 'N', alpha: ALPHA, beta: BETA, dtype, layout, count: 9 }, seed++, true);
      check({ m: n, n, k: n, transA: 'N', transB: 'T', alpha: ALPHA, beta: [0, 0], dtype, layout, count: 9, poison: 'c' }, seed++, true);
    }
  });
});

interface TrsmCase {
  readonly m: number; readonly n: number;
  readonly side: Side; readonly uplo: Uplo; readonly transA: ComplexOp; readonly diag: Diag;
  readonly alpha: ComplexScalar; readonly dtype: ComplexDType; readonly layout: Layout; readonly count: number;
}

/** A: random, its diagonal weighted (nonunit) or NaN (unit: never read); the other triangle NaN (never read). */
function buildTrsm(c: TrsmCase, seed: number): { r: ComplexTrsmRequest<FloatArray>; b: FloatArray[] } {
  const rng = new Rng(seed);
  const na = c.side === 'left' ? c.m : c.n;
  const zero = c.alpha[0] === 0 && c.alpha[1] === 0;
  const as = Array.from({ length: c.count }, () => {
    const t = random(rng, na, na);
    for (let j = 0; j < na; j++) for (let i = 0; i < na; i++) {
      const outside = c.uplo === 'lower' ? i < j : i > j;
      if (zero || outside || (i === j && c.diag === 'unit')) t.d[2 * (i + j * na)] = t.d[2 * (i + j * na) + 1] = NaN;
      else if (i === j) t.d[2 * (i + j * na)]! += 2;
    }
    return t;
  });
  const a = place(as, na, na, c.dtype, c.layout, rng.uniform()).batch;
  const bs = Array.from({ length: c.count }, () => (zero ? filled(c.m, c.n, NaN) : random(rng, c.m, c.n)));
  const b = place(bs, c.m, c.n, c.dtype, c.layout, rng.uniform()).batch;
  const r: ComplexTrsmRequest<FloatArray> = { side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha, a, b };
  return { r, b: b.kind === 'strided' ? [b.data] : b.kind === 'list' ? b.matrices.map((x) => x.data) : [] };
}

function checkTrsm(c: TrsmCase, seed: number, threaded: boolean): void {
  const label = `trsm ${c.dtype} ${c.m}x${c.n} ${c.side} ${c.uplo} ${c.transA} ${c.diag} alpha=${c.alpha} ${c.layout.kind} threads=${threaded}`;
  const want = buildTrsm(c, seed);
  complexReference.trsm(want.r);
  const got = buildTrsm(c, seed);
  if (threaded) hostComplexOp('cpu-fast', 'trsm')(got.r);
  else fastTrsmComplex(got.r);
  sameBits(label, got.b, want.b);
}

describe('cpu-fast complex trsm matches the complex reference bit for bit', () => {
  const max = cpuTuning().complexUnrollMax.trsm;
  test('the tests reach past the kernel sizes', () => assert.ok(max < 21));
  test('every side, triangle, operation and diagonal, both types, strided and list batches, one thread', () => {
    let seed = 500;
    for (const dtype of TYPES) for (const side of ['left', 'right'] as const) for (const uplo of ['lower', 'upper'] as const) {
      for (const transA of OPS) for (const diag of ['unit', 'nonunit'] as const) {
        for (const [m, n] of [[1, 2], [3, 2], [5, 4]] as const) {
          const layout = LAYOUTS[seed % LAYOUTS.length]!;
          checkTrsm({ m, n, side, uplo, transA, diag, alpha: seed % 2 ? ALPHA : [1, 0], dtype, layout, count: 3 }, seed++, false);
        }
      }
    }
  });
  test('orders to one past the kernels; alpha zero (nothing read), one, real and complex', () => {
    let seed = 700;
    for (const dtype of TYPES) {
      for (const [m, n] of [[max, 3], [max + 1, 2], [2, max], [3, max + 1], [8, 8]] as const) {
        checkTrsm({ m, n, side: 'left', uplo: 'upper', transA: 'C', diag: 'nonunit', alpha: ALPHA, dtype, layout: ODD, count: 2 }, seed++, false);
        checkTrsm({ m, n, side: 'right', uplo: 'lower', transA: 'T', diag: 'unit', alpha: ALPHA, dtype, layout: LIST, count: 2 }, seed++, false);
      }
      for (const alpha of [[0, 0], [-0, 0], [1, 0], [-2, 0], [0, 1]] as ComplexScalar[]) {
        checkTrsm({ m: 6, n: 3, side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha, dtype, layout: ODD, count: 3 }, seed++, false);
        checkTrsm({ m: 3, n: 6, side: 'right', uplo: 'upper', transA: 'C', diag: 'unit', alpha, dtype, layout: LIST, count: 3 }, seed++, false);
      }
    }
  });
  test('spread over two threads (copies for the workers), both types', () => {
    let seed = 900;
    for (const dtype of TYPES) for (const n of [2, 5, 12]) for (const layout of [ODD, LIST]) {
      checkTrsm({ m: n, n: 3, side: 'left', uplo: 'lower', transA: 'C', diag: 'nonunit', alpha: ALPHA, dtype, layout, count: 9 }, seed++, true);
      checkTrsm({ m: 2, n, side: 'right', uplo: 'upper', transA: 'N', diag: 'unit', alpha: [1, 0], dtype, layout, count: 9 }, seed++, true);
    }
  });
});

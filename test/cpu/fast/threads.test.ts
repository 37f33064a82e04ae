/**
 * The worker pool: every op spread over 3 threads (thresholds lowered so small batches split),
 * against the reference bit for bit: batches that are not a multiple of the thread count, a
 * batch of one, a failing matrix in every share, data on a SharedArrayBuffer (no copies) and on
 * ordinary arrays (chunked copies), and A and B interleaved in one array (copy-back by column).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fastCpuBackend } from '../../../src/cpu-fast/backend.js';
import { THREADING, threadsFor } from '../../../src/cpu-fast/threads/parallel.js';
import { strided, variable, type Batch } from '../../../src/core/batch.js';
import type { DType, FloatArray } from '../../../src/core/dtype.js';
import { cpuBackend } from '../../../src/cpu/backend.js';
import { Rng } from '../../helpers/random.js';
import { conform, generalFill, info, makeBatch, pivots, spdFill, splitAcrossThreads, type Kind } from './harness.js';
import { gemmCase, lu } from './cases.js';
import { TRIANGULAR_VARIANTS, inverseCase, syrkCase, triangularCase } from './cases-blas3.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';

/** The thresholds as shipped (splitAcrossThreads lowers them before the tests run). */
const SHIPPED = { ...THREADING };

splitAcrossThreads(3);

/** A strided batch whose array lives on a SharedArrayBuffer. */
function shared(b: ReturnType<typeof makeBatch>): ReturnType<typeof makeBatch> {
  if (b.kind !== 'strided') return b;
  const data = b.data instanceof Float64Array
    ? new Float64Array(new SharedArrayBuffer(b.data.byteLength)) : new Float32Array(new SharedArrayBuffer(b.data.byteLength));
  data.set(b.data);
  return { ...b, data };
}

function cases(kind: Kind, dtype: DType, n: number, count: number, onShared: boolean) {
  // One failing matrix in each share of three: matrices 0, count/3 + 1 and count - 1.
  const fails = (p: number): number => (p === 0 || p === Math.floor(count / 3) + 1 || p === count - 1 ? n - 1 : -1);
  const wrap = onShared ? shared : (b: ReturnType<typeof makeBatch>) => b;
  const shapes = Array.from({ length: count }, () => ({ rows: n, cols: n }));
  const rhs = Array.from({ length: count }, () => ({ rows: n, cols: 2 }));
  const label = `${kind} ${dtype} n=${n} count=${count} shared=${onShared}`;
  return [
    { op: 'posv' as const, label: `posv ${label}`, build: (rng: Rng) => ({ uplo: 'lower', a: wrap(makeBatch(rng, dtype, kind, shapes, spdFill(fails))), b: wrap(makeBatch(rng, dtype, kind, rhs)), info: info(count) }) },
    // 'upper' above the unrolled sizes factors the transpose (the lower order of additions): A within a tolerance
    { op: 'potrf' as const, label: `potrf ${label}`, tolerance: n > cpuTuning().unrollMax.cholesky ? { keys: ['a'], eps: 8 * (n + 2), scale: n + 5 } : undefined, build: (rng: Rng) => ({ uplo: 'upper', a: wrap(makeBatch(rng, dtype, kind, shapes, spdFill(fails))), info: info(count) }) },
    { op: 'gesv' as const, label: `gesv ${label}`, build: (rng: Rng) => ({ a: wrap(makeBatch(rng, dtype, kind, shapes, generalFill(fails))), b: wrap(makeBatch(rng, dtype, kind, rhs)), ipiv: pivots(count * n), pivotStride: n, info: info(count) }) },
    { op: 'getrf' as const, label: `getrf ${label}`, build: (rng: Rng) => ({ a: wrap(makeBatch(rng, dtype, kind, shapes, generalFill(fails))), ipiv: pivots(count * n), pivotStride: n, info: info(count) }) },
    // above the unrolled sizes trsm is blocked (another order of additions): B within a tolerance
    { op: 'trsm' as const, label: `trsm ${label}`, tolerance: n > cpuTuning().unrollMax.triangular ? { keys: ['b'], eps: 4 * (n + 4), scale: 3 } : undefined,
      build: (rng: Rng) => ({ side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1, a: wrap(makeBatch(rng, dtype, kind, shapes, spdFill(() => -1))), b: wrap(makeBatch(rng, dtype, kind, rhs)) }) },
  ];
}

describe('cpu-fast on worker threads matches the reference', () => {
  test('the thresholds split these calls over three threads', () => {
    const r = cases('strided', 'float64', 4, 7, false)[0]!.build(new Rng(1));
    assert.equal(threadsFor('posv', r), 3);
    assert.equal(threadsFor('posv', r, 1), 1);
  });
  test('a call of empty matrices alone stays on the caller\'s thread and writes every info, even with every threshold at 0', () => {
    const empty = (rows: number, cols: number) => ({ data: new Float32Array(1), rows, cols, ld: 1, offset: 0 });
    const r = { a: variable([empty(0, 0), empty(0, 0)]), b: variable([empty(0, 0), empty(0, 1)]), uplo: 'upper', info: new Int32Array(2).fill(-9) };
    assert.equal(threadsFor('posv', r), 1);
    fastCpuBackend.posv(r as Parameters<typeof fastCpuBackend.posv>[0]);
    assert.deepEqual([...r.info], [0, 0]);
  });
  test('copies for workers only where they pay: large matrices; shared data always', () => {
    const r = cases('strided', 'float64', 4, 7, false)[0]!.build(new Rng(1));
    const s = cases('strided', 'float64', 4, 7, true)[0]!.build(new Rng(1));
    const saved = { ...THREADING };
    try {
      THREADING.copyMinSize = 32;
      assert.equal(threadsFor('posv', r), 1);
      assert.equal(threadsFor('posv', s), 3);
    } finally {
      Object.assign(THREADING, saved);
    }
  });
  test('copies for workers only where the work a copied byte pays for them: solves with few right-hand sides and gemm 32 stay on one thread', () => {
    const saved = { ...THREADING };
    const batch = (rows: number, cols: number, count: number, onShared = false) => {
      const data = onShared ? new Float64Array(new SharedArrayBuffer(rows * cols * count * 8)) : new Float64Array(rows * cols * count);
      return strided(data, { rows, cols, count });
    };
    try {
      Object.assign(THREADING, SHIPPED);
      const solve = (n: number, nrhs: number, count: number, onShared = false) => ({ a: batch(n, n, count, onShared), b: batch(n, nrhs, count, onShared), uplo: 'lower', info: info(count) });
      for (const op of ['potrs', 'getrs'] as const) {
        assert.equal(threadsFor(op, solve(128, 1, 128)), 1, `${op} 128 x 128, one right-hand side`);
        assert.equal(threadsFor(op, solve(256, 4, 32)), 1, `${op} 256 x 32, four`);
        assert.equal(threadsFor(op, solve(128, 1, 128, true)), 3, `${op} on shared data: no copies`);
        assert.equal(threadsFor(op, solve(128, 128, 128)), 3, `${op} with as many right-hand sides as rows`);
      }
      const tri = (side: 'left' | 'right', m: number, n: number, count: number) => ({ side, a: batch(side === 'left' ? m : n, side === 'left' ? m : n, count), b: batch(m, n, count) });
      assert.equal(threadsFor('trsm', tri('left', 256, 2, 64)), 1, 'trsm left, two columns');
      assert.equal(threadsFor('trsm', tri('right', 2, 256, 64)), 1, 'trsm right, two rows');
      assert.equal(threadsFor('trsm', tri('left', 64, 64, 512)), 3, 'trsm square');
      const product = (n: number, count: number) => ({ a: batch(n, n, count), b: batch(n, n, count), c: batch(n, n, count) });
      assert.equal(threadsFor('gemm', product(32, 682)), 1, 'gemm 32: 1.7 a byte');
      assert.equal(threadsFor('gemm', product(64, 170)), 3, 'gemm 64: 3 a byte');
      assert.equal(threadsFor('posv', solve(64, 1, 512)), 3, 'posv 64');
    } finally {
      Object.assign(THREADING, saved);
    }
  });
  test('streamed copies: chunks of a few matrices from both ends, a failing matrix in several chunks', () => {
    const saved = { ...THREADING };
    try {
      // every call streams, in chunks of one to a few matrices
      THREADING.streamBytes = 0;
      for (const [n, count, chunk] of [[4, 7, 200], [8, 10, 1500], [13, 5, 1], [20, 9, 9000], [3, 1, 100]] as const) {
        THREADING.streamChunkBytes = chunk;
        for (const kind of ['strided', 'list', 'variable'] as const)
          for (const c of cases(kind, 'float64', n, count, false)) conform(fastCpuBackend, c, n * 11 + count, 'float64');
        conform(fastCpuBackend, gemmCase('strided', 'float32', n, n, n, 'N', 'T', 1.5, 0), n, 'float32');
      }
    } finally {
      Object.assign(THREADING, saved);
    }
  });
  test('gesv, getrf and getrs on the delayed-update kernel (n = 47, 64), streamed a matrix or two a chunk over three threads', () => {
    const saved = { ...THREADING };
    try {
      THREADING.streamBytes = 0;
      THREADING.streamChunkBytes = 40_000;
      for (const dtype of ['float64', 'float32'] as const) for (const [n, count] of [[47, 7], [64, 5]] as const)
        for (const c of cases('strided', dtype, n, count, false)) if (c.op === 'gesv' || c.op === 'getrf') conform(fastCpuBackend, c, n * 5 + count, dtype);
      // getrs on the same kernel's solve (two matrices: one per thread)
      for (const dtype of ['float64', 'float32'] as const) for (const n of [47, 64]) for (const kind of ['strided', 'list'] as const)
        conform(fastCpuBackend, lu(kind, dtype, n, 'getrs', 'N'), n * 3, dtype);
    } finally {
      Object.assign(THREADING, saved);
    }
  });
  test('gesv n = 64 over three threads: a singular matrix in each share gets its info, its B untouched, and no NaN reaches its neighbours', () => {
    const n = 64, count = 8, nrhs = 1;
    const rng = new Rng(64);
    const fails = new Set([0, 3, 7]);
    const a = makeBatch(rng, 'float64', 'strided', Array.from({ length: count }, () => ({ rows: n, cols: n })), generalFill((p) => (fails.has(p) ? 10 + p : -1)));
    const b = makeBatch(rng, 'float64', 'strided', Array.from({ length: count }, () => ({ rows: n, cols: nrhs })));
    if (a.kind !== 'strided' || b.kind !== 'strided') throw new Error('strided batches expected');
    const b0 = b.data.slice();
    const inf = info(count);
    fastCpuBackend.gesv({ a, b, ipiv: pivots(count * n), pivotStride: n, info: inf });
    for (let p = 0; p < count; p++) {
      const x: Float64Array | Float32Array = b.data.subarray(b.offset + p * b.stride, b.offset + p * b.stride + n);
      if (fails.has(p)) {
        assert.equal(inf[p], 11 + p, `matrix ${p}: info`);
        assert.deepEqual(x, b0.subarray(b.offset + p * b.stride, b.offset + p * b.stride + n), `matrix ${p}: B untouched`);
      } else {
        assert.equal(inf[p], 0, `matrix ${p}: info`);
        assert.ok(x.every(Number.isFinite), `matrix ${p}: a finite solution`);
      }
    }
  });
  for (const dtype of ['float64', 'float32'] as const) {
    test(`factorisations and solves, ${dtype}`, () => {
      for (const kind of ['strided', 'list', 'variable'] as const) for (const onShared of [false, true])
        for (const [n, count] of [[4, 7], [8, 10], [13, 5], [3, 1], [20, 4]] as const)
          for (const c of cases(kind, dtype, n, count, onShared)) conform(fastCpuBackend, c, n * 7 + count, dtype);
    });
    test(`trsm, trmm, syrk, trtri, lauum, potri, ${dtype}`, () => {
      for (const kind of ['strided', 'list'] as const) for (const n of [4, 13, 24]) {
        for (const op of ['trsm', 'trmm'] as const) conform(fastCpuBackend, triangularCase(op, kind, dtype, n, 3, TRIANGULAR_VARIANTS[n % 16]!, -2.5), n, dtype);
        conform(fastCpuBackend, syrkCase(kind, dtype, n, 5, 'lower', 'T', 1, 0), n, dtype);
        for (const op of ['trtri', 'lauum', 'potri'] as const) conform(fastCpuBackend, inverseCase(op, kind, dtype, n, 'upper'), n, dtype);
      }
    });
    test(`gemm, ${dtype}`, () => {
      for (const kind of ['strided', 'list'] as const) for (const [m, n, k] of [[4, 4, 4], [8, 3, 5], [20, 20, 20]] as const)
        conform(fastCpuBackend, gemmCase(kind, dtype, m, n, k, 'N', 'T', 1.5, 0), m + n + k, dtype);
    });
  }
  test('a share larger than a fresh arena (the arena grows until it fits)', () => {
    const build = (rng: Rng): object => {
      const count = 3001, n = 9;
      const shapes = Array.from({ length: count }, () => ({ rows: n, cols: n }));
      const fails = (p: number): number => (p % 1000 === 7 ? 4 : -1);
      return { uplo: 'lower', a: makeBatch(rng, 'float64', 'strided', shapes, spdFill(fails)), b: makeBatch(rng, 'float64', 'strided', shapes.map(() => ({ rows: n, cols: 3 }))), info: info(count) };
    };
    conform(fastCpuBackend, { op: 'posv', label: 'large posv', build }, 5, 'float64');
  });
  test('empty written matrices whose place lies past their array\'s end: nothing staged or copied back for them (a 0 x 5 C of a variable batch on an empty array; B n x 0 strided past an empty array)', () => {
    const gemm = (rng: Rng): object => {
      const full = (rows: number, cols: number) => {
        const data = new Float64Array(rows * cols);
        for (let i = 0; i < data.length; i++) data[i] = rng.uniform();
        return { data, rows, cols, ld: Math.max(1, rows), offset: 0 };
      };
      const members = [...Array.from({ length: 5 }, () => [full(9, 9), full(9, 9), full(9, 9)]), [full(0, 3), full(3, 5), { data: new Float64Array(0), rows: 0, cols: 5, ld: 1, offset: 0 }],
        [full(9, 9), full(9, 9), full(9, 9)]];
      return { transA: 'N', transB: 'N', alpha: 1.5, beta: 0.5, a: variable(members.map((m) => m[0]!)), b: variable(members.map((m) => m[1]!)), c: variable(members.map((m) => m[2]!)) };
    };
    // The fast gemm's order of additions is not the reference's (cases.ts gemmCase's bound, k = 9).
    conform(fastCpuBackend, { op: 'gemm', label: 'gemm with an empty C on an empty array', build: gemm, tolerance: { keys: ['c'], eps: 4 * 11, scale: 1.5 * 9 + 0.5 } }, 8, 'float64');
    const posv = (rng: Rng): object => {
      const count = 7, n = 9;
      const shapes = Array.from({ length: count }, () => ({ rows: n, cols: n }));
      return { uplo: 'lower', a: makeBatch(rng, 'float64', 'strided', shapes, spdFill(() => -1)), b: strided(new Float64Array(0), { rows: n, cols: 0, count, stride: n }), info: info(count) };
    };
    conform(fastCpuBackend, { op: 'posv', label: 'posv with B n x 0', build: posv }, 9, 'float64');
  });
  test('A and B interleaved in one array (gesv writes both): copy-back by column keeps the other intact', () => {
    const build = (rng: Rng): object => {
      const n = 5, count = 7, stride = 2 * n * n;
      const data = new Float64Array(count * stride + 3);
      for (let i = 0; i < data.length; i++) data[i] = rng.uniform();
      const a = strided(data, { rows: n, count, stride, offset: 0 });
      const b = strided(data, { rows: n, count, stride, offset: n * n });
      return { a, b, ipiv: pivots(count * n), pivotStride: n, info: info(count) };
    };
    conform(fastCpuBackend, { op: 'gesv', label: 'interleaved gesv', build }, 3, 'float64');
    void cpuBackend;
  });
  test('A and B in one buffer through two views (gesv): the same copy-back by column', () => {
    const build = (rng: Rng): object => {
      const n = 5, count = 7, stride = n * n + n;   // each matrix's A, then its b
      const buffer = new ArrayBuffer(8 * count * stride);
      const whole = new Float64Array(buffer);
      for (let i = 0; i < whole.length; i++) whole[i] = rng.uniform();
      const a = strided(whole, { rows: n, count, stride });
      const b = strided(new Float64Array(buffer, 8 * n * n), { rows: n, cols: 1, count, stride });
      return { a, b, ipiv: pivots(count * n), pivotStride: n, info: info(count) };
    };
    conform(fastCpuBackend, { op: 'gesv', label: 'gesv on two views', build }, 4, 'float64');
  });
  test('info in a gap of the factored matrices\' own buffer: the copy-back of a worker\'s span leaves the caller\'s infos', () => {
    // Six matrices over three threads, two each; the caller factors its own share in place. The gap
    // after matrix 2 (inside the second share's span) holds info, matrices 0 and 4 are singular.
    const n = 5, count = 6, stride = n * n + 3;   // a gap of three floats, six int32s, after each matrix
    conform(fastCpuBackend, {
      op: 'getrf', label: 'getrf, info in a gap',
      build: (rng) => {
        const buffer = new ArrayBuffer(8 * count * stride);
        const a = new Float64Array(buffer);
        for (let i = 0; i < a.length; i++) a[i] = rng.uniform();
        for (const p of [0, 4]) for (let j = 0; j < n; j++) a[p * stride + j * n + 2] = 0;   // row 2 zero
        const gapInfo = new Int32Array(buffer, 8 * (2 * stride + n * n), count);
        return { a: strided(a, { rows: n, count, stride }), ipiv: pivots(count * n), pivotStride: n, info: gapInfo };
      },
    }, 8, 'float64');
  });
  for (const count of [9, 3]) test(`matrices stacked row-block-wise in one tall matrix (stride n, ld count n), ${count} of them: each thread's copy-back keeps the others' matrices${count === 3 ? ' (one matrix a thread)' : ''}`, () => {
    const n = 5, ld = n * count;
    const stacked = (rng: Rng): Float64Array => {
      const data = new Float64Array(ld * n);
      for (let i = 0; i < data.length; i++) data[i] = rng.uniform();
      for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) data[p * n + i + i * ld] += 2 * n;   // SPD: diagonally dominant
      return data;
    };
    const batch = (data: Float64Array) => strided(data, { rows: n, cols: n, ld, stride: n, count });
    conform(fastCpuBackend, { op: 'potrf', label: 'row-block potrf', build: (rng) => ({ uplo: 'lower', a: batch(stacked(rng)), info: info(count) }) }, 5, 'float64');
    conform(fastCpuBackend, { op: 'getrf', label: 'row-block getrf', build: (rng) => ({ a: batch(stacked(rng)), ipiv: pivots(count * n), pivotStride: n, info: info(count) }) }, 7, 'float64');
    conform(fastCpuBackend, {
      op: 'gemm', label: 'row-block gemm C', tolerance: { keys: ['c'], eps: 4 * (n + 2), scale: n + 1, relative: true },   // gemm: within rounding
      build: (rng) => {
        const operand = (): Batch<FloatArray> => makeBatch(rng, 'float64', 'strided', Array.from({ length: count }, () => ({ rows: n, cols: n })), generalFill(() => -1));
        return { transA: 'N', transB: 'N', alpha: 1, beta: 0.5, a: operand(), b: operand(), c: batch(stacked(rng)) };
      },
    }, 6, 'float64');
  });
});

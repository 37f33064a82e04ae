/**
 * LU of float32 and complex64 data whose pivot is nonzero in the float64 working copy but stores
 * as zero (|p| <= 2^-150, rounded to nearest even; complex: both parts): every CPU path factors
 * in float64, and such a pivot must count as zero, as sgetrf would see it, or gesv divides by the
 * stored U(k, k) = 0 and returns Inf/NaN with info 0. The cases and their checks:
 * test/helpers/rounded-pivot.ts.
 *
 * On the reference and the fast backend through open(), and on each fast variant forced (the
 * unrolled JavaScript LU, the WebAssembly LU unblocked and delayed-update, the recursive blocked
 * LU with several leaves, the interleaved gesv in both forms; complex: the JavaScript kernel, the
 * one-matrix WebAssembly kernel with its steps unrolled and as loops, the two-matrix kernel
 * right-looking and in Crout's order), count 1 and a batch of 5 (or 3) whose members 1 and 2 are special
 * (the others dense and well conditioned): info, pivots, factor and solution as the reference's
 * (the special members' arithmetic is exact, so every path agrees bit for bit there), the failed
 * members' B bitwise untouched, the neighbours' residuals small. Then the array level (luEx,
 * solveEx, invEx) reports the failed member as it reports an exactly singular one.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { matrixAt } from '../../src/core/batch.js';
import type { ElementType, FloatArray } from '../../src/core/dtype.js';
import { ndarray, open, type NDArray } from '../../src/index.js';
import { fastGesv, fastGetrf, type GetrfOptions } from '../../src/cpu-fast/ops/getrf.js';
import { gesvInterleaved } from '../../src/cpu-fast/ops/gesv-interleaved.js';
import { fastGesvComplex, fastGetrfComplex, type ComplexLuOptions } from '../../src/cpu-fast/ops/zfactor.js';
import { DEFAULT_CPU_TUNING as T } from '../../src/cpu-fast/tuning.js';
import { COMPLEX_KINDS, REAL_KINDS, S, arrayOf, everyPath, isComplex, isSingle, partsOf, viaContext, type Kind, type Runner } from '../helpers/rounded-pivot.js';

const reference = open({ backend: 'reference' });
const fast = open({ backend: 'cpu' });
after(() => { reference.dispose(); fast.dispose(); });

/** Each fast variant forced. */
const realForced = (options: GetrfOptions): Runner => (op, r) => (op === 'getrf' ? fastGetrf(r, options) : fastGesv(r, options));
const complexForced = (options: ComplexLuOptions): Runner => (op, r) => (op === 'getrf' ? fastGetrfComplex(r, options) : fastGesvComplex(r, options));
/** gesv on the interleaved kernel (scratch or locals form; getrf has no interleaved form: the reference's). */
const interleaved = (form: 'scratch' | 'locals'): Runner => (op, r) => {
  if (op === 'getrf') return void fastGetrf(r);
  assert.ok(gesvInterleaved(r, matrixAt(r.a, 0), 0, r.a.count, form), 'layout accepted');
};

const CONTEXT: readonly (readonly [string, Runner])[] = [['cpu', viaContext(fast)]];
/** Every kind in single precision (and in double up to `allUpTo`); else the control's first kind only (the suite's time). */
const kindsOf = (dtype: ElementType, n: number, allUpTo: number): readonly Kind[] => {
  const kinds = isComplex(dtype) ? COMPLEX_KINDS : REAL_KINDS;
  return (isSingle(dtype) || n <= allUpTo ? kinds : kinds.slice(0, 1)).filter((k) => k.size <= n);
};

describe('LU: a pivot that stores as zero in float32 / complex64 is zero', () => {
  test('real: the reference and the fast backend, every size class (unrolled, interleaved, WebAssembly, delayed-update single and in pairs)', () => {
    for (const dtype of ['float32', 'float64'] as const) for (const n of [2, 3, 8, 12, 20, 40]) for (const kind of kindsOf(dtype, n, 3)) {
      for (const count of [1, 5]) everyPath(reference, { dtype, n, kind, count, nrhs: 1 + (n % 2) }, CONTEXT);
    }
  });

  test('real: each fast variant forced', () => {
    const variant = (v: 'unrolled' | 'wasm' | 'wasmBlock' | 'blocked'): readonly [string, Runner] => [v, realForced({ force: { variant: v } })];
    for (const dtype of ['float32', 'float64'] as const) {
      for (const n of [3, 7]) for (const kind of kindsOf(dtype, n, 3)) for (const count of [1, 5]) {
        everyPath(reference, { dtype, n, kind, count, nrhs: 2 }, [variant('unrolled'), variant('wasm'), variant('wasmBlock'), ['interleaved', interleaved('scratch')], ['interleaved locals', interleaved('locals')]]);
      }
      for (const kind of kindsOf(dtype, 13, 0)) everyPath(reference, { dtype, n: 13, kind, count: 5, nrhs: 1 }, [variant('wasm'), variant('wasmBlock'), ['interleaved', interleaved('scratch')]]);
      for (const kind of kindsOf(dtype, 33, 0)) everyPath(reference, { dtype, n: 33, kind, count: 5, nrhs: 1 }, [variant('wasm'), variant('wasmBlock')]);
      // the recursive LU: leaves of at most 32 columns (tuning.ts luBlocked.leaf; at n = 70 four of 16
      // and 18, at 130 five of 16 to 32), the special steps in different leaves
      for (const kind of kindsOf(dtype, 70, 0)) everyPath(reference, { dtype, n: 70, kind, count: 5, nrhs: 1 }, [variant('blocked')]);
      if (dtype === 'float32') everyPath(reference, { dtype, n: 130, kind: REAL_KINDS[0]!, count: 3, nrhs: 1 }, [variant('blocked')]);
    }
  });

  test('complex: the reference and the fast backend (JavaScript, one-matrix and two-matrix WebAssembly, the reference past 24)', () => {
    for (const dtype of ['complex64', 'complex128'] as const) for (const n of [2, 3, 8, 17, 30]) for (const kind of kindsOf(dtype, n, 3)) {
      for (const count of [1, 5]) everyPath(reference, { dtype, n, kind, count, nrhs: 1 + (n % 2) }, CONTEXT);
    }
  });

  test('complex: each fast variant forced', () => {
    const wasm = (tuning: Partial<typeof T>): ComplexLuOptions => ({ force: { variant: 'wasm' }, tuning: { ...T, ...tuning } });
    const runners: readonly (readonly [string, Runner])[] = [
      ['unrolled', complexForced({ force: { variant: 'unrolled' } })],
      ['one-matrix', complexForced(wasm({ complexLuWasmPairs: { min: 99, max: 99 } }))],
      ['one-matrix loops', complexForced(wasm({ complexLuWasmPairs: { min: 99, max: 99 }, complexLuWasmFactorLoopMin: 1, complexLuWasmSolveLoopMin: 1 }))],
      ['pairs', complexForced(wasm({ complexLuWasmPairs: { min: 1, max: 99 }, complexLuWasmPairCrout: { min: 99, rows: 2 }, complexLuWasmPairLoopMin: 99 }))],
      ['pairs loops', complexForced(wasm({ complexLuWasmPairs: { min: 1, max: 99 }, complexLuWasmPairCrout: { min: 99, rows: 2 }, complexLuWasmPairLoopMin: 1, complexLuWasmPairGroup: 1 }))],
      ['pairs Crout', complexForced(wasm({ complexLuWasmPairs: { min: 1, max: 99 }, complexLuWasmPairCrout: { min: 1, rows: 2 } }))],
    ];
    for (const dtype of ['complex64', 'complex128'] as const) for (const n of [3, 6]) for (const kind of COMPLEX_KINDS) for (const count of [1, 5]) {
      everyPath(reference, { dtype, n, kind, count, nrhs: 1 + (count % 2) }, runners);
    }
  });

  test('the array level: luEx, solveEx and invEx report the member as they report an exactly singular one', () => {
    const n = 4, k = 1, count = 4;
    for (const ctx of [reference, fast]) for (const dtype of ['float32', 'complex64', 'float64', 'complex128'] as const) {
      const e = partsOf(dtype);
      const kinds = isComplex(dtype) ? COMPLEX_KINDS : REAL_KINDS;
      // members: the tie block at k, an exactly singular matrix (column 2 zero), the identity, the `below` block at k (row-major data)
      const a = arrayOf(dtype, e * n * n * count);
      for (let m = 0; m < count; m++) for (let i = 0; i < n; i++) if (!(m === 1 && i === 2)) a[e * (m * n * n + i * n + i)] = 1;
      for (const [m, kind] of [[0, kinds[0]!], [3, kinds[1]!]] as const) {
        for (let i = 0; i < kind.size; i++) a[e * (m * n * n + (k + i) * n + k + i)] = 0;
        for (const [i, j, re, im] of kind.entries) {
          a[e * (m * n * n + (k + i) * n + k + j)] = re;
          if (e === 2) a[e * (m * n * n + (k + i) * n + k + j) + 1] = im;
        }
      }
      const array = (data: FloatArray, shape: number[]): NDArray => (isComplex(dtype) ? ndarray(data, shape, { dtype }) : ndarray(data, shape));
      const A = array(a, [count, n, n]);
      // one right-hand side per matrix ([count, n, 1]): 1, and 2^-140 in the blocks' rows
      const b = arrayOf(dtype, e * n * count);
      for (let m = 0; m < count; m++) for (let i = 0; i < n; i++) b[e * (m * n + i)] = (m === 0 || m === 3) && i >= k && i < k + 3 ? S : 1;
      const single = isSingle(dtype);
      const failed = [single, true, false, single];
      const info = [single ? k + 2 : 0, 3, 0, single ? k + 2 : 0];
      const label = `${ctx === fast ? 'cpu' : 'reference'} ${dtype}`;
      const lu = ctx.luEx(A);
      assert.deepEqual([...lu.info], info, `${label}: luEx info`);
      // a singular member keeps its factors (finite), as getrf leaves them
      assert.ok(lu.lu.data.every(Number.isFinite), `${label}: luEx factors`);
      const s = ctx.solveEx(A, array(b, [count, n, 1]));
      assert.deepEqual([...s.info], info, `${label}: solveEx info`);
      const inv = ctx.invEx(A);
      assert.deepEqual([...inv.info], info, `${label}: invEx info`);
      for (let m = 0; m < count; m++) {
        const x = s.x.data.subarray(e * m * n, e * (m + 1) * n), y = inv.inverse.data.subarray(e * m * n * n, e * (m + 1) * n * n);
        assert.ok(failed[m] ? x.every(Number.isNaN) && y.every(Number.isNaN) : x.every(Number.isFinite) && y.every(Number.isFinite), `${label}: member ${m}'s solution and inverse`);
      }
      if (single) assert.throws(() => ctx.solve(A, array(b, [count, n, 1])), /#0/, `${label}: solve names the first failed member`);
    }
  });
});

/** The families' plans: pure functions of the problem, the tuning table and `force`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tuningFromEnvironment } from '../../../src/cpu-fast/environment.js';
import { planGemm, gemmWasmParamsFor } from '../../../src/cpu-fast/plan/gemm.js';
import { planLu } from '../../../src/cpu-fast/plan/getrf.js';
import { planCholesky } from '../../../src/cpu-fast/plan/potrf.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';

test('gemm: JavaScript only for small matrices one at a time; force and MYRIAD_CPU_GEMM win', () => {
  assert.equal(planGemm({ m: 2, n: 2, k: 2, dtype: 'float64', strided: true }, T), 'wasm');
  assert.equal(planGemm({ m: 2, n: 2, k: 2, dtype: 'float64', strided: false }, T), 'js');
  assert.equal(planGemm({ m: 4, n: 4, k: 4, dtype: 'float32', strided: false }, T), 'wasm', 'float32 JavaScript only to 3');
  assert.equal(planGemm({ m: 9, n: 9, k: 9, dtype: 'float64', strided: false }, T), 'wasm');
  assert.equal(planGemm({ m: 2, n: 2, k: 2, dtype: 'float64', strided: true }, T, { variant: 'js' }), 'js');
  assert.equal(planGemm({ m: 2, n: 2, k: 2, dtype: 'float64', strided: false }, T, { variant: 'wasm' }), 'wasm');
  assert.equal(planGemm({ m: 32, n: 32, k: 32, dtype: 'float64', strided: true }, T, { variant: 'js' }), 'wasm', 'no JavaScript above 16');
  assert.equal(planGemm({ m: 2, n: 2, k: 2, dtype: 'float64', strided: false }, { ...T, gemmForce: 'wasm' }), 'wasm');
  assert.deepEqual(gemmWasmParamsFor(T, 8, 8, 8, 'float64', 'N', false).tile, T.gemmWasm.float64.tile);
  assert.deepEqual(gemmWasmParamsFor(T, 6, 8, 8, 'float64', 'N', true).tile, T.gemmWasm.float64.fmaTile);
});

test('Cholesky: unrolled, interleaved, composed, wasm, solves and the reference by n', () => {
  const plan = (op: 'potrf' | 'posv' | 'potrs', n: number, count = 100) => planCholesky({ op, n, dtype: 'float64', count }, T);
  assert.deepEqual(plan('potrf', 3), { variant: 'unrolled', otherwise: 'unrolled' });
  assert.deepEqual(plan('potrf', 4), { variant: 'interleaved', otherwise: 'unrolled' });
  assert.deepEqual(plan('potrf', 4, 1), { variant: 'unrolled', otherwise: 'unrolled' }, 'one matrix: no pairs');
  assert.equal(plan('potrf', 16).variant, 'interleaved');
  assert.equal(plan('potrf', 17).variant, 'wasm');
  assert.equal(plan('potrf', 512).variant, 'wasm');
  assert.equal(plan('potrf', 513).variant, 'reference');
  assert.equal(plan('posv', 8).variant, 'interleaved');
  assert.deepEqual(plan('posv', 9), { variant: 'composed', otherwise: 'unrolled' });
  assert.equal(plan('posv', 17).variant, 'wasm');
  assert.equal(plan('potrs', 8).variant, 'unrolled');
  assert.equal(plan('potrs', 9).variant, 'solveWasm');
  assert.equal(plan('potrs', 1025).variant, 'reference');
  assert.equal(planCholesky({ op: 'potrf', n: 8, dtype: 'float64', count: 100 }, T, { variant: 'unrolled' }).variant, 'unrolled');
  const off = tuningFromEnvironment(T, { MYRIAD_CPU_INTERLEAVED: '0' });
  assert.equal(planCholesky({ op: 'potrf', n: 8, dtype: 'float32', count: 100 }, off).variant, 'unrolled');
});

test('LU: unrolled, interleaved gesv, wasm, blocked, solves and the reference by shape', () => {
  const plan = (op: 'getrf' | 'gesv' | 'getrs', m: number, n = m, trans: 'N' | 'T' = 'N', count = 100) =>
    planLu({ op, m, n, trans, dtype: 'float64', count }, T);
  assert.deepEqual(plan('getrf', 10), { variant: 'unrolled', otherwise: 'unrolled' });
  assert.deepEqual(plan('gesv', 8), { variant: 'interleaved', otherwise: 'unrolled' });
  assert.deepEqual(plan('gesv', 12), { variant: 'interleaved', otherwise: 'wasm' });
  assert.equal(plan('gesv', 8, 8, 'N', 1).variant, 'unrolled');
  assert.equal(plan('getrf', 11).variant, 'wasm');
  assert.equal(plan('getrf', 512).variant, 'wasm');
  assert.equal(plan('getrf', 513).variant, 'blocked');
  assert.equal(plan('getrf', 600, 20).variant, 'reference', 'tall beyond the kernels');
  assert.equal(plan('getrs', 64).variant, 'solveWasm');
  assert.equal(plan('getrs', 9, 9, 'T').variant, 'solveTransWasm');
  assert.equal(plan('getrs', 8, 8, 'T').variant, 'unrolled');
  assert.equal(plan('getrs', 2000, 2000, 'T').variant, 'reference');
  assert.equal(plan('getrf', 0, 20).variant, 'reference');
  assert.equal(planLu({ op: 'getrf', m: 64, n: 64, trans: 'N', dtype: 'float64', count: 1 }, T, { variant: 'blocked' }).variant, 'blocked');
  assert.equal(planLu({ op: 'getrf', m: 64, n: 64, trans: 'N', dtype: 'float64', count: 1 }, { ...T, luBlocked: { min: 48, leaf: 32 } }).variant, 'blocked');
});

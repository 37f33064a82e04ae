/** The families' plans: pure functions of the problem, the tuning table and `force`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tuningFromEnvironment } from '../../../src/cpu-fast/environment.js';
import { planGemm, gemmWasmParamsFor } from '../../../src/cpu-fast/plan/gemm.js';
import { planGetrf } from '../../../src/cpu-fast/plan/getrf.js';
import { planPotrf } from '../../../src/cpu-fast/plan/potrf.js';
import { planSyrk } from '../../../src/cpu-fast/plan/syrk.js';
import { planTrsm, trsmLeafMax } from '../../../src/cpu-fast/plan/trsm.js';
import { planTrtri } from '../../../src/cpu-fast/plan/trtri.js';
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
  const plan = (op: 'potrf' | 'posv' | 'potrs', n: number, count = 100) => planPotrf({ op, n, dtype: 'float64', count }, T);
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
  assert.equal(planPotrf({ op: 'potrf', n: 8, dtype: 'float64', count: 100 }, T, { variant: 'unrolled' }).variant, 'unrolled');
  const off = tuningFromEnvironment(T, { MYRIAD_CPU_INTERLEAVED: '0' });
  assert.equal(planPotrf({ op: 'potrf', n: 8, dtype: 'float32', count: 100 }, off).variant, 'unrolled');
});

test('LU: unrolled, interleaved gesv, wasm, blocked, solves and the reference by shape', () => {
  const plan = (op: 'getrf' | 'gesv' | 'getrs', m: number, n = m, trans: 'N' | 'T' = 'N', count = 100) =>
    planGetrf({ op, m, n, trans, dtype: 'float64', count }, T);
  assert.deepEqual(plan('getrf', 10), { variant: 'unrolled', otherwise: 'unrolled' });
  assert.deepEqual(plan('gesv', 8), { variant: 'interleaved', otherwise: 'unrolled' });
  assert.deepEqual(plan('gesv', 12), { variant: 'interleaved', otherwise: 'wasm' });
  assert.equal(plan('gesv', 8, 8, 'N', 1).variant, 'unrolled');
  assert.equal(plan('getrf', 11).variant, 'wasm');
  assert.equal(plan('getrf', 15).variant, 'wasm');
  assert.equal(plan('getrf', 16).variant, 'wasmBlock');
  assert.equal(plan('getrf', 512).variant, 'wasmBlock');
  assert.equal(planGetrf({ op: 'getrf', m: 20, n: 20, trans: 'N', dtype: 'float64', count: 1 }, { ...T, luWasmBlock: { min: 24, nb: 8 } }).variant, 'wasm', 'the table decides');
  assert.equal(plan('getrf', 513).variant, 'blocked');
  assert.equal(plan('getrf', 600, 20).variant, 'reference', 'tall beyond the kernels');
  assert.equal(plan('getrs', 64).variant, 'solveWasm');
  assert.equal(plan('getrs', 9, 9, 'T').variant, 'solveTransWasm');
  assert.equal(plan('getrs', 8, 8, 'T').variant, 'unrolled');
  assert.equal(plan('getrs', 2000, 2000, 'T').variant, 'reference');
  assert.equal(plan('getrf', 0, 20).variant, 'reference');
  assert.equal(planGetrf({ op: 'getrf', m: 64, n: 64, trans: 'N', dtype: 'float64', count: 1 }, T, { variant: 'blocked' }).variant, 'blocked');
  assert.equal(planGetrf({ op: 'getrf', m: 64, n: 64, trans: 'N', dtype: 'float64', count: 1 }, { ...T, luBlocked: { min: 48, leaf: 32 } }).variant, 'blocked');
});

test('trsm and trmm: blocked over unrolled leaves, trsm left over the WebAssembly solves, the reference', () => {
  const plan = (op: 'trsm' | 'trmm', side: 'left' | 'right', n: number, alpha = 1) =>
    planTrsm({ op, side, rows: n, cols: n, alpha, dtype: 'float64' }, T);
  assert.equal(plan('trsm', 'left', 16), 'blocked');
  assert.equal(plan('trsm', 'left', 17), 'blockedWasm');
  assert.equal(plan('trsm', 'right', 17), 'blocked');
  assert.equal(plan('trmm', 'left', 64), 'blocked');
  assert.equal(plan('trsm', 'left', 1025), 'reference');
  assert.equal(plan('trsm', 'left', 8, 0), 'reference', 'alpha = 0');
  assert.equal(trsmLeafMax('blockedWasm', T, 'float64'), T.trsmLeftWasm.float64.max);
  assert.equal(trsmLeafMax('blocked', T, 'float32'), T.unrollMax.triangular);
  assert.equal(planTrsm({ op: 'trsm', side: 'left', rows: 64, cols: 4, alpha: 1, dtype: 'float32' }, T, { variant: 'blocked' }), 'blocked');
});

test('syrk and the inverses: unrolled or blocked to 1024, the reference beyond', () => {
  assert.equal(planSyrk({ n: 64, k: 8, alpha: 1 }, T), 'blocked');
  assert.equal(planSyrk({ n: 64, k: 0, alpha: 1 }, T), 'reference');
  assert.equal(planSyrk({ n: 2048, k: 8, alpha: 1 }, T), 'reference');
  assert.equal(planSyrk({ n: 2048, k: 8, alpha: 1 }, T, { variant: 'blocked' }), 'blocked');
  assert.equal(planTrtri({ n: 16 }, T), 'unrolled');
  assert.equal(planTrtri({ n: 17 }, T), 'blocked');
  assert.equal(planTrtri({ n: 0 }, T), 'reference');
  assert.equal(planTrtri({ n: 1025 }, T), 'reference');
  assert.equal(planTrtri({ n: 8 }, T, { variant: 'blocked' }), 'blocked');
});

test('force reaches the kernels: getrf and potrf on forced designs agree with the planned ones bit for bit', async () => {
  const { fastGetrf } = await import('../../../src/cpu-fast/ops/getrf.js');
  const { fastPotrf } = await import('../../../src/cpu-fast/ops/potrf.js');
  const n = 8, count = 6;
  const strided = (data: Float64Array) => ({ kind: 'strided', data, offset: 0, ld: n, stride: n * n, rows: n, cols: n, count, order: 'col' }) as const;
  const spd = new Float64Array(n * n * count);
  for (let p = 0; p < count; p++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) spd[p * n * n + j * n + i] = i === j ? n + 1 + p : 1 / (1 + i + j + p);
  const lu = (variant?: 'unrolled' | 'wasm') => {
    const a = spd.slice(), ipiv = new Int32Array(n * count), info = new Int32Array(count);
    fastGetrf({ a: strided(a), ipiv, pivotStride: n, info }, variant ? { force: { variant } } : undefined);
    return [a, ipiv, info];
  };
  assert.deepEqual(lu('wasm'), lu());
  assert.deepEqual(lu('unrolled'), lu());
  const chol = (variant?: 'unrolled' | 'interleaved') => {
    const a = spd.slice(), info = new Int32Array(count);
    fastPotrf({ uplo: 'lower', a: strided(a), info }, variant ? { force: { variant } } : undefined);
    return [a, info];
  };
  const [x, xi] = chol('unrolled'), [y, yi] = chol('interleaved');
  assert.deepEqual(xi, yi);
  // bitwise unless the interleaved kernel fuses its updates (relaxed SIMD, MYRIAD_CPU_FMA)
  const { fmaFor } = await import('../../../src/cpu-fast/context.js');
  if (!fmaFor('potrfInterleaved', n)) assert.deepEqual(x, y);
  else for (let i = 0; i < x!.length; i++) assert.ok(Math.abs(x![i]! - y![i]!) <= 1e-12 * Math.abs(x![i]!) + 1e-300, `element ${i}`);
});

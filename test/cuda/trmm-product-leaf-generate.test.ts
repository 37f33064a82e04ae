/**
 * trmm's product leaf without a GPU: the generator pure (every parameter changes the kernel), its
 * orders (8, 16, 24, 32, 48, 64), its launch shapes, the plan taking it where forced and by default
 * (float32 from 32, leaves of 32), the triangle's other half never multiplied (no product with its zeros), and
 * where nvcc is installed, every order compiled for sm_90 without spills. Host emulation:
 * trmm-register-leaf-host-emulation.test.ts (MYRIAD_TRMM_LEAF=product).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  PRODUCT_LEAF_MAX, defaultTrmmLeaf, planTrsm, productLeafOrder, productLeafShape, trmmProductLeafSource, trmmRegisterLeafSource, type TrmmProductLeafParams, type TrsmProblem,
} from '../../src/cuda/kernels/trsm/index.js';
import { defaultTrsmTuning } from '../../src/cuda/model/tuning/trsm-default.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { TRSM_VARIANTS } from '../helpers/trsm-data.js';

const base: TrmmProductLeafParams = { dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kind: 'strided', order: 32 };

test('trmm product leaf: pure, every parameter changes the kernel, compiled at 8, 16, 24, 32, 48, 64 only', () => {
  assert.deepEqual([1, 7, 8, 9, 16, 17, 24, 25, 31, 32, 33, 48, 49, 64].map(productLeafOrder), [8, 8, 8, 16, 16, 24, 24, 32, 32, 32, 48, 48, 64, 64]);
  assert.deepEqual(trmmProductLeafSource(base), trmmProductLeafSource({ ...base }));
  const seen = new Set<string>();
  for (const dtype of ['float64', 'float32'] as const) for (const kind of ['strided', 'pointer'] as const) for (const v of TRSM_VARIANTS) for (const order of [8, 24, 32]) {
    const src = trmmProductLeafSource({ ...v, dtype, kind, order });
    assert.ok(!seen.has(src.source) && !seen.has(src.entry), src.entry);
    seen.add(src.source).add(src.entry);
  }
  assert.notEqual(trmmProductLeafSource(base).entry, trmmRegisterLeafSource(base).entry);
  for (const order of [0, 7, 33, 40, 56, 80, 2.5, NaN]) assert.throws(() => trmmProductLeafSource({ ...base, order }), /order must be 8, 16, 24, 32, 48 or 64/);
  // Row p sums q < p and then its diagonal: the loops never run over the other triangle.
  const src = trmmProductLeafSource(base).source;
  assert.match(src, /for \(int q = 0; q < p0; \+\+q\)/);
  assert.match(src, /for \(int s = d \+ 1; s < RP; \+\+s\)/);
});

test('trmm product leaf shapes: whole row blocks and vector groups a task, 128 threads a block or fewer', () => {
  for (const dtype of ['float64', 'float32'] as const) for (const order of [8, 16, 24, 32, 48, 64]) {
    const sh = productLeafShape({ dtype, order });
    assert.equal(sh.threadsPerTask, (order / 4) * 8);
    assert.ok(sh.tasks >= 1 && sh.tasks * sh.threadsPerTask <= 128, `${dtype} ${order}: ${sh.tasks} x ${sh.threadsPerTask}`);
    assert.equal(sh.sharedBytes, sh.tasks * ((order * (order + 1)) / 2 + order * 33) * (dtype === 'float64' ? 8 : 4));
    assert.ok(sh.sharedBytes <= 68 * 1024);
  }
});

const problem = (over: Partial<TrsmProblem> = {}): TrsmProblem => ({
  op: 'trmm', dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', m: 128, n: 128, count: 100, kind: 'strided', sharedLimit: 226 * 1024, ...over,
});

test('trmm plans: the product leaf where forced (leaves of 64 at most) and for float32 from 32 by default (leaves of 32); trsm never', () => {
  for (const v of TRSM_VARIANTS) for (const [m, n] of [[1, 1], [32, 32], [47, 5], [5, 47], [128, 128], [513, 3]] as const) {
    const plan = planTrsm(problem({ ...v, m, n }), defaultTrsmTuning, { force: { trmmLeaf: 'product' } });
    assert.equal(plan.productLeaf, true);
    assert.ok(plan.registerShapes === undefined && plan.shapes.size === 0);
    assert.ok(plan.steps.every((s) => s.kind !== 'leaf' || s.span.size <= PRODUCT_LEAF_MAX));
    // Forced to leaves of 32, the same recursion as the register leaf's.
    const at32 = planTrsm(problem({ ...v, m, n }), defaultTrsmTuning, { force: { trmmLeaf: 'product', leafMax: 32 } });
    assert.deepEqual(at32.steps, planTrsm(problem({ ...v, m, n }), defaultTrsmTuning, { force: { trmmLeaf: 'register' } }).steps);
    const t = v.side === 'left' ? m : n;
    assert.equal(planTrsm(problem({ ...v, m, n }), defaultTrsmTuning).productLeaf, undefined);   // float64: the register leaf
    const f32 = planTrsm(problem({ ...v, m, n, dtype: 'float32' }), defaultTrsmTuning);
    assert.equal(f32.productLeaf, t >= 32 ? true : undefined, `float32 t=${t}`);
    assert.equal(f32.registerShapes !== undefined, t < 32);
    assert.ok(f32.steps.every((s) => s.kind !== 'leaf' || s.span.size <= 32));
    assert.deepEqual(defaultTrmmLeaf('float32', t), t >= 32 ? { leaf: 'product', leafMax: 32 } : { leaf: 'register' });
    assert.equal(planTrsm(problem({ ...v, m, n, op: 'trsm' }), defaultTrsmTuning, { force: { trmmLeaf: 'product' } }).productLeaf, undefined);
  }
  // Leaves of 64 by default: one leaf at 64, two at 128; a larger leafMax stays at 64.
  assert.deepEqual(planTrsm(problem({ m: 64 }), defaultTrsmTuning, { force: { trmmLeaf: 'product' } }).steps.map((s) => s.kind), ['leaf']);
  assert.deepEqual(planTrsm(problem({ m: 128 }), defaultTrsmTuning, { force: { trmmLeaf: 'product' } }).steps.filter((s) => s.kind === 'leaf').map((s) => s.kind === 'leaf' && s.span.size), [64, 64]);
  assert.ok(planTrsm(problem({ m: 300 }), defaultTrsmTuning, { force: { leafMax: 100, trmmLeaf: 'product' } }).steps.every((s) => s.kind !== 'leaf' || s.span.size <= 64));
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('trmm product leaves compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const sources = [
    trmmProductLeafSource(base),
    trmmProductLeafSource({ ...base, side: 'right', uplo: 'upper', transA: 'T', diag: 'unit', kind: 'pointer' }),
    trmmProductLeafSource({ ...base, order: 8, uplo: 'upper' }),
    trmmProductLeafSource({ ...base, dtype: 'float32', side: 'right', order: 24 }),
    trmmProductLeafSource({ ...base, dtype: 'float32', order: 16, diag: 'unit', kind: 'pointer' }),
    trmmProductLeafSource({ ...base, order: 64, side: 'right', uplo: 'upper' }),
    trmmProductLeafSource({ ...base, order: 48, transA: 'T' }),
  ];
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

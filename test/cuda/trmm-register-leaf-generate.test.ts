/**
 * trmm's register leaf without a GPU: the generator pure (every parameter changes the kernel), the
 * plan's choice (the register leaf compiled at orders 8, 16, 24, 32 for trmm by default, the shared-memory leaf where forced, never
 * for trsm), its launch shapes, and where nvcc is installed, orders 16, 24 and 32 compiled for sm_90
 * without spills. Host emulation: trmm-register-leaf-host-emulation.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  REGISTER_LEAF_MAX, planTrsm, registerLeafOrder, registerLeafShape, registerLeafWarpElements, trmmRegisterLeafSource, trsmLeafSource, type TrmmRegisterLeafParams, type TrsmProblem,
} from '../../src/cuda/kernels/trsm/index.js';
import { defaultTrsmTuning } from '../../src/cuda/model/tuning/trsm-default.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { TRSM_VARIANTS } from '../helpers/trsm-data.js';

const LIMIT = 226 * 1024;
const base: TrmmRegisterLeafParams = { dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', kind: 'strided', order: 32 };

test('trmm register leaf: pure, every parameter changes the kernel, orders 1 ... 32 only, compiled at 8, 16, 24, 32', () => {
  assert.deepEqual([1, 7, 8, 9, 16, 17, 24, 25, 31, 32].map(registerLeafOrder), [8, 8, 8, 16, 16, 24, 24, 32, 32, 32]);
  assert.deepEqual(trmmRegisterLeafSource(base), trmmRegisterLeafSource({ ...base }));
  const seen = new Set<string>();
  for (const dtype of ['float64', 'float32'] as const) for (const kind of ['strided', 'pointer'] as const) for (const v of TRSM_VARIANTS) for (const order of [8, 24, 32]) {
    const src = trmmRegisterLeafSource({ ...v, dtype, kind, order });
    assert.ok(!seen.has(src.source) && !seen.has(src.entry), src.entry);
    seen.add(src.source).add(src.entry);
  }
  // Not the shared-memory leaf's text or name.
  const shared = trsmLeafSource({ ...base, op: 'trmm' });
  assert.notEqual(shared.entry, trmmRegisterLeafSource(base).entry);
  for (const order of [0, 33, 2.5, NaN]) assert.throws(() => trmmRegisterLeafSource({ ...base, order }), /order must be an integer in 1\.\.32/);
  // The unit diagonal is never read: no load of the diagonal's element in the product.
  assert.doesNotMatch(trmmRegisterLeafSource({ ...base, diag: 'unit' }).source, /x\[\d+\] \*= l0\.x/);
  assert.match(trmmRegisterLeafSource(base).source, /x\[0\] \*= l0\.x/);
});

const problem = (over: Partial<TrsmProblem> = {}): TrsmProblem => ({
  op: 'trmm', dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', m: 128, n: 128, count: 100, kind: 'strided', sharedLimit: LIMIT, ...over,
});

test('trmm plans take the register leaf by default (float64 side left 25-32: the pipelined kernel), the shared leaf where forced; trsm never', () => {
  for (const v of TRSM_VARIANTS) for (const [m, n] of [[1, 1], [32, 32], [47, 5], [5, 47], [128, 128], [513, 3]] as const) {
    const t = v.side === 'left' ? m : n;
    if (v.side === 'left' && t > 24 && t <= 32) continue;   // trmm-pipelined-generate.test.ts
    const plan = planTrsm(problem({ ...v, m, n }), defaultTrsmTuning);
    const leaves = plan.steps.filter((s) => s.kind === 'leaf');
    assert.ok(plan.registerShapes !== undefined && plan.shapes.size === 0);
    for (const s of leaves) assert.ok(s.span.size <= REGISTER_LEAF_MAX && plan.registerShapes.has(s.span.size));
    const old = planTrsm(problem({ ...v, m, n }), defaultTrsmTuning, { force: { trmmLeaf: 'shared' } });
    assert.equal(old.registerShapes, undefined);
    assert.deepEqual(old.steps, plan.steps);   // the same recursion at the table's leaf of 32
    for (const s of old.steps) if (s.kind === 'leaf') assert.ok(old.shapes.has(s.span.size));
    assert.equal(planTrsm(problem({ ...v, m, n, op: 'trsm' }), defaultTrsmTuning).registerShapes, undefined);
  }
  // A forced leaf above 32 stays at 32 for the register leaf, not for the shared one.
  const big = { force: { leafMax: 64 } };
  assert.ok(planTrsm(problem({ m: 64 }), defaultTrsmTuning, big).steps.every((s) => s.kind !== 'leaf' || s.span.size <= 32));
  assert.deepEqual(planTrsm(problem({ m: 64 }), defaultTrsmTuning, { force: { leafMax: 64, trmmLeaf: 'shared' } }).steps.map((s) => s.kind), ['leaf']);
});

test('trmm register leaf shapes: at most 4 warps, no more than the tasks, within the shared limit', () => {
  for (const dtype of ['float64', 'float32'] as const) for (const side of ['left', 'right'] as const) for (const t of [1, 9, 32]) {
    for (const [nvec, count] of [[1, 1], [32, 3], [33, 1], [512, 100], [1, 100000]] as const) {
      const sh = registerLeafShape({ dtype, side, count, sharedLimit: LIMIT }, t, nvec);
      const tasks = count * Math.ceil(nvec / 32);
      const perWarp = registerLeafWarpElements({ dtype, side, order: registerLeafOrder(t) }) * (dtype === 'float64' ? 8 : 4);
      assert.ok(sh.warps >= 1 && sh.warps <= Math.min(4, tasks), `${dtype} ${side} t=${t} ${nvec}x${count}: ${sh.warps} warps`);
      assert.equal(sh.sharedBytes, sh.warps * perWarp);
      assert.equal(perWarp % 16, 0);   // every warp's triangle 16-byte aligned (the vector loads)
    }
  }
  assert.throws(() => registerLeafShape({ dtype: 'float64', side: 'left', count: 1, sharedLimit: 1024 }, 32, 32), /does not fit/);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('trmm register leaves of 16, 24 and 32 compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const sources = [
    trmmRegisterLeafSource({ ...base }),
    trmmRegisterLeafSource({ ...base, side: 'right', uplo: 'upper', transA: 'T', diag: 'unit', kind: 'pointer' }),
    trmmRegisterLeafSource({ ...base, order: 24, uplo: 'upper', transA: 'T' }),
    trmmRegisterLeafSource({ ...base, order: 16, side: 'right' }),
    trmmRegisterLeafSource({ ...base, dtype: 'float32', side: 'right', uplo: 'upper', transA: 'T', diag: 'unit' }),
    trmmRegisterLeafSource({ ...base, dtype: 'float32', order: 24, uplo: 'upper', transA: 'T', kind: 'pointer' }),
    trmmRegisterLeafSource({ ...base, dtype: 'float32', order: 16, diag: 'unit' }),
  ];
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

/**
 * The pure plans of two compositions across families, without a GPU: the recursive Cholesky
 * (potrf/plan.ts: leaves, updates, when it applies) and the solves' trsm route (solve/plan.ts),
 * and the kernels they add (the info combine, getrs's row interchanges, posv/gesv's copy of B).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { infoCombineSource, potrfRecursionSteps, potrfRecursive, RECURSIVE_LEAF } from '../../src/cuda/kernels/potrf/index.js';
import { copySource } from '../../src/cuda/kernels/solve/generate-copy.js';
import { permuteSource } from '../../src/cuda/kernels/solve/generate-permute.js';
import { TRSM_ROUTE_MIN_RHS, trsmRouteApplies } from '../../src/cuda/kernels/solve/plan.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

test('the recursive Cholesky covers the matrix: leaves in order, each update between its two halves', () => {
  for (const n of [129, 200, 256, 300, 511, 1000, 1025, 2048, 4096]) {
    const steps = potrfRecursionSteps(n);
    const leaves = steps.filter((s) => s.kind === 'leaf');
    // The leaves tile [0, n) in order, none above the leaf size.
    let next = 0;
    for (const l of leaves) {
      assert.equal(l.off, next, `n = ${n}: leaves in order`);
      assert.ok(l.size >= 1 && l.size <= RECURSIVE_LEAF, `n = ${n}: leaf of ${l.size}`);
      next += l.size;
    }
    assert.equal(next, n);
    // Every update comes after the leaves of its top block and before those of the rest.
    for (const [i, s] of steps.entries()) {
      if (s.kind !== 'update') continue;
      assert.ok(s.top % 32 === 0 || s.top < 32, `n = ${n}: splits at multiples of 32`);
      const before = steps.slice(0, i).filter((x) => x.kind === 'leaf');
      const after = steps.slice(i + 1).filter((x) => x.kind === 'leaf');
      assert.ok(before.some((x) => x.off + x.size === s.off + s.top), `n = ${n}: the top block is factored first`);
      assert.ok(after.some((x) => x.off === s.off + s.top), `n = ${n}: the rest after`);
    }
  }
  assert.deepEqual(potrfRecursionSteps(100), [{ kind: 'leaf', off: 0, size: 100 }]);
  assert.deepEqual(potrfRecursionSteps(0), []);
});

test('when the recursion applies: large n, or mid n with fewer matrices than SMs; force overrides', () => {
  assert.equal(potrfRecursive(1024, 10_000, 132), true);
  assert.equal(potrfRecursive(512, 256, 132), false);
  assert.equal(potrfRecursive(512, 4, 132), true);
  assert.equal(potrfRecursive(256, 1, 132), false);
  assert.equal(potrfRecursive(200, 1, 132, true), true);
  assert.equal(potrfRecursive(100, 1, 132, true), false, 'nothing to split at or below a leaf');
  assert.equal(potrfRecursive(4096, 1, 132, false), false);
});

test('the solves take the trsm route from TRSM_ROUTE_MIN_RHS right-hand sides and n > 32, for every matrix', () => {
  assert.equal(trsmRouteApplies([{ n: 33, nrhs: TRSM_ROUTE_MIN_RHS }]), true);
  assert.equal(trsmRouteApplies([{ n: 32, nrhs: 100 }]), false);
  assert.equal(trsmRouteApplies([{ n: 100, nrhs: TRSM_ROUTE_MIN_RHS - 1 }]), false);
  assert.equal(trsmRouteApplies([{ n: 100, nrhs: 20 }, { n: 20, nrhs: 20 }]), false, 'a variable batch takes it only whole');
  assert.equal(trsmRouteApplies([]), false);
});

test('the added kernels: pure, every parameter changes the source, and they compile', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  const permutes = [false, true].flatMap((inverse) => (['strided', 'pointer'] as const).map((kind) => permuteSource({ dtype: 'float64', kind, inverse })));
  const copies = [false, true].flatMap((failedOnly) => (['float64', 'float32'] as const).map((dtype) => copySource({ dtype, kind: 'strided', failedOnly })));
  const all = [...permutes, ...copies, infoCombineSource()];
  assert.equal(new Set(all.map((k) => k.source)).size, all.length);
  assert.equal(permuteSource({ dtype: 'float32', kind: 'pointer', inverse: true }).source, permuteSource({ dtype: 'float32', kind: 'pointer', inverse: true }).source);
  const failures = compileFailures(await compileForSm90(all), () => undefined);
  assert.deepEqual(failures, [], failures.join('\n'));
});

/**
 * posv's and gesv's fused class plan (solve/plan-vbatched.ts) and kernel source, without a GPU: the
 * members of order up to 32 (0 too) in the classes 8-32, largest first, the larger ones left out;
 * four bordered right-hand sides whatever the class, further passes where its widest B has more; the
 * kernel bounds its passes by the widest B of the warp's members, lets a warp of empty members go at
 * once, and writes info at the member's batch index.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planVbatchedFused, posvSmallVbatchedSource } from '../../src/cuda/kernels/solve/index.js';

test('posv fused classes: members up to 32 by class, the others left out; four right-hand sides bordered, further passes where a class\'s widest B has more', () => {
  const orders = Int32Array.from([0, 33, 5, 32, 17, 600, 8, 24, 9, 64]);
  const nrhs = Int32Array.from([3, 1, 0, 300, 2, 1, 1, 4, 5, 1]);
  const plan = planVbatchedFused({ dtype: 'float64', orders, nrhs });
  assert.deepEqual(plan.launches.map((l) => [l.bound, [...l.members]]), [[32, [3]], [24, [7, 4]], [16, [8]], [8, [6, 2, 0]]]);
  assert.deepEqual(plan.launches.map((l) => [l.nrhsMax, l.params.rhs, l.params.more, l.params.warps]), [[300, 4, true, 2], [4, 4, false, 2], [5, 4, true, 2], [3, 4, false, 4]]);
  assert.deepEqual([...plan.place], [6, -1, 5, 0, 2, -1, 4, 1, 3, -1]);
  assert.deepEqual([...plan.order], [3, 7, 4, 8, 6, 2, 0]);
  // A class whose members have no right-hand side: the same four bordered columns (a member's arithmetic never depends on the others), no further passes.
  const none = planVbatchedFused({ dtype: 'float32', orders: Int32Array.from([3, 7]), nrhs: Int32Array.from([0, 0]) });
  assert.deepEqual(none.launches.map((l) => [l.bound, l.nrhsMax, l.params.rhs, l.params.more]), [[8, 0, 4, false]]);
});

test('posv fused class kernel: passes to the warp\'s widest B, a warp of empty members out at once, loads and stores masked to the member, info at its batch index', () => {
  const src = posvSmallVbatchedSource({ dtype: 'float64', n: 16, uplo: 'upper', warps: 2, rhs: 4, more: true }).source;
  assert.match(src, /const int passes = __reduce_max_sync\(0xffffffffu, nrhs\);/);
  assert.match(src, /for \(int q0 = RB; q0 < passes; q0 \+= RB\)/);
  assert.match(src, /if \(__all_sync\(0xffffffffu, nm == 0\)\) \{\n    if \(valid && r == 0\) info\[dm\[4\]\] = 0;\n    return;/);
  assert.match(src, /const bool row = valid && r < nm;/);
  assert.match(src, /info\[dm\[4\]\] = fail;/);
  assert.doesNotMatch(posvSmallVbatchedSource({ dtype: 'float64', n: 16, uplo: 'upper', warps: 2, rhs: 4, more: false }).source, /q0 < passes/);
});

/**
 * The pure parts of `myriad bench --vbatched`: the uniform reference of a variable batch (order
 * s = round(E[n^3] / E[n^2]), count c = round(N E[n^2] / s^2): the same bytes and leading flops up to
 * rounding), the op costs and the rate against it, and the `--ways` list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { counts } from '../../src/core/counts.js';
import { MyriadError } from '../../src/core/errors.js';
import { batchCost, rateVsUniform, referenceCost, uniformReference, vbatchedCost } from '../../src/bench/vbatched-uniform.js';
import { parseVbatchedWays, VBATCHED_WAYS } from '../../src/bench/vbatched-table.js';
import { logUniformSizes, VBATCHED_OPS, VBATCHED_WORKLOADS } from '../../src/bench/vbatched.js';

test('uniform reference: s = round(E[n^3] / E[n^2]), c = round(N E[n^2] / s^2)', () => {
  // [1, 2, 3]: E[n^2] = 14/3, E[n^3] = 36/3; s = round(36/14) = 3, c = round(14/9) = 2.
  assert.deepEqual(uniformReference([1, 2, 3]), { order: 3, count: 2 });
  assert.deepEqual(uniformReference([5, 5, 5]), { order: 5, count: 3 });
  assert.deepEqual(uniformReference([0, 7]), { order: 7, count: 1 });
  // One member of 100 and a hundred of 1: s = round(1000100 / 10100) = 99, c = round(10100 / 99^2) = 1.
  assert.deepEqual(uniformReference([100, ...new Array<number>(100).fill(1)]), { order: 99, count: 1 });
});

test('uniform reference of the bench\'s workloads: the variable batch\'s bytes and n^3 within the rounding of s and c', () => {
  for (const [w, { count, max }] of Object.entries(VBATCHED_WORKLOADS)) {
    const sizes = logUniformSizes(count, max, w === 'a' ? 1 : 2);
    const { order: s, count: c } = uniformReference(sizes);
    const squares = sizes.reduce((t, n) => t + n * n, 0), cubes = sizes.reduce((t, n) => t + n ** 3, 0);
    assert.ok(s >= 1 && s <= max && c >= 1, `${w}: ${s} x ${c}`);
    assert.ok(Math.abs(c * s * s - squares) / squares <= 0.5 / c, `${w}: bytes ${c * s * s} against ${squares}`);
    assert.ok(Math.abs(c * s ** 3 - cubes) / cubes <= 0.5 / c + 0.5 / s, `${w}: n^3 ${c * s ** 3} against ${cubes}`);
    // Every op's flop ratio is the cubes' up to its lower-order terms.
    for (const op of VBATCHED_OPS) {
      const ratio = batchCost(op, 'float64', sizes).flops / referenceCost(op, 'float64', { order: s, count: c }).flops;
      assert.ok(Math.abs(ratio - 1) < 0.05, `${w} ${op}: flop ratio ${ratio}`);
    }
  }
});

test('uniform reference: bad sizes name the argument', () => {
  for (const sizes of [[], [0, 0], [3, -1], [2.5]]) {
    assert.throws(() => uniformReference(sizes), (e: unknown) => e instanceof MyriadError && e.argument === 'sizes', JSON.stringify(sizes));
  }
});

test('op costs: the bench\'s members (trsm left, posv and gesv n right-hand sides), summed; the rate against the uniform reference', () => {
  assert.deepEqual(vbatchedCost('gemm', 'float64', 4), counts.gemm('float64', 4, 4, 4, false));
  assert.deepEqual(vbatchedCost('trsm', 'float32', 5), counts.trsm('float32', 'left', 5, 5));
  assert.deepEqual(vbatchedCost('posv', 'float64', 6), counts.posv('float64', 6, 6));
  assert.deepEqual(vbatchedCost('gesv', 'float64', 6), counts.gesv('float64', 6, 6));
  assert.deepEqual(vbatchedCost('getrf', 'float64', 6), counts.getrf('float64', 6));
  assert.deepEqual(vbatchedCost('potrf', 'float64', 6), counts.potrf('float64', 6));
  const sum = batchCost('potrf', 'float64', [2, 3]);
  assert.equal(sum.flops, counts.potrf('float64', 2).flops + counts.potrf('float64', 3).flops);
  assert.equal(sum.bytes, counts.potrf('float64', 2).bytes + counts.potrf('float64', 3).bytes);
  assert.deepEqual(referenceCost('gemm', 'float64', { order: 3, count: 2 }), { flops: 2 * 54, bytes: 2 * counts.gemm('float64', 3, 3, 3, false).bytes });
  // 10 ms variable against 7 ms uniform at equal flops: 70% of its rate; twice the flops in the same time: twice the rate.
  assert.equal(rateVsUniform(10, 7, 1e9, 1e9), 0.7);
  assert.equal(rateVsUniform(10, 10, 2e9, 1e9), 2);
});

test('--ways: all by default, a comma list, an unknown or empty entry names the option', () => {
  assert.deepEqual([...parseVbatchedWays(undefined)], [...VBATCHED_WAYS]);
  assert.deepEqual([...parseVbatchedWays('uniform, vbatched')], ['uniform', 'vbatched']);
  assert.deepEqual([...parseVbatchedWays('device')], ['device']);
  for (const bad of ['', 'vbatched,,uniform', 'fast', 'vbatched,Vendor']) {
    assert.throws(() => parseVbatchedWays(bad), (e: unknown) => e instanceof MyriadError && e.argument === '--ways', bad);
  }
});

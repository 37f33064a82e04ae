/**
 * Backend selection: the fast CPU backend is what 'cpu', 'auto' without a GPU and the top-level
 * functions use; 'reference' stays reachable; both give the same answer on the same problem.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuContext, open, posv, probeBackends, strided } from '../../../src/index.js';
import { fmaFor } from '../../../src/cpu-fast/context.js';

describe('CPU backend selection', () => {
  test("'cpu' and the top-level functions use the fast backend, 'reference' the reference", () => {
    assert.match(open({ backend: 'cpu' }).describe(), /generated/);
    assert.equal(open({ backend: 'cpu' }).describe(), cpuContext.describe());
    assert.notEqual(open({ backend: 'cpu' }), cpuContext, "open() gives a context of the caller's own");
    assert.match(open({ backend: 'reference' }).describe(), /reference/);
    if (!probeBackends().cuda.usable) assert.equal(open({ backend: 'auto' }).describe(), cpuContext.describe());
  });
  test('the same posv on both gives the same result: bitwise, or within rounding where fused (relaxed SIMD)', () => {
    const n = 6, count = 3;
    const make = (): { a: Float64Array; b: Float64Array } => {
      const a = new Float64Array(n * n * count).map((_, i) => Math.sin(i));
      for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) a[p * n * n + i * n + i] = n + 1;
      return { a, b: new Float64Array(n * count).map((_, i) => Math.cos(i)) };
    };
    const x = make(), y = make();
    posv({ a: strided(x.a, { rows: n, count }), b: strided(x.b, { rows: n, cols: 1, count }), uplo: 'upper' });
    open({ backend: 'reference' }).posv({ a: strided(y.a, { rows: n, count }), b: strided(y.b, { rows: n, cols: 1, count }), uplo: 'upper' });
    // posv 6 runs the interleaved Cholesky: fused multiply-adds where tuning.ts says so (one rounding per update)
    if (!fmaFor('potrfInterleaved', n)) return assert.deepEqual(x, y);
    for (const key of ['a', 'b'] as const) x[key].forEach((v, i) => {
      const ref = y[key][i]!;
      assert.ok(Math.abs(v - ref) <= 64 * Number.EPSILON * Math.max(1, Math.abs(ref)), `${key}[${i}] is ${v}, the reference has ${ref}`);
    });
  });
});

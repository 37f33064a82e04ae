/**
 * getri through the public API on both CPU backends: inv(A) from getrf's factors checked by the
 * residual ||A inv(A) - I|| / (n ||A|| ||inv(A)|| eps) (no second implementation), a singular U,
 * row-major batches, float32, and the validation messages.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getrf, getri, open, strided, MyriadError } from '../../../src/index.js';

function random(n: number, count: number, seed: number): Float64Array {
  let s = seed;
  const next = (): number => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  return Float64Array.from({ length: n * n * count }, next);
}

/** max over the batch of ||A X - I||_1 / (n ||A||_1 ||X||_1 eps), column-major. */
function residual(a: ArrayLike<number>, x: ArrayLike<number>, n: number, count: number, eps: number): number {
  let worst = 0;
  for (let m = 0; m < count; m++) {
    const o = m * n * n;
    const norm = (v: ArrayLike<number>): number => {
      let best = 0;
      for (let j = 0; j < n; j++) { let c = 0; for (let i = 0; i < n; i++) c += Math.abs(v[o + j * n + i]!); best = Math.max(best, c); }
      return best;
    };
    let r = 0;
    for (let j = 0; j < n; j++) {
      let c = 0;
      for (let i = 0; i < n; i++) {
        let t = i === j ? -1 : 0;
        for (let k = 0; k < n; k++) t += a[o + k * n + i]! * x[o + j * n + k]!;
        c += Math.abs(t);
      }
      r = Math.max(r, c);
    }
    worst = Math.max(worst, r / (n * norm(a) * norm(x) * eps));
  }
  return worst;
}

describe('getri', () => {
  for (const backend of ['cpu', 'reference'] as const)
    for (const n of [1, 2, 3, 7, 16, 33])
      it(`${backend} float64 n = ${n}: ||A inv(A) - I|| small, info 0`, () => {
        const ctx = open({ backend });
        const a = random(n, 3, n + 1);
        const lu = a.slice();
        const batch = strided(lu, { rows: n, cols: n, count: 3 });
        const { ipiv } = ctx.getrf({ a: batch });
        const { info } = ctx.getri({ a: batch, ipiv });
        assert.deepEqual([...info], [0, 0, 0]);
        assert.ok(residual(a, lu, n, 3, 2 ** -52) < 30);
        ctx.dispose();
      });

  it('float32 and row-major: the inverse of the matrices as given', () => {
    const n = 5;
    const a = Float32Array.from(random(n, 2, 9));
    const x = a.slice();
    const batch = strided(x, { rows: n, cols: n, count: 2, order: 'row' });
    const { ipiv } = getrf({ a: batch });
    getri({ a: batch, ipiv, check: true });
    // Row-major A X = I is column-major X^T A^T = I: the residual of the transposes, A^T X^T - I's transpose.
    assert.ok(residual(x, a, n, 2, 2 ** -23) < 30);
  });

  it('a singular U: info = k, that matrix unchanged, the next one inverted; check throws NUMERICAL', () => {
    const a = Float64Array.from([1, 2, 2, 4, /* matrix 1 */ 2, 0, 0, 4]);
    const batch = strided(a, { rows: 2, cols: 2, count: 2 });
    const { ipiv } = getrf({ a: batch });
    const factored = a.slice(0, 4);
    const { info } = getri({ a: batch, ipiv });
    assert.deepEqual([...info], [2, 0]);
    assert.deepEqual([...a.slice(0, 4)], [...factored]);
    assert.deepEqual([...a.slice(4)].map((v) => v + 0), [0.5, 0, 0, 0.25]);
    const b = strided(Float64Array.from([1, 2, 2, 4]), { rows: 2, cols: 2, count: 1 });
    const p = getrf({ a: b }).ipiv;
    assert.throws(() => getri({ a: b, ipiv: p, check: true }), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /singular/.test(e.message));
  });

  it('names the argument at fault', () => {
    const a = strided(new Float64Array(6), { rows: 2, cols: 3, count: 1 });
    assert.throws(() => getri({ a, ipiv: new Int32Array(2) }), (e: unknown) => e instanceof MyriadError && e.argument === 'a' && /square/.test(e.message));
    const sq = strided(new Float64Array(4), { rows: 2, cols: 2, count: 1 });
    assert.throws(() => getri({ a: sq } as never), (e: unknown) => e instanceof MyriadError && e.argument === 'ipiv');
    assert.throws(() => getri({ a: sq, ipiv: Int32Array.from([5, 1]) }), (e: unknown) => e instanceof MyriadError && e.argument === 'ipiv' && /0-based/.test(e.message));
  });
});

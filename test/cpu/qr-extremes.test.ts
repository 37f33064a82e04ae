/**
 * Householder QR at float64's limits, on both CPU backends: geqrf's R and gels's X of a matrix
 * scaled by a power of two (2^700, 2^-700, and 2^-1030, whose elements are subnormal) against the
 * unscaled matrix's, which they equal up to the scale (exactly in exact arithmetic; the subnormal
 * inputs keep 44 bits). LAPACK's dlarfg / zlarfg rescale a column whose norm is below the safe
 * minimum, and zladiv divides without squaring: without them 1 / (alpha - beta) overflowed to Inf
 * (subnormal columns; complex from about 1e-154) or the complex reciprocal's r^2 + i^2 did (from
 * about 1e154), and R and X came out NaN or wrong with info 0. Then the fast backend's two-matrix
 * complex QR (n <= 16): a member the kernel hands back (a NaN, an infinity, a value near the
 * limits) leaves every other member's result bit for bit as a batch without it gives. And gels's
 * scale-back: X' sa / sb with sa = sb = 2^1022 (subnormal A and B) overflowed in X' sa before the
 * division for |X| above 4.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { open } from '../../src/api/open.js';
import { values } from '../helpers/eigen-residuals.js';
import { scaledQrFailures } from '../helpers/qr-extremes.js';

const BACKENDS = ['reference', 'cpu'] as const;
/** Orders: the per-matrix kernels' range and beyond (square gels at 12 reached X = Inf before the scale-back's fix). */
const ORDERS = [5, 12];

for (const backend of BACKENDS) {
  for (const complex of [false, true]) {
    test(`${backend} ${complex ? 'complex128' : 'float64'} geqrf and gels: R scales with A and X does not, at 2^700, 2^-700 and subnormal 2^-1030`, async () => {
      const ctx = await open({ backend });
      assert.deepEqual(ORDERS.flatMap((n) => scaledQrFailures(ctx, complex, n)), []);
    });
  }
}

test('cpu complex geqrf and orgqr (the two-matrix kernel, n <= 16): a member handed back leaves the others as a batch without it does, bit for bit', async () => {
  const ctx = await open({ backend: 'cpu' });
  const count = 7;
  for (const n of [1, 2, 5, 8, 16]) {
    const per = 2 * n * n;
    const clean = values(per * count, n);
    const run = (a0: Float64Array): { a: Float64Array; q: Float64Array } => {
      const a = a0.slice(), tau = new Float64Array(2 * n * count), info = new Int32Array(count);
      const batch = (d: Float64Array) => strided(d, { rows: n, count, dtype: 'complex128' });
      const taus = strided(tau, { rows: n, cols: 1, count, dtype: 'complex128' });
      ctx.geqrf({ a: batch(a), tau: taus, info });
      const q = a.slice();
      ctx.orgqr({ a: batch(q), tau: taus });
      return { a, q };
    };
    const want = run(clean);
    // The bad member in either lane of a pair (2 and 3 are a pair), and the odd last matrix.
    for (const [member, at, value] of [[3, 0, NaN], [2, 1, Infinity], [3, 5, 1e300], [6, 0, NaN]] as const) {
      if (at >= per) continue;
      const bad = clean.slice();
      bad[member * per + at] = value;
      const got = run(bad);
      for (let p = 0; p < count; p++) {
        if (p === member) continue;
        for (let i = p * per; i < (p + 1) * per; i++) {
          if (!Object.is(got.a[i], want.a[i])) assert.fail(`n ${n}, bad member ${member} (${value}): geqrf of member ${p} differs at ${i - p * per}`);
          if (!Object.is(got.q[i], want.q[i])) assert.fail(`n ${n}, bad member ${member} (${value}): orgqr of member ${p} differs at ${i - p * per}`);
        }
      }
    }
  }
});

for (const backend of BACKENDS) {
  test(`${backend} gels on deeply subnormal data (2^-1060), tall and wide, float64 and complex128: X of the same stored numbers rescaled by 2^1060, within 1e-13 (dgels scales into the normal range first)`, async () => {
    const ctx = await open({ backend });
    for (const complex of [false, true]) for (const [m, n] of [[8, 3], [2, 5]] as const) {
      const parts = complex ? 2 : 1, dtype = complex ? 'complex128' as const : 'float64' as const, rows = Math.max(m, n);
      const tiny = values(parts * m * n, 31).map((x) => x * 2 ** -1060), btiny = values(parts * rows, 32).map((x) => x * 2 ** -1060);
      const run = (a0: Float64Array, b0: Float64Array): Float64Array => {
        const a = a0.slice(), b = b0.slice(), info = new Int32Array(1);
        ctx.gels({ a: strided(a, { rows: m, cols: n, count: 1, dtype }), b: strided(b, { rows, cols: 1, count: 1, dtype }), info });
        assert.equal(info[0], 0);
        return b.subarray(0, parts * n);
      };
      const got = run(tiny, btiny);
      // The same stored numbers times 2^1060 (exact): the solution is the same in exact arithmetic.
      const up = (x: number): number => x * 2 ** 530 * 2 ** 530;   // 2^1060 itself is not a float64
      const want = run(tiny.map(up), btiny.map(up));
      const top = Math.max(...want.map(Math.abs));
      for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i]! - want[i]!) <= 1e-13 * top, `${dtype} ${m} x ${n} X[${i}]: ${got[i]} against ${want[i]}`);
    }
  });
}

for (const backend of BACKENDS) {
  test(`${backend} gels on subnormal data whose solution is large (|x| = 100): X is not Inf (sa / sb applied without overflowing), float64 and complex128`, async () => {
    const ctx = await open({ backend });
    for (const complex of [false, true]) {
      const parts = complex ? 2 : 1, dtype = complex ? 'complex128' as const : 'float64' as const, n = 3;
      const tiny = 2 ** -1040;
      // A = tiny (I + a small random part), B = 100 tiny A's first column: X = 100 e_1 to rounding.
      const a = values(parts * n * n, 41).map((x) => x * 2 ** -6 * tiny);
      for (let j = 0; j < n; j++) a[parts * (j + j * n)]! += tiny;
      const b = new Float64Array(parts * n);
      for (let i = 0; i < parts * n; i++) b[i] = 100 * a[i]!;
      const info = new Int32Array(1);
      ctx.gels({ a: strided(a, { rows: n, count: 1, dtype }), b: strided(b, { rows: n, cols: 1, count: 1, dtype }), info });
      assert.equal(info[0], 0);
      for (let i = 0; i < parts * n; i++) assert.ok(Math.abs(b[i]! - (i === 0 ? 100 : 0)) <= 1e-6, `${dtype} X[${i}] = ${b[i]}`);
    }
  });
}

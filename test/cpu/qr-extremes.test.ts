/**
 * Householder QR at float64's limits, on both CPU backends: geqrf's R and gels's X of a matrix
 * scaled by a power of two (2^700, 2^-700, and 2^-1030, whose elements are subnormal) against the
 * unscaled matrix's, which they equal up to the scale (exactly in exact arithmetic; the subnormal
 * inputs keep 44 bits). LAPACK's dlarfg / zlarfg rescale a column whose norm is below the safe
 * minimum, and zladiv divides without squaring: without them 1 / (alpha - beta) overflowed to Inf
 * (subnormal columns; complex from about 1e-154) or the complex reciprocal's r^2 + i^2 did (from
 * about 1e154), and R and X came out NaN or wrong with info 0. Then the fast backend's two-matrix
 * complex QR (n <= 16): a member the kernel hands back (a NaN, an infinity, a value near the
 * limits) leaves every other member's result bit for bit as a batch without it gives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';

const BACKENDS = ['reference', 'cpu'] as const;
const N = 5, COUNT = 3, NRHS = 2;

/** Deterministic values in [-0.5, 0.5). */
function values(length: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length }, () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; });
}

/** geqrf's A (R above the diagonal) and gels's X of the batch, the middle matrix scaled by `scale`. */
function solve(ctx: Context, complex: boolean, scale: number): { r: Float64Array; x: Float64Array; info: number[] } {
  const parts = complex ? 2 : 1, per = parts * N * N, bper = parts * N * NRHS;
  const dtype = complex ? 'complex128' as const : 'float64' as const;
  const a = values(per * COUNT, 7), b = values(bper * COUNT, 11);
  for (let i = per; i < 2 * per; i++) a[i]! *= scale;
  for (let i = bper; i < 2 * bper; i++) b[i]! *= scale;
  const r = a.slice(), tau = new Float64Array(parts * N * COUNT), info = new Int32Array(COUNT);
  ctx.geqrf({ a: strided(r, { rows: N, count: COUNT, dtype }), tau: strided(tau, { rows: N, cols: 1, count: COUNT, dtype }), info });
  ctx.gels({ a: strided(a, { rows: N, count: COUNT, dtype }), b: strided(b, { rows: N, cols: NRHS, count: COUNT, dtype }), info });
  return { r: r.subarray(per, 2 * per), x: b.subarray(bper, 2 * bper), info: [...info] };
}

for (const backend of BACKENDS) {
  for (const complex of [false, true]) {
    test(`${backend} ${complex ? 'complex128' : 'float64'} geqrf and gels: R scales with A and X does not, at 2^700, 2^-700 and subnormal 2^-1030`, async () => {
      const ctx = await open({ backend });
      const base = solve(ctx, complex, 1);
      const parts = complex ? 2 : 1;
      for (const e of [700, -700, -1030]) {
        const scale = 2 ** e;
        const got = solve(ctx, complex, scale);
        assert.deepEqual(got.info, [0, 0, 0], `info at 2^${e}`);
        // R's upper triangle (the reflectors below it are scale-free too, but compare R).
        for (let j = 0; j < N; j++) for (let i = 0; i <= j; i++) for (let h = 0; h < parts; h++) {
          const at = parts * (i + j * N) + h, want = base.r[at]! * scale, have = got.r[at]!;
          assert.ok(Math.abs(have - want) <= 1e-10 * Math.abs(base.r[parts * (j + j * N)]! * scale) + 1e-300 * scale, `R(${i}, ${j})[${h}] at 2^${e}: ${have} against ${want}`);
        }
        for (let i = 0; i < got.x.length; i++) {
          assert.ok(Math.abs(got.x[i]! - base.x[i]!) <= 1e-9 * (1 + Math.abs(base.x[i]!)), `X[${i}] at 2^${e}: ${got.x[i]} against ${base.x[i]}`);
        }
      }
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
